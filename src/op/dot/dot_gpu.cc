/*!
 * \file dot_gpu.cc
 * \brief FCompute<gpu> of _tensordot and _matmul: the kernels of dot_op.h, written once for
 *  both devices, instantiated for a CUDA device (their GEMM: gemm_gpu.cc).
 */
#include <mxffi/op/op.h>

#include "dot_op.h"

namespace mxffi {
namespace op {

MXFFI_EXTEND_OP(_tensordot).set_attr<FCompute>("FCompute<gpu>", TensordotCompute<gpu>);
MXFFI_EXTEND_OP(_matmul).set_attr<FCompute>("FCompute<gpu>", MatmulCompute<gpu>);

}  // namespace op
}  // namespace mxffi
