/*!
 * \file np_cumulative.cc
 * \brief The running sums and products: the array API's np.cumulative_sum and
 *  np.cumulative_prod, numpy's np.cumsum and np.cumprod, each one _npi_cumsum or _npi_cumprod
 *  call (after a conversion of x to the result dtype where no kernel pairs the two).
 */
#include <mxffi/registry.h>

#include "../op/dtype.h"
#include "../op/init/init_op.h"
#include "../op/promote.h"
#include "../op/reduce/reduce_op.h"
#include "../op/scan/scan_op.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

/*!
 * \brief x scanned along axis (already checked against x's ndim, which is at least 1) into a
 *  new array, or into out (converted unsafely, as numpy's accumulate converts into out=).
 */
NDArray Scan(const Op* op, NDArray x, int64_t axis, const DTypeLike& dtype, bool include_initial,
             const Optional<WritableArray>& out, const char* fname) {
  const DLDataType in = x.tensor().dtype;
  MXFFI_CHECK(op::DTypeRuleIndex(in) >= 0, TypeError)
      << fname << ": unsupported dtype " << DataTypeToString(in);
  op::ScanParam p;
  p.axis = axis;
  p.include_initial = include_initial;
  if (dtype.has_value()) {
    MXFFI_CHECK(op::DTypeRuleIndex(dtype.value()) >= 0, TypeError)
        << fname << ": unsupported dtype " << DataTypeToString(dtype.value());
    p.dtype = DTypeParam(dtype.value());
  }
  const DLDataType rtype = op::SumType(in, p.dtype);
  if (!op::scan::ScanPairSupported(in, rtype)) {
    // numpy converts each element to the result dtype before it accumulates (unsafely).
    static const Op* cast = Op::Get("_cast");
    op::CastParam c;
    c.dtype = rtype;
    x = InvokeOp(cast, c, {x});
  }
  if (!out.has_value()) return InvokeOp(op, p, {x});
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &p;
  return InvokeIntoOut(attrs, Span<const NDArray>(&x, 1), out->array(), false, fname);
}

/*! \return x as a dense array, refusing a sparse one by fname. */
NDArray Dense(const NDArrayLike& x, const char* fname) {
  MXFFI_CHECK(!x->is_sparse(), TypeError)
      << fname << ": takes a dense array; got storage type " << StorageTypeName(x->stype());
  return x;
}

/*! \return a 1-d view of x's elements in C order (a copy where x is strided). */
NDArray Flat(const NDArray& x) {
  const NDArray c = x.Contiguous();
  const int64_t n = op::NumElements(c.tensor());
  return NDArray::View(c, &n, nullptr, 1, 0);
}

/*!
 * \brief The array API's cumulative_sum / cumulative_prod: axis None only for a 1-d x (a 0-d
 *  one scans as 1-d, as numpy 2 does); else numpy's ValueError.
 */
NDArray Cumulative(const Op* op, const NDArrayLike& x_arg, const Optional<int64_t>& axis,
                   const DTypeLike& dtype, bool include_initial, const char* fname) {
  NDArray x = Dense(x_arg, fname);
  const int ndim = x.tensor().ndim;
  if (ndim == 0) {
    x = Flat(x);
  } else {
    MXFFI_CHECK(axis.has_value() || ndim == 1, ValueError)
        << fname << ": For arrays which have more than one dimension ``axis`` argument is "
        << "required; got an array of dimension " << ndim;
  }
  const int64_t ax = axis.has_value() ? NormalizeAxis(*axis, x.tensor().ndim, fname) : 0;
  return Scan(op, x, ax, dtype, include_initial, Optional<WritableArray>(), fname);
}

/*! \brief numpy's cumsum / cumprod: axis None scans x flattened (a 0-d x gives 1 element). */
NDArray NumpyCumulative(const Op* op, const NDArrayLike& a, const Optional<int64_t>& axis,
                        const DTypeLike& dtype, const Optional<WritableArray>& out,
                        const char* fname) {
  NDArray x = Dense(a, fname);
  if (!axis.has_value()) return Scan(op, Flat(x), 0, dtype, false, out, fname);
  const int64_t ax = NormalizeAxis(*axis, x.tensor().ndim, fname);
  return Scan(op, x, ax, dtype, false, out, fname);
}

}  // namespace

MXFFI_REGISTER_API("np.cumulative_sum")
    .describe(
        "The running sum of x along axis (None: only for a 1-d x), in dtype (None: int64 for "
        "bool and the narrower signed integers, uint64 for the narrower unsigned ones, else "
        "x's), each element converted to it first; include_initial puts a 0 before each line.")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("include_initial", false)
    .set_body_typed([](NDArrayLike x, Optional<int64_t> axis, DTypeLike dtype,
                       bool include_initial) {
      static const Op* op = Op::Get("_npi_cumsum");
      return Cumulative(op, x, axis, dtype, include_initial, "np.cumulative_sum");
    });

MXFFI_REGISTER_API("np.cumulative_prod")
    .describe(
        "The running product of x along axis (None: only for a 1-d x), in dtype (None: as "
        "cumulative_sum), integers wrapping; include_initial puts a 1 before each line.")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("include_initial", false)
    .set_body_typed([](NDArrayLike x, Optional<int64_t> axis, DTypeLike dtype,
                       bool include_initial) {
      static const Op* op = Op::Get("_npi_cumprod");
      return Cumulative(op, x, axis, dtype, include_initial, "np.cumulative_prod");
    });

MXFFI_REGISTER_API("np.cumsum")
    .describe(
        "numpy's cumsum: the running sum of a along axis (None: a flattened), in dtype (None: "
        "as cumulative_sum); into out= when given (converted unsafely, as numpy).")
    .arg("a")
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("out", nullptr)
    .set_body_typed([](NDArrayLike a, Optional<int64_t> axis, DTypeLike dtype,
                       Optional<WritableArray> out) {
      static const Op* op = Op::Get("_npi_cumsum");
      return NumpyCumulative(op, a, axis, dtype, out, "np.cumsum");
    });

MXFFI_REGISTER_API("np.cumprod")
    .describe(
        "numpy's cumprod: the running product of a along axis (None: a flattened), in dtype "
        "(None: as cumulative_sum); into out= when given (converted unsafely, as numpy).")
    .arg("a")
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("out", nullptr)
    .set_body_typed([](NDArrayLike a, Optional<int64_t> axis, DTypeLike dtype,
                       Optional<WritableArray> out) {
      static const Op* op = Op::Get("_npi_cumprod");
      return NumpyCumulative(op, a, axis, dtype, out, "np.cumprod");
    });

}  // namespace api
}  // namespace mxffi
