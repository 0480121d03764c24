/*!
 * \file api_util.h
 * \brief Reading API-function arguments: arrays, shapes, axes, dtypes and devices, as numpy
 *  reads them, with errors naming the function and the value.
 */
#ifndef MXFFI_SRC_API_API_UTIL_H_
#define MXFFI_SRC_API_API_UTIL_H_

#include <mxffi/any.h>
#include <mxffi/container/array.h>
#include <mxffi/container/shape.h>
#include <mxffi/container/string.h>
#include <mxffi/op/op.h>

#include <string>
#include <string_view>

namespace mxffi {
namespace api {

/*! \brief float64, numpy's default dtype. */
constexpr DLDataType kFloat64{kDLFloat, 64, 1};
/*! \brief int64, numpy's default integer. */
constexpr DLDataType kInt64{kDLInt, 64, 1};
/*! \brief bool. */
constexpr DLDataType kBool{kDLBool, 8, 1};

/*!
 * \return v as an NDArray: an mxffi array as it is, a borrowed tensor (a numpy array passed in)
 *  wrapped for the duration of the call; nullopt for anything else.
 */
inline std::optional<NDArray> TryArray(const AnyView& v) {
  if (v.type_index() == kMXFFINDArray) return v.cast<NDArray>();
  if (v.type_index() == kMXFFIDLTensorPtr) {
    return NDArray::FromBorrowed(*static_cast<DLTensor*>(v.raw()->v_ptr));
  }
  return std::nullopt;
}

/*! \return v as an NDArray; TypeError naming fname and arg for anything else. */
inline NDArray ArrayArg(const AnyView& v, const char* fname, const char* arg) {
  if (std::optional<NDArray> a = TryArray(v)) return *a;
  MXFFI_THROW(TypeError) << fname << ": argument '" << arg << "' expected an ndarray, got "
                         << v.GetTypeName();
  __builtin_unreachable();
}

/*! \return the text of a str argument without copying it, or nullopt for other values. */
inline std::optional<std::string_view> StrArg(const AnyView& v) {
  const MXFFIAny* c = v.raw();
  switch (c->type_index) {
    case kMXFFIStrView: {
      const MXFFIByteArray* b = static_cast<const MXFFIByteArray*>(c->v_ptr);
      return std::string_view(b->data, b->size);
    }
    case kMXFFISmallStr:
      return std::string_view(c->v_bytes, c->small_len);
    case kMXFFIString: {
      const MXFFIStringObj* s = reinterpret_cast<const MXFFIStringObj*>(c->v_obj);
      return std::string_view(s->data, static_cast<size_t>(s->size));
    }
    case kMXFFIRawStr:
      return std::string_view(c->v_c_str);
    default:
      return std::nullopt;
  }
}

/*! \return v (None, a DataType or a name numpy knows) as a dtype; dflt for None. */
inline DLDataType DTypeArg(const AnyView& v, const char* fname, DLDataType dflt) {
  switch (v.type_index()) {
    case kMXFFINone:
      return dflt;
    case kMXFFIDataType:
      return v.raw()->v_dtype;
    default:
      break;
  }
  if (std::optional<std::string_view> s = StrArg(v)) return DataTypeFromString(*s, fname);
  MXFFI_THROW(TypeError) << fname << ": dtype expected a str or a DataType, got "
                         << v.GetTypeName();
  __builtin_unreachable();
}

/*!
 * \return v as a device: None (the CPU), a Device, "cpu", "cpu:0", "cuda:1", or a DLPack
 *  (device_type, device_id) pair.
 */
MXFFI_DLL DLDevice DeviceArg(const AnyView& v, const char* fname);

/*!
 * \brief v (an int, a sequence of ints or a Shape) into out.
 * \throws TypeError for other values; ValueError for a negative extent when check_negative.
 */
MXFFI_DLL void ShapeArg(const AnyView& v, const char* fname, TShape* out,
                        bool check_negative = true);

/*! \return a Python number (int, bool or float) as a double; TypeError naming arg otherwise. */
MXFFI_DLL double NumberArg(const AnyView& v, const char* fname, const char* arg);

/*! \return axis in [0, ndim); numpy's AxisError (ValueError and IndexError) when outside. */
MXFFI_DLL int NormalizeAxis(int64_t axis, int ndim, const char* fname);

/*!
 * \brief Run op on inputs with param, one output.
 * \param device where an op without inputs puts its output.
 */
template <typename P>
inline NDArray InvokeOp(const Op* op, const P& param, std::initializer_list<NDArray> inputs,
                        DLDevice device = DLDevice{kDLCPU, 0}) {
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &param;
  attrs.device = device;
  return Invoke(attrs, Span<const NDArray>(inputs.begin(), inputs.size()));
}

/*!
 * \brief a*x**2 + b*x + c through the quadratic op, errors naming fname (np.quadratic and
 *  sparse.quadratic; defined in np_elemwise.cc).
 */
NDArray Quadratic(const char* fname, const AnyView& x, const AnyView& a, const AnyView& b,
                  const AnyView& c);

}  // namespace api
}  // namespace mxffi

#endif  // MXFFI_SRC_API_API_UTIL_H_
