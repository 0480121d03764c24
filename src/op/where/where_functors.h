/*!
 * \file where_functors.h
 * \brief The select of np.where, written once for the CPU kernel (where_op.cc) and the CUDA one
 *  (where.cu): g++ and nvcc compile it, and it needs nothing of the op layer.
 *
 * where only moves elements, so its kernels are instantiated per element size, not per dtype:
 * U is an unsigned integer of 1, 2, 4 or 8 bytes, or Bytes16 (complex128). The condition is a
 * byte read as c != 0, so a bool array holding another byte than 0 or 1 still reads as true.
 */
#ifndef MXFFI_SRC_OP_WHERE_WHERE_FUNCTORS_H_
#define MXFFI_SRC_OP_WHERE_WHERE_FUNCTORS_H_

#include <cstdint>

#include "../xinline.h"

namespace mxffi {
namespace op {
namespace where {

/*! \brief The 16-byte element (complex128), moved as two words. */
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

/*!
 * \return x when the condition byte c is nonzero, else y, as a mask (all ones or all zeros)
 *  blending the two: no branch, so a random condition costs no mispredictions (a compiler
 *  turns `c ? x : y` on loaded values into a jump as often as into a conditional move).
 */
template <typename U>
MXFFI_XINLINE U Select(uint8_t c, U x, U y) {
  const U m = static_cast<U>(static_cast<U>(0) - static_cast<U>(c != 0));
  return static_cast<U>((x & m) | (y & static_cast<U>(~m)));
}

MXFFI_XINLINE Bytes16 Select(uint8_t c, Bytes16 x, Bytes16 y) {
  const uint64_t m = uint64_t{0} - static_cast<uint64_t>(c != 0);
  return Bytes16{(x.lo & m) | (y.lo & ~m), (x.hi & m) | (y.hi & ~m)};
}

}  // namespace where
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_WHERE_WHERE_FUNCTORS_H_
