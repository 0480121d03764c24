/*!
 * \file sparse_dot_api.cc
 * \brief sparse.dot: the typed front door of the dot op (mxffi.nd.sparse.dot); the products and
 *  transpose np.matmul and np.transpose hand sparse operands to (sparse_dot.h).
 */
#include <mxffi/registry.h>

#include "../op/dtype.h"
#include "../op/init/init_op.h"
#include "../op/promote.h"
#include "../op/sparse/cast_storage.h"
#include "../op/sparse/dot_sparse.h"
#include "api_util.h"
#include "sparse_dot.h"

namespace mxffi {
namespace api {
namespace {

/*!
 * \return a converted to dtype in its own storage type: a sparse array keeps its structure
 *  (its indices shared), its values converted; a itself when it has the dtype already.
 */
NDArray WithDType(const NDArray& a, DLDataType dtype, const char* fname) {
  const DLTensor& t = a.tensor();
  if (op::SameDType(t.dtype, dtype)) return a;
  static const Op* cast = Op::Get("_cast");
  op::CastParam p;
  p.dtype = dtype;
  if (!a.is_sparse()) return InvokeOp(cast, p, {a});
  NDArray values = InvokeOp(cast, p, {a.sparse_data()});
  if (a.stype() == StorageType::kCSR) {
    return NDArray::CSR(t.shape, values, a.sparse_indices(), a.sparse_indptr(), fname);
  }
  if (a.stype() == StorageType::kCOO) {
    return NDArray::COO(t.shape, values, a.coo_row(), a.coo_col(), fname);
  }
  return NDArray::RowSparse(t.shape, t.ndim, values, a.sparse_indices(), fname);
}

/*!
 * \brief The dot op on lhs and rhs, their values first promoted as numpy's (float32 with
 *  float64 computes in float64).
 */
NDArray PromotedDot(const NDArray& lhs, const NDArray& rhs, const op::DotParam& p) {
  static const Op* op = Op::Get("dot");
  const DLDataType lt = lhs.tensor().dtype, rt = rhs.tensor().dtype;
  const int li = op::DTypeRuleIndex(lt), ri = op::DTypeRuleIndex(rt);
  const int r = li >= 0 && ri >= 0 ? op::PromoteIndex(li, ri) : -1;
  const NDArray a = r >= 0 ? WithDType(lhs, op::DTypeAt(r), "dot") : lhs;
  const NDArray b = r >= 0 ? WithDType(rhs, op::DTypeAt(r), "dot") : rhs;
  return InvokeOp(op, p, {a, b});
}

/*! \return a 2-D view of shape (rows, cols) of a contiguous array. */
NDArray As2D(const NDArray& a, int64_t rows, int64_t cols) {
  const int64_t shape[2] = {rows, cols};
  return NDArray::View(a.Contiguous(), shape, nullptr, 2, 0);
}

}  // namespace

NDArray SparseMatmul(const NDArray& a, const NDArray& b, const char* fname) {
  const DLTensor& at = a.tensor();
  const DLTensor& bt = b.tensor();
  // Sparse operands are 2-D (a row_sparse array of more dimensions takes the dense path); a
  // dense one is a matrix or a vector.
  auto takes = [](const NDArray& x) {
    return x.is_sparse() ? x.tensor().ndim == 2 && x.stype() != StorageType::kUndefined
                         : x.tensor().ndim == 1 || x.tensor().ndim == 2;
  };
  if (!(a.is_sparse() || b.is_sparse()) || !takes(a) || !takes(b)) return NDArray();
  if (a.stype() == StorageType::kRowSparse && b.stype() == StorageType::kRowSparse) {
    return NDArray();
  }
  const bool a_vec = at.ndim == 1, b_vec = bt.ndim == 1;
  const int64_t ak = a_vec ? at.shape[0] : at.shape[1];
  const int64_t bk = b_vec ? bt.shape[0] : bt.shape[0];
  if (ak != bk) {
    MXFFI_THROW(ValueError) << fname << ": shapes " << op::NumpyShape(TShape(at.shape, at.ndim))
                            << " and " << op::NumpyShape(TShape(bt.shape, bt.ndim))
                            << " not aligned: " << ak << " (dim " << (a_vec ? 0 : 1)
                            << ") != " << bk << " (dim 0)";
  }
  const NDArray lhs = a_vec ? As2D(a, 1, ak) : a;
  const NDArray rhs = b_vec ? As2D(b, bk, 1) : b;
  op::DotParam p;
  p.transpose_a = false;
  p.transpose_b = false;
  NDArray out = PromotedDot(lhs, rhs, p);
  if (!a_vec && !b_vec) return out;
  // numpy's rule: the axis a vector operand gained is removed from the result.
  const DLTensor& ot = out.tensor();
  const int64_t n = a_vec ? ot.shape[1] : ot.shape[0];
  if (out.is_sparse()) out = op::CastStorage(out, StorageType::kDefault, fname);
  return NDArray::View(out.Contiguous(), &n, nullptr, 1, 0);
}

NDArray CsrTransposeOf(const NDArray& csr) {
  static const Op* op = Op::Get("csr_transpose");
  OpAttrs attrs;
  attrs.op = op;
  return Invoke(attrs, Span<const NDArray>(&csr, 1));
}

MXFFI_REGISTER_API("sparse._transpose")
    .describe("The transpose of a csr array: a new canonical csr array (CSRNDArray.T).")
    .arg("data")
    .set_body_typed([](NDArrayLike data) {
      MXFFI_CHECK(data->stype() == StorageType::kCSR, TypeError)
          << "CSRNDArray.transpose: expected a csr array; got storage type "
          << StorageTypeName(data->stype());
      return CsrTransposeOf(data.array());
    });

MXFFI_REGISTER_API("sparse.dot")
    .describe(
        "The matrix product op(lhs) @ op(rhs) of two 2-D arrays (float32 or float64; mixed, "
        "they compute in float64 as numpy's and scipy's do), op transposing when transpose_a / "
        "transpose_b is set, as MXNet's sparse dot. "
        "dot(csr, dense) and dot(dense, csr) are dense; dot(csr.T, dense) (transpose_a=True) is "
        "row_sparse, holding the rows of the columns of csr that have a value, or dense when "
        "forward_stype='default'. Other storage types, and forward_stype values the kernel does "
        "not produce, fall back to the dense product (with a warning) and return "
        "forward_stype's storage type, default when None ('coo': the product converted).")
    .arg("lhs")
    .arg("rhs")
    .arg("transpose_a", false)
    .arg("transpose_b", false)
    .arg("forward_stype", nullptr)
    .set_body_typed([](NDArrayLike lhs, NDArrayLike rhs, bool transpose_a, bool transpose_b,
                       Optional<StorageTypeLike> forward_stype) {
      op::DotParam p;
      p.transpose_a = transpose_a;
      p.transpose_b = transpose_b;
      // No kernel writes coo: the product as its kernel stores it, then converted.
      const bool to_coo = forward_stype.has_value() && forward_stype->value() == StorageType::kCOO;
      if (forward_stype.has_value() && !to_coo) {
        p.forward_stype = dmlc::optional<int>(static_cast<int>(forward_stype->value()));
      }
      NDArray out = PromotedDot(lhs.array(), rhs.array(), p);
      return to_coo ? op::CastStorage(out, StorageType::kCOO, "sparse.dot") : out;
    });

}  // namespace api
}  // namespace mxffi
