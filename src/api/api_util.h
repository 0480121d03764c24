/*!
 * \file api_util.h
 * \brief What the API functions share beyond their argument kinds (mxffi/api/arg_types.h):
 *  numpy's default dtypes, running an op with one output, and axis normalisation.
 */
#ifndef MXFFI_SRC_API_API_UTIL_H_
#define MXFFI_SRC_API_API_UTIL_H_

#include <mxffi/api/arg_types.h>
#include <mxffi/container/array.h>
#include <mxffi/container/shape.h>
#include <mxffi/container/string.h>
#include <mxffi/op/op.h>

#include <complex>
#include <initializer_list>

namespace mxffi {
namespace api {

/*! \brief float64, numpy's default dtype. */
constexpr DLDataType kFloat64 = kFloat64DType;
/*! \brief int64, numpy's default integer. */
constexpr DLDataType kInt64{kDLInt, 64, 1};
/*! \brief bool. */
constexpr DLDataType kBool{kDLBool, 8, 1};
/*! \brief The CPU, where a function without array inputs puts its result when device is None. */
constexpr DLDevice kCPU{kDLCPU, 0};

/*! \return axis in [0, ndim); numpy's AxisError (ValueError and IndexError) when outside. */
MXFFI_DLL int NormalizeAxis(int64_t axis, int ndim, const char* fname);

/*! \brief The array API's copy= of asarray, array and reshape: True, None, False. */
enum class CopyMode { kAlways, kIfNeeded, kNever };

/*! \return copy= as a CopyMode: True always, None when needed, False never. */
inline CopyMode CopyModeOf(const Optional<bool>& copy) {
  return !copy.has_value() ? CopyMode::kIfNeeded : *copy ? CopyMode::kAlways : CopyMode::kNever;
}

/*!
 * \brief np.array's conversion of an array, a number or nested sequences (np_init.cc): obj as
 *  an array of dtype (None: its own, or numpy's default for numbers and sequences) on device
 *  (None: where obj is). kNever raises numpy's ValueError where that needs a copy: a number, a
 *  sequence, a lent tensor, another dtype or device.
 */
NDArray ArrayImpl(const ArrayLike& obj, const DTypeLike& dtype, const DeviceLike& device,
                  CopyMode copy, const char* fname);

/*!
 * \brief np.full's array (np_init.cc): shape filled with fill_value in dtype on device (None:
 *  the CPU), the value checked against the dtype as numpy 2 checks it; errors name fname.
 */
/*!
 * \brief np.full's fill: a number, a complex number or an array broadcast to shape; dtype None
 *  takes the fill's own (see np.full).
 */
NDArray FullOf(const ShapeLike& shape, const ArrayLike& fill_value, const DTypeLike& dtype,
               const DeviceLike& device, const char* fname);
/*!
 * \brief An array of shape holding value everywhere, of a complex dtype, on device (written on
 *  the host and moved).
 */
NDArray ComplexFull(const int64_t* shape, int ndim, DLDataType dtype, DLDevice device,
                    std::complex<double> value, const char* fname);
NDArray Full(const ShapeLike& shape, const ScalarLike& fill_value, DLDataType dtype,
             const DeviceLike& device, const char* fname);

/*! \brief Write t's element strides (C-contiguous ones where t has none) to out. */
inline void ElementStrides(const DLTensor& t, int64_t* out) {
  if (t.strides != nullptr) {
    for (int i = 0; i < t.ndim; ++i) out[i] = t.strides[i];
  } else {
    NDArray::CompactStrides(t, out);
  }
}

/*! \return a's array, refusing a sparse one with a TypeError naming fname. */
NDArray DenseArray(const NDArrayLike& a, const char* fname);

/*! \return a converted to dtype by the cast op (a itself when it has that dtype already). */
NDArray CastTo(const NDArray& a, DLDataType dtype);

/*! \return a on device: a itself when it is there already, else a copy there. */
NDArray OnDevice(const NDArray& a, DLDevice device);

/*! \return a for a use that may outlive the call: a lent tensor is copied (np_init.cc). */
NDArray OwnedArray(const NDArrayLike& a);

/*!
 * \return a copy of the dense index part a of a sparse array being built (sparse_coo_api.cc):
 *  ids a caller changes later must never reach a kernel. A sparse a is a TypeError naming
 *  fname and part.
 */
NDArray CopiedIndexPart(const NDArray& a, const char* fname, const char* part);

/*!
 * \brief The values of a sparse array being built from parts of a 2-D shape (sparse_coo_api.cc):
 *  data itself when mxffi holds it (not lent for the call), 1-D, contiguous and on the CPU,
 *  else a copy. A shape of another rank is a ValueError, sparse data a TypeError, naming fname.
 */
NDArray SharedOrCopiedValues(const ShapeLike& shape, const NDArrayLike& data, const char* fname);

/*!
 * \brief np.transpose (np_init.cc): a view of a with its axes permuted by axes (reversed when
 *  None); numpy's errors, naming fname, for a wrong count or a repeated axis.
 */
NDArray Transpose(const NDArrayLike& a, const AxisLike& axes, const char* fname);

/*!
 * \brief Run op on inputs with param, one output.
 * \param device where an op without inputs puts its output.
 */
template <typename P>
inline NDArray InvokeOp(const Op* op, const P& param, std::initializer_list<NDArray> inputs,
                        DLDevice device = kCPU) {
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &param;
  attrs.device = device;
  return Invoke(attrs, Span<const NDArray>(inputs.begin(), inputs.size()));
}

/*!
 * \brief Run attrs on inputs into out, an array the caller gave (numpy's out=), and return out.
 *  The result's shape must be out's (ValueError naming fname). A result of out's dtype is
 *  written straight into out, so Invoke's overlap rules apply (out may be an input, exactly or
 *  partly); one of another dtype is computed into a temporary and converted into out, when
 *  numpy's same_kind rule allows (TypeError otherwise) or always when same_kind is false (the
 *  reductions, whose out= numpy converts unsafely).
 */
NDArray InvokeIntoOut(const OpAttrs& attrs, Span<const NDArray> inputs, const NDArray& out,
                      bool same_kind, const char* fname);

/*!
 * \brief a*x**2 + b*x + c through the quadratic op (np.quadratic and sparse.quadratic; defined
 *  in np_elemwise.cc).
 */
NDArray Quadratic(const NDArray& x, double a, double b, double c);

}  // namespace api
}  // namespace mxffi

#endif  // MXFFI_SRC_API_API_UTIL_H_
