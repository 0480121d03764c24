/*!
 * \file invoke.cc
 * \brief Invoke: inference, output allocation and dispatch for one op call.
 *
 * Everything on this path lives on the stack (TShape, DLTensor arrays) except the outputs it
 * allocates and, for an op that wants contiguous inputs, copies of strided ones.
 */
#include <mxffi/op/op.h>

#include <new>
#include <vector>

namespace mxffi {
namespace {

const char* DeviceKey(DLDevice dev) { return dev.device_type == kDLCPU ? "cpu" : "gpu"; }

}  // namespace

void Invoke(const OpAttrs& attrs, Span<const NDArray> inputs, Span<NDArray> outputs) {
  const Op* op = attrs.op;
  MXFFI_CHECK(op != nullptr && op->index >= 0, ValueError) << "Invoke: no op given";
  const char* name = op->name.c_str();
  MXFFI_CHECK(inputs.size() == op->num_inputs, TypeError)
      << name << ": expected " << op->num_inputs << " input(s), got " << inputs.size();
  MXFFI_CHECK(outputs.size() == op->num_outputs, TypeError)
      << name << ": expected " << op->num_outputs << " output(s), got " << outputs.size();
  MXFFI_CHECK(inputs.size() <= kMaxOpArgs && outputs.size() <= kMaxOpArgs, ValueError)
      << name << ": at most " << kMaxOpArgs << " inputs and outputs";
  const Op::CallAttrs& call = op->call_attrs();
  const size_t nin = inputs.size(), nout = outputs.size();

  // Inline shapes, constructed only for the inputs and outputs this op has.
  alignas(TShape) unsigned char shape_storage[2 * kMaxOpArgs * sizeof(TShape)];
  TShape* in_shape = reinterpret_cast<TShape*>(shape_storage);
  TShape* out_shape = in_shape + kMaxOpArgs;
  for (size_t i = 0; i < outputs.size() && i < static_cast<size_t>(kMaxOpArgs); ++i) {
    new (&out_shape[i]) TShape();
  }
  DLDataType in_type[kMaxOpArgs], out_type[kMaxOpArgs];
  StorageType in_stype[kMaxOpArgs], out_stype[kMaxOpArgs];
  DLDevice device = attrs.device;
  for (size_t i = 0; i < nin; ++i) {
    MXFFI_CHECK(inputs[i].defined(), TypeError) << name << ": input #" << i << " is None";
    const DLTensor& t = inputs[i].tensor();
    new (&in_shape[i]) TShape(t.shape, t.ndim);
    in_type[i] = t.dtype;
    in_stype[i] = StorageType::kDefault;
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

  const FInferShape* infer_shape = call.infer_shape;
  MXFFI_CHECK(infer_shape != nullptr, NotImplementedError) << name << ": has no FInferShape";
  (*infer_shape)(attrs, Span<const TShape>(in_shape, nin), Span<TShape>(out_shape, nout));
  const FInferType* infer_type = call.infer_type;
  MXFFI_CHECK(infer_type != nullptr, NotImplementedError) << name << ": has no FInferType";
  (*infer_type)(attrs, Span<const DLDataType>(in_type, nin), Span<DLDataType>(out_type, nout));

  bool gpu = device.device_type != kDLCPU;
  const FCompute* compute = call.compute[gpu];
  const FComputeEx* compute_ex = call.compute_ex[gpu];
  DispatchMode mode;
  if (const FInferStorageType* infer_stype = call.infer_storage_type) {
    mode = (*infer_stype)(attrs, device, Span<const StorageType>(in_stype, nin),
                          Span<StorageType>(out_stype, nout));
  } else {
    for (size_t i = 0; i < nout; ++i) out_stype[i] = StorageType::kDefault;
    mode = compute != nullptr ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
  }

  for (size_t i = 0; i < nout; ++i) {
    if (!outputs[i].defined()) {
      outputs[i] = NDArray::Empty(out_shape[i].data(), out_shape[i].ndim(), out_type[i], device);
      continue;
    }
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

  OpContext ctx;
  ctx.device = device;
  OpReqType req[kMaxOpArgs];
  for (size_t i = 0; i < nout; ++i) req[i] = OpReqType::kWriteTo;

  if (mode == DispatchMode::kFComputeEx) {
    MXFFI_CHECK(compute_ex != nullptr, NotImplementedError)
        << name << ": has no kernel for device " << DeviceKey(device);
    (*compute_ex)(attrs, ctx, inputs, Span<const OpReqType>(req, nout),
                  Span<const NDArray>(outputs.data(), nout));
    return;
  }
  MXFFI_CHECK(mode == DispatchMode::kFCompute, NotImplementedError)
      << name << ": storage fallback needs sparse arrays, which this build does not have";
  MXFFI_CHECK(compute != nullptr, NotImplementedError)
      << name << ": has no FCompute<" << DeviceKey(device) << "> kernel";

  DLTensor in_blob[kMaxOpArgs], out_blob[kMaxOpArgs];
  const bool strided_ok = call.strided_inputs;
  bool need_temps = false;
  for (size_t i = 0; i < nin; ++i) {
    in_blob[i] = inputs[i].tensor();
    need_temps |= !strided_ok && !NDArray::IsContiguous(in_blob[i]);
  }
  for (size_t i = 0; i < nout; ++i) {
    out_blob[i] = outputs[i].tensor();
    need_temps |= !NDArray::IsContiguous(out_blob[i]);
  }
  if (!need_temps) {
    (*compute)(attrs, ctx, Span<const DLTensor>(in_blob, nin), Span<const OpReqType>(req, nout),
               Span<const DLTensor>(out_blob, nout));
    return;
  }
  // Copies of strided inputs for a kernel that wants contiguous ones; outputs written through a
  // contiguous temporary when the caller's out= array is strided.
  std::vector<NDArray> in_temps(nin), out_temps(nout);
  for (size_t i = 0; i < nin; ++i) {
    if (!strided_ok && !NDArray::IsContiguous(in_blob[i])) {
      in_temps[i] = NDArray::Empty(in_blob[i].shape, in_blob[i].ndim, in_blob[i].dtype, device);
      NDArray::CopyFromTo(in_blob[i], in_temps[i].tensor());
      in_blob[i] = in_temps[i].tensor();
    }
  }
  for (size_t i = 0; i < nout; ++i) {
    if (!NDArray::IsContiguous(out_blob[i])) {
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
