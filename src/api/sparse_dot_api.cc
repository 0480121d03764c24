/*!
 * \file sparse_dot_api.cc
 * \brief sparse.dot: the typed front door of the dot op (mxffi.nd.sparse.dot).
 */
#include <mxffi/registry.h>

#include "../op/sparse/dot_sparse.h"
#include "api_util.h"

namespace mxffi {
namespace api {

MXFFI_REGISTER_API("sparse.dot")
    .describe(
        "The matrix product op(lhs) @ op(rhs) of two 2-D arrays of one dtype (float32 or "
        "float64), op transposing when transpose_a / transpose_b is set, as MXNet's sparse dot. "
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
      op::DotParam p;
      p.transpose_a = transpose_a;
      p.transpose_b = transpose_b;
      if (forward_stype.has_value()) {
        p.forward_stype = dmlc::optional<int>(static_cast<int>(forward_stype->value()));
      }
      return InvokeOp(op, p, {lhs, rhs});
    });

}  // namespace api
}  // namespace mxffi
