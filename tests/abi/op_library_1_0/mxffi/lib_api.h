/*!
 * \file mxffi/lib_api.h
 * \brief Custom operator libraries: ops written in their own project, built into a shared
 *  library and loaded at run time with mxffi.library.load, with no link to libmxffi.
 *
 * This header is the whole dependency. It has two halves:
 *
 * - The C surface the loader reads (MXFFIOpLib*): plain C structs and function pointers, so a
 *   library and mxffi need not share a compiler, a standard library or a build. A library
 *   exports five functions (MXFFIOpLibVersion, MXFFIOpLibInit, MXFFIOpLibOpCount,
 *   MXFFIOpLibGetOp, MXFFIOpLibLastError); this header defines them.
 * - The C++ API a library is written in (mxffi::oplib): REGISTER_OP and the callbacks, with
 *   std::vector and std::string, turned into the C surface by the trampolines below.
 *
 * \code
 * #include <mxffi/lib_api.h>
 * using namespace mxffi::oplib;
 *
 * Status ReluShape(const Attrs&, const std::vector<Shape>& in, std::vector<Shape>* out) {
 *   (*out)[0] = in[0];
 *   return Status::Ok();
 * }
 * ...
 * REGISTER_OP(my_relu)
 *     .setInferShape(ReluShape)
 *     .setInferType(ReluType)
 *     .setForward(ReluForward, "cpu");
 * \endcode
 *
 * Versioning: MXFFI_OPLIB_ABI_MAJOR changes when the C surface changes incompatibly; mxffi
 * refuses a library of another major. MXFFI_OPLIB_ABI_MINOR grows when fields are added at the
 * end of MXFFIOpLibOp (its struct_size tells the loader which exist), so a library of a newer
 * minor loads into an older mxffi, which ignores what it does not know, and the other way
 * round.
 *
 * See docs/custom_ops.md for the guide.
 */
#ifndef MXFFI_LIB_API_H_
#define MXFFI_LIB_API_H_

#include <stddef.h>
#include <stdint.h>

/*! \brief The op-library ABI version this header speaks. */
#define MXFFI_OPLIB_ABI_MAJOR 1
#define MXFFI_OPLIB_ABI_MINOR 0

/*! \brief Most dimensions of a tensor (as mxffi's kMaxNDim). */
#define MXFFI_OPLIB_MAX_NDIM 32
/*! \brief Most inputs or outputs of an op (as mxffi's kMaxOpArgs). */
#define MXFFI_OPLIB_MAX_ARGS 16

/*! \brief Callback results. */
#define MXFFI_OPLIB_OK 0
#define MXFFI_OPLIB_FAIL (-1)
/*! \brief From infer_stype: no sparse kernel for these storage types; use the dense fallback. */
#define MXFFI_OPLIB_FALLBACK 1

/*! \brief Storage types: the values of c_api.h's MXFFIStorageType (frozen; ABI-tested). */
#define MXFFI_OPLIB_STYPE_DEFAULT 0
#define MXFFI_OPLIB_STYPE_ROW_SPARSE 1
#define MXFFI_OPLIB_STYPE_CSR 2

/*! \brief Device types, as DLPack numbers them. */
#define MXFFI_OPLIB_CPU 1
#define MXFFI_OPLIB_CUDA 2

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief An element type, laid out as DLPack's DLDataType (code 0 int, 1 uint, 2 float, 6 bool).
 */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} MXFFIOpLibDType;

/*!
 * \brief An op's attributes for one call: string keys and values, as the caller gave them.
 *  Like every struct mxffi hands a library, it starts with its size, so that fields can be
 *  added at its end in a later minor version: read a field only when struct_size covers it.
 */
typedef struct {
  uint32_t struct_size;
  int32_t num;
  const char* const* keys;
  const char* const* values;
} MXFFIOpLibAttrs;

/*!
 * \brief One input or output of a forward call. A dense tensor is C-contiguous in data. A
 *  sparse one holds its logical shape, and its parts: data (nnz values for csr, nnz rows of
 *  shape[1:] for row_sparse), indices (csr column ids, or row_sparse row ids) and, for csr,
 *  indptr (shape[0] + 1 offsets); indices and indptr share one dtype, int32 or int64.
 *  Tensors travel as arrays of pointers, so that each can grow at its end (struct_size).
 */
typedef struct {
  uint32_t struct_size;
  int32_t ndim;
  void* data;
  const int64_t* shape;
  int32_t stype;
  MXFFIOpLibDType dtype;
  int32_t device_type;
  int32_t device_id;
  int64_t nnz;
  void* indices;
  MXFFIOpLibDType indices_dtype;
  void* indptr;
  MXFFIOpLibDType indptr_dtype;
} MXFFIOpLibTensor;

/*! \brief What mxffi lends a forward call. */
typedef struct {
  uint32_t struct_size;
  /*! \brief The device the call runs on (MXFFI_OPLIB_CPU or MXFFI_OPLIB_CUDA, and its id). */
  int32_t device_type;
  int32_t device_id;
  /*! \brief mxffi's own state for the call; pass it back to the functions below. */
  void* host;
  /*! \brief The cudaStream_t a gpu forward runs on (NULL: the default stream); NULL on cpu. */
  void* stream;
  /*!
   * \brief Allocate sparse output #index's parts for nnz values (csr: nnz values and indices,
   *  shape[0] + 1 indptr) or nnz rows (row_sparse), int64 indices, and point *out at them.
   * \return MXFFI_OPLIB_OK, or MXFFI_OPLIB_FAIL (mxffi reports why when the forward returns).
   */
  int32_t (*alloc_sparse)(void* host, int32_t index, int64_t nnz, MXFFIOpLibTensor* out);
  /*!
   * \brief Scratch host memory, freed after the call, for cpu calls; NULL on failure, and
   *  always NULL for gpu calls until mxffi lends device memory (mxffi reports why).
   */
  void* (*alloc_workspace)(void* host, size_t bytes);
} MXFFIOpLibResource;

typedef int32_t (*MXFFIOpLibParseAttrsFn)(void* self, const MXFFIOpLibAttrs* attrs);
/*! \brief out_shapes holds num_out rows of MXFFI_OPLIB_MAX_NDIM extents. */
typedef int32_t (*MXFFIOpLibInferShapeFn)(void* self, const MXFFIOpLibAttrs* attrs,
                                          const int64_t* const* in_shapes, const int32_t* in_ndims,
                                          int32_t num_in, int64_t* out_shapes, int32_t* out_ndims,
                                          int32_t num_out);
typedef int32_t (*MXFFIOpLibInferTypeFn)(void* self, const MXFFIOpLibAttrs* attrs,
                                         const MXFFIOpLibDType* in, int32_t num_in,
                                         MXFFIOpLibDType* out, int32_t num_out);
/*! \return MXFFI_OPLIB_OK (forward takes these storage types), _FALLBACK or _FAIL. */
typedef int32_t (*MXFFIOpLibInferSTypeFn)(void* self, const MXFFIOpLibAttrs* attrs,
                                          const int32_t* in, int32_t num_in, int32_t* out,
                                          int32_t num_out);
typedef int32_t (*MXFFIOpLibForwardFn)(void* self, const MXFFIOpLibAttrs* attrs,
                                       MXFFIOpLibTensor* const* in, int32_t num_in,
                                       MXFFIOpLibTensor* const* out, int32_t num_out,
                                       const MXFFIOpLibResource* res);
/*! \brief Make the state for these attributes on this device (device_type, device_id). */
typedef int32_t (*MXFFIOpLibCreateStateFn)(void* self, const MXFFIOpLibAttrs* attrs,
                                           int32_t device_type, int32_t device_id, void** state);
typedef int32_t (*MXFFIOpLibStateForwardFn)(void* self, void* state, MXFFIOpLibTensor* const* in,
                                            int32_t num_in, MXFFIOpLibTensor* const* out,
                                            int32_t num_out, const MXFFIOpLibResource* res);
typedef void (*MXFFIOpLibDestroyStateFn)(void* self, void* state);

/*!
 * \brief One op, as MXFFIOpLibGetOp describes it. Fields are only ever added at the end, with
 *  a minor version; struct_size says how many this library has. The strings are read once,
 *  when the library is loaded.
 */
typedef struct {
  uint32_t struct_size;
  const char* name;
  const char* doc;
  int32_t num_inputs;
  int32_t num_outputs;
  /*! \brief Passed back as every callback's first argument. */
  void* self;
  /*! \brief NULL: the op takes no attributes. */
  MXFFIOpLibParseAttrsFn parse_attrs;
  MXFFIOpLibInferShapeFn infer_shape;
  MXFFIOpLibInferTypeFn infer_type;
  /*! \brief NULL: a dense op (sparse inputs take the dense fallback). */
  MXFFIOpLibInferSTypeFn infer_stype;
  /*! \brief Indexed 0 cpu, 1 gpu; NULL where the op has no kernel. */
  MXFFIOpLibForwardFn forward[2];
  /*! \brief A stateful op sets these instead of forward: one state per attributes and device. */
  MXFFIOpLibCreateStateFn create_state;
  MXFFIOpLibStateForwardFn state_forward[2];
  MXFFIOpLibDestroyStateFn destroy_state;
} MXFFIOpLibOp;

#ifdef __cplusplus
}  // extern "C"
#endif

/* ------------------------------------------------------------------------------------------- */
/* The C++ API, and the exported surface it defines. mxffi's own loader defines MXFFI_OPLIB_HOST */
/* to read the C half only.                                                                      */
/* ------------------------------------------------------------------------------------------- */
#if defined(__cplusplus) && !defined(MXFFI_OPLIB_HOST)

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Everything of the C++ API stays inside the library: two op libraries loaded into one process
// never bind to each other's registry, last error or trampolines, whatever their own visibility
// flags. Only the entry points at the end of this header are exported.
#pragma GCC visibility push(hidden)

namespace mxffi {
namespace oplib {

/*!
 * \brief What a callback returns: Ok, or an error with the exception class the Python caller
 *  gets ("ValueError", "TypeError", ...) and a message built with <<.
 *
 * \code
 * return Error("ValueError") << "my_gemm: inner dimensions differ: " << k1 << " vs " << k2;
 * \endcode
 */
class Status {
 public:
  static Status Ok() { return Status(MXFFI_OPLIB_OK, ""); }
  /*! \brief From an infer-storage-type callback: take the dense fallback for these types. */
  static Status Fallback() { return Status(MXFFI_OPLIB_FALLBACK, ""); }
  Status(int32_t code, std::string kind) : code_(code), kind_(std::move(kind)) {}

  bool ok() const { return code_ == MXFFI_OPLIB_OK; }
  int32_t code() const { return code_; }
  const std::string& kind() const { return kind_; }
  std::string message() const { return message_.str(); }

  template <typename T>
  Status& operator<<(const T& value) {
    message_ << value;
    return *this;
  }
  Status(const Status& other) : code_(other.code_), kind_(other.kind_) {
    message_ << other.message_.str();
  }
  Status& operator=(const Status& other) {
    code_ = other.code_;
    kind_ = other.kind_;
    message_.str(other.message_.str());
    return *this;
  }

 private:
  int32_t code_;
  std::string kind_;
  std::ostringstream message_;
};

/*! \brief An error Status of the given exception class; stream the message into it. */
inline Status Error(const char* kind = "ValueError") { return Status(MXFFI_OPLIB_FAIL, kind); }

/*! \brief Storage types. */
enum class StorageType : int32_t {
  kDefault = MXFFI_OPLIB_STYPE_DEFAULT,
  kRowSparse = MXFFI_OPLIB_STYPE_ROW_SPARSE,
  kCSR = MXFFI_OPLIB_STYPE_CSR,
};

/*! \brief A shape: one extent per dimension. */
using Shape = std::vector<int64_t>;

/*! \brief An element type (DLPack's code, bits, lanes). */
struct DType {
  uint8_t code = 2;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static DType Float32() { return {2, 32, 1}; }
  static DType Float64() { return {2, 64, 1}; }
  static DType Int32() { return {0, 32, 1}; }
  static DType Int64() { return {0, 64, 1}; }
  bool operator==(const DType& o) const {
    return code == o.code && bits == o.bits && lanes == o.lanes;
  }
  bool operator!=(const DType& o) const { return !(*this == o); }
  /*! \return numpy's name ("float32", "int64", "bool"), or "code:bits" for others. */
  std::string name() const {
    const char* base = code == 0 ? "int" : code == 1 ? "uint" : code == 2 ? "float" : nullptr;
    if (code == 6 && bits == 8) return "bool";
    std::string out = base ? std::string(base) + std::to_string(bits)
                           : std::to_string(code) + ":" + std::to_string(bits);
    return lanes == 1 ? out : out + "x" + std::to_string(lanes);
  }
};
inline std::ostream& operator<<(std::ostream& os, const DType& t) { return os << t.name(); }

/*! \brief "(3, 4)", as numpy prints shapes. */
inline std::string ShapeString(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

/*! \brief The attributes of one call: string keys and values, with typed readers. */
class Attrs {
 public:
  Attrs() = default;
  explicit Attrs(const MXFFIOpLibAttrs* c) {
    for (int32_t i = 0; c != nullptr && i < c->num; ++i) items_[c->keys[i]] = c->values[i];
  }
  const std::map<std::string, std::string>& items() const { return items_; }
  bool has(const std::string& key) const { return items_.count(key) != 0; }
  /*! \return the value of key, or fallback when it is absent. */
  std::string get(const std::string& key, const std::string& fallback = "") const {
    auto it = items_.find(key);
    return it == items_.end() ? fallback : it->second;
  }
  /*!
   * \brief Read key as a number into *out (left alone when key is absent).
   * \return Ok, or a ValueError naming the key and the value that is not a number.
   */
  Status get_double(const std::string& key, double* out) const {
    auto it = items_.find(key);
    if (it == items_.end()) return Status::Ok();
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end != '\0' || errno == ERANGE) {
      return Error("ValueError") << "attribute " << key << "='" << it->second
                                 << "' is not a number a double holds";
    }
    *out = v;
    return Status::Ok();
  }
  /*! \brief As get_double, for an integer. */
  Status get_int(const std::string& key, int64_t* out) const {
    auto it = items_.find(key);
    if (it == items_.end()) return Status::Ok();
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(it->second.c_str(), &end, 10);  // NOLINT(runtime/int)
    if (it->second.empty() || *end != '\0' || errno == ERANGE) {
      return Error("ValueError") << "attribute " << key << "='" << it->second
                                 << "' is not an integer an int64 holds";
    }
    *out = static_cast<int64_t>(v);
    return Status::Ok();
  }

 private:
  std::map<std::string, std::string> items_;
};

/*! \brief An input or output of a forward call (see MXFFIOpLibTensor). */
class Tensor {
 public:
  explicit Tensor(MXFFIOpLibTensor* t) : t_(t) {}
  void* data() const { return t_->data; }
  template <typename T>
  T* data() const {
    return static_cast<T*>(t_->data);
  }
  Shape shape() const { return Shape(t_->shape, t_->shape + t_->ndim); }
  int ndim() const { return t_->ndim; }
  int64_t dim(int i) const { return t_->shape[i]; }
  /*! \return the number of elements of the logical shape. */
  int64_t size() const {
    int64_t n = 1;
    for (int i = 0; i < t_->ndim; ++i) n *= t_->shape[i];
    return n;
  }
  DType dtype() const { return {t_->dtype.code, t_->dtype.bits, t_->dtype.lanes}; }
  StorageType stype() const { return static_cast<StorageType>(t_->stype); }
  bool is_gpu() const { return t_->device_type == MXFFI_OPLIB_CUDA; }
  int device_id() const { return t_->device_id; }
  // ---- sparse ----
  /*! \return stored values (csr) or stored rows (row_sparse). */
  int64_t nnz() const { return t_->nnz; }
  template <typename T>
  T* indices() const {
    return static_cast<T*>(t_->indices);
  }
  template <typename T>
  T* indptr() const {
    return static_cast<T*>(t_->indptr);
  }
  DType indices_dtype() const {
    return {t_->indices_dtype.code, t_->indices_dtype.bits, t_->indices_dtype.lanes};
  }
  DType indptr_dtype() const {
    return {t_->indptr_dtype.code, t_->indptr_dtype.bits, t_->indptr_dtype.lanes};
  }
  MXFFIOpLibTensor* raw() const { return t_; }

 private:
  MXFFIOpLibTensor* t_;
};

/*! \brief What mxffi lends a forward call: the stream, scratch memory, sparse outputs. */
class Resource {
 public:
  Resource(const MXFFIOpLibResource* r, MXFFIOpLibTensor* const* outputs)
      : r_(r), outputs_(outputs) {}
  /*! \return whether the call runs on a CUDA device, and which. */
  bool is_gpu() const { return r_->device_type == MXFFI_OPLIB_CUDA; }
  int device_id() const { return r_->device_id; }
  /*! \return the cudaStream_t of a gpu call (nullptr: the default stream). */
  void* stream() const { return r_->stream; }
  /*!
   * \return bytes of scratch host memory for a cpu call, freed after the call; nullptr on
   *  failure, and for gpu calls until mxffi lends device memory.
   */
  void* workspace(size_t bytes) const { return r_->alloc_workspace(r_->host, bytes); }
  /*!
   * \brief Allocate sparse output #index for nnz values (csr) or rows (row_sparse), with int64
   *  indices; the output Tensor then points at the parts, to be filled.
   * \return false when mxffi refused (it reports why once forward returns).
   */
  bool alloc_sparse(int index, int64_t nnz) const {
    return r_->alloc_sparse(r_->host, index, nnz, outputs_[index]) == MXFFI_OPLIB_OK;
  }

 private:
  const MXFFIOpLibResource* r_;
  MXFFIOpLibTensor* const* outputs_;
};

/*! \brief A stateful op's state: made once per set of attributes and device, deleted by the
 * library. */
class OpState {
 public:
  virtual ~OpState() = default;
  virtual Status Forward(const std::vector<Tensor>& in, const std::vector<Tensor>& out,
                         const Resource& res) = 0;
};

using ParseAttrsFn = Status (*)(const Attrs& attrs);
using InferShapeFn = Status (*)(const Attrs& attrs, const std::vector<Shape>& in,
                                std::vector<Shape>* out);
using InferTypeFn = Status (*)(const Attrs& attrs, const std::vector<DType>& in,
                               std::vector<DType>* out);
using InferSTypeFn = Status (*)(const Attrs& attrs, const std::vector<StorageType>& in,
                                std::vector<StorageType>* out);
using ForwardFn = Status (*)(const Attrs& attrs, const std::vector<Tensor>& in,
                             const std::vector<Tensor>& out, const Resource& res);
/*! \brief Make the state for attrs; is_gpu and device_id say which device it serves. */
using CreateStateFn = Status (*)(const Attrs& attrs, bool is_gpu, int device_id, OpState** state);

namespace details {

struct LastError {
  std::string kind, message;
};
inline LastError& GetLastError() {
  static thread_local LastError e;
  return e;
}
/*! \brief The op-library ABI version of the mxffi that loaded the library (MXFFIOpLibInit). */
struct HostVersion {
  int32_t major = 0, minor = 0;
};
inline HostVersion& Host() {
  static HostVersion v;
  return v;
}
inline int32_t Record(const Status& s) {
  if (s.code() == MXFFI_OPLIB_FAIL) {
    GetLastError().kind = s.kind().empty() ? "RuntimeError" : s.kind();
    GetLastError().message = s.message();
  }
  return s.code();
}
/*! \brief Run a callback body; an exception it throws becomes a failure with its message. */
template <typename F>
int32_t Guard(F&& body) {
  try {
    return Record(body());
  } catch (const std::invalid_argument& e) {
    return Record(Error("ValueError") << e.what());
  } catch (const std::out_of_range& e) {
    return Record(Error("IndexError") << e.what());
  } catch (const std::bad_alloc&) {
    return Record(Error("MemoryError") << "out of memory");
  } catch (const std::exception& e) {
    return Record(Error("RuntimeError") << e.what());
  } catch (...) {
    return Record(Error("RuntimeError") << "unknown C++ exception");
  }
}

inline std::vector<Tensor> Wrap(MXFFIOpLibTensor* const* t, int32_t n) {
  std::vector<Tensor> out;
  out.reserve(n);
  for (int32_t i = 0; i < n; ++i) out.emplace_back(t[i]);
  return out;
}

/*! \brief What an infer-shape callback leaves in an output it did not set. */
inline const Shape& UnsetShape() {
  static const Shape unset{-1, -1, -1};
  return unset;
}

}  // namespace details

/*! \brief One op of the library: REGISTER_OP(name) returns it, the setters chain. */
class CustomOp {
 public:
  explicit CustomOp(const char* name) : name_(name) {}

  CustomOp& setDoc(const char* doc) {
    doc_ = doc;
    return *this;
  }
  CustomOp& setNumInputs(int n) {
    num_inputs_ = n;
    return *this;
  }
  CustomOp& setNumOutputs(int n) {
    num_outputs_ = n;
    return *this;
  }
  CustomOp& setParseAttrs(ParseAttrsFn fn) {
    parse_ = fn;
    return *this;
  }
  CustomOp& setInferShape(InferShapeFn fn) {
    shape_ = fn;
    return *this;
  }
  CustomOp& setInferType(InferTypeFn fn) {
    type_ = fn;
    return *this;
  }
  CustomOp& setInferSType(InferSTypeFn fn) {
    stype_ = fn;
    return *this;
  }
  /*! \brief The kernel for device "cpu" or "gpu". */
  CustomOp& setForward(ForwardFn fn, const char* device) {
    forward_[DeviceIndex(device)] = fn;
    return *this;
  }
  /*! \brief Make the op stateful: fn makes the state whose Forward runs for the device. */
  CustomOp& setCreateOpState(CreateStateFn fn, const char* device) {
    create_[DeviceIndex(device)] = fn;
    return *this;
  }

  /*! \return the C description of this op (the trampolines below bound to it). */
  const MXFFIOpLibOp* describe() {
    MXFFIOpLibOp& d = desc_;
    d = MXFFIOpLibOp();
    d.struct_size = sizeof(MXFFIOpLibOp);
    d.name = name_.c_str();
    d.doc = doc_.c_str();
    d.num_inputs = num_inputs_;
    d.num_outputs = num_outputs_;
    d.self = this;
    d.parse_attrs = parse_ ? &ParseTrampoline : nullptr;
    d.infer_shape = shape_ ? &ShapeTrampoline : nullptr;
    d.infer_type = type_ ? &TypeTrampoline : nullptr;
    d.infer_stype = stype_ ? &STypeTrampoline : nullptr;
    d.forward[0] = forward_[0] ? &ForwardTrampoline<0> : nullptr;
    d.forward[1] = forward_[1] ? &ForwardTrampoline<1> : nullptr;
    d.state_forward[0] = create_[0] ? &StateForwardTrampoline : nullptr;
    d.state_forward[1] = create_[1] ? &StateForwardTrampoline : nullptr;
    if (create_[0] || create_[1]) {
      d.create_state = &CreateStateTrampoline;
      d.destroy_state = &DestroyStateTrampoline;
    }
    return &d;
  }
  /*! \return what is missing for the op to be usable, or "". */
  std::string problems() const {
    std::string out;
    if (!shape_) out += " no setInferShape;";
    if (!type_) out += " no setInferType;";
    if (!forward_[0] && !forward_[1] && !create_[0] && !create_[1]) {
      out += " no setForward or setCreateOpState;";
    }
    if ((forward_[0] || forward_[1]) && (create_[0] || create_[1])) {
      out += " both setForward and setCreateOpState;";
    }
    if (bad_device_) out += " a device other than \"cpu\" or \"gpu\";";
    return out;
  }
  const std::string& name() const { return name_; }

 private:
  int DeviceIndex(const char* device) {
    std::string d = device ? device : "";
    if (d != "cpu" && d != "gpu") bad_device_ = true;
    return d == "gpu" ? 1 : 0;
  }

  static int32_t ParseTrampoline(void* self, const MXFFIOpLibAttrs* attrs) {
    auto* op = static_cast<CustomOp*>(self);
    return details::Guard([&] { return op->parse_(Attrs(attrs)); });
  }
  static int32_t ShapeTrampoline(void* self, const MXFFIOpLibAttrs* attrs,
                                 const int64_t* const* in_shapes, const int32_t* in_ndims,
                                 int32_t num_in, int64_t* out_shapes, int32_t* out_ndims,
                                 int32_t num_out) {
    auto* op = static_cast<CustomOp*>(self);
    return details::Guard([&] {
      std::vector<Shape> in(num_in), out(num_out, details::UnsetShape());
      for (int32_t i = 0; i < num_in; ++i) in[i].assign(in_shapes[i], in_shapes[i] + in_ndims[i]);
      Status s = op->shape_(Attrs(attrs), in, &out);
      if (!s.ok()) return s;
      if (out.size() != static_cast<size_t>(num_out)) {
        return Error("RuntimeError") << "infer_shape resized the outputs from " << num_out << " to "
                                     << out.size() << "; set (*out)[i] instead";
      }
      for (int32_t i = 0; i < num_out; ++i) {
        if (out[i] == details::UnsetShape()) {
          return Error("RuntimeError") << "infer_shape left output #" << i << "'s shape unset";
        }
        if (out[i].size() > MXFFI_OPLIB_MAX_NDIM) {
          return Error("ValueError") << "output #" << i << " has " << out[i].size()
                                     << " dimensions; at most " << MXFFI_OPLIB_MAX_NDIM;
        }
        out_ndims[i] = static_cast<int32_t>(out[i].size());
        for (size_t k = 0; k < out[i].size(); ++k) {
          out_shapes[i * MXFFI_OPLIB_MAX_NDIM + k] = out[i][k];
        }
      }
      return s;
    });
  }
  static int32_t TypeTrampoline(void* self, const MXFFIOpLibAttrs* attrs, const MXFFIOpLibDType* in,
                                int32_t num_in, MXFFIOpLibDType* out, int32_t num_out) {
    auto* op = static_cast<CustomOp*>(self);
    return details::Guard([&] {
      std::vector<DType> vin(num_in), vout(num_out, DType{0, 0, 0});
      for (int32_t i = 0; i < num_in; ++i) vin[i] = {in[i].code, in[i].bits, in[i].lanes};
      Status s = op->type_(Attrs(attrs), vin, &vout);
      for (int32_t i = 0; i < num_out; ++i) out[i] = {vout[i].code, vout[i].bits, vout[i].lanes};
      return s;
    });
  }
  static int32_t STypeTrampoline(void* self, const MXFFIOpLibAttrs* attrs, const int32_t* in,
                                 int32_t num_in, int32_t* out, int32_t num_out) {
    auto* op = static_cast<CustomOp*>(self);
    return details::Guard([&] {
      std::vector<StorageType> vin(num_in), vout(num_out, StorageType::kDefault);
      for (int32_t i = 0; i < num_in; ++i) vin[i] = static_cast<StorageType>(in[i]);
      Status s = op->stype_(Attrs(attrs), vin, &vout);
      for (int32_t i = 0; i < num_out; ++i) out[i] = static_cast<int32_t>(vout[i]);
      return s;
    });
  }
  template <int kDev>
  static int32_t ForwardTrampoline(void* self, const MXFFIOpLibAttrs* attrs,
                                   MXFFIOpLibTensor* const* in, int32_t num_in,
                                   MXFFIOpLibTensor* const* out, int32_t num_out,
                                   const MXFFIOpLibResource* res) {
    auto* op = static_cast<CustomOp*>(self);
    return details::Guard([&] {
      return op->forward_[kDev](Attrs(attrs), details::Wrap(in, num_in),
                                details::Wrap(out, num_out), Resource(res, out));
    });
  }
  static int32_t CreateStateTrampoline(void* self, const MXFFIOpLibAttrs* attrs,
                                       int32_t device_type, int32_t device_id, void** state) {
    auto* op = static_cast<CustomOp*>(self);
    return details::Guard([&] {
      const bool gpu = device_type == MXFFI_OPLIB_CUDA;
      CreateStateFn fn = op->create_[gpu ? 1 : 0];
      if (fn == nullptr) {
        return Error("NotImplementedError")
               << "no setCreateOpState for device " << (gpu ? "gpu" : "cpu");
      }
      OpState* s = nullptr;
      Status st = fn(Attrs(attrs), gpu, device_id, &s);
      if (st.ok() && s == nullptr) {
        return Error("RuntimeError") << "setCreateOpState's function made no state";
      }
      if (!st.ok()) delete s;
      *state = st.ok() ? s : nullptr;
      return st;
    });
  }
  static int32_t StateForwardTrampoline(void* /*self*/, void* state, MXFFIOpLibTensor* const* in,
                                        int32_t num_in, MXFFIOpLibTensor* const* out,
                                        int32_t num_out, const MXFFIOpLibResource* res) {
    return details::Guard([&] {
      return static_cast<OpState*>(state)->Forward(details::Wrap(in, num_in),
                                                   details::Wrap(out, num_out), Resource(res, out));
    });
  }
  static void DestroyStateTrampoline(void* /*self*/, void* state) {
    delete static_cast<OpState*>(state);
  }

  std::string name_, doc_;
  int num_inputs_ = 1, num_outputs_ = 1;
  ParseAttrsFn parse_ = nullptr;
  InferShapeFn shape_ = nullptr;
  InferTypeFn type_ = nullptr;
  InferSTypeFn stype_ = nullptr;
  ForwardFn forward_[2] = {nullptr, nullptr};
  CreateStateFn create_[2] = {nullptr, nullptr};
  bool bad_device_ = false;
  MXFFIOpLibOp desc_{};
};

/*! \brief The library's ops, in registration order (one list per library: hidden). */
inline std::deque<CustomOp>& Registry() {
  static std::deque<CustomOp> ops;  // a deque never moves what it holds
  return ops;
}
inline CustomOp& Register(const char* name) {
  Registry().emplace_back(name);
  return Registry().back();
}

}  // namespace oplib
}  // namespace mxffi

#pragma GCC visibility pop

#define MXFFI_OPLIB_CONCAT2_(a, b) a##b
#define MXFFI_OPLIB_CONCAT_(a, b) MXFFI_OPLIB_CONCAT2_(a, b)
#define MXFFI_OPLIB_STR2_(a) #a
#define MXFFI_OPLIB_STR_(a) MXFFI_OPLIB_STR2_(a)
/*!
 * \brief Register an op of this library: REGISTER_OP(my_relu).setInferShape(...)... The name
 *  is macro-expanded first, so a build can choose it (-DNAME=my_relu, REGISTER_OP(NAME)).
 */
#define REGISTER_OP(Name)                                                \
  [[maybe_unused]] static ::mxffi::oplib::CustomOp& MXFFI_OPLIB_CONCAT_( \
      __mxffi_oplib_op_, __COUNTER__) = ::mxffi::oplib::Register(MXFFI_OPLIB_STR_(Name))

/*
 * The exported C surface. Every file of a library that includes this header defines it; the
 * definitions are weak, so the linker keeps one.
 */
#define MXFFI_OPLIB_EXPORT extern "C" __attribute__((weak, visibility("default"), used))

MXFFI_OPLIB_EXPORT void MXFFIOpLibVersion(int32_t* major, int32_t* minor) {
  *major = MXFFI_OPLIB_ABI_MAJOR;
  *minor = MXFFI_OPLIB_ABI_MINOR;
}

/*! \brief Check the registrations; MXFFI_OPLIB_FAIL names each incomplete op. */
MXFFI_OPLIB_EXPORT int32_t MXFFIOpLibInit(int32_t host_major, int32_t host_minor) {
  using mxffi::oplib::Error;
  // Kept for code that reads a field a later minor added: only when the host is that new.
  mxffi::oplib::details::Host() = {host_major, host_minor};
  if (host_major != MXFFI_OPLIB_ABI_MAJOR) {
    return mxffi::oplib::details::Record(Error("RuntimeError")
                                         << "the library speaks op-library ABI "
                                         << MXFFI_OPLIB_ABI_MAJOR << ", mxffi " << host_major);
  }
  std::string problems;
  for (const mxffi::oplib::CustomOp& op : mxffi::oplib::Registry()) {
    std::string p = op.problems();
    if (!p.empty()) problems += "\n  " + op.name() + ":" + p;
  }
  if (problems.empty()) return MXFFI_OPLIB_OK;
  return mxffi::oplib::details::Record(Error("RuntimeError")
                                       << "incomplete op registrations:" << problems);
}

MXFFI_OPLIB_EXPORT int32_t MXFFIOpLibOpCount(void) {
  return static_cast<int32_t>(mxffi::oplib::Registry().size());
}

MXFFI_OPLIB_EXPORT const MXFFIOpLibOp* MXFFIOpLibGetOp(int32_t index) {
  auto& ops = mxffi::oplib::Registry();
  if (index < 0 || static_cast<size_t>(index) >= ops.size()) return nullptr;
  return ops[index].describe();
}

/*! \return the message of the calling thread's last failed callback; *kind its class. */
MXFFI_OPLIB_EXPORT const char* MXFFIOpLibLastError(const char** kind) {
  const mxffi::oplib::details::LastError& e = mxffi::oplib::details::GetLastError();
  if (kind != nullptr) *kind = e.kind.c_str();
  return e.message.c_str();
}

#endif  // __cplusplus && !MXFFI_OPLIB_HOST

#endif  // MXFFI_LIB_API_H_
