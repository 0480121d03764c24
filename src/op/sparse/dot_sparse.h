/*!
 * \file dot_sparse.h
 * \brief The dot op (MXNet's sparse-aware 2-D matrix product): its parameters and the CPU
 *  kernels for csr operands.
 */
#ifndef MXFFI_SRC_OP_SPARSE_DOT_SPARSE_H_
#define MXFFI_SRC_OP_SPARSE_DOT_SPARSE_H_

#include <mxffi/op/param.h>

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

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_DOT_SPARSE_H_
