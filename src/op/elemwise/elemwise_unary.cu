/*!
 * \file elemwise_unary.cu
 * \brief The CUDA kernels of the unary elementwise ops (elemwise_kernels.cuh): one
 *  instantiation per op of unary_ops.def, and those of the converting copy (_cast, IdentityOp)
 *  and of quadratic.
 */
#include "elemwise_kernels.cuh"

namespace mxffi {
namespace cuda {

using op::elemwise::StridedLoop;

template <typename F>
void UnaryElemwise(const F& f, const ElemInput& x, const StridedLoop<2>& loop, const DLTensor& out,
                   const char* fname, void* stream) {
  LaunchUnary(f, x, loop, out, fname, static_cast<cudaStream_t>(stream));
}

#define MXFFI_INSTANTIATE_UNARY(F)                                                       \
  template void UnaryElemwise<op::elemwise::F>(const op::elemwise::F&, const ElemInput&, \
                                               const StridedLoop<2>&, const DLTensor&,   \
                                               const char*, void*);
#define MXFFI_UNARY_OP(Kind, OpName, Name, Functor, Doc) MXFFI_INSTANTIATE_UNARY(Functor)
#include "unary_ops.def"
MXFFI_INSTANTIATE_UNARY(IdentityOp)
MXFFI_INSTANTIATE_UNARY(QuadraticOp)

}  // namespace cuda
}  // namespace mxffi
