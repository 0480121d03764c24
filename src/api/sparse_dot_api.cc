/*!
 * \file sparse_dot_api.cc
 * \brief sparse.dot: the typed front door of the dot op (mxffi.nd.sparse.dot).
 */
#include <mxffi/registry.h>

#include "../op/dtype.h"
#include "../op/init/init_op.h"
#include "../op/promote.h"
#include "../op/sparse/dot_sparse.h"
#include "api_util.h"

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
  return NDArray::RowSparse(t.shape, t.ndim, values, a.sparse_indices(), fname);
}

}  // namespace

MXFFI_REGISTER_API("sparse.dot")
    .describe(
        "The matrix product op(lhs) @ op(rhs) of two 2-D arrays (float32 or float64; mixed, "
        "they compute in float64 as numpy's and scipy's do), op transposing when transpose_a / "
        "transpose_b is set, as MXNet's sparse dot. "
        "dot(csr, dense) and dot(dense, csr) are dense; dot(csr.T, dense) (transpose_a=True) is "
        "row_sparse, holding the rows of the columns of csr that have a value, or dense when "
        "forward_stype='default'. Other storage types, and forward_stype values the kernel does "
        "not produce, fall back to the dense product (with a warning) and return "
        "forward_stype's storage type, default when None.")
    .arg("lhs")
    .arg("rhs")
    .arg("transpose_a", false)
    .arg("transpose_b", false)
    .arg("forward_stype", nullptr)
    .set_body_typed([](NDArrayLike lhs, NDArrayLike rhs, bool transpose_a, bool transpose_b,
                       Optional<StorageTypeLike> forward_stype) {
      static const Op* op = Op::Get("dot");
      // numpy's and scipy's promotion: float32 with float64 computes in float64.
      const DLDataType lt = lhs->tensor().dtype, rt = rhs->tensor().dtype;
      const int li = op::DTypeRuleIndex(lt), ri = op::DTypeRuleIndex(rt);
      const int r = li >= 0 && ri >= 0 ? op::PromoteIndex(li, ri) : -1;
      const NDArray a = r >= 0 ? WithDType(lhs, op::DTypeAt(r), "dot") : lhs.array();
      const NDArray b = r >= 0 ? WithDType(rhs, op::DTypeAt(r), "dot") : rhs.array();
      op::DotParam p;
      p.transpose_a = transpose_a;
      p.transpose_b = transpose_b;
      if (forward_stype.has_value()) {
        p.forward_stype = dmlc::optional<int>(static_cast<int>(forward_stype->value()));
      }
      return InvokeOp(op, p, {a, b});
    });

}  // namespace api
}  // namespace mxffi
