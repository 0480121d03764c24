/*!
 * \file dot_op.h
 * \brief _tensordot and _matmul: parameters, shape rules with numpy's messages, and the GEMM
 *  they both run on.
 */
#ifndef MXFFI_SRC_OP_DOT_DOT_OP_H_
#define MXFFI_SRC_OP_DOT_DOT_OP_H_

#include <mxffi/op/param.h>

#include <string>

namespace mxffi {
namespace op {

/*! \brief _tensordot: sum over a's a_axes against b's b_axes, pairwise in order. */
struct TensordotParam : public dmlc::Parameter<TensordotParam> {
  TShape a_axes;
  TShape b_axes;
  DMLC_DECLARE_PARAMETER(TensordotParam) {
    DMLC_DECLARE_FIELD(a_axes).describe("Axes of a to sum over (negative counts from the end).");
    DMLC_DECLARE_FIELD(b_axes).describe("Axes of b to sum over, matching a_axes pairwise.");
  }
};

/*! \return a shape as numpy writes it in error messages: "(3,4)", "(3,)", "()". */
std::string NumpyShape(const TShape& s);

/*!
 * \brief Check tensordot's axes against the shapes and normalise them into a_norm and b_norm.
 * \return the result's shape: a's free axes, then b's, each in order.
 * \throws ValueError "shape-mismatch for sum" (different numbers of axes, or extents that
 *  differ), AxisError for an axis out of range, ValueError for an axis given twice.
 */
TShape TensordotShape(const TShape& a, const TShape& b, const TShape& a_axes, const TShape& b_axes,
                      const char* fname, TShape* a_norm = nullptr, TShape* b_norm = nullptr);

/*!
 * \brief numpy.matmul's result shape: 1-D operands promoted (and their axis removed again), the
 *  batch axes broadcast.
 * \throws ValueError with numpy's gufunc messages for a 0-d operand, a core-dimension mismatch
 *  or batch axes that do not broadcast, naming both shapes.
 */
TShape MatmulShape(const TShape& a, const TShape& b, const char* fname);

/*! \brief One axis of a GEMM operand: extent and stride in elements. */
struct GemmDim {
  int64_t size;
  int64_t stride;
};

/*!
 * \brief A GEMM operand viewed as a matrix whose row index runs over the axes row[0..nrow) and
 *  whose column index runs over col[0..ncol), each in C order; any strides.
 */
struct GemmOperand {
  /*! \brief Element (0, 0). */
  const void* data = nullptr;
  DLDataType dtype{kDLFloat, 64, 1};
  int nrow = 0, ncol = 0;
  GemmDim row[kMaxNDim];
  GemmDim col[kMaxNDim];

  int64_t rows() const;
  int64_t cols() const;
};

/*!
 * \brief Products whose M*N*K is below this run in a direct loop instead of OpenBLAS: for
 *  (3,4)x(4,3) the cblas call, its argument checks and its buffer setup cost more than the 36
 *  multiply-adds. 4096 is a 16x16x16 product, where the two take about as long on x86-64.
 */
constexpr int64_t kSmallGemm = 4096;

/*!
 * \brief c = a @ b, c a C-contiguous rows(a) x cols(b) matrix of out_dtype; a and b are
 *  converted to out_dtype as numpy converts dot's operands to their common type.
 * \param parallel split the product across the kernel pool (false inside a parallel loop).
 */
void Gemm(const GemmOperand& a, const GemmOperand& b, DLDataType out_dtype, void* c, bool parallel);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_DOT_DOT_OP_H_
