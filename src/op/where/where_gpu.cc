/*!
 * \file where_gpu.cc
 * \brief FCompute<gpu> of _npi_where: a condition of another dtype than bool is cast to bool
 *  on the device first (the _cast op: c != 0, NaN true), then where.cu's kernel runs in the
 *  op's stream.
 */
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/op/op.h>

#include "../init/init_op.h"
#include "where_cuda.h"
#include "where_op.h"

namespace mxffi {
namespace op {

void Where(gpu, const OpContext& ctx, const DLTensor& c, const DLTensor& x, const DLTensor& y,
           const DLTensor& out) {
  if (c.dtype.code == kDLBool) {
    cuda::Where(c, x, y, out, "np.where", ctx.stream);
    return;
  }
  static const Op* cast = Op::Get("_cast");
  CastParam p;
  p.dtype = DLDataType{kDLBool, 8, 1};
  OpAttrs attrs;
  attrs.op = cast;
  attrs.param = &p;
  const NDArray in = NDArray::FromBorrowed(c);
  const NDArray mask = Invoke(attrs, Span<const NDArray>(&in, 1));
  cuda::Where(mask.tensor(), x, y, out, "np.where", ctx.stream);
}

MXFFI_EXTEND_OP(_npi_where).set_attr<FCompute>("FCompute<gpu>", WhereCompute<gpu>);

}  // namespace op
}  // namespace mxffi
