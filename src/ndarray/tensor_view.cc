/*!
 * \file tensor_view.cc
 * \brief The checks and names of TensorView parameters (mxffi/tensor_view.h): what a
 *  parameter's constraints declare, and whether a tensor argument keeps them.
 */
#include <mxffi/tensor_view.h>

#include <sstream>
#include <string>

namespace mxffi {
namespace details {
namespace {

/*! \brief NDArray::IsContiguous, with a tensor holding no element contiguous whatever its
 *  strides (numpy's rule; numpy exports odd strides for empty arrays). */
bool IsCContiguous(const DLTensor& t) {
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) return true;
  }
  return NDArray::IsContiguous(t);
}

/*! \return "a float64 tensor with 3 dimensions on cpu:0" (", not C-contiguous" when asked). */
std::string TensorText(const DLTensor& t, bool say_layout) {
  std::ostringstream os;
  os << "a " << DataTypeToString(t.dtype) << " tensor with " << t.ndim
     << (t.ndim == 1 ? " dimension" : " dimensions") << " on " << DeviceToString(t.device);
  if (say_layout && !IsCContiguous(t)) os << ", not C-contiguous";
  return os.str();
}

}  // namespace

std::string TensorSpecStr(const TensorSpec& spec) {
  std::string parts;
  auto add = [&parts](const std::string& part) { parts += (parts.empty() ? "" : ", ") + part; };
  if (spec.dtype.lanes != 0) add(DataTypeToString(spec.dtype));
  if (spec.ndim >= 0) add("ndim=" + std::to_string(spec.ndim));
  if (spec.device != 0) add(spec.device == kDLCPU ? "cpu" : "cuda");  // the two device tags
  if (spec.c_contig) add("c_contig");
  return parts.empty() ? "Tensor" : "Tensor[" + parts + "]";
}

std::string TensorSpecDesc(const TensorSpec& spec) {
  std::string out = "a ";
  if (spec.dtype.lanes != 0) out += DataTypeToString(spec.dtype) + " ";
  out += "tensor";
  if (spec.ndim >= 0) {
    out += " with " + std::to_string(spec.ndim) + (spec.ndim == 1 ? " dimension" : " dimensions");
  }
  if (spec.device == kDLCPU) out += " on the CPU";
  if (spec.device == kDLCUDA) out += " on a CUDA device";
  if (spec.c_contig) out += ", C-contiguous";
  return out;
}

const DLTensor* CheckTensorSpec(const MXFFIAny* src, const ArgContext* ctx,
                                const TensorSpec& spec) {
  const DLTensor* t;
  if (src->type_index == kMXFFIDLTensorPtr) {
    t = static_cast<const DLTensor*>(src->v_ptr);
  } else if (src->type_index == kMXFFINDArray) {
    const auto* obj = reinterpret_cast<const MXFFINDArrayObj*>(src->v_obj);
    if (obj->stype != kMXFFIStorageDefault) {
      if (ctx == nullptr) return nullptr;
      MXFFI_THROW(TypeError) << *ctx << " expected " << TensorSpecDesc(spec)
                             << ", got a sparse array (storage type " << obj->stype
                             << "); convert it with .todense()";
    }
    t = &obj->tensor;
  } else {
    return nullptr;  // the caller's TypeError: expected <TypeDesc>, got <cell type>
  }
  const bool dtype_ok = spec.dtype.lanes == 0 ||
                        (t->dtype.code == spec.dtype.code && t->dtype.bits == spec.dtype.bits &&
                         t->dtype.lanes == spec.dtype.lanes);
  const bool ok = dtype_ok && (spec.ndim < 0 || t->ndim == spec.ndim) &&
                  (spec.device == 0 || t->device.device_type == spec.device) &&
                  (!spec.c_contig || IsCContiguous(*t));
  if (ok) return t;
  if (ctx == nullptr) return nullptr;
  MXFFI_THROW(TypeError) << *ctx << " expected " << TensorSpecDesc(spec) << ", got "
                         << TensorText(*t, spec.c_contig);
}

}  // namespace details
}  // namespace mxffi
