/*!
 * \file cuda_kernel.cuh
 * \brief What the op families' CUDA kernel files (src/op/<family>/<name>.cu) start from: the
 *  device runtime's launch helpers (grid-stride loop, launch sizes, strided indices, checked
 *  CUDA calls) and the element types, conversions and dtype switches of the CPU kernels
 *  (half.h, cast.h, type_switch.h), named in namespace cuda. nvcc only.
 */
#ifndef MXFFI_SRC_OP_CUDA_KERNEL_CUH_
#define MXFFI_SRC_OP_CUDA_KERNEL_CUH_

#include "ndarray/cuda/cuda_common.h"
#include "ndarray/cuda/kernel_util.cuh"
#include "op/cast.h"
#include "op/half.h"
#include "op/type_switch.h"

namespace mxffi {
namespace cuda {

using op::AccT;
using op::bf16_t;
using op::CastOne;
using op::ConvertOne;
using op::FromAcc;
using op::half_t;
using op::IndexSwitch;
using op::kIsHalf;
using op::RealSwitch;
using op::ToAcc;

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_CUDA_KERNEL_CUH_
