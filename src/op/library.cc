/*!
 * \file library.cc
 * \brief library.load: REGISTER_API libraries and custom op libraries (mxffi/lib_api.h).
 *
 * A REGISTER_API library registers itself from its static initialisers while dlopen runs. A
 * custom op library exports the MXFFIOpLib* C surface instead: the loader checks its ABI
 * version, validates every op it describes, and only then registers each as an mxffi op whose
 * attributes call back into the library, so a refused library leaves the registry as it was.
 *
 * Libraries stay open for the life of the process, and the LibOp records are never freed:
 * nothing calls into a library from a static destructor, when its own statics may be gone.
 * Stateful ops' states are freed by library.release_states, which the Python package runs at
 * interpreter exit.
 */
#include <dlfcn.h>
#include <mxffi/container/array.h>
#include <mxffi/container/string.h>
// The C half of the op-library ABI only: the exported surface belongs to the libraries.
#define MXFFI_OPLIB_HOST
#include <mxffi/lib_api.h>
#include <mxffi/op/op.h>
#include <mxffi/reflection.h>
#include <mxffi/registry.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sparse/sparse_util.h"

namespace mxffi {
namespace details {
int64_t OpSlotsLeft();                                   // op.cc
void RemoveOps(const std::vector<std::string>& names);   // op.cc
void BeginLibraryLoad(bool allow_replace);               // registry.cc
std::vector<std::string> EndLibraryLoad(bool rollback);  // registry.cc
void CheckLibraryFile(const std::string& path);          // library_file.cc
}  // namespace details
namespace {

/*! \brief A loaded library; the handle stays open for the process. */
class LibraryObj : public Object {
 public:
  String path;
  /*! \brief "register_api" or "op_library". */
  String kind;
  /*! \brief The globals (register_api) or ops (op_library) it registered. */
  Array<String> names;
  void* handle = nullptr;
  static constexpr const char* _type_key = "mxffi.Library";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(LibraryObj, Object, kMXFFILibrary);
};

MXFFI_STATIC_INIT_BLOCK() {
  reflection::ObjectDef<LibraryObj>()
      .def_ro("path", &LibraryObj::path, "the file loaded")
      .def_ro("kind", &LibraryObj::kind, "'register_api' or 'op_library'")
      .def_ro("names", &LibraryObj::names, "the globals or ops it registered");
}

std::mutex& LoadedMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}
std::vector<ObjectRef>& Loaded() {
  static auto* loaded = new std::vector<ObjectRef>();  // leaked, as the libraries stay open
  return *loaded;
}

using VersionFn = void (*)(int32_t*, int32_t*);
using InitFn = int32_t (*)(int32_t, int32_t);
using CountFn = int32_t (*)();
using GetOpFn = const MXFFIOpLibOp* (*)(int32_t);
using LastErrorFn = const char* (*)(const char**);

/*! \brief The size of MXFFIOpLibOp in ABI 1.0: every field the loader needs. */
constexpr size_t kOpDescMinSize = offsetof(MXFFIOpLibOp, destroy_state) + sizeof(void*);

static_assert(MXFFI_OPLIB_MAX_NDIM == kMaxNDim, "lib_api.h and op.h disagree on kMaxNDim");
static_assert(MXFFI_OPLIB_MAX_ARGS == kMaxOpArgs, "lib_api.h and op.h disagree on kMaxOpArgs");
static_assert(MXFFI_OPLIB_STYPE_CSR == static_cast<int>(StorageType::kCSR) &&
                  MXFFI_OPLIB_STYPE_ROW_SPARSE == static_cast<int>(StorageType::kRowSparse),
              "lib_api.h and storage.h disagree on the storage types");

struct LibOp;

/*!
 * \brief A stateful op's state for one set of attributes on one device. The library frees it
 *  when the last reference goes (the op let it go and no forward still uses it), or at
 *  release_states.
 */
struct LibState {
  const LibOp* op = nullptr;
  void* handle = nullptr;
  std::mutex mutex;        // one forward at a time on a state
  bool destroyed = false;  // set, under mutex, by ReleaseStates
  uint64_t last_used = 0;  // the op's use clock at this state's latest call
  ~LibState();
};

/*!
 * \brief The states an op keeps: those of its most recently used attribute sets. Each distinct
 *  attribute string makes a state, so without a bound a caller varying an attribute would keep
 *  one per call until exit.
 */
constexpr size_t kMaxStatesPerOp = 64;

/*! \brief One op of a custom op library, as mxffi calls it. */
struct LibOp {
  std::string name;
  std::string doc;
  std::string path;
  MXFFIOpLibOp desc;
  LastErrorFn last_error = nullptr;
  std::mutex state_mutex;
  std::map<std::string, std::shared_ptr<LibState>> states;
  uint64_t state_clock = 0;  // under state_mutex
};

LibState::~LibState() {
  if (!destroyed && handle != nullptr) op->desc.destroy_state(op->desc.self, handle);
}

/*! \brief Held by library.load: two loads never interleave their checks and registrations. */
std::mutex& LoadMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

std::vector<LibOp*>& AllLibOps() {
  static auto* ops = new std::vector<LibOp*>();  // leaked: see the file comment
  return *ops;
}

/*! \brief The attributes of one call, and their C view. */
struct LibParam {
  std::vector<std::pair<std::string, std::string>> kv;
  std::vector<const char*> keys, values;
  MXFFIOpLibAttrs c{sizeof(MXFFIOpLibAttrs), 0, nullptr, nullptr};
  /*!
   * \brief The attributes sorted, each key and value preceded by its length, so that no two
   *  sets spell the same: with the device, which state a call uses.
   */
  std::string state_key;
};

const LibParam& ParamOf(const OpAttrs& attrs) {
  static const LibParam* empty = new LibParam();
  return attrs.param == nullptr ? *empty : attrs.get<LibParam>();
}

/*! \brief Throw the error a library callback reported (or a code it should not return). */
[[noreturn]] void ThrowCallbackError(const LibOp& op, const char* stage, int32_t code) {
  std::string where = op.name + ": " + stage + " failed in " + op.path + ": ";
  if (code == MXFFI_OPLIB_FALLBACK) {
    throw Error("RuntimeError", where +
                                    "the callback returned Fallback, which only an "
                                    "infer-storage-type callback may return");
  }
  if (code != MXFFI_OPLIB_FAIL) {
    throw Error("RuntimeError", where + "the callback returned " + std::to_string(code) +
                                    ", which is neither MXFFI_OPLIB_OK nor MXFFI_OPLIB_FAIL");
  }
  const char* kind = nullptr;
  const char* message = op.last_error(&kind);
  std::string k = kind != nullptr && *kind != '\0' ? kind : "RuntimeError";
  throw Error(k, where + (message != nullptr && *message ? message : "(no message)"));
}

void Check(const LibOp& op, const char* stage, int32_t code) {
  if (code != MXFFI_OPLIB_OK) ThrowCallbackError(op, stage, code);
}

MXFFIOpLibDType Lib(DLDataType t) { return {t.code, t.bits, t.lanes}; }

MXFFIOpLibTensor DenseTensor(const DLTensor& t) {
  MXFFIOpLibTensor out{};
  out.struct_size = sizeof(MXFFIOpLibTensor);
  out.data = t.data == nullptr ? nullptr : static_cast<char*>(t.data) + t.byte_offset;
  out.shape = t.shape;
  out.ndim = t.ndim;
  out.stype = MXFFI_OPLIB_STYPE_DEFAULT;
  out.dtype = Lib(t.dtype);
  out.device_type = t.device.device_type;
  out.device_id = t.device.device_id;
  out.nnz = TShape(t.shape, t.ndim).Size();  // every element is stored
  return out;
}

/*! \brief A sparse array as the library sees it; its parts are unset (NULL) until allocated. */
MXFFIOpLibTensor SparseTensor(const NDArray& a) {
  const DLTensor& t = a.tensor();
  MXFFIOpLibTensor out{};
  out.struct_size = sizeof(MXFFIOpLibTensor);
  out.shape = t.shape;
  out.ndim = t.ndim;
  out.stype = static_cast<int32_t>(a.stype());
  out.dtype = Lib(t.dtype);
  out.device_type = t.device.device_type;
  out.device_id = t.device.device_id;
  if (!a.storage_initialized()) return out;
  const NDArray& data = a.sparse_data();
  const NDArray& indices = a.sparse_indices();
  out.data = op::Ptr<char>(data);
  out.nnz = indices.tensor().shape[0];
  out.indices = op::Ptr<char>(indices);
  out.indices_dtype = Lib(indices.tensor().dtype);
  if (a.stype() == StorageType::kCSR) {
    const NDArray& indptr = a.sparse_indptr();
    out.indptr = op::Ptr<char>(indptr);
    out.indptr_dtype = Lib(indptr.tensor().dtype);
  }
  return out;
}

/*! \brief What one forward call borrows from mxffi (MXFFIOpLibResource::host). */
struct HostCall {
  const LibOp* op = nullptr;
  /*! \brief The outputs as NDArrays (the storage-aware path), for alloc_sparse. */
  const NDArray* outputs = nullptr;
  int32_t num_outputs = 0;
  bool gpu = false;
  DLDevice device{kDLCPU, 0};
  std::vector<std::unique_ptr<char[]>> workspaces;
  /*! \brief Device scratch memory of a gpu call: from mxffi's allocator, on the call's stream,
   *  so its reuse after the call is ordered behind the kernels the forward launched there. */
  std::vector<NDArray> device_workspaces;
  /*! \brief Why mxffi refused a request, and its class, reported once the forward returns. */
  std::string error, error_kind = "ValueError";
};

int32_t AllocSparse(void* host, int32_t index, int64_t nnz, MXFFIOpLibTensor* out) {
  auto* call = static_cast<HostCall*>(host);
  try {
    MXFFI_CHECK(call->outputs != nullptr && index >= 0 && index < call->num_outputs &&
                    call->outputs[index].is_sparse(),
                ValueError)
        << "alloc_sparse: output #" << index << " is not a sparse output of this call";
    const NDArray& o = call->outputs[index];
    const DLTensor& t = o.tensor();
    int64_t most = t.shape[0];
    if (o.stype() == StorageType::kCSR) most *= t.shape[1];
    MXFFI_CHECK(nnz >= 0 && nnz <= most, ValueError)
        << "alloc_sparse: nnz=" << nnz << " for output #" << index << " of shape "
        << TShape(t.shape, t.ndim).ToString() << " must be in [0, " << most << "]";
    o.CheckAndAlloc(nnz, DLDataType{kDLInt, 64, 1});
    *out = SparseTensor(o);
    return MXFFI_OPLIB_OK;
  } catch (const Error& e) {
    call->error = e.message();
    call->error_kind = e.kind();
  } catch (const std::bad_alloc&) {
    call->error = "alloc_sparse: out of memory for nnz=" + std::to_string(nnz);
    call->error_kind = "MemoryError";
  } catch (const std::exception& e) {
    call->error = e.what();
  }
  return MXFFI_OPLIB_FAIL;
}

void* AllocWorkspace(void* host, size_t bytes) {
  auto* call = static_cast<HostCall*>(host);
  try {
    if (call->gpu) {
      const int64_t shape[1] = {static_cast<int64_t>(bytes == 0 ? 1 : bytes)};
      call->device_workspaces.push_back(
          NDArray::Empty(shape, 1, DLDataType{kDLUInt, 8, 1}, call->device));
      return call->device_workspaces.back().tensor().data;
    }
    call->workspaces.emplace_back(new char[bytes == 0 ? 1 : bytes]);
    return call->workspaces.back().get();
  } catch (const std::bad_alloc&) {
    call->error = "alloc_workspace: out of memory for " + std::to_string(bytes) + " bytes";
    call->error_kind = "MemoryError";
  } catch (const Error& e) {
    call->error = e.message();
    call->error_kind = e.kind();
  }
  return nullptr;
}

/*! \brief The state for this call's attributes and device, made on first use. */
std::shared_ptr<LibState> GetState(LibOp* op, const LibParam& p, DLDevice device) {
  const std::string key = std::to_string(device.device_type) + ":" +
                          std::to_string(device.device_id) + "|" + p.state_key;
  std::shared_ptr<LibState> evicted;  // freed after the lock, once no forward uses it
  std::lock_guard<std::mutex> lock(op->state_mutex);
  auto it = op->states.find(key);
  if (it != op->states.end()) {
    it->second->last_used = ++op->state_clock;
    return it->second;
  }
  auto state = std::make_shared<LibState>();
  state->op = op;
  Check(*op, "create_state",
        op->desc.create_state(op->desc.self, &p.c, device.device_type, device.device_id,
                              &state->handle));
  state->last_used = ++op->state_clock;
  if (op->states.size() >= kMaxStatesPerOp) {
    auto oldest = std::min_element(op->states.begin(), op->states.end(), [](auto& a, auto& b) {
      return a.second->last_used < b.second->last_used;
    });
    evicted = std::move(oldest->second);
    op->states.erase(oldest);
  }
  op->states.emplace(key, state);
  return state;
}

/*! \brief Run the library's forward (or its state's) on these tensors. */
void RunForward(LibOp* op, const OpAttrs& attrs, const OpContext& ctx,
                std::vector<MXFFIOpLibTensor>* in, std::vector<MXFFIOpLibTensor>* out,
                const NDArray* out_arrays) {
  const LibParam& p = ParamOf(attrs);
  const int dev = ctx.device.device_type == kDLCPU ? 0 : 1;
  HostCall call;
  call.op = op;
  call.outputs = out_arrays;
  call.num_outputs = static_cast<int32_t>(out->size());
  call.gpu = dev == 1;
  call.device = ctx.device;
  MXFFIOpLibResource res{sizeof(MXFFIOpLibResource),
                         ctx.device.device_type,
                         ctx.device.device_id,
                         &call,
                         ctx.stream,
                         &AllocSparse,
                         &AllocWorkspace};
  MXFFIOpLibTensor* in_ptrs[kMaxOpArgs];
  MXFFIOpLibTensor* out_ptrs[kMaxOpArgs];
  for (size_t i = 0; i < in->size(); ++i) in_ptrs[i] = &(*in)[i];
  for (size_t i = 0; i < out->size(); ++i) out_ptrs[i] = &(*out)[i];
  const auto nin = static_cast<int32_t>(in->size());
  const auto nout = static_cast<int32_t>(out->size());
  int32_t code;
  if (op->desc.create_state != nullptr) {
    std::shared_ptr<LibState> state = GetState(op, p, ctx.device);
    std::lock_guard<std::mutex> lock(state->mutex);
    MXFFI_CHECK(!state->destroyed, RuntimeError)
        << op->name << ": its state was released while this call waited for it; call again";
    code = op->desc.state_forward[dev](op->desc.self, state->handle, in_ptrs, nin, out_ptrs, nout,
                                       &res);
  } else {
    code = op->desc.forward[dev](op->desc.self, &p.c, in_ptrs, nin, out_ptrs, nout, &res);
  }
  if (!call.error.empty()) {
    throw Error(call.error_kind, op->name + ": forward failed in " + op->path + ": " + call.error);
  }
  Check(*op, "forward", code);
}

/*!
 * \brief Check and canonicalise what a library wrote into its sparse outputs, as the csr and
 *  row_sparse constructors do for a user's parts: outside code is not trusted to keep the
 *  invariants the built-in kernels rely on.
 */
void CheckSparseOutput(const LibOp& op, const NDArray& o, int i) {
  std::string fname = op.name + " (output #" + std::to_string(i) + " of " + op.path + ")";
  MXFFI_CHECK(o.storage_initialized(), ValueError)
      << fname << ": forward left the sparse output unset; it must call alloc_sparse";
  const DLTensor& t = o.tensor();
  const bool csr = o.stype() == StorageType::kCSR;
  // Parts on a GPU are checked in host copies, and the canonical parts copied back.
  const bool on_host = t.device.device_type == kDLCPU;
  auto host = [&](const NDArray& part) {
    if (on_host) return part;
    NDArray h = NDArray::Empty(part.tensor().shape, part.tensor().ndim, part.tensor().dtype,
                               DLDevice{kDLCPU, 0});
    NDArray::CopyFromTo(part.tensor(), h.tensor());
    return h;
  };
  auto back = [&](const NDArray& part) {
    if (on_host) return part;
    NDArray d =
        NDArray::Empty(part.tensor().shape, part.tensor().ndim, part.tensor().dtype, t.device);
    NDArray::CopyFromTo(part.tensor(), d.tensor());
    return d;
  };
  NDArray checked = csr ? NDArray::CSR(t.shape, host(o.sparse_data()), host(o.sparse_indices()),
                                       host(o.sparse_indptr()), fname.c_str())
                        : NDArray::RowSparse(t.shape, t.ndim, host(o.sparse_data()),
                                             host(o.sparse_indices()), fname.c_str());
  o.SetSparseStorage(back(checked.sparse_data()), back(checked.sparse_indices()),
                     csr ? back(checked.sparse_indptr()) : NDArray());
}

std::shared_ptr<const void> ParseAttrs(LibOp* op,
                                       const std::vector<std::pair<std::string, std::string>>& kv) {
  auto p = std::make_shared<LibParam>();
  p->kv = kv;
  std::set<std::string> seen;
  for (const auto& e : p->kv) {
    MXFFI_CHECK(seen.insert(e.first).second, ValueError)
        << op->name << ": attribute '" << e.first << "' given twice";
    p->keys.push_back(e.first.c_str());
    p->values.push_back(e.second.c_str());
  }
  p->c = {sizeof(MXFFIOpLibAttrs), static_cast<int32_t>(p->kv.size()), p->keys.data(),
          p->values.data()};
  std::vector<std::pair<std::string, std::string>> sorted = p->kv;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& e : sorted) {
    p->state_key += std::to_string(e.first.size()) + ":" + e.first +
                    std::to_string(e.second.size()) + ":" + e.second;
  }
  if (op->desc.parse_attrs == nullptr) {
    MXFFI_CHECK(kv.empty(), TypeError) << op->name << ": takes no attributes, got '" << kv[0].first
                                       << "' (op from " << op->path << ")";
  } else {
    Check(*op, "parse_attrs", op->desc.parse_attrs(op->desc.self, &p->c));
  }
  return p;
}

/*! \brief Register one validated op description as an mxffi op. */
void RegisterLibOp(LibOp* lop, bool replace) {
  const MXFFIOpLibOp& d = lop->desc;
  // A fresh name is extended first (invisible to Find) and registered once its attributes are
  // set, so a concurrent call never sees it half made. A replaced name is rebound at once.
  Op& op = replace ? Op::Replace(lop->name.c_str()) : Op::Extend(lop->name.c_str());
  MXFFI_CHECK(op.index >= 0, RuntimeError)
      << "library.load: " << lop->path << ": cannot register op '" << lop->name << "'";
  const std::string& doc = lop->doc;
  op.describe(doc + (doc.empty() ? "" : "\n\n") + "From the op library " + lop->path + ".")
      .set_num_inputs(static_cast<uint32_t>(d.num_inputs))
      .set_num_outputs(static_cast<uint32_t>(d.num_outputs));
  for (int32_t i = 0; i < d.num_inputs; ++i) {
    op.add_argument("input" + std::to_string(i), "NDArray", "");
  }
  op.param_doc = d.parse_attrs != nullptr ? "\n  string attributes, parsed by the library" : "";
  op.set_attr<FParamParse>("FParamParse", [lop](const auto& kv) { return ParseAttrs(lop, kv); });
  op.set_attr<FParamDict>("FParamDict",
                          [](const void* p) { return static_cast<const LibParam*>(p)->kv; });
  op.set_attr<FInferShape>(
      "FInferShape", [lop](const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
        const int64_t* in_shapes[kMaxOpArgs];
        int32_t in_ndims[kMaxOpArgs];
        for (size_t i = 0; i < in.size(); ++i) {
          in_shapes[i] = in[i].data();
          in_ndims[i] = in[i].ndim();
        }
        int64_t out_shapes[kMaxOpArgs * MXFFI_OPLIB_MAX_NDIM];
        std::fill(out_shapes, out_shapes + out.size() * MXFFI_OPLIB_MAX_NDIM, -1);
        int32_t out_ndims[kMaxOpArgs];
        std::fill(out_ndims, out_ndims + out.size(), -1);
        Check(*lop, "infer_shape",
              lop->desc.infer_shape(lop->desc.self, &ParamOf(attrs).c, in_shapes, in_ndims,
                                    static_cast<int32_t>(in.size()), out_shapes, out_ndims,
                                    static_cast<int32_t>(out.size())));
        for (size_t i = 0; i < out.size(); ++i) {
          MXFFI_CHECK(out_ndims[i] >= 0 && out_ndims[i] <= MXFFI_OPLIB_MAX_NDIM, ValueError)
              << lop->name << ": infer_shape in " << lop->path << " gave output #" << i << " "
              << out_ndims[i] << " dimensions";
          out[i].assign(out_shapes + i * MXFFI_OPLIB_MAX_NDIM, out_ndims[i]);
          for (int k = 0; k < out_ndims[i]; ++k) {
            MXFFI_CHECK(out[i][k] >= 0, ValueError)
                << lop->name << ": infer_shape in " << lop->path << " gave output #" << i
                << " the shape " << out[i].ToString();
          }
        }
      });
  op.set_attr<FInferType>(
      "FInferType", [lop](const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
        MXFFIOpLibDType lin[kMaxOpArgs], lout[kMaxOpArgs];
        for (size_t i = 0; i < in.size(); ++i) lin[i] = Lib(in[i]);
        for (size_t i = 0; i < out.size(); ++i) lout[i] = {0, 0, 0};
        Check(*lop, "infer_type",
              lop->desc.infer_type(lop->desc.self, &ParamOf(attrs).c, lin,
                                   static_cast<int32_t>(in.size()), lout,
                                   static_cast<int32_t>(out.size())));
        for (size_t i = 0; i < out.size(); ++i) {
          MXFFI_CHECK(lout[i].bits != 0 && lout[i].lanes != 0, TypeError)
              << lop->name << ": infer_type in " << lop->path << " left output #" << i
              << "'s dtype unset";
          out[i] = DLDataType{lout[i].code, lout[i].bits, lout[i].lanes};
        }
      });
  if (d.infer_stype != nullptr) {
    op.set_attr<FInferStorageType>(
        "FInferStorageType",
        [lop](const OpAttrs& attrs, DLDevice, Span<const StorageType> in, Span<StorageType> out) {
          int32_t lin[kMaxOpArgs], lout[kMaxOpArgs];
          for (size_t i = 0; i < in.size(); ++i) lin[i] = static_cast<int32_t>(in[i]);
          for (size_t i = 0; i < out.size(); ++i) lout[i] = MXFFI_OPLIB_STYPE_DEFAULT;
          int32_t code = lop->desc.infer_stype(lop->desc.self, &ParamOf(attrs).c, lin,
                                               static_cast<int32_t>(in.size()), lout,
                                               static_cast<int32_t>(out.size()));
          if (code != MXFFI_OPLIB_OK && code != MXFFI_OPLIB_FALLBACK) {
            ThrowCallbackError(*lop, "infer_stype", code);
          }
          bool dense = true;
          for (size_t i = 0; i < out.size(); ++i) {
            MXFFI_CHECK(lout[i] >= MXFFI_OPLIB_STYPE_DEFAULT && lout[i] <= MXFFI_OPLIB_STYPE_CSR,
                        ValueError)
                << lop->name << ": infer_stype in " << lop->path << " gave output #" << i
                << " the storage type " << lout[i];
            out[i] = static_cast<StorageType>(lout[i]);
            dense &= out[i] == StorageType::kDefault;
          }
          for (StorageType s : in) dense &= s == StorageType::kDefault;
          if (code == MXFFI_OPLIB_FALLBACK) return DispatchMode::kFComputeFallback;
          return dense ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
        });
  }
  for (int dev = 0; dev < 2; ++dev) {
    const bool has =
        d.create_state != nullptr ? d.state_forward[dev] != nullptr : d.forward[dev] != nullptr;
    if (!has) continue;
    op.set_attr<FCompute>(dev == 0 ? "FCompute<cpu>" : "FCompute<gpu>",
                          [lop](const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                                Span<const OpReqType>, Span<const DLTensor> out) {
                            // A library's op does not set TWriteInplace: Invoke never hands
                            // it an output that is also an input (kWriteTo only).
                            std::vector<MXFFIOpLibTensor> lin, lout;
                            for (const DLTensor& t : in) lin.push_back(DenseTensor(t));
                            for (const DLTensor& t : out) lout.push_back(DenseTensor(t));
                            RunForward(lop, attrs, ctx, &lin, &lout, nullptr);
                          });
    if (d.infer_stype == nullptr) continue;
    op.set_attr<FComputeEx>(
        dev == 0 ? "FComputeEx<cpu>" : "FComputeEx<gpu>",
        [lop](const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
              Span<const OpReqType>, Span<const NDArray> out) {
          std::vector<NDArray> dense_in;  // contiguous copies of strided dense inputs
          std::vector<MXFFIOpLibTensor> lin, lout;
          for (size_t i = 0; i < in.size(); ++i) {
            const NDArray& a = in[i];
            if (a.is_sparse()) {
              MXFFI_CHECK(a.storage_initialized(), ValueError)
                  << lop->name << ": input #" << i << " is a sparse array with no storage";
              lin.push_back(SparseTensor(a));
            } else {
              dense_in.push_back(a.Contiguous());
              lin.push_back(DenseTensor(dense_in.back().tensor()));
            }
          }
          for (const NDArray& a : out) {
            lout.push_back(a.is_sparse() ? SparseTensor(a) : DenseTensor(a.tensor()));
          }
          RunForward(lop, attrs, ctx, &lin, &lout, out.data());
          for (size_t i = 0; i < out.size(); ++i) {
            if (out[i].is_sparse()) CheckSparseOutput(*lop, out[i], static_cast<int>(i));
          }
        });
  }
  if (!replace) Op::Register(lop->name.c_str());  // now visible, with every attribute set
}

bool ValidOpName(const char* name) {
  if (name == nullptr || *name == '\0' || std::strlen(name) > 256) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (const char* c = name; *c; ++c) {
    if (!(std::isalnum(static_cast<unsigned char>(*c)) || *c == '_')) return false;
  }
  return true;
}

/*! \brief Validate every op an op library describes, then register them all. */
Array<String> LoadOpLibrary(const std::string& path, void* handle, bool override,
                            bool* registering) {
  auto version = reinterpret_cast<VersionFn>(dlsym(handle, "MXFFIOpLibVersion"));
  auto init = reinterpret_cast<InitFn>(dlsym(handle, "MXFFIOpLibInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(handle, "MXFFIOpLibOpCount"));
  auto get_op = reinterpret_cast<GetOpFn>(dlsym(handle, "MXFFIOpLibGetOp"));
  auto last_error = reinterpret_cast<LastErrorFn>(dlsym(handle, "MXFFIOpLibLastError"));
  MXFFI_CHECK(init && count && get_op && last_error, ValueError)
      << "library.load: " << path << " exports MXFFIOpLibVersion but not all of "
      << "MXFFIOpLibInit, MXFFIOpLibOpCount, MXFFIOpLibGetOp and MXFFIOpLibLastError; build it "
      << "with mxffi/lib_api.h";
  int32_t major = -1, minor = -1;
  version(&major, &minor);
  MXFFI_CHECK(major == MXFFI_OPLIB_ABI_MAJOR && minor >= 0, RuntimeError)
      << "library.load: " << path << " was built for op-library ABI " << major << "." << minor
      << ", and this mxffi loads ABI " << MXFFI_OPLIB_ABI_MAJOR << ".x (any minor from "
      << MXFFI_OPLIB_ABI_MAJOR << ".0); rebuild it against this mxffi's lib_api.h";
  if (init(MXFFI_OPLIB_ABI_MAJOR, MXFFI_OPLIB_ABI_MINOR) != MXFFI_OPLIB_OK) {
    const char* kind = nullptr;
    const char* message = last_error(&kind);
    MXFFI_THROW(RuntimeError) << "library.load: " << path
                              << " failed to initialise: " << (message ? message : "(no message)");
  }
  const int32_t n = count();
  MXFFI_CHECK(n >= 0 && n <= kMaxOps, ValueError)
      << "library.load: " << path << " says it has " << n << " ops";
  std::vector<std::unique_ptr<LibOp>> ops;
  std::set<std::string> names;
  for (int32_t i = 0; i < n; ++i) {
    const MXFFIOpLibOp* d = get_op(i);
    MXFFI_CHECK(d != nullptr, ValueError)
        << "library.load: " << path << " has no description of op #" << i << " of " << n;
    MXFFI_CHECK(d->struct_size >= kOpDescMinSize, ValueError)
        << "library.load: " << path << ": op #" << i << "'s description is " << d->struct_size
        << " bytes, less than the " << kOpDescMinSize << " of ABI " << MXFFI_OPLIB_ABI_MAJOR
        << ".0";
    auto lop = std::make_unique<LibOp>();
    lop->path = path;
    lop->last_error = last_error;
    // Fields a newer minor added past ours are ignored; the struct only grows at its end.
    std::memcpy(&lop->desc, d, std::min<size_t>(d->struct_size, sizeof(MXFFIOpLibOp)));
    const MXFFIOpLibOp& c = lop->desc;
    MXFFI_CHECK(ValidOpName(c.name), ValueError)
        << "library.load: " << path << ": op #" << i << " has the name '"
        << (c.name ? std::string(c.name).substr(0, 64) : "(null)")
        << "'; an op name is a letter or _ followed by letters, digits or _";
    lop->name = c.name;
    lop->doc = c.doc != nullptr ? c.doc : "";
    const std::string where = "library.load: " + path + ": op '" + lop->name + "'";
    MXFFI_CHECK(names.insert(lop->name).second, ValueError) << where << " is registered twice";
    MXFFI_CHECK(c.num_inputs >= 0 && c.num_inputs <= kMaxOpArgs && c.num_outputs >= 1 &&
                    c.num_outputs <= kMaxOpArgs,
                ValueError)
        << where << " has " << c.num_inputs << " inputs and " << c.num_outputs
        << " outputs; mxffi takes 0 to " << kMaxOpArgs << " inputs and 1 to " << kMaxOpArgs
        << " outputs";
    MXFFI_CHECK(c.infer_shape != nullptr && c.infer_type != nullptr, ValueError)
        << where << " has no infer_shape or no infer_type";
    if (c.create_state != nullptr) {
      MXFFI_CHECK(c.destroy_state != nullptr && (c.state_forward[0] || c.state_forward[1]),
                  ValueError)
          << where << " is stateful but has no destroy_state or no state_forward";
    } else {
      MXFFI_CHECK(c.forward[0] || c.forward[1], ValueError) << where << " has no forward";
    }
    if (!override) {
      MXFFI_CHECK(Op::Find(lop->name) == nullptr, ValueError)
          << where << " is already registered (a built-in op or one from another library); "
          << "pass override=True to replace it";
    }
    ops.push_back(std::move(lop));
  }
  // Every check is made before the first registration: past this point nothing refuses, and
  // the library stays open (ops point into it) whatever happens.
  const int64_t left = details::OpSlotsLeft();
  MXFFI_CHECK(static_cast<int64_t>(ops.size()) <= left, RuntimeError)
      << "library.load: " << path << " has " << ops.size() << " ops, but only " << left
      << " more fit in the op registry (" << kMaxOps << " in all, replaced ones included)";
  *registering = true;
  Array<String> registered;
  for (auto& lop : ops) {
    LibOp* raw = lop.release();
    {
      std::lock_guard<std::mutex> lock(LoadedMutex());
      AllLibOps().push_back(raw);
    }
    RegisterLibOp(raw, override && Op::Find(raw->name) != nullptr);
    registered.push_back(String(raw->name));
  }
  return registered;
}

/*! \brief Free every stateful op's states; the next call makes a fresh one. */
int64_t ReleaseStates() {
  std::vector<LibOp*> ops;
  {
    std::lock_guard<std::mutex> lock(LoadedMutex());
    ops = AllLibOps();
  }
  int64_t freed = 0;
  for (LibOp* op : ops) {
    std::map<std::string, std::shared_ptr<LibState>> states;
    {
      std::lock_guard<std::mutex> lock(op->state_mutex);
      states.swap(op->states);
    }
    for (auto& kv : states) {
      // Waits for a forward in flight; one that took the state but has not locked it yet
      // finds it destroyed and says so.
      std::lock_guard<std::mutex> lock(kv.second->mutex);
      op->desc.destroy_state(op->desc.self, kv.second->handle);
      kv.second->destroyed = true;
      ++freed;
    }
  }
  return freed;
}

std::vector<std::string> Difference(const std::vector<std::string>& after,
                                    const std::vector<std::string>& before) {
  std::vector<std::string> out;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(out));
  return out;
}

/*! \brief Libraries refused after their initialisers ran, by dlopen handle: why. */
std::map<void*, std::string>& Refused() {
  static auto* refused = new std::map<void*, std::string>();  // guarded by LoadMutex
  return *refused;
}

ObjectRef Load(const std::string& path, bool override) {
  std::lock_guard<std::mutex> load_lock(LoadMutex());
  details::CheckLibraryFile(path);
  details::TakeRegistrationErrors();  // start from a clean log on this thread
  const int64_t before = details::RegistrationCount();
  const std::vector<std::string> ops = Op::ListNames();
  // The library's static initialisers run inside dlopen, on this thread; every global they
  // register is journaled, and without override they may not replace one.
  details::BeginLibraryLoad(override);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::vector<std::string> errors = details::TakeRegistrationErrors();
  const bool registered = details::RegistrationCount() != before;
  std::vector<std::string> globals = details::EndLibraryLoad(handle == nullptr || !errors.empty());
  if (handle == nullptr) {
    const char* why = dlerror();
    MXFFI_THROW(ValueError) << "library.load: cannot load " << path << ": "
                            << (why ? why : "unknown error");
  }
  auto refused = Refused().find(handle);
  if (refused != Refused().end()) {
    // Opened before and refused: dlopen ran nothing this time; say the same again.
    dlclose(handle);
    throw Error("RuntimeError", refused->second);
  }
  if (!errors.empty()) {
    // Undo it all: the globals (done above) and the ops it added. Its code stays mapped, as
    // objects its initialisers made may still point into it.
    details::RemoveOps(Difference(Op::ListNames(), ops));
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? " " : "; ") + e;
    std::string msg = "library.load: " + path + " failed to register:" + all +
                      "; the library was refused and left the registry as it was";
    if (registered) {
      Refused()[handle] = msg;
    } else {
      dlclose(handle);
    }
    throw Error("RuntimeError", msg);
  }
  ObjectPtr<LibraryObj> lib = make_object<LibraryObj>();
  lib->path = String(path);
  lib->handle = handle;
  if (!registered && dlsym(handle, "MXFFIOpLibVersion") != nullptr) {
    bool registering = false;
    try {
      lib->names = LoadOpLibrary(path, handle, override, &registering);
    } catch (...) {
      if (!registering) dlclose(handle);  // nothing of it was registered
      throw;
    }
    lib->kind = String("op_library");
  } else if (registered) {
    lib->kind = String("register_api");
    for (const auto& n : globals) lib->names.push_back(String(n));
    for (const auto& n : Difference(Op::ListNames(), ops)) lib->names.push_back(String(n));
  } else {
    dlclose(handle);
    MXFFI_THROW(ValueError) << "library.load: " << path << " is neither an op library (it "
                            << "exports no MXFFIOpLibVersion) nor a REGISTER_API library (it "
                            << "registered no function or op)";
  }
  ObjectRef ref(ObjectPtr<Object>(std::move(lib)));
  std::lock_guard<std::mutex> lock(LoadedMutex());
  Loaded().push_back(ref);
  return ref;
}

}  // namespace

MXFFI_REGISTER_API("library.load")
    .describe(
        "Load a shared library: a REGISTER_API library, whose static initialisers register "
        "functions and ops, or a custom op library built with mxffi/lib_api.h, whose ops are "
        "validated and registered (replacing ops of the same name only with override). Returns "
        "the Library; a refused library is closed and leaves the registry as it was.")
    .arg("path")
    .arg("override", false)
    .set_body_typed([](std::string path, bool override) { return Load(path, override); });

MXFFI_REGISTER_API("library.list")
    .describe("The libraries loaded so far, in load order.")
    .set_body_typed([]() {
      std::lock_guard<std::mutex> lock(LoadedMutex());
      Array<ObjectRef> out;
      for (const ObjectRef& lib : Loaded()) out.push_back(lib);
      return out;
    });

MXFFI_REGISTER_API("library.release_states")
    .describe(
        "Free the state of every stateful op from a custom op library (each library frees its "
        "own); a later call makes a fresh state. Returns how many were freed. Python runs this "
        "at interpreter exit.")
    .set_body_typed([]() { return ReleaseStates(); });

}  // namespace mxffi
