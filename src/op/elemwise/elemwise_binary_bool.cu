/*!
 * \file elemwise_binary_bool.cu
 * \brief The CUDA kernels of the comparisons and the logical ops (Group Bool of
 *  binary_ops.def; elemwise_kernels.cuh), one instantiation per op: bool results, the
 *  comparisons read in their loop dtype or, a signed against an unsigned integer, exactly.
 */
#include "elemwise_kernels.cuh"

namespace mxffi {
namespace cuda {

#define MXFFI_BINARY_GROUP_Bool(Functor) MXFFI_INSTANTIATE_BINARY_ELEMWISE(Functor)
#define MXFFI_BINARY_GROUP_Arith(Functor)
#define MXFFI_BINARY_GROUP_Int(Functor)
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc) \
  MXFFI_BINARY_GROUP_##Group(Functor)
#include "binary_ops.def"

}  // namespace cuda
}  // namespace mxffi
