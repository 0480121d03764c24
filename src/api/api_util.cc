/*!
 * \file api_util.cc
 * \brief Helpers shared by the API functions.
 */
#include "api_util.h"

#include <vector>

#include "../op/dtype.h"
#include "../op/elemwise/elemwise.h"
#include "../op/init/init_op.h"

namespace mxffi {
namespace api {

int NormalizeAxis(int64_t axis, int ndim, const char* fname) {
  if (axis < -ndim || axis >= ndim) {
    MXFFI_THROW(AxisError) << fname << ": axis " << axis
                           << " is out of bounds for array of dimension " << ndim;
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

NDArray InvokeIntoOut(const OpAttrs& attrs, Span<const NDArray> inputs, const NDArray& out,
                      bool same_kind, const char* fname) {
  MXFFI_CHECK(!out.is_sparse(), TypeError)
      << fname << ": out must be a dense array, got a " << StorageTypeName(out.stype()) << " one";
  const Op::CallAttrs& call = attrs.op->call_attrs();
  std::vector<TShape> in_shape;
  std::vector<DLDataType> in_type;
  for (const NDArray& a : inputs) {
    in_shape.emplace_back(a.tensor().shape, a.tensor().ndim);
    in_type.push_back(a.tensor().dtype);
  }
  TShape shape;
  DLDataType dtype;
  (*call.infer_shape)(attrs, Span<const TShape>(in_shape), Span<TShape>(&shape, 1));
  (*call.infer_type)(attrs, Span<const DLDataType>(in_type), Span<DLDataType>(&dtype, 1));
  const DLTensor& o = out.tensor();
  MXFFI_CHECK(TShape(o.shape, o.ndim) == shape, ValueError)
      << fname << ": out has shape " << TShape(o.shape, o.ndim).ToString()
      << " but the result has shape " << shape.ToString();
  NDArray result = out;
  if (op::SameDType(o.dtype, dtype)) {
    Invoke(attrs, inputs, Span<NDArray>(&result, 1));
    return out;
  }
  MXFFI_CHECK(!same_kind || op::CanCastSameKind(dtype, o.dtype), TypeError)
      << fname << ": cannot cast the result from " << DataTypeToString(dtype) << " to out's "
      << DataTypeToString(o.dtype) << " with casting rule 'same_kind'";
  NDArray tmp = Invoke(attrs, inputs);
  static const Op* cast = Op::Get("_cast");
  op::CastParam p;
  p.dtype = o.dtype;
  OpAttrs cast_attrs;
  cast_attrs.op = cast;
  cast_attrs.param = &p;
  Invoke(cast_attrs, Span<const NDArray>(&tmp, 1), Span<NDArray>(&result, 1));
  return out;
}

NDArray DenseArray(const NDArrayLike& a, const char* fname) {
  MXFFI_CHECK(!a->is_sparse(), TypeError)
      << fname << ": takes a dense array; got storage type " << StorageTypeName(a->stype());
  return a.array();
}

NDArray CastTo(const NDArray& a, DLDataType dtype) {
  if (op::SameDType(a.tensor().dtype, dtype)) return a;
  static const Op* cast = Op::Get("_cast");
  op::CastParam p;
  p.dtype = dtype;
  return InvokeOp(cast, p, {a});
}

NDArray OnDevice(const NDArray& a, DLDevice device) {
  const DLDevice d = a.tensor().device;
  if (d.device_type == device.device_type && d.device_id == device.device_id) return a;
  NDArray out = NDArray::Empty(a.tensor().shape, a.tensor().ndim, a.tensor().dtype, device);
  NDArray::CopyFromTo(a.tensor(), out.tensor());
  return out;
}

}  // namespace api
}  // namespace mxffi
