/*!
 * \file tri_gpu.cc
 * \brief FCompute<gpu> of _npi_tril and _npi_triu: tri_op.h's kernel with tri.cu's launcher in
 *  the op's stream.
 */
#include <mxffi/op/op.h>

#include "tri_cuda.h"
#include "tri_op.h"

namespace mxffi {
namespace op {

void Tri(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, tri::TriMask mask,
         const char* fname) {
  cuda::Tri(x, out, mask, fname, ctx.stream);
}

MXFFI_EXTEND_OP(_npi_tril).set_attr<FCompute>("FCompute<gpu>", TriCompute<gpu, true>);
MXFFI_EXTEND_OP(_npi_triu).set_attr<FCompute>("FCompute<gpu>", TriCompute<gpu, false>);

}  // namespace op
}  // namespace mxffi
