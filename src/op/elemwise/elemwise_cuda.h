/*!
 * \file elemwise_cuda.h
 * \brief Launchers of the elementwise CUDA kernels (elemwise_binary.cu, elemwise_unary.cu): a
 *  binary op with numpy broadcasting, a unary op (and the converting copy _cast runs, and
 *  quadratic), for any functor of functors.h. Host-compiled code calls them with plain
 *  DLTensors and values and no CUDA headers.
 *
 * The caller lays out the loop as the CPU kernel does (StridedLoop: extent-1 dimensions
 * dropped, neighbours merged) and passes it; the launcher picks the contiguous fast path (flat
 * index, 16-byte vectors) when every array input is the output's dtype with unit stride, else
 * the general kernel (per-element offsets from the layout, inputs of another dtype converted on
 * read).
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_ELEMWISE_CUDA_H_
#define MXFFI_SRC_OP_ELEMWISE_ELEMWISE_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstdint>

#include "functors.h"
#include "strided_loop.h"

namespace mxffi {
namespace cuda {

/*!
 * \brief One input: device data (first element, byte_offset applied) of dtype, or a Python
 *  number already converted on the host to the output's dtype (its bits in scalar_bits).
 */
struct ElemInput {
  const void* data = nullptr;
  DLDataType dtype{kDLFloat, 64, 1};
  bool is_scalar = false;
  uint64_t scalar_bits[2] = {0, 0};  // two words: a complex128 number too
};

/*!
 * \brief out = OP::Map(a, b) over loop (operand 0 the output, then a and b), on stream, both
 *  inputs read as loop_dtype (out's dtype, or a comparison's loop dtype: its out is bool). OP
 *  is the functor of an op of binary_ops.def (elemwise_binary.cu instantiates each). mixed
 *  (comparisons only): 1 when a is a signed integer and b unsigned, 2 for the reverse; those
 *  compare exactly (MixedOrder), a number always the signed side.
 * \throws TypeError naming fname when no kernel computes in loop_dtype; RuntimeError when the
 *  launch fails.
 */
template <typename OP>
void BinaryElemwise(const ElemInput& a, const ElemInput& b,
                    const op::elemwise::StridedLoop<3>& loop, const DLTensor& out,
                    DLDataType loop_dtype, int mixed, const char* fname, void* stream);

/*!
 * \brief out = f(x) over loop (operand 0 the output, then x), on stream. F is a unary functor
 *  of functors.h: an op of unary_ops.def, IdentityOp (a converting copy) or QuadraticOp
 *  (elemwise_unary.cu instantiates each).
 * \throws TypeError naming fname when no kernel computes in out's dtype.
 */
template <typename F>
void UnaryElemwise(const F& f, const ElemInput& x, const op::elemwise::StridedLoop<2>& loop,
                   const DLTensor& out, const char* fname, void* stream);

/*!
 * \brief Whether the signed-integer device array x (n elements laid out by loop, operand 1)
 *  holds a negative value: a kernel sets *flag (a device int), which is read back on stream.
 */
bool AnyNegative(const ElemInput& x, const op::elemwise::StridedLoop<2>& loop, int64_t n, int* flag,
                 const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_ELEMWISE_CUDA_H_
