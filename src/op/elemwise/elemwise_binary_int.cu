/*!
 * \file elemwise_binary_int.cu
 * \brief The CUDA kernels of floor_divide, remainder, the bitwise ops and the shifts (Group
 *  Int of binary_ops.def; elemwise_kernels.cuh), one instantiation per op.
 */
#include "elemwise_kernels.cuh"

namespace mxffi {
namespace cuda {

#define MXFFI_BINARY_GROUP_Int(Functor) MXFFI_INSTANTIATE_BINARY_ELEMWISE(Functor)
#define MXFFI_BINARY_GROUP_Arith(Functor)
#define MXFFI_BINARY_GROUP_Bool(Functor)
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc) \
  MXFFI_BINARY_GROUP_##Group(Functor)
#include "binary_ops.def"

}  // namespace cuda
}  // namespace mxffi
