/*!
 * \file tri_functors.h
 * \brief Which elements tril and triu keep, written once for the CPU kernel (tri_op.cc) and the
 *  CUDA one (tri.cu): g++ and nvcc compile it, and it needs nothing of the op layer.
 */
#ifndef MXFFI_SRC_OP_TRI_TRI_FUNCTORS_H_
#define MXFFI_SRC_OP_TRI_TRI_FUNCTORS_H_

#include <cstdint>

#include "../xinline.h"

namespace mxffi {
namespace op {
namespace tri {

/*!
 * \brief The element at flat C-order index i of a stack of rows x cols matrices is kept by
 *  tril when its column is at most k right of the diagonal (col - row <= k), by triu when at
 *  least k (col - row >= k); the others are zero.
 */
struct TriMask {
  int64_t rows;
  int64_t cols;
  int64_t k;
  bool lower;
  MXFFI_XINLINE bool Keep(int64_t i) const {
    const int64_t q = i / cols;
    const int64_t col = i - q * cols;
    const int64_t row = q % rows;
    return lower ? col - row <= k : col - row >= k;
  }
};

/*!
 * \brief The elements move as bits, so the kernels are instantiated per element size: U is an
 *  unsigned integer of 1, 2, 4 or 8 bytes, or Bytes16 (complex128). All-zero bits are a zero
 *  of every dtype (+0.0 for the floats, as numpy's tril writes).
 */
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

template <typename U>
MXFFI_XINLINE U Zero() {
  return U{};
}

}  // namespace tri
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_TRI_TRI_FUNCTORS_H_
