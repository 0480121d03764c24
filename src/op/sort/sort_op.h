/*!
 * \file sort_op.h
 * \brief The sorting, searching and set ops of every real and complex dtype: _npi_sort and
 *  _npi_argsort (a stable sort of every line along one axis, NaNs last), _npi_searchsorted (binary
 * search of a sorted 1-d array), and the two steps of unique over a flat array and the permutation
 * that sorts it stably: _npi_unique_count (the number of distinct values) and _npi_unique (the
 * distinct values, the index of each one's first occurrence, each element's group, each group's
 * size). Their FCompute templates are written once for both devices; each device gives the pieces
 *  (sort_op.cc for the CPU, sort_gpu.cc for a CUDA device, in the context's stream).
 */
#ifndef MXFFI_SRC_OP_SORT_SORT_OP_H_
#define MXFFI_SRC_OP_SORT_SORT_OP_H_

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cstdint>
#include <string>

#include "../dtype.h"
#include "../xpu.h"

namespace mxffi {
namespace op {

/*! \brief _npi_sort and _npi_argsort. */
struct SortParam : public dmlc::Parameter<SortParam> {
  int axis;
  bool descending;
  DMLC_DECLARE_PARAMETER(SortParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe(
        "The axis along which lines are sorted (negative counts from the end).");
    DMLC_DECLARE_FIELD(descending)
        .set_default(false)
        .describe("Sort in descending order; equal elements keep their order and NaNs stay last.");
  }
};

/*! \brief _npi_searchsorted. */
struct SearchSortedParam : public dmlc::Parameter<SearchSortedParam> {
  bool right;
  DMLC_DECLARE_PARAMETER(SearchSortedParam) {
    DMLC_DECLARE_FIELD(right).set_default(false).describe(
        "The insertion point after equal elements (numpy's side='right') instead of before.");
  }
};

/*! \brief _npi_unique_count and _npi_unique. */
struct UniqueParam : public dmlc::Parameter<UniqueParam> {
  int64_t count;
  bool equal_nan;
  DMLC_DECLARE_PARAMETER(UniqueParam) {
    DMLC_DECLARE_FIELD(count).set_default(-1).describe(
        "The number of distinct values (what _npi_unique_count gives); checked by _npi_unique, "
        "unused by _npi_unique_count.");
    DMLC_DECLARE_FIELD(equal_nan).set_default(true).describe(
        "Whether all NaNs are one value (numpy's unique) or each NaN its own (the array API's "
        "unique_*).");
  }
};

// ---- the device pieces ----------------------------------------------------------------------

/*!
 * \brief Sort every line of the C-contiguous x along axis (normalised) stably, NaNs last; out
 *  (C-contiguous, x's shape) gets the sorted values, or with arg their int64 positions.
 */
void SortLines(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, int axis,
               bool descending, bool arg, const char* fname);
void SortLines(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, int axis,
               bool descending, bool arg, const char* fname);

/*!
 * \brief SortLines(cpu) of a complex64 or complex128 x (complex_sort.cc): the outer * inner
 *  lines of n elements (inner apart), into out's values or, with arg, int64 positions.
 */
void SortComplexLines(const DLTensor& x, void* out, int64_t outer, int64_t n, int64_t inner,
                      bool descending, bool arg, const char* fname);

/*! \brief out (int64, v's shape) = each element of v's insertion point into the 1-d a. */
void SearchSorted(cpu, const OpContext& ctx, const DLTensor& a, const DLTensor& v,
                  const DLTensor& out, bool right, const char* fname);
void SearchSorted(gpu, const OpContext& ctx, const DLTensor& a, const DLTensor& v,
                  const DLTensor& out, bool right, const char* fname);

/*!
 * \brief out (0-d int64) = the number of distinct values of the 1-d x, read in the order of
 *  perm (the int64 permutation sorting x); ValueError naming fname when perm holds a position
 *  outside x.
 */
void UniqueCount(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& perm,
                 const DLTensor& out, bool equal_nan, const char* fname);
void UniqueCount(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& perm,
                 const DLTensor& out, bool equal_nan, const char* fname);

/*!
 * \brief out[0] (count,) = the distinct values of x in perm's order, out[1] (count,) = the
 *  position in x of each one's first element in perm's order, out[2] (n,) = each element's
 *  group, out[3] (count,) = each group's size. ValueError naming fname when x has another
 *  number of distinct values than count, or perm a position outside x.
 */
void Unique(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& perm,
            Span<const DLTensor> out, int64_t count, bool equal_nan, const char* fname);
void Unique(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& perm,
            Span<const DLTensor> out, int64_t count, bool equal_nan, const char* fname);

/*! \brief ValueError: x has found distinct values, not count. */
[[noreturn]] void ThrowUniqueCount(int64_t found, int64_t count, const char* fname);
/*! \brief ValueError: perm holds a position outside x's n elements. */
[[noreturn]] void ThrowBadPermutation(int64_t n, const char* fname);

/*!
 * \return the np.* function an op of this family serves, which its errors name: "np.sort" for
 *  _npi_sort, "np.unique" for both unique steps.
 */
inline const char* SortFName(const OpAttrs& attrs) {
  const std::string& n = attrs.op->name;
  if (n == "_npi_sort") return "np.sort";
  if (n == "_npi_argsort") return "np.argsort";
  if (n == "_npi_searchsorted") return "np.searchsorted";
  return "np.unique";
}

/*! \return axis in [0, ndim); AxisError naming fname when it is outside [-ndim, ndim). */
int SortAxis(int axis, int ndim, const char* fname);

// ---- the kernels, for both devices ----------------------------------------------------------

/*! \brief _npi_sort (arg false) and _npi_argsort (arg true). */
template <typename xpu, bool kArg>
void SortCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
  const SortParam& p = attrs.get<SortParam>();
  const char* fname = SortFName(attrs);
  const int axis = SortAxis(p.axis, in[0].ndim, fname);
  if (NumElements(out[0]) == 0) return;
  SortLines(xpu{}, ctx, in[0], out[0], axis, p.descending, kArg, fname);
}

/*! \brief _npi_searchsorted: inputs (a, v) of one dtype. */
template <typename xpu>
void SearchSortedCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                         Span<const OpReqType>, Span<const DLTensor> out) {
  if (NumElements(out[0]) == 0) return;
  SearchSorted(xpu{}, ctx, in[0], in[1], out[0], attrs.get<SearchSortedParam>().right,
               SortFName(attrs));
}

/*! \brief _npi_unique_count: inputs (x, perm). */
template <typename xpu>
void UniqueCountCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                        Span<const OpReqType>, Span<const DLTensor> out) {
  UniqueCount(xpu{}, ctx, in[0], in[1], out[0], attrs.get<UniqueParam>().equal_nan,
              SortFName(attrs));
}

/*! \brief _npi_unique: inputs (x, perm); outputs (values, indices, inverse, counts). */
template <typename xpu>
void UniqueCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                   Span<const OpReqType>, Span<const DLTensor> out) {
  const UniqueParam& p = attrs.get<UniqueParam>();
  Unique(xpu{}, ctx, in[0], in[1], out, p.count, p.equal_nan, SortFName(attrs));
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SORT_SORT_OP_H_
