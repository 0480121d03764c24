/*!
 * \file invoke.cc
 * \brief Invoke: inference, output allocation and dispatch for one op call.
 *
 * Everything on this path lives on the stack (TShape, DLTensor arrays) except the outputs it
 * allocates and, for an op that wants contiguous inputs, copies of strided ones.
 */
#include <mxffi/env.h>
#include <mxffi/op/op.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "../ndarray/cuda/device.h"
#include "overlap.h"
#include "sparse/cast_storage.h"

namespace mxffi {
namespace {

const char* DeviceKey(DLDevice dev) { return dev.device_type == kDLCPU ? "cpu" : "gpu"; }

/*! \brief Where the per-input scratch of a call with more than kMaxOpArgs inputs lives. */
struct HeapInputs {
  TShape* shape;
  DLTensor* blob;
  DLDataType* type;
  StorageType* stype;
};

/*!
 * \brief The per-input scratch (shapes, tensors, dtypes, storage types) of a call with more
 *  inputs than Invoke holds inline, which only an op whose input count comes from its
 *  parameters has: one heap block, owned by *block, uninitialised.
 */
[[gnu::noinline]] HeapInputs AllocateInputs(size_t n, std::unique_ptr<unsigned char[]>* block) {
  static_assert(std::is_trivially_destructible_v<TShape>, "nothing is destroyed");
  static_assert(sizeof(TShape) % alignof(DLTensor) == 0 && sizeof(DLTensor) % 4 == 0,
                "each array starts aligned");
  constexpr size_t kBytes =
      sizeof(TShape) + sizeof(DLTensor) + sizeof(DLDataType) + sizeof(StorageType);
  block->reset(new unsigned char[n * kBytes]);
  unsigned char* p = block->get();
  return {reinterpret_cast<TShape*>(p), reinterpret_cast<DLTensor*>(p + n * sizeof(TShape)),
          reinterpret_cast<DLDataType*>(p + n * (sizeof(TShape) + sizeof(DLTensor))),
          reinterpret_cast<StorageType*>(p + n * (kBytes - sizeof(StorageType)))};
}

/*! \brief TypeError for a call with another number of inputs than the op takes. */
[[noreturn, gnu::noinline, gnu::cold]] void ThrowInputCount(const OpAttrs& attrs, size_t given,
                                                            uint32_t expected) {
  const Op* op = attrs.op;
  std::string which;
  if (op->variable_inputs()) {
    which = op->key_var_num_args.empty()
                ? std::string(" (for these parameters)")
                : " (" + op->key_var_num_args + "=" + std::to_string(expected) + ")";
  }
  MXFFI_THROW(TypeError) << op->name << ": expected " << expected << " input(s)" << which
                         << ", got " << given;
  __builtin_unreachable();
}

/*! \brief The number of inputs a call takes; TypeError unless given is that. */
inline void CheckInputCount(const OpAttrs& attrs, size_t given) {
  const Op* op = attrs.op;
  const uint32_t expected = op->get_num_inputs ? op->get_num_inputs(attrs) : op->num_inputs;
  if (given != expected) ThrowInputCount(attrs, given, expected);
}

/*! \brief Storage inference without an FInferStorageType: dense in, dense out. */
DispatchMode DefaultDispatch(const Op::CallAttrs& call, bool gpu, Span<const StorageType> in,
                             Span<StorageType> out) {
  bool all_dense = true;
  for (StorageType s : in) all_dense &= s == StorageType::kDefault;
  for (StorageType& s : out) s = StorageType::kDefault;
  const bool dense_kernel = call.compute[gpu] != nullptr;
  if (all_dense) return dense_kernel ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
  return dense_kernel || call.compute_ex[gpu] == nullptr ? DispatchMode::kFComputeFallback
                                                         : DispatchMode::kFComputeEx;
}

/*!
 * \brief The dispatch mode and output storage types for inputs of these storage types and
 *  shapes: the op's FInferStorageType, or DefaultDispatch without one. A kFComputeEx choice
 *  becomes the fallback, with dense outputs, for inputs of different shapes when the op's
 *  storage-aware kernel takes one shape only ("TSparseSameShape": elementwise ops, which
 *  broadcast only in their dense kernels); storage inference sees storage types, not shapes.
 */
DispatchMode ChooseDispatch(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                            const TShape* shapes, Span<StorageType> out) {
  const Op::CallAttrs& call = attrs.op->call_attrs();
  if (call.infer_storage_type == nullptr) {
    return DefaultDispatch(call, device.device_type != kDLCPU, in, out);
  }
  DispatchMode mode = (*call.infer_storage_type)(attrs, device, in, out);
  if (mode != DispatchMode::kFComputeEx || !call.sparse_same_shape) return mode;
  for (size_t i = 1; i < in.size(); ++i) {
    if (shapes[i] != shapes[0]) {
      for (StorageType& s : out) s = StorageType::kDefault;
      return DispatchMode::kFComputeFallback;
    }
  }
  return mode;
}

std::string StypeList(Span<const StorageType> s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::string(StorageTypeName(s[i]));
  return out + (s.size() == 1 ? ",)" : ")");
}

/*!
 * \brief The first fallback of each (op, input storage types, output storage types) issues a
 *  StorageFallbackWarning (mxffi::Warn: Python's warnings where Python installed its hook, else
 *  a line on stderr), unless MXFFI_STORAGE_FALLBACK_LOG_VERBOSE is 0. A warning a filter turns
 *  into an error throws it here, before any work; the combination then counts as not warned
 *  yet, so the next call raises again.
 */
void WarnFallback(const OpAttrs& attrs, Span<const StorageType> in, Span<const StorageType> out,
                  bool through_csr = false) {
  const char* verbose = std::getenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE");
  if (verbose != nullptr && std::string(verbose) == "0") return;
  std::string key =
      attrs.op->name + StypeList(in) + "->" + StypeList(out) + (through_csr ? "c" : "");
  static std::mutex mu;
  static std::set<std::string> seen;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (seen.count(key) != 0) return;
  }
  std::string params;
  if (attrs.param != nullptr) {
    if (const FParamDict* dict = attrs.op->attr<FParamDict>("FParamDict")) {
      for (const auto& kv : (*dict)(attrs.param)) {
        params += (params.empty() ? "" : ", ") + kv.first + "=" + kv.second;
      }
    }
  }
  std::ostringstream msg;
  if (through_csr) {
    msg << "storage fallback: " << attrs.op->name << " has no kernel for coo inputs; input "
        << "storage types " << StypeList(in) << " (parameters: {" << params << "}): the coo "
        << "inputs are converted to csr (sorted, duplicates summed), the op runs on those, and "
        << "coo outputs are cast back. This is warned once per combination; "
        << "MXFFI_STORAGE_FALLBACK_LOG_VERBOSE=0 silences it.";
  } else {
    msg << "storage fallback: " << attrs.op->name << " has no kernel for input storage types "
        << StypeList(in) << " and output storage types " << StypeList(out) << " (parameters: {"
        << params << "}); the inputs are made dense, the dense kernel runs, and the outputs are "
        << "cast back. This is warned once per combination; MXFFI_STORAGE_FALLBACK_LOG_VERBOSE=0 "
        << "silences it.";
  }
  Warn("StorageFallbackWarning", msg.str());  // throws when a filter makes it an error
  std::lock_guard<std::mutex> lock(mu);
  seen.insert(key);
}

/*! \brief The fallback: dense copies of the sparse inputs, the dense kernel, sparse outputs cast
 *  back from dense results. */
void InvokeFallback(const OpAttrs& attrs, Span<const NDArray> inputs, Span<NDArray> outputs,
                    Span<const StorageType> in_stype, Span<const StorageType> out_stype) {
  const char* name = attrs.op->name.c_str();
  bool any_sparse = false;
  for (size_t i = 0; i < inputs.size(); ++i) any_sparse |= inputs[i].is_sparse();
  MXFFI_CHECK(any_sparse, NotImplementedError)
      << name << ": storage inference chose the fallback for dense inputs; the op has no dense "
      << "kernel to fall back to";
  WarnFallback(attrs, in_stype, out_stype);  // first: a warning made an error stops all work
  std::vector<NDArray> dense_in(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    dense_in[i] =
        inputs[i].is_sparse() ? op::CastStorage(inputs[i], StorageType::kDefault, name) : inputs[i];
  }
  std::vector<NDArray> dense_out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].defined() && !outputs[i].is_sparse()) dense_out[i] = outputs[i];
  }
  Invoke(attrs, Span<const NDArray>(dense_in), Span<NDArray>(dense_out));
  for (size_t i = 0; i < outputs.size(); ++i) {
    StorageType want = outputs[i].defined() ? outputs[i].stype() : out_stype[i];
    if (want == StorageType::kDefault) {
      if (!outputs[i].defined()) outputs[i] = dense_out[i];
      continue;
    }
    NDArray back = op::CastStorage(dense_out[i], want, name);
    if (!outputs[i].defined()) {
      outputs[i] = back;
    } else {
      outputs[i].SetSparseStorage(back.sparse_part(0), back.sparse_part(1), back.sparse_part(2));
    }
  }
}

/*!
 * \brief A call of an op without "TCOOInputs" that has coo inputs or coo out= arrays: the coo
 *  inputs converted to csr (by cast_storage, which sorts and sums duplicates), the op invoked
 *  on those, and the coo out= arrays given their results converted to coo. Warns as the
 *  fallback does, once per combination, before any work.
 */
[[gnu::noinline]] void InvokeThroughCSR(const OpAttrs& attrs, Span<const NDArray> inputs,
                                        Span<NDArray> outputs) {
  const char* name = attrs.op->name.c_str();
  std::vector<StorageType> in_stype(inputs.size()), out_stype(outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) in_stype[i] = inputs[i].stype();
  for (size_t i = 0; i < outputs.size(); ++i) {
    out_stype[i] = outputs[i].defined() ? outputs[i].stype() : StorageType::kUndefined;
  }
  WarnFallback(attrs, Span<const StorageType>(in_stype), Span<const StorageType>(out_stype), true);
  std::vector<NDArray> csr_in(inputs.begin(), inputs.end());
  for (NDArray& a : csr_in) {
    if (a.stype() == StorageType::kCOO) a = op::CastStorage(a, StorageType::kCSR, name);
  }
  std::vector<NDArray> csr_out(outputs.begin(), outputs.end());
  for (NDArray& o : csr_out) {
    if (o.defined() && o.stype() == StorageType::kCOO) o = NDArray();
  }
  Invoke(attrs, Span<const NDArray>(csr_in), Span<NDArray>(csr_out));
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined() || outputs[i].stype() != StorageType::kCOO) {
      outputs[i] = csr_out[i];
      continue;
    }
    const DLTensor& want = outputs[i].tensor();
    const DLTensor& got = csr_out[i].tensor();
    MXFFI_CHECK(TShape(want.shape, want.ndim) == TShape(got.shape, got.ndim), ValueError)
        << name << ": output #" << i << " has shape " << TShape(want.shape, want.ndim).ToString()
        << " but the result has shape " << TShape(got.shape, got.ndim).ToString();
    MXFFI_CHECK(want.dtype.code == got.dtype.code && want.dtype.bits == got.dtype.bits &&
                    want.dtype.lanes == got.dtype.lanes,
                TypeError)
        << name << ": output #" << i << " has dtype " << DataTypeToString(want.dtype)
        << " but the result has dtype " << DataTypeToString(got.dtype);
    NDArray back = op::CastStorage(csr_out[i], StorageType::kCOO, name);
    outputs[i].SetSparseStorage(back.sparse_part(0), back.sparse_part(1), back.sparse_part(2));
  }
}

/*! \brief How a dense output relates to the dense inputs. */
enum class Alias : int {
  kNone,     // shares no memory with any of them
  kExact,    // is exactly one (or more) of them, and overlaps no other
  kPartial,  // overlaps one without being exactly it
};

/*!
 * \return how out relates to the dense inputs. numpy computes as if into a temporary whenever
 *  out overlaps an operand other than exactly; Invoke does the same (see AliasOf's callers).
 */
Alias AliasOf(const DLTensor& out, Span<const NDArray> inputs) {
  Alias a = Alias::kNone;
  for (const NDArray& in : inputs) {
    if (in.is_sparse()) continue;
    const DLTensor& t = in.tensor();
    if (op::SameElements(out, t)) {
      a = Alias::kExact;
    } else if (op::MayOverlapForWrite(out, t)) {
      return Alias::kPartial;
    }
  }
  return a;
}

/*!
 * \brief The storage-aware kernel on outputs the caller gave, which may be inputs. A dense
 *  output that is exactly a dense input (and overlaps no other) gets kWriteInplace when the op
 *  sets "TWriteInplace"; one that overlaps an input in any other way, or is exactly an input of
 *  an op without it, gets a temporary copied into it afterwards. A sparse output that is an
 *  input gets a fresh array, whose parts it takes afterwards (a sparse result always has new
 *  parts).
 */
void RunExOnGivenOutputs(const OpAttrs& attrs, const FComputeEx& compute_ex, const OpContext& ctx,
                         Span<const NDArray> inputs, Span<NDArray> outputs, const bool* given,
                         OpReqType* req) {
  const size_t nout = outputs.size();
  NDArray kernel_out[kMaxOpArgs];
  bool substituted[kMaxOpArgs];
  for (size_t i = 0; i < nout; ++i) {
    kernel_out[i] = outputs[i];
    substituted[i] = false;
    if (!given[i]) continue;
    const NDArray& o = outputs[i];
    const DLTensor& t = o.tensor();
    if (o.is_sparse()) {
      for (const NDArray& in : inputs) substituted[i] |= in.same_as(o);
      if (substituted[i]) {
        kernel_out[i] = NDArray::EmptySparse(o.stype(), t.shape, t.ndim, t.dtype, t.device);
      }
    } else if (const Alias a = AliasOf(t, inputs); a != Alias::kNone) {
      if (a == Alias::kExact && attrs.op->call_attrs().write_inplace) {
        req[i] = OpReqType::kWriteInplace;
      } else {
        substituted[i] = true;
        kernel_out[i] = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
      }
    }
  }
  compute_ex(attrs, ctx, inputs, Span<const OpReqType>(req, nout),
             Span<const NDArray>(kernel_out, nout));
  for (size_t i = 0; i < nout; ++i) {
    if (!substituted[i]) continue;
    const NDArray& k = kernel_out[i];
    if (k.is_sparse()) {
      outputs[i].SetSparseStorage(k.sparse_part(0), k.sparse_part(1), k.sparse_part(2));
    } else {
      NDArray::CopyFromTo(k.tensor(), outputs[i].tensor());
    }
  }
}

}  // namespace

DispatchMode InferDispatch(const OpAttrs& attrs, Span<const NDArray> inputs,
                           Span<StorageType> out_stype) {
  const Op* op = attrs.op;
  MXFFI_CHECK(op != nullptr && op->index >= 0, ValueError) << "InferDispatch: no op given";
  CheckInputCount(attrs, inputs.size());
  MXFFI_CHECK(out_stype.size() == op->num_outputs, TypeError)
      << op->name << ": expected " << op->num_outputs << " output(s), got " << out_stype.size();
  StorageType in_stype_inline[kMaxOpArgs];
  StorageType* in_stype = in_stype_inline;
  std::unique_ptr<unsigned char[]> in_heap;
  if (inputs.size() > static_cast<size_t>(kMaxOpArgs)) {
    in_stype = AllocateInputs(inputs.size(), &in_heap).stype;
  }
  std::vector<TShape> shapes;
  DLDevice device = attrs.device;
  for (size_t i = 0; i < inputs.size(); ++i) {
    MXFFI_CHECK(inputs[i].defined(), TypeError) << op->name << ": input #" << i << " is None";
    const DLTensor& t = inputs[i].tensor();
    in_stype[i] = inputs[i].stype();
    if (!IsKnownStorageType(in_stype[i])) {
      ThrowUnknownStorage(in_stype[i], op->name, "input #" + std::to_string(i));
    }
    // What Invoke does: the op sees a coo input as csr unless it takes coo (InvokeThroughCSR).
    if (in_stype[i] == StorageType::kCOO && !op->call_attrs().coo_inputs) {
      in_stype[i] = StorageType::kCSR;
    }
    shapes.emplace_back(t.shape, t.ndim);
    if (i == 0) device = t.device;
  }
  return ChooseDispatch(attrs, device, Span<const StorageType>(in_stype, inputs.size()),
                        shapes.data(), out_stype);
}

void Invoke(const OpAttrs& attrs, Span<const NDArray> inputs, Span<NDArray> outputs) {
  const Op* op = attrs.op;
  MXFFI_CHECK(op != nullptr && op->index >= 0, ValueError) << "Invoke: no op given";
  const char* name = op->name.c_str();
  CheckInputCount(attrs, inputs.size());
  MXFFI_CHECK(outputs.size() == op->num_outputs, TypeError)
      << name << ": expected " << op->num_outputs << " output(s), got " << outputs.size();
  MXFFI_CHECK(outputs.size() <= kMaxOpArgs, ValueError)
      << name << ": at most " << kMaxOpArgs << " outputs";
  const Op::CallAttrs& call = op->call_attrs();
  const size_t nin = inputs.size(), nout = outputs.size();

  // Per-input scratch inline for up to kMaxOpArgs inputs (every op of a fixed arity), on the
  // heap beyond. Shapes are constructed only for the inputs and outputs this op has, and
  // default-initialised (TShape() would zero all kMaxNDim extents first).
  alignas(TShape) unsigned char shape_storage[2 * kMaxOpArgs * sizeof(TShape)];
  DLTensor in_blob_inline[kMaxOpArgs];
  DLDataType in_type_inline[kMaxOpArgs];
  StorageType in_stype_inline[kMaxOpArgs];
  TShape* in_shape = reinterpret_cast<TShape*>(shape_storage);
  TShape* out_shape = in_shape + kMaxOpArgs;
  DLTensor* in_blob = in_blob_inline;
  DLDataType* in_type = in_type_inline;
  StorageType* in_stype = in_stype_inline;
  std::unique_ptr<unsigned char[]> in_heap;
  if (nin > static_cast<size_t>(kMaxOpArgs)) {
    const HeapInputs heap = AllocateInputs(nin, &in_heap);
    in_shape = heap.shape;
    in_blob = heap.blob;
    in_type = heap.type;
    in_stype = heap.stype;
  }
  for (size_t i = 0; i < nout; ++i) new (&out_shape[i]) TShape;
  DLDataType out_type[kMaxOpArgs];
  StorageType out_stype[kMaxOpArgs];
  DLDevice device = attrs.device;
  bool any_coo = false;
  for (size_t i = 0; i < nin; ++i) {
    MXFFI_CHECK(inputs[i].defined(), TypeError) << name << ": input #" << i << " is None";
    const DLTensor& t = inputs[i].tensor();
    any_coo |= inputs[i].stype() == StorageType::kCOO;
    new (&in_shape[i]) TShape(t.shape, t.ndim);
    in_type[i] = t.dtype;
    in_stype[i] = inputs[i].stype();
    // No kernel, storage inference or fallback ever sees a storage type it does not know.
    if (!IsKnownStorageType(in_stype[i])) {
      ThrowUnknownStorage(in_stype[i], name, "input #" + std::to_string(i));
    }
    if (i == 0) {
      device = t.device;
    } else if (t.device.device_type != device.device_type ||
               t.device.device_id != device.device_id) {
      MXFFI_THROW(ValueError) << name << ": inputs are on different devices: ("
                              << device.device_type << ", " << device.device_id << ") and ("
                              << t.device.device_type << ", " << t.device.device_id
                              << ") for input #" << i;
    }
  }

  // Kernels exist for the CPU and CUDA only, and run on the inputs' device: memory of another
  // device type, or an out= array on another device, would be dereferenced by the wrong kind of
  // kernel (a CPU kernel on device memory segfaults; a GPU kernel on host memory faults the
  // CUDA context for good).
  MXFFI_CHECK(device.device_type == kDLCPU || device.device_type == kDLCUDA, NotImplementedError)
      << name << ": device type " << device.device_type
      << " is not supported; only the CPU (1) and CUDA (2) are";
  for (size_t i = 0; i < nout; ++i) {
    if (!outputs[i].defined()) continue;
    if (!IsKnownStorageType(outputs[i].stype())) {
      ThrowUnknownStorage(outputs[i].stype(), name, "output #" + std::to_string(i));
    }
    any_coo |= outputs[i].stype() == StorageType::kCOO;
    const DLDevice d = outputs[i].tensor().device;
    MXFFI_CHECK(d.device_type == device.device_type && d.device_id == device.device_id, ValueError)
        << name << ": output #" << i << " is on device (" << d.device_type << ", " << d.device_id
        << ") but the op runs on (" << device.device_type << ", " << device.device_id
        << "), the inputs' device";
  }

  // Storage inference and kernels of ops without "TCOOInputs" never see coo arrays.
  if (any_coo && !call.coo_inputs) {
    InvokeThroughCSR(attrs, inputs, outputs);
    return;
  }
  const FInferShape* infer_shape = call.infer_shape;
  MXFFI_CHECK(infer_shape != nullptr, NotImplementedError) << name << ": has no FInferShape";
  (*infer_shape)(attrs, Span<const TShape>(in_shape, nin), Span<TShape>(out_shape, nout));
  const FInferType* infer_type = call.infer_type;
  MXFFI_CHECK(infer_type != nullptr, NotImplementedError) << name << ": has no FInferType";
  (*infer_type)(attrs, Span<const DLDataType>(in_type, nin), Span<DLDataType>(out_type, nout));

  bool gpu = device.device_type != kDLCPU;
  const FCompute* compute = call.compute[gpu];
  const FComputeEx* compute_ex = call.compute_ex[gpu];
  const DispatchMode mode = ChooseDispatch(attrs, device, Span<const StorageType>(in_stype, nin),
                                           in_shape, Span<StorageType>(out_stype, nout));
  if (mode == DispatchMode::kFComputeFallback) {
    InvokeFallback(attrs, inputs, outputs, Span<const StorageType>(in_stype, nin),
                   Span<const StorageType>(out_stype, nout));
    return;
  }

  // The outputs the caller gave (out=): only those can be one of the inputs.
  bool given[kMaxOpArgs];
  bool any_given = false;
  for (size_t i = 0; i < nout; ++i) {
    given[i] = outputs[i].defined();
    any_given |= given[i];
    if (!given[i]) {
      outputs[i] =
          out_stype[i] == StorageType::kDefault
              ? NDArray::Empty(out_shape[i].data(), out_shape[i].ndim(), out_type[i], device)
              : NDArray::EmptySparse(out_stype[i], out_shape[i].data(), out_shape[i].ndim(),
                                     out_type[i], device);
      continue;
    }
    MXFFI_CHECK(outputs[i].stype() == out_stype[i], TypeError)
        << name << ": output #" << i << " has storage type " << StorageTypeName(outputs[i].stype())
        << " but the result has storage type " << StorageTypeName(out_stype[i]);
    const DLTensor& t = outputs[i].tensor();
    MXFFI_CHECK(TShape(t.shape, t.ndim) == out_shape[i], ValueError)
        << name << ": output #" << i << " has shape " << TShape(t.shape, t.ndim).ToString()
        << " but the result has shape " << out_shape[i].ToString();
    MXFFI_CHECK(t.dtype.code == out_type[i].code && t.dtype.bits == out_type[i].bits &&
                    t.dtype.lanes == out_type[i].lanes,
                TypeError)
        << name << ": output #" << i << " has dtype " << DataTypeToString(t.dtype)
        << " but the result has dtype " << DataTypeToString(out_type[i]);
    MXFFI_CHECK(!outputs[i].read_only(), ValueError)
        << name << ": output #" << i << " is read-only";
  }
  const bool may_alias = any_given && nin > 0;

  // A GPU kernel runs with its device current, on that device's current stream.
  OpContext ctx;
  ctx.device = device;
  cuda::DeviceGuard device_guard(device);
  if (gpu) ctx.stream = cuda::CurrentStream(device.device_id);
  OpReqType req[kMaxOpArgs];
  for (size_t i = 0; i < nout; ++i) req[i] = OpReqType::kWriteTo;

  if (mode == DispatchMode::kFComputeEx) {
    MXFFI_CHECK(compute_ex != nullptr, NotImplementedError)
        << name << ": has no kernel for device " << DeviceKey(device);
    if (may_alias) {
      RunExOnGivenOutputs(attrs, *compute_ex, ctx, inputs, outputs, given, req);
      return;
    }
    (*compute_ex)(attrs, ctx, inputs, Span<const OpReqType>(req, nout),
                  Span<const NDArray>(outputs.data(), nout));
    return;
  }
  MXFFI_CHECK(mode == DispatchMode::kFCompute, ValueError)
      << name << ": storage inference returned dispatch mode " << static_cast<int>(mode);
  MXFFI_CHECK(compute != nullptr, NotImplementedError)
      << name << ": has no FCompute<" << DeviceKey(device) << "> kernel";

  for (size_t i = 0; i < nin; ++i) {
    MXFFI_CHECK(!inputs[i].is_sparse(), ValueError)
        << name << ": storage inference sent sparse input #" << i << " to the dense kernel";
  }
  DLTensor out_blob[kMaxOpArgs];
  bool out_temp[kMaxOpArgs];
  const bool strided_ok = call.strided_inputs;
  // "TStridedOutputs": the kernel writes outputs through their strides (a scatter writing a few
  // elements of a view, which a contiguous temporary would turn into two whole copies).
  static const OpMap<bool> strided_outputs = Op::GetAttr<bool>("TStridedOutputs");
  const bool* so = strided_outputs.get(op);
  const bool strided_out_ok = so != nullptr && *so;
  bool need_temps = false;
  for (size_t i = 0; i < nin; ++i) {
    in_blob[i] = inputs[i].tensor();
    need_temps |= !strided_ok && !NDArray::IsContiguous(in_blob[i]);
  }
  for (size_t i = 0; i < nout; ++i) {
    out_blob[i] = outputs[i].tensor();
    // A strided out= array is written through a contiguous temporary (unless the op writes
    // strided outputs itself); so is one that overlaps an input other than exactly, or is
    // exactly an input of an op whose kernel cannot write over its input (see OpReqType).
    out_temp[i] = !strided_out_ok && !NDArray::IsContiguous(out_blob[i]);
    if (!out_temp[i] && may_alias && given[i]) {
      const Alias a = AliasOf(out_blob[i], inputs);
      if (a == Alias::kExact && call.write_inplace) {
        req[i] = OpReqType::kWriteInplace;
      } else if (a != Alias::kNone) {
        out_temp[i] = true;
      }
    }
    need_temps |= out_temp[i];
  }
  if (!need_temps) {
    (*compute)(attrs, ctx, Span<const DLTensor>(in_blob, nin), Span<const OpReqType>(req, nout),
               Span<const DLTensor>(out_blob, nout));
    return;
  }
  // Copies of strided inputs for a kernel that wants contiguous ones; outputs written through
  // contiguous temporaries where out_temp says so.
  std::vector<NDArray> in_temps(nin), out_temps(nout);
  for (size_t i = 0; i < nin; ++i) {
    if (!strided_ok && !NDArray::IsContiguous(in_blob[i])) {
      in_temps[i] = NDArray::Copy(in_blob[i]);
      in_blob[i] = in_temps[i].tensor();
    }
  }
  for (size_t i = 0; i < nout; ++i) {
    if (out_temp[i]) {
      out_temps[i] = NDArray::Empty(out_blob[i].shape, out_blob[i].ndim, out_blob[i].dtype, device);
      out_blob[i] = out_temps[i].tensor();
    }
  }
  (*compute)(attrs, ctx, Span<const DLTensor>(in_blob, nin), Span<const OpReqType>(req, nout),
             Span<const DLTensor>(out_blob, nout));
  for (size_t i = 0; i < nout; ++i) {
    if (out_temps[i].defined()) NDArray::CopyFromTo(out_temps[i].tensor(), outputs[i].tensor());
  }
}

}  // namespace mxffi
