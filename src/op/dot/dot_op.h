/*!
 * \file dot_op.h
 * \brief _tensordot and _matmul: parameters, shape rules with numpy's messages, their operands
 *  as GEMM operands, the GEMM they both run on, and their kernels, written once for the CPU and
 *  a CUDA device (TensordotCompute<xpu>, MatmulCompute<xpu>).
 */
#ifndef MXFFI_SRC_OP_DOT_DOT_OP_H_
#define MXFFI_SRC_OP_DOT_DOT_OP_H_

#include <mxffi/op/param.h>

#include <string>

#include "../dtype.h"
#include "../xpu.h"
#include "gemm_layout.h"

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

/*!
 * \brief numpy.result_type of a product's operands: PromoteTypes, with complex64 and complex128
 *  too (the GEMM computes in them).
 * \throws TypeError naming fname as PromoteTypes does.
 */
DLDataType ProductType(DLDataType a, DLDataType b, const char* fname);

static_assert(kGemmMaxDims == kMaxNDim, "a GEMM operand has as many axes as an array");

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

/*! \return the 2-D tensor t as a GEMM operand, transposed when trans (any strides). */
GemmOperand MatrixOperand(const DLTensor& t, bool trans);

/*!
 * \brief tensordot's product of x and y as one GEMM, without copying: a's rows run over x's
 *  free axes and its columns over the summed ones in the order given; b's rows over y's summed
 *  axes in the same order and its columns over y's free axes.
 * \throws what TensordotShape throws.
 */
void TensordotOperands(const DLTensor& x, const DLTensor& y, const TensordotParam& p,
                       GemmOperand* a, GemmOperand* b);

/*!
 * \brief matmul's product of x and y as one batched GEMM, without copying: each operand's last
 *  two axes (a 1-D x a single row, a 1-D y a single column), the output's batch axes into
 *  batch_shape (kMaxNDim entries) and each operand's stride along them (0 where it broadcasts).
 * \return the number of batch axes.
 */
int MatmulOperands(const DLTensor& x, const DLTensor& y, GemmOperand* a, GemmOperand* b,
                   int64_t* batch_shape);

/*!
 * \brief c[t] = a[t] @ b[t] for each t over the nbatch_dims axes of batch_shape (none: one
 *  product), c C-contiguous (batch..., rows(a), cols(b)) of out_dtype; a and b are converted
 *  to out_dtype as numpy converts a product's operands. On the CPU (dot_op.cc): Gemm, with the
 *  GIL released above a few microseconds of work and small batched products spread over the
 *  kernel pool. On the context's CUDA device (gemm_gpu.cc): cuBLAS for floats, the tiled
 *  kernel otherwise, in the context's stream.
 * \param fname names the caller in errors.
 */
void BatchedGemm(cpu, const OpContext& ctx, const GemmOperand& a, const GemmOperand& b,
                 int nbatch_dims, const int64_t* batch_shape, DLDataType out_dtype, void* c,
                 const char* fname);
void BatchedGemm(gpu, const OpContext& ctx, const GemmOperand& a, const GemmOperand& b,
                 int nbatch_dims, const int64_t* batch_shape, DLDataType out_dtype, void* c,
                 const char* fname);

/*! \brief _tensordot's kernel on xpu: one GEMM of the operands as they lie. */
template <typename xpu>
void TensordotCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
  GemmOperand a, b;
  TensordotOperands(in[0], in[1], attrs.get<TensordotParam>(), &a, &b);
  BatchedGemm(xpu{}, ctx, a, b, 0, nullptr, out[0].dtype, DataPtr<char>(out[0]), "np.tensordot");
}

/*! \brief _matmul's kernel on xpu: one batched GEMM of the operands as they lie. */
template <typename xpu>
void MatmulCompute(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                   Span<const OpReqType>, Span<const DLTensor> out) {
  GemmOperand a, b;
  int64_t batch_shape[kMaxNDim];
  const int nb = MatmulOperands(in[0], in[1], &a, &b, batch_shape);
  BatchedGemm(xpu{}, ctx, a, b, nb, batch_shape, out[0].dtype, DataPtr<char>(out[0]), "np.matmul");
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_DOT_DOT_OP_H_
