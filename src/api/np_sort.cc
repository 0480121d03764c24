/*!
 * \file np_sort.cc
 * \brief np.sort, np.argsort, np.searchsorted, the array API's unique_values, unique_counts,
 *  unique_inverse and unique_all, numpy's np.unique, and the array method ndarray.sort (in
 *  place). All run on the sort ops (src/op/sort): unique is a fixed sequence of them (a stable
 *  argsort of the flat array, the count of distinct values, then one pass writing the four
 *  results), so it runs on both devices.
 */
#include <mxffi/container/tuple.h>
#include <mxffi/registry.h>

#include <string>
#include <string_view>
#include <vector>

#include "../op/indexing/indexing_op.h"
#include "../op/promote.h"
#include "../op/sort/sort_op.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

using op::SortParam;
using op::UniqueParam;

/*! \return a C-contiguous (n,) view of a's elements in C order (a copy when a is strided). */
NDArray FlatView(const NDArray& a) {
  const NDArray c = a.Contiguous();
  const int64_t n = op::NumElements(c.tensor());
  return NDArray::View(c, &n, nullptr, 1, 0);
}

/*!
 * \brief TypeError naming fname unless a has a dtype the sort kernels take: a real one, or
 *  complex64 or complex128 (sorted in numpy's lexicographic order).
 */
void CheckSortable(const NDArray& a, const char* fname) {
  const DLDataType t = a.tensor().dtype;
  const bool cplx = t.code == kDLComplex && t.lanes == 1 && (t.bits == 64 || t.bits == 128);
  MXFFI_CHECK(cplx || op::DTypeIndex(t) >= 0, TypeError)
      << fname << ": unsupported dtype " << DataTypeToString(t)
      << "; expected a bool, integer, floating-point or complex dtype";
}

/*!
 * \brief numpy's kind= (and its check against stable=): every kind sorts stably here, which
 *  each of them allows.
 */
void CheckKind(const Optional<String>& kind, const Optional<bool>& stable, const char* fname) {
  if (!kind.has_value()) return;
  const std::string_view k = kind.value();
  MXFFI_CHECK(!stable.has_value(), ValueError)
      << fname << ": `kind` and `stable` parameters can't be provided at the same time. Use "
      << "only one of them; got kind='" << k << "' and stable=" << (*stable ? "True" : "False");
  MXFFI_CHECK(k == "quicksort" || k == "quick" || k == "mergesort" || k == "merge" ||
                  k == "heapsort" || k == "heap" || k == "stable",
              ValueError)
      << fname << ": sort kind must be one of 'quicksort', 'mergesort', 'heapsort' or 'stable' "
      << "(got '" << k << "')";
}

/*! \brief numpy's order= names fields of a structured dtype, which mxffi has none of. */
void CheckOrder(const Optional<String>& order, const char* fname) {
  MXFFI_CHECK(!order.has_value(), ValueError)
      << fname << ": Cannot specify order when the array has no fields; got order='"
      << std::string_view(order.value()) << "'";
}

/*! \brief The sort op on a along axis (None: flattened). */
NDArray SortImpl(const Op* op, const NDArray& a, const AxisLike& axis, bool descending,
                 const char* fname) {
  MXFFI_CHECK(axis.is_none() || axis.is_int(), TypeError)
      << fname << ": argument 'axis' expected None or an int, got the sequence "
      << axis.tuple().ToString();
  SortParam p;
  p.descending = descending;
  if (axis.is_none()) {
    p.axis = 0;
    return InvokeOp(op, p, {FlatView(a)});
  }
  const int64_t ax = axis.axis();
  const int ndim = a.tensor().ndim;
  MXFFI_CHECK(ax >= -ndim && ax < ndim, AxisError)
      << fname << ": axis " << ax << " is out of bounds for array of dimension " << ndim;
  p.axis = static_cast<int>(ax);
  return InvokeOp(op, p, {a});
}

/*! \brief The four results of unique over x's elements (inverse in x's shape). */
struct UniqueResult {
  NDArray values, indices, inverse, counts;
};

UniqueResult UniqueImpl(const NDArray& x, bool equal_nan, const char* fname) {
  static const Op* argsort_op = Op::Get("_npi_argsort");
  static const Op* count_op = Op::Get("_npi_unique_count");
  static const Op* unique_op = Op::Get("_npi_unique");
  CheckSortable(x, fname);
  const NDArray flat = FlatView(x);
  SortParam sp;
  sp.axis = 0;
  sp.descending = false;
  const NDArray perm = InvokeOp(argsort_op, sp, {flat});
  UniqueParam p;
  p.equal_nan = equal_nan;
  const DLTensor& t = flat.tensor();
  if (t.device.device_type == kDLCPU) {
    // The count op's CPU kernel, run here: no array for one number.
    DLTensor count{};
    count.data = &p.count;
    count.device = t.device;
    count.dtype = kInt64;
    op::UniqueCount(op::cpu{}, OpContext(), t, perm.tensor(), count, equal_nan, fname);
  } else {
    const NDArray count = InvokeOp(count_op, p, {flat, perm});
    NDArray host = NDArray::Empty(nullptr, 0, kInt64, kCPU);
    NDArray::CopyFromTo(count.tensor(), host.tensor());
    p.count = *static_cast<const int64_t*>(host.data());
  }
  NDArray out[4];
  OpAttrs attrs;
  attrs.op = unique_op;
  attrs.param = &p;
  const NDArray inputs[2] = {flat, perm};
  Invoke(attrs, Span<const NDArray>(inputs, 2), Span<NDArray>(out, 4));
  const DLTensor& xt = x.tensor();
  UniqueResult r;
  r.values = out[0];
  r.indices = out[1];
  r.inverse = NDArray::View(out[2], xt.shape, nullptr, xt.ndim, 0);
  r.counts = out[3];
  return r;
}

}  // namespace

MXFFI_REGISTER_API("np.sort")
    .describe(
        "A sorted copy of a along axis (None: flattened), stable, NaNs last; descending=True "
        "sorts from the largest (equal elements keep their order, NaNs stay last). kind= is "
        "numpy's ('quicksort', 'mergesort', 'heapsort', 'stable'); every kind sorts stably.")
    .arg("a")
    .arg("axis", -1)
    .arg("kind", nullptr)
    .arg("order", nullptr)
    .keyword_only()
    .arg("descending", false)
    .arg("stable", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axis, Optional<String> kind, Optional<String> order,
                       bool descending, Optional<bool> stable) {
      static const Op* op = Op::Get("_npi_sort");
      CheckKind(kind, stable, "np.sort");
      CheckOrder(order, "np.sort");
      return SortImpl(op, a, axis, descending, "np.sort");
    });

MXFFI_REGISTER_API("np.argsort")
    .describe(
        "The int64 indices that sort a along axis (None: flattened), stably, NaNs last; "
        "descending=True sorts from the largest (equal elements keep their order, NaNs stay "
        "last). kind= as in np.sort.")
    .arg("a")
    .arg("axis", -1)
    .arg("kind", nullptr)
    .arg("order", nullptr)
    .keyword_only()
    .arg("descending", false)
    .arg("stable", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axis, Optional<String> kind, Optional<String> order,
                       bool descending, Optional<bool> stable) {
      static const Op* op = Op::Get("_npi_argsort");
      CheckKind(kind, stable, "np.argsort");
      CheckOrder(order, "np.argsort");
      return SortImpl(op, a, axis, descending, "np.argsort");
    });

MXFFI_REGISTER_API("ndarray.sort")
    .describe(
        "Sort the array a in place along axis (numpy's ndarray.sort): stable, NaNs last. "
        "Returns None.")
    .arg("a")
    .arg("axis", -1)
    .arg("kind", nullptr)
    .arg("order", nullptr)
    .keyword_only()
    .arg("descending", false)
    .arg("stable", nullptr)
    .set_body_typed([](WritableArray a, int64_t axis, Optional<String> kind, Optional<String> order,
                       bool descending, Optional<bool> stable) {
      static const Op* op = Op::Get("_npi_sort");
      constexpr const char* fname = "ndarray.sort";
      CheckKind(kind, stable, fname);
      CheckOrder(order, fname);
      const int ndim = a->tensor().ndim;
      MXFFI_CHECK(axis >= -ndim && axis < ndim, AxisError)
          << fname << ": axis " << axis << " is out of bounds for array of dimension " << ndim;
      SortParam p;
      p.axis = static_cast<int>(axis);
      p.descending = descending;
      OpAttrs attrs;
      attrs.op = op;
      attrs.param = &p;
      // out is the input itself: Invoke sorts into a temporary and copies it back.
      InvokeIntoOut(attrs, Span<const NDArray>(&a.array(), 1), a.array(), true, fname);
    });

MXFFI_REGISTER_API("np.searchsorted")
    .describe(
        "For each element of v, the int64 index where it would be inserted into the sorted "
        "1-d a to keep it sorted (NaNs sort last): before equal elements (side='left') or after "
        "them (side='right'). sorter: int indices that sort a, when a itself is not sorted. a "
        "and v are compared in their common dtype (numpy's promotion; Python numbers weak).")
    .arg("a")
    .arg("v")
    .arg("side", "left")
    .arg("sorter", nullptr)
    .set_body_typed([](NDArrayLike a_arg, ArrayLike v_arg, String side_arg,
                       Optional<NDArrayLike> sorter) {
      static const Op* op = Op::Get("_npi_searchsorted");
      static const Op* gather = Op::Get("_npi_advanced_gather");
      constexpr const char* fname = "np.searchsorted";
      const std::string_view side(side_arg.data(), side_arg.size());
      MXFFI_CHECK(side == "left" || side == "right", ValueError)
          << fname << ": search side must be 'left' or 'right' (got '" << side << "')";
      NDArray a = a_arg;
      const DLTensor& at = a.tensor();
      CheckSortable(a, fname);
      MXFFI_CHECK(at.ndim == 1, ValueError) << fname << ": a must be 1-dimensional; got shape "
                                            << TShape(at.shape, at.ndim).ToString();
      DLDataType dtype = at.dtype;
      NDArray v;
      if (v_arg.kind() == ArrayLike::Kind::kScalar) {
        const ScalarLike& s = v_arg.value().scalar();
        const op::ScalarKind kind = s.is_bool()  ? op::ScalarKind::kBool
                                    : s.is_int() ? op::ScalarKind::kInt
                                                 : op::ScalarKind::kFloat;
        dtype = op::PromoteWithScalar(dtype, kind);
        v = ArrayImpl(v_arg, DTypeLike(dtype), DeviceLike(at.device), CopyMode::kIfNeeded, fname);
      } else {
        v = ArrayImpl(v_arg, DTypeLike(), DeviceLike(at.device), CopyMode::kIfNeeded, fname);
        CheckSortable(v, fname);
        // numpy.result_type over every dtype, complex ones included (both are sortable).
        const DLDataType vt = v.tensor().dtype;
        const int r = op::PromoteIndex(op::DTypeRuleIndex(dtype), op::DTypeRuleIndex(vt));
        MXFFI_CHECK(r >= 0, TypeError)
            << fname << ": the dtypes " << DataTypeToString(dtype) << " and "
            << DataTypeToString(vt) << " have no common dtype";
        dtype = op::DTypeAt(r);
      }
      if (sorter.has_value()) {
        const NDArray& s = sorter.value();
        const DLTensor& st = s.tensor();
        MXFFI_CHECK(op::IsIntegral(st.dtype), TypeError)
            << fname << ": sorter must be an integer array; got dtype "
            << DataTypeToString(st.dtype);
        MXFFI_CHECK(st.ndim == 1 && st.shape[0] == at.shape[0], ValueError)
            << fname << ": sorter.size must equal a.size; got sorter of shape "
            << TShape(st.shape, st.ndim).ToString() << " and a of shape (" << at.shape[0] << ",)";
        op::AdvancedIndexParam gp;
        gp.num_args = 2;
        gp.axis = 0;
        a = InvokeOp(gather, gp, {a, s}, at.device);
      }
      if (!op::SameDType(a.tensor().dtype, dtype)) a = op::CastValues(a, dtype);
      if (!op::SameDType(v.tensor().dtype, dtype)) v = op::CastValues(v, dtype);
      op::SearchSortedParam p;
      p.right = side == "right";
      return InvokeOp(op, p, {a, v}, at.device);
    });

MXFFI_REGISTER_API("np.unique_all")
    .describe(
        "The array API's unique_all as a tuple (values, indices, inverse_indices, counts): "
        "the distinct values of x sorted (each NaN distinct), the flat index of each one's "
        "first occurrence, each element's index into values (x's shape), and how often each "
        "occurs. mxffi.np.unique_all wraps it into a named tuple.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x) {
      const UniqueResult r = UniqueImpl(x, false, "np.unique_all");
      return ADT::Tuple({Any(r.values), Any(r.indices), Any(r.inverse), Any(r.counts)});
    });

MXFFI_REGISTER_API("np.unique_counts")
    .describe(
        "The array API's unique_counts as a tuple (values, counts); mxffi.np.unique_counts "
        "wraps it into a named tuple.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x) {
      const UniqueResult r = UniqueImpl(x, false, "np.unique_counts");
      return ADT::Tuple({Any(r.values), Any(r.counts)});
    });

MXFFI_REGISTER_API("np.unique_inverse")
    .describe(
        "The array API's unique_inverse as a tuple (values, inverse_indices); "
        "mxffi.np.unique_inverse wraps it into a named tuple.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x) {
      const UniqueResult r = UniqueImpl(x, false, "np.unique_inverse");
      return ADT::Tuple({Any(r.values), Any(r.inverse)});
    });

MXFFI_REGISTER_API("np.unique_values")
    .describe("The distinct values of x, sorted, as a 1-d array; each NaN is distinct.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x) { return UniqueImpl(x, false, "np.unique_values").values; });

MXFFI_REGISTER_API("np.unique")
    .describe(
        "numpy's unique for axis=None, as a tuple: the sorted distinct values of ar, then as "
        "asked the flat index of each one's first occurrence, each element's index into them "
        "(ar's shape) and their counts. equal_nan=True makes all NaNs one value. sorted=False "
        "is allowed (the values come sorted anyway). mxffi.np.unique returns the values alone "
        "when no return_* flag is set, as numpy.")
    .arg("ar")
    .arg("return_index", false)
    .arg("return_inverse", false)
    .arg("return_counts", false)
    .arg("axis", nullptr)
    .keyword_only()
    .arg("equal_nan", true)
    .arg("sorted", true)
    .set_body_typed([](NDArrayLike ar, bool return_index, bool return_inverse, bool return_counts,
                       AxisLike axis, bool equal_nan, bool /*sorted*/) {
      constexpr const char* fname = "np.unique";
      MXFFI_CHECK(axis.is_none(), NotImplementedError)
          << fname << ": only axis=None is supported; got axis="
          << (axis.is_int() ? std::to_string(axis.axis()) : axis.tuple().ToString());
      const UniqueResult r = UniqueImpl(ar, equal_nan, fname);
      std::vector<Any> out{Any(r.values)};
      if (return_index) out.push_back(Any(r.indices));
      if (return_inverse) out.push_back(Any(r.inverse));
      if (return_counts) out.push_back(Any(r.counts));
      return ADT::Tuple(out);
    });

}  // namespace api
}  // namespace mxffi
