/*!
 * \file dot_sparse.h
 * \brief The dot op (MXNet's sparse-aware 2-D matrix product): its parameters and the CPU
 *  kernels for csr operands.
 */
#ifndef MXFFI_SRC_OP_SPARSE_DOT_SPARSE_H_
#define MXFFI_SRC_OP_SPARSE_DOT_SPARSE_H_

#include <mxffi/op/param.h>

#include "../dot/dot_op.h"

namespace mxffi {
namespace op {

/*! \brief dot's parameters, as MXNet spells them. */
struct DotParam : public dmlc::Parameter<DotParam> {
  bool transpose_a;
  bool transpose_b;
  /*! \brief The storage type asked of the output (a StorageType value), or none. */
  dmlc::optional<int> forward_stype;
  DMLC_DECLARE_PARAMETER(DotParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false).describe("Multiply by lhs transposed.");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false).describe("Multiply by rhs transposed.");
    DMLC_DECLARE_FIELD(forward_stype)
        .add_enum("default", static_cast<int>(StorageType::kDefault))
        .add_enum("row_sparse", static_cast<int>(StorageType::kRowSparse))
        .add_enum("csr", static_cast<int>(StorageType::kCSR))
        .set_default(dmlc::optional<int>())
        .describe(
            "Storage type of the output. None: what the kernel for the inputs' storage types "
            "produces. A combination without a kernel falls back to the dense product and "
            "still returns this storage type.");
  }
};

/*!
 * \brief out = csr @ dense: out (rows x n, C-contiguous) from a (rows x k) csr array and a
 *  C-contiguous (k x n) dense array, split over rows of out.
 */
void DotCsrDense(const NDArray& csr, const NDArray& dense, const NDArray& out);

/*!
 * \brief out (dense, C-contiguous, rows x n) = csr @ rsp for a (rows x k) csr array and a 2-D
 *  (k x n) row_sparse array.
 */
void DotCsrRsp(const NDArray& csr, const NDArray& rsp, const NDArray& out);

/*!
 * \brief csr.T @ dense for a (m x k) csr array and a C-contiguous (m x n) dense array.
 * \param out a (k x n) output: row_sparse (filled here; its rows are the columns of csr holding
 *  a value, with csr's index dtype) or dense C-contiguous (written in full).
 */
void DotCsrTDense(const NDArray& csr, const NDArray& dense, const NDArray& out);

/*!
 * \brief out = dense @ csr: out (m x n, C-contiguous) from a C-contiguous (m x k) dense array
 *  and a (k x n) csr array, split over rows of dense.
 */
void DotDenseCsr(const NDArray& dense, const NDArray& csr, const NDArray& out);

/*!
 * \brief out = op(lhs) @ op(rhs) for dense 2-D tensors (any strides) on xpu, by the GEMM of
 *  _tensordot and _matmul (dot_op.h); out C-contiguous.
 */
template <typename xpu>
void DenseDot(const DotParam& p, const OpContext& ctx, const DLTensor& lhs, const DLTensor& rhs,
              const DLTensor& out) {
  BatchedGemm(xpu{}, ctx, MatrixOperand(lhs, p.transpose_a), MatrixOperand(rhs, p.transpose_b), 0,
              nullptr, out.dtype, DataPtr<char>(out), "dot");
}

/*! \brief The dot op's dense kernel (FCompute<xpu>): DenseDot. */
template <typename xpu>
void DotCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                Span<const OpReqType>, Span<const DLTensor> out) {
  DenseDot<xpu>(attrs.get<DotParam>(), ctx, in[0], in[1], out[0]);
}

/*!
 * \brief The kernels a device gives dot's storage-aware path (DotComputeExWith). Dense inputs
 *  reach them C-contiguous; dense outputs are C-contiguous.
 */
struct DotKernels {
  /*! \brief out = op(lhs) @ op(rhs) for dense 2-D tensors, as p's transposes say. */
  void (*dense)(const DotParam& p, const OpContext& ctx, const DLTensor& lhs, const DLTensor& rhs,
                const DLTensor& out);
  /*! \brief out = csr @ dense (DotCsrDense). */
  void (*csr_dense)(const NDArray& csr, const NDArray& dense, const NDArray& out,
                    const OpContext& ctx);
  /*! \brief out = csr.T @ dense, out row_sparse or dense (DotCsrTDense). */
  void (*csr_t_dense)(const NDArray& csr, const NDArray& dense, const NDArray& out,
                      const OpContext& ctx);
  /*! \brief out = dense @ csr (DotDenseCsr). */
  void (*dense_csr)(const NDArray& dense, const NDArray& csr, const NDArray& out,
                    const OpContext& ctx);
  /*! \brief out (csr, not yet allocated) = a @ b for csr a and b: canonical, exact zeros dropped.
   */
  void (*csr_csr)(const NDArray& a, const NDArray& b, const NDArray& out, const OpContext& ctx);
  /*! \brief A new canonical csr array: csr transposed. */
  NDArray (*csr_transpose)(const NDArray& csr, const OpContext& ctx);
  /*! \brief out (dense) = csr @ row_sparse (DotCsrRsp); nullptr where the device has none. */
  void (*csr_rsp)(const NDArray& csr, const NDArray& rsp, const NDArray& out, const OpContext& ctx);
};

/*!
 * \brief dot's FComputeEx on one device: the storage combination picks one of k's kernels, a
 *  dense product is cast to the storage type asked of the output, and a strided dense output is
 *  written through a contiguous temporary. Shared by the CPU op and the CUDA one.
 */
void DotComputeExWith(const DotKernels& k, const OpAttrs& attrs, const OpContext& ctx,
                      Span<const NDArray> in, Span<const OpReqType> req, Span<const NDArray> out);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_DOT_SPARSE_H_
