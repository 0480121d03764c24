/*!
 * \file copy.h
 * \brief The cache-blocked copy of a permuted (transposed) CPU array, which the copy ops try
 *  before their general strided loop.
 */
#ifndef MXFFI_SRC_OP_SIMD_COPY_H_
#define MXFFI_SRC_OP_SIMD_COPY_H_

#include <dlpack/dlpack.h>

#include <cstdint>

namespace mxffi {
namespace op {
namespace simd {

/*! \brief Arrays smaller than this are left to the general loop (tiling does not pay). */
constexpr int64_t kMinTiledElems = 4096;
/*! \brief The most axes TiledCopy handles. */
constexpr int kMaxAxes = 32;

/*!
 * \brief Copy src into dst (same shape and dtype, both on the CPU, not overlapping) in tiles
 *  when src is read against the grain: dst has a contiguous axis and src is densest along
 *  another one (x.T, x.transpose(0, 2, 1), ...). The tiles are split across the kernel pool.
 * \return false, having done nothing, for every other layout (contiguous, strided along the
 *  same axis, small, element sizes other than 1, 2, 4, 8 bytes): the caller copies then.
 */
bool TiledCopy(const DLTensor& src, const DLTensor& dst);

}  // namespace simd
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SIMD_COPY_H_
