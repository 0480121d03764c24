/*!
 * \file csr_select.h
 * \brief What the csr take, concat and where kernels of both devices share (csr_select.cc,
 *  csr_select.cu): the take modes and the row an index picks, and the test of a condition value
 *  by its bits. Compiled by g++ and nvcc; the op registration is csr_select.cc's.
 *
 * Ops (their public functions np.take / sparse.take, np.concatenate and np.where):
 *
 *   _sparse_take_csr(a, indices)     csr (m, n), int64 (k,)      -> csr (k, n): rows gathered
 *   _sparse_concat_csr(a_1, ..., a_N) csr (m_i, n), one dtype    -> csr (sum m_i, n)
 *   _npi_where(cond, x, y)           csr cond, dense x and y     -> dense: y, x where cond != 0
 */
#ifndef MXFFI_SRC_OP_SPARSE_CSR_SELECT_H_
#define MXFFI_SRC_OP_SPARSE_CSR_SELECT_H_

#include <cstdint>

#include "../xinline.h"

namespace mxffi {
namespace op {

/*! \brief How take treats an index outside [0, n): numpy's and MXNet's modes. */
enum class TakeMode : int { kRaise = 0, kWrap = 1, kClip = 2 };

/*!
 * \return the row index v picks among n rows: raise counts a negative index from the end
 *  (numpy's take) and gives -1 for one still out of range; wrap takes v modulo n; clip moves v
 *  into [0, n - 1] (a negative index to 0, as MXNet's clip does). -1 when n is 0.
 */
MXFFI_XINLINE int64_t TakeRow(int64_t v, int64_t n, int mode) {
  if (n <= 0) return -1;
  if (mode == static_cast<int>(TakeMode::kWrap)) {
    const int64_t r = v % n;
    return r < 0 ? r + n : r;
  }
  if (mode == static_cast<int>(TakeMode::kClip)) return v < 0 ? 0 : (v >= n ? n - 1 : v);
  if (v < 0) v += n;
  return v < 0 || v >= n ? -1 : v;
}

/*!
 * \brief How a condition value is read as c != 0 without its dtype: parts words of width bytes
 *  (two for a complex value), true when any word has a bit of mask set. Floats leave out the
 *  sign bit, so -0.0 is false and NaN true, as numpy's where reads them.
 */
struct CondBits {
  int width;
  int parts;
  uint64_t mask;
};

/*! \return whether the value at p is nonzero by c's rule (little-endian words). */
MXFFI_XINLINE bool CondTrue(const unsigned char* p, const CondBits& c) {
  for (int k = 0; k < c.parts; ++k) {
    uint64_t b = 0;
    for (int i = 0; i < c.width; ++i) b |= static_cast<uint64_t>(p[k * c.width + i]) << (8 * i);
    if ((b & c.mask) != 0) return true;
  }
  return false;
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CSR_SELECT_H_
