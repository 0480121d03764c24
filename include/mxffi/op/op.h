/*!
 * \file mxffi/op/op.h
 * \brief The operator registry, per-op attribute tables and Invoke.
 *
 * An op is registered once, in a static initialiser, with its attributes:
 *
 * \code
 * MXFFI_REGISTER_OP(quadratic)
 *     .describe("a*x**2 + b*x + c, elementwise.")
 *     .set_num_inputs(1)
 *     .add_argument("x", "NDArray", "the input")
 *     .set_param<QuadraticParam>()
 *     .set_attr<FInferShape>("FInferShape", SameShape)
 *     .set_attr<FInferType>("FInferType", QuadraticType)
 *     .set_attr<FCompute>("FCompute<cpu>", QuadraticCompute);
 * \endcode
 *
 * Attributes live in one table per attribute name, indexed by the op's index, so the call
 * path reads them with no string lookup. Invoke infers output shapes, dtypes and storage types,
 * allocates what the caller did not give, picks the dispatch mode and runs the kernel; on its
 * own it allocates nothing but the outputs.
 */
#ifndef MXFFI_OP_OP_H_
#define MXFFI_OP_OP_H_

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/op/storage.h>

#include <any>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

namespace mxffi {

/*! \brief Most dimensions an op works on (numpy's historical limit). */
constexpr int kMaxNDim = 32;
/*!
 * \brief Most outputs of one op, and most inputs of an op with a fixed number of them; Invoke
 *  holds that many inline. An op whose input count comes from its parameters (add_n) may take
 *  more, which Invoke holds on the heap.
 */
constexpr int kMaxOpArgs = 16;
/*! \brief Most ops one process can register. */
constexpr int kMaxOps = 4096;

/*! \brief A shape held inline (no heap), for inference on the call path. */
class TShape {
 public:
  TShape() = default;
  TShape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.size()); }
  TShape(const int64_t* dims, int ndim) { assign(dims, ndim); }
  // Copies move ndim extents, not the whole inline buffer.
  TShape(const TShape& other) : ndim_(other.ndim_) {
    for (int i = 0; i < ndim_; ++i) dims_[i] = other.dims_[i];
  }
  TShape& operator=(const TShape& other) {
    ndim_ = other.ndim_;
    for (int i = 0; i < ndim_; ++i) dims_[i] = other.dims_[i];
    return *this;
  }

  /*! \brief Copy ndim extents; ValueError when ndim exceeds kMaxNDim. */
  void assign(const int64_t* dims, size_t ndim) {
    resize(ndim);
    for (size_t i = 0; i < ndim; ++i) dims_[i] = dims[i];
  }
  /*! \brief Set the number of dimensions; the new extents are unset. */
  void resize(size_t ndim) {
    MXFFI_CHECK(ndim <= static_cast<size_t>(kMaxNDim), ValueError)
        << "maximum supported dimension for an ndarray is " << kMaxNDim << ", found " << ndim;
    ndim_ = static_cast<int32_t>(ndim);
  }
  void push_back(int64_t d) {
    resize(ndim_ + 1);
    dims_[ndim_ - 1] = d;
  }
  int ndim() const { return ndim_; }
  size_t size() const { return static_cast<size_t>(ndim_); }
  int64_t* data() { return dims_; }
  const int64_t* data() const { return dims_; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + ndim_; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  /*! \return the product of the extents (1 for a 0-d shape). */
  int64_t Size() const {
    int64_t n = 1;
    for (int i = 0; i < ndim_; ++i) n *= dims_[i];
    return n;
  }
  bool operator==(const TShape& o) const {
    if (ndim_ != o.ndim_) return false;
    for (int i = 0; i < ndim_; ++i) {
      if (dims_[i] != o.dims_[i]) return false;
    }
    return true;
  }
  bool operator!=(const TShape& o) const { return !(*this == o); }
  /*! \return "(3, 4)", "(3,)" or "()", as numpy prints shapes. */
  MXFFI_DLL std::string ToString() const;

 private:
  int32_t ndim_ = 0;
  int64_t dims_[kMaxNDim];
};

/*! \brief A pointer and a length: the inputs or outputs of one call. */
template <typename T>
class Span {
 public:
  Span() = default;
  Span(T* data, size_t size) : data_(data), size_(size) {}
  template <typename U>
  Span(const std::vector<U>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <typename U>
  Span(std::vector<U>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() const { return data_; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

/*! \brief What a kernel does with an output: Invoke asks for one of these two. */
enum class OpReqType : int32_t {
  /*! \brief Overwrite it; it is none of the inputs. */
  kWriteTo = 1,
  /*!
   * \brief Overwrite it; it is exactly one of the inputs (the same memory with the same shape,
   *  strides and dtype: an out= array that is also an operand). Invoke asks for it only of an
   *  op setting the bool attribute "TWriteInplace" (an elementwise op, whose kernels read each
   *  element before writing it); for any other op it runs the kernel into a temporary and
   *  copies that into the output, so such a kernel only ever sees kWriteTo. A sparse output
   *  that is also an input always gets new parts: the kernel fills a fresh array, whose parts
   *  Invoke then gives the output.
   */
  kWriteInplace = 2,
};

/*! \brief Where a kernel runs. */
struct OpContext {
  DLDevice device{kDLCPU, 0};
  /*! \brief The device stream (cudaStream_t) or nullptr for the default one. */
  void* stream = nullptr;
};

class Op;

/*! \brief An op and its parameters for one call. */
struct OpAttrs {
  const Op* op = nullptr;
  /*! \brief The op's parameter struct (set_param<P>), or nullptr when it has none. */
  const void* param = nullptr;
  /*! \brief Where an op without inputs (zeros, arange) puts its outputs. */
  DLDevice device{kDLCPU, 0};

  /*! \return the parameter struct as P. */
  template <typename P>
  const P& get() const {
    return *static_cast<const P*>(param);
  }
};

/*! \brief Fill the output shapes from the input shapes; raise (ValueError...) when they clash. */
using FInferShape =
    std::function<void(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out)>;
/*! \brief Fill the output dtypes from the input dtypes; raise (TypeError...) when unsupported. */
using FInferType =
    std::function<void(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out)>;
/*! \brief Fill the output storage types and choose how to dispatch. */
using FInferStorageType = std::function<DispatchMode(
    const OpAttrs& attrs, DLDevice device, Span<const StorageType> in, Span<StorageType> out)>;
/*!
 * \brief A dense kernel. Every input and output is C-contiguous (strides may be NULL) unless
 *  the op sets the bool attribute "TStridedInputs", in which case inputs may be strided. An
 *  output may be one of the inputs (req kWriteInplace) only if the op sets "TWriteInplace".
 */
using FCompute =
    std::function<void(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                       Span<const OpReqType> req, Span<const DLTensor> out)>;
/*!
 * \brief A storage-aware kernel working on the NDArrays as they are. An op whose kernel takes
 *  inputs of one shape only (the elementwise ops, which broadcast only densely) sets the bool
 *  attribute "TSparseSameShape": Invoke then sends inputs of different shapes to the fallback.
 */
using FComputeEx =
    std::function<void(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                       Span<const OpReqType> req, Span<const NDArray> out)>;
/*!
 * \brief The number of inputs of a call, from its parameters: for an op taking any number of
 *  inputs (add_n, and concat or stack), as MXNet's set_num_inputs taking a function.
 */
using FNumInputs = std::function<uint32_t(const OpAttrs& attrs)>;
/*! \brief Parse "name=value" strings into an owned parameter struct (generic invocation). */
using FParamParse = std::function<std::shared_ptr<const void>(
    const std::vector<std::pair<std::string, std::string>>& kwargs)>;
/*! \brief Print a parameter struct as "name=value" strings (for warnings and repr). */
using FParamDict =
    std::function<std::vector<std::pair<std::string, std::string>>(const void* param)>;

namespace details {

/*! \brief One attribute's values, indexed by op index; type-erased. */
class OpAttrTable {
 public:
  explicit OpAttrTable(const std::type_info& type) : type_(&type) { values_.reserve(kMaxOps); }
  const std::type_info& type() const { return *type_; }
  /*! \return the value for op index i, or nullptr. */
  const std::any* Get(int32_t i) const {
    return static_cast<size_t>(i) < size_ && values_[i].has_value() ? &values_[i] : nullptr;
  }
  MXFFI_DLL void Set(int32_t i, std::any value);

 private:
  const std::type_info* type_;
  // Reserved to kMaxOps up front, so registering never moves what a reader is looking at.
  std::vector<std::any> values_;
  size_t size_ = 0;
};

/*! \return the table of an attribute, creating it for type; nullptr on a type mismatch. */
MXFFI_DLL OpAttrTable* GetOpAttrTable(const std::string& name, const std::type_info& type);

}  // namespace details

/*! \brief A read-only view of one attribute over all ops. */
template <typename T>
class OpMap {
 public:
  explicit OpMap(const details::OpAttrTable* table) : table_(table) {}
  /*! \return the value for op, or nullptr when op does not set it. */
  inline const T* get(const Op* op) const;
  bool contains(const Op* op) const { return get(op) != nullptr; }

 private:
  const details::OpAttrTable* table_;
};

/*! \brief A registered operator. */
class Op {
 public:
  /*! \brief The name it was registered under. */
  std::string name;
  /*! \brief Doc string. */
  std::string description;
  /*! \brief Number of inputs (for an op of a fixed arity) and outputs. */
  uint32_t num_inputs = 1;
  uint32_t num_outputs = 1;
  /*!
   * \brief For an op taking any number of inputs: the count for a call's parameters (then
   *  num_inputs is unused), and the parameter holding it, which generic invocation (ops.invoke)
   *  fills from the number of inputs given when the caller leaves it out. Empty otherwise.
   */
  FNumInputs get_num_inputs;
  std::string key_var_num_args;
  /*! \brief Name, type and doc of each input, in order. */
  struct Argument {
    std::string name, type, doc;
  };
  std::vector<Argument> arguments;
  /*! \brief The parameters, one "name : type" line each (set_param). */
  std::string param_doc;
  /*! \brief Position in every attribute table. */
  int32_t index = -1;

  /*!
   * \brief The attributes Invoke reads, resolved when they are set, so that a call reads them
   *  from the op instead of searching seven tables. Each points into its table (nullptr when
   *  the op does not set it); set_attr keeps them in step.
   */
  struct CallAttrs {
    const FInferShape* infer_shape = nullptr;
    const FInferType* infer_type = nullptr;
    const FInferStorageType* infer_storage_type = nullptr;
    /*! \brief FCompute<cpu> and FCompute<gpu>. */
    const FCompute* compute[2] = {nullptr, nullptr};
    /*! \brief FComputeEx<cpu> and FComputeEx<gpu>. */
    const FComputeEx* compute_ex[2] = {nullptr, nullptr};
    /*! \brief TStridedInputs. */
    bool strided_inputs = false;
    /*! \brief TSparseSameShape. */
    bool sparse_same_shape = false;
    /*! \brief TWriteInplace. */
    bool write_inplace = false;
    /*!
     * \brief TCOOInputs: the op's kernels take coo inputs as they are; Invoke converts the coo
     *  inputs of every other op to csr (with the storage fallback warning).
     */
    bool coo_inputs = false;
  };
  const CallAttrs& call_attrs() const { return call_attrs_; }

  /*! \return the op first registered as name, never a replacement; ValueError if none. */
  MXFFI_DLL static const Op* Get(std::string_view name);
  /*! \return the op registered as name, or nullptr. */
  MXFFI_DLL static const Op* Find(std::string_view name);
  /*! \return the names of every registered op, sorted. */
  MXFFI_DLL static std::vector<std::string> ListNames();
  /*! \brief Start registering name (MXFFI_REGISTER_OP). */
  MXFFI_DLL static Op& Register(const char* name);
  /*!
   * \brief The op registered (or to be registered) as name, to add attributes from another
   *  file, such as a sparse kernel for a dense op (MXFFI_EXTEND_OP). It stays invisible to Find
   *  until its MXFFI_REGISTER_OP runs, whichever static initialiser runs first.
   */
  MXFFI_DLL static Op& Extend(const char* name);
  /*!
   * \brief Register name afresh, replacing the op registered under it, if any: Find returns
   *  the new op from then on; Get keeps returning the first, which stays valid (API functions
   *  fill its parameter struct, whatever a library registers). Loading a custom op library
   *  with override=True does this.
   */
  MXFFI_DLL static Op& Replace(const char* name);

  /*! \return the attribute table name, read with OpMap<T>::get(op). Fetch it once. */
  template <typename T>
  static OpMap<T> GetAttr(const std::string& name) {
    return OpMap<T>(details::GetOpAttrTable(name, typeid(T)));
  }
  /*! \return this op's value of an attribute, or nullptr. */
  template <typename T>
  const T* attr(const std::string& name) const {
    return GetAttr<T>(name).get(this);
  }

  Op& describe(std::string doc) {
    description = std::move(doc);
    return *this;
  }
  Op& set_num_inputs(uint32_t n) {
    num_inputs = n;
    get_num_inputs = nullptr;
    return *this;
  }
  /*! \brief Take as many inputs as fn gives for a call's parameters (add_n's num_args). */
  Op& set_num_inputs(FNumInputs fn) {
    get_num_inputs = std::move(fn);
    return *this;
  }
  /*! \brief Name the parameter holding the number of inputs (see key_var_num_args). */
  Op& set_key_var_num_args(std::string key) {
    key_var_num_args = std::move(key);
    return *this;
  }
  /*! \return whether the number of inputs comes from the parameters of each call. */
  bool variable_inputs() const { return static_cast<bool>(get_num_inputs); }
  /*! \return the number of inputs a call with these parameters takes. */
  uint32_t NumInputs(const OpAttrs& attrs) const {
    return get_num_inputs ? get_num_inputs(attrs) : num_inputs;
  }
  Op& set_num_outputs(uint32_t n) {
    num_outputs = n;
    return *this;
  }
  Op& add_argument(std::string arg_name, std::string type, std::string doc) {
    arguments.push_back({std::move(arg_name), std::move(type), std::move(doc)});
    return *this;
  }
  /*! \brief Set an attribute; a second type for the same name is a registration error. */
  template <typename T>
  Op& set_attr(const std::string& attr_name, T value) {
    SetAttr(attr_name, typeid(T), std::any(std::move(value)));
    return *this;
  }
  /*! \brief Use P (a dmlc::Parameter) as the op's parameters: parse and print it by name. */
  template <typename P>
  inline Op& set_param();

 private:
  MXFFI_DLL void SetAttr(const std::string& attr_name, const std::type_info& type, std::any value);

  CallAttrs call_attrs_;
};

template <typename T>
inline const T* OpMap<T>::get(const Op* op) const {
  if (table_ == nullptr) return nullptr;
  const std::any* v = table_->Get(op->index);
  return v == nullptr ? nullptr : std::any_cast<T>(v);
}

/*!
 * \brief Run an op: infer, allocate the undefined outputs, dispatch.
 * \param attrs the op and its parameters.
 * \param inputs the op's inputs: NumInputs(attrs) of them.
 * \param outputs the op's num_outputs outputs; each defined one is written into (its shape and
 *  dtype must be what inference gives), each undefined one is allocated.
 */
MXFFI_DLL void Invoke(const OpAttrs& attrs, Span<const NDArray> inputs, Span<NDArray> outputs);

/*!
 * \brief The dispatch mode and output storage types Invoke would choose for these inputs,
 *  without running anything (how a caller sees a storage fallback coming).
 */
MXFFI_DLL DispatchMode InferDispatch(const OpAttrs& attrs, Span<const NDArray> inputs,
                                     Span<StorageType> out_stype);

/*! \brief Invoke for one output, allocated. */
inline NDArray Invoke(const OpAttrs& attrs, Span<const NDArray> inputs) {
  NDArray out;
  Invoke(attrs, inputs, Span<NDArray>(&out, 1));
  return out;
}

}  // namespace mxffi

/*! \brief Register an op: MXFFI_REGISTER_OP(name).set_num_inputs(1)... */
#define MXFFI_REGISTER_OP(OpName)                                                   \
  [[maybe_unused]] static ::mxffi::Op& MXFFI_OP_CONCAT_(__mxffi_op_, __COUNTER__) = \
      ::mxffi::Op::Register(#OpName)
/*! \brief Add attributes to an op registered elsewhere: MXFFI_EXTEND_OP(name).set_attr<...>. */
#define MXFFI_EXTEND_OP(OpName)                                                     \
  [[maybe_unused]] static ::mxffi::Op& MXFFI_OP_CONCAT_(__mxffi_op_, __COUNTER__) = \
      ::mxffi::Op::Extend(#OpName)
#define MXFFI_OP_CONCAT2_(a, b) a##b
#define MXFFI_OP_CONCAT_(a, b) MXFFI_OP_CONCAT2_(a, b)

#endif  // MXFFI_OP_OP_H_
