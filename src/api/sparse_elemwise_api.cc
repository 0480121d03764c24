/*!
 * \file sparse_elemwise_api.cc
 * \brief "sparse.relu" and "sparse.quadratic", which mxffi.nd.sparse exposes as relu and
 *  quadratic (MXNet's mx.nd.sparse.relu and the quadratic example op): both keep a csr input
 *  csr; relu keeps row_sparse too; dense inputs give dense results.
 */
#include <mxffi/registry.h>

#include "api_util.h"

namespace mxffi {
namespace api {

MXFFI_REGISTER_API("sparse.relu")
    .describe("max(x, 0), elementwise, in x's dtype; csr and row_sparse inputs keep their storage.")
    .arg("x")
    .set_body_typed([](NDArrayLike x) {
      static const Op* op = Op::Get("relu");
      OpAttrs attrs;
      attrs.op = op;
      return Invoke(attrs, Span<const NDArray>(&x.array(), 1));
    });

MXFFI_REGISTER_API("sparse.quadratic")
    .describe(
        "a*x**2 + b*x + c, elementwise. A csr x gives a csr result when c == 0 (the zeros stay "
        "zeros); otherwise the result is dense.")
    .arg("x")
    .arg("a", 0.0)
    .arg("b", 0.0)
    .arg("c", 0.0)
    .set_body_typed([](NDArrayLike x, double a, double b, double c) {
      return Quadratic(x, a, b, c);
    });

}  // namespace api
}  // namespace mxffi
