/*!
 * \file scan_gpu.cc
 * \brief FCompute<gpu> of _npi_cumsum and _npi_cumprod: scan_op.h's kernel with scan.cu's
 *  launcher in the op's stream.
 */
#include <mxffi/op/op.h>

#include "scan_cuda.h"
#include "scan_op.h"

namespace mxffi {
namespace op {

template <int kKind>
void Scan(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, ScanShape s,
          bool include_initial, const char* fname) {
  cuda::Scan(kKind, x, out, s.outer, s.len, s.inner, include_initial, fname, ctx.stream);
}

template void Scan<scan::kSum>(gpu, const OpContext&, const DLTensor&, const DLTensor&, ScanShape,
                               bool, const char*);
template void Scan<scan::kProd>(gpu, const OpContext&, const DLTensor&, const DLTensor&, ScanShape,
                                bool, const char*);

MXFFI_EXTEND_OP(_npi_cumsum).set_attr<FCompute>("FCompute<gpu>", ScanCompute<gpu, scan::kSum>);
MXFFI_EXTEND_OP(_npi_cumprod).set_attr<FCompute>("FCompute<gpu>", ScanCompute<gpu, scan::kProd>);

}  // namespace op
}  // namespace mxffi
