/*!
 * \file gemm_layout.h
 * \brief How a strided GEMM operand lies as a matrix a BLAS reads in place: its axes merged, and
 *  whether it is row- or column-major with which leading dimension. Shared by the CPU GEMM
 *  (gemm.cc, cblas) and the CUDA one (src/ndarray/cuda/blas.cc, cuBLAS).
 */
#ifndef MXFFI_SRC_OP_DOT_GEMM_LAYOUT_H_
#define MXFFI_SRC_OP_DOT_GEMM_LAYOUT_H_

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

namespace mxffi {
namespace op {

/*!
 * \brief Drop extent-1 axes of in[0..n) and merge neighbours whose strides allow it, into out;
 *  returns the count. Axis has `size` and `stride` (elements).
 */
template <typename Axis>
inline int SimplifyAxes(const Axis* in, int n, Axis* out) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (in[i].size == 1) continue;
    if (m > 0 && out[m - 1].stride == in[i].stride * in[i].size) {
      out[m - 1].size *= in[i].size;
      out[m - 1].stride = in[i].stride;
    } else {
      out[m++] = in[i];
    }
  }
  return m;
}

/*!
 * \brief The operand (with row[0..nrow) and col[0..ncol) axes) as one row stride rs and one
 *  column stride cs, when its rows and its columns each collapse to one axis; false otherwise.
 */
template <typename Operand, int kMaxAxes>
inline bool OperandAs2D(const Operand& op, int64_t* rs, int64_t* cs) {
  using Axis = std::remove_cv_t<std::remove_reference_t<decltype(op.row[0])>>;
  Axis r[kMaxAxes], c[kMaxAxes];
  const int nr = SimplifyAxes(op.row, op.nrow, r);
  const int nc = SimplifyAxes(op.col, op.ncol, c);
  if (nr > 1 || nc > 1) return false;
  *rs = nr == 1 ? r[0].stride : 0;
  *cs = nc == 1 ? c[0].stride : 0;
  return true;
}

/*!
 * \brief How a BLAS can read a row-major rows x cols matrix with strides (rs, cs) as it lies:
 *  unit column stride (row-major: *col_major false, leading dimension rs) or unit row stride
 *  (column-major, i.e. transposed for a row-major BLAS: *col_major true, leading dimension
 *  cs). The leading dimension must cover a row (column) and fit an int; false when neither fits.
 */
inline bool BlasLayout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* col_major,
                       int64_t* ld) {
  if (rows <= 1) rs = std::max<int64_t>(cols, 1);  // the row stride of one row is free
  if (cols <= 1) cs = 1;
  if (cs == 1 && rs >= std::max<int64_t>(cols, 1) && rs <= INT_MAX) {
    *col_major = false;
    *ld = rs;
    return true;
  }
  if (cols <= 1) cs = std::max<int64_t>(rows, 1);
  if (rows <= 1) rs = 1;
  if (rs == 1 && cs >= std::max<int64_t>(rows, 1) && cs <= INT_MAX) {
    *col_major = true;
    *ld = cs;
    return true;
  }
  return false;
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_DOT_GEMM_LAYOUT_H_
