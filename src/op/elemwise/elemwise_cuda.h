/*!
 * \file elemwise_cuda.h
 * \brief Launchers of the elementwise CUDA kernels (elemwise.cu): the binary ops with numpy
 *  broadcasting, the unary ops, quadratic and the converting copy _cast uses. Plain functions
 *  of DLTensors and plain values, so host-compiled code calls them without CUDA headers.
 *
 * The caller lays out the loop (src/op/elemwise/broadcast.h's StridedLoop: extent-1 dimensions
 * dropped, neighbours merged) and passes it as an ElemLayout; the launcher picks the contiguous
 * fast path (flat index, 16-byte vectors) when every array input is the output's dtype with unit
 * stride, else the general kernel (per-element offsets from the layout, inputs of another dtype
 * converted on read).
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_ELEMWISE_CUDA_H_
#define MXFFI_SRC_OP_ELEMWISE_ELEMWISE_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \brief The binary ops, in op::BinaryKind's order. */
enum class BinaryOpCode : int { kAdd, kSubtract, kMultiply, kDivide, kPower, kMaximum, kMinimum };

/*!
 * \brief The unary ops, in op::UnaryKind's order, then the identity (a converting copy, _cast)
 *  and quadratic.
 */
enum class UnaryOpCode : int {
  kNegative,
  kAbsolute,
  kSquare,
  kSqrt,
  kExp,
  kLog,
  kSign,
  kRelu,
  kIdentity,
  kQuadratic,
};

/*! \brief Most dimensions of a merged loop (kMaxNDim). */
constexpr int kElemMaxDims = 32;

/*!
 * \brief The loop over the output's elements in C order: its merged extents and each input's
 *  element strides along them (0 where it broadcasts). The output is C-contiguous.
 */
struct ElemLayout {
  int ndim = 1;
  int64_t shape[kElemMaxDims];
  int64_t stride[2][kElemMaxDims];
};

/*!
 * \brief The layout of a loop laid out by src/op/elemwise/broadcast.h's StridedLoop<N> (operand
 *  0 the output, then kInputs = N - 1 inputs), read through its members so this header needs
 *  no op code.
 */
template <int kInputs, typename Loop>
ElemLayout LayoutOf(const Loop& loop) {
  static_assert(kInputs >= 1 && kInputs <= 2, "one or two inputs");
  ElemLayout layout;
  layout.ndim = loop.ndim;
  for (int d = 0; d < loop.ndim; ++d) {
    layout.shape[d] = loop.shape[d];
    for (int k = 0; k < kInputs; ++k) layout.stride[k][d] = loop.stride[k + 1][d];
  }
  return layout;
}

/*!
 * \brief One input: device data (first element, byte_offset applied) of dtype, or a Python
 *  number already converted on the host to the output's dtype (its bits in scalar_bits).
 */
struct ElemInput {
  const void* data = nullptr;
  DLDataType dtype{kDLFloat, 64, 1};
  bool is_scalar = false;
  uint64_t scalar_bits = 0;
};

/*!
 * \brief out = op(a, b) over layout, on stream.
 * \throws TypeError naming fname when no kernel computes in out's dtype; RuntimeError when the
 *  launch fails.
 */
void BinaryElemwise(BinaryOpCode op, const ElemInput& a, const ElemInput& b,
                    const ElemLayout& layout, const DLTensor& out, const char* fname, void* stream);

/*!
 * \brief out = op(x) over layout (stride[0] is x's), on stream; coef holds quadratic's a, b, c
 *  (unused by the others).
 * \throws TypeError naming fname when no kernel computes in out's dtype.
 */
void UnaryElemwise(UnaryOpCode op, const ElemInput& x, const ElemLayout& layout,
                   const DLTensor& out, const double* coef, const char* fname, void* stream);

/*!
 * \brief Whether the signed-integer device array x (n elements laid out by layout, stride[0])
 *  holds a negative value: a kernel sets *flag (a device int), which is read back on stream.
 */
bool AnyNegative(const ElemInput& x, const ElemLayout& layout, int64_t n, int* flag,
                 const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_ELEMWISE_CUDA_H_
