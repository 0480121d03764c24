/*!
 * \file gemm_layout.h
 * \brief A GEMM operand (GemmOperand: a strided array viewed as a batch of matrices), how a GEMM
 *  loop accumulates (GemmAcc, MulAdd), and how an operand lies as a matrix a BLAS reads in place:
 * its axes merged, and whether it is row- or column-major with which leading dimension. Shared by
 * the CPU GEMM (gemm.cc, cblas) and the CUDA one (gemm_gpu.cc, cuBLAS and the tiled kernel of
 * gemm.cu); needs only DLPack.
 */
#ifndef MXFFI_SRC_OP_DOT_GEMM_LAYOUT_H_
#define MXFFI_SRC_OP_DOT_GEMM_LAYOUT_H_

#include <dlpack/dlpack.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "../half.h"
#include "../xinline.h"

namespace mxffi {
namespace op {

/*!
 * \brief The type a GEMM loop accumulates T in (the CPU's loop kernel, gemm.cc, and the CUDA
 *  tiled kernel, gemm.cu): integers in unsigned arithmetic of 32 or 64 bits (numpy's
 *  wraparound, without signed overflow: the result is taken modulo 2^bits), float16 and
 *  bfloat16 in float32, bool and the other floats in their own type.
 */
template <typename T>
using GemmAcc = std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                                   std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>, AccT<T>>;

/*! \return acc + a * b; for bools acc or (a and b), numpy's bool matmul. */
template <typename Acc>
MXFFI_XINLINE Acc MulAdd(Acc acc, Acc a, Acc b) {
  if constexpr (std::is_same_v<Acc, bool>) {
    return acc || (a && b);
  } else {
    return acc + a * b;
  }
}

/*! \brief Most axes of a GEMM operand's rows, columns or batch: an array's (kMaxNDim). */
constexpr int kGemmMaxDims = 32;

/*! \brief One axis of a GEMM operand: extent and stride in elements. */
struct GemmDim {
  int64_t size;
  int64_t stride;
};

/*!
 * \brief A GEMM operand: in batch t (C order over the product's batch shape) it is the matrix
 *  whose row index runs over the axes row[0..nrow) and whose column index runs over
 *  col[0..ncol), each in C order, starting at data + sum(t_d * batch_stride[d]) elements. Any
 *  strides; batch_stride[d] is 0 where the operand broadcasts along batch axis d. A product
 *  with no batch axes (tensordot, dot, 2-D matmul) reads no batch_stride.
 */
struct GemmOperand {
  /*! \brief Element (0, 0) of batch 0. */
  const void* data = nullptr;
  DLDataType dtype{kDLFloat, 64, 1};
  int nrow = 0, ncol = 0;
  GemmDim row[kGemmMaxDims];
  GemmDim col[kGemmMaxDims];
  int64_t batch_stride[kGemmMaxDims] = {};

  int64_t rows() const {
    int64_t n = 1;
    for (int i = 0; i < nrow; ++i) n *= row[i].size;
    return n;
  }
  int64_t cols() const {
    int64_t n = 1;
    for (int i = 0; i < ncol; ++i) n *= col[i].size;
    return n;
  }
};

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
