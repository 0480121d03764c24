/*!
 * \file copy.cc
 * \brief Cache-blocked copies: CopyTiled2D (simd.h) and TiledCopy (copy.h), the copy of a
 *  transposed (or otherwise permuted) array into a C-contiguous one.
 *
 * Copying x.T element by element in the output's order reads x with a stride of a whole row:
 * each element read touches a new cache line and, for rows of a page or more, a new page, so
 * the copy runs at the speed of cache and TLB misses. Walking the two axes in small square
 * tiles instead uses every cache line it loads several times while it is still in L1.
 */
#include "copy.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "../parallel.h"
#include "simd.h"

namespace mxffi {
namespace op {
namespace simd {
namespace {

/*! \brief Tile edge in elements: 32 x 32 tiles of 8-byte elements are 8 KiB on each side. */
constexpr int64_t kTile = 32;

template <typename E>
void Tiled(const E* src, int64_t src_rs, int64_t src_cs, E* dst, int64_t dst_rs, int64_t rows,
           int64_t cols) {
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        const E* s = src + i * src_rs;
        E* d = dst + i * dst_rs;
        for (int64_t j = j0; j < j1; ++j) d[j] = s[j * src_cs];
      }
    }
  }
}

/*! \brief One axis of a copy: extent and the element strides of source and destination. */
struct Axis {
  int64_t size, src, dst;
};

}  // namespace

void CopyTiled2D(const void* src, int64_t src_rs, int64_t src_cs, void* dst, int64_t dst_rs,
                 int64_t rows, int64_t cols, int elem_bytes) {
  switch (elem_bytes) {
    case 1:
      Tiled(static_cast<const uint8_t*>(src), src_rs, src_cs, static_cast<uint8_t*>(dst), dst_rs,
            rows, cols);
      break;
    case 2:
      Tiled(static_cast<const uint16_t*>(src), src_rs, src_cs, static_cast<uint16_t*>(dst), dst_rs,
            rows, cols);
      break;
    case 4:
      Tiled(static_cast<const uint32_t*>(src), src_rs, src_cs, static_cast<uint32_t*>(dst), dst_rs,
            rows, cols);
      break;
    case 8:
      Tiled(static_cast<const uint64_t*>(src), src_rs, src_cs, static_cast<uint64_t*>(dst), dst_rs,
            rows, cols);
      break;
    default:
      std::abort();  // the callers pass element sizes of the supported dtypes only
  }
}

bool TiledCopy(const DLTensor& src, const DLTensor& dst) {
  const int64_t elem = (src.dtype.bits * src.dtype.lanes + 7) / 8;
  if (src.ndim < 2 || src.ndim != dst.ndim || src.strides == nullptr ||
      !(elem == 1 || elem == 2 || elem == 4 || elem == 8) || src.ndim > kMaxAxes) {
    return false;
  }
  int64_t n = 1;
  for (int d = 0; d < src.ndim; ++d) n *= src.shape[d];
  if (n < kMinTiledElems) return false;
  // The axes (extent-1 ones dropped), neighbours merged where both arrays allow it.
  Axis ax[kMaxAxes];
  int na = 0;
  int64_t dst_compact = 1;
  int64_t dstr[kMaxAxes];
  for (int d = dst.ndim - 1; d >= 0; --d) {
    dstr[d] = dst.strides != nullptr ? dst.strides[d] : dst_compact;
    dst_compact *= dst.shape[d];
  }
  for (int d = 0; d < src.ndim; ++d) {
    if (src.shape[d] == 1) continue;
    const Axis a{src.shape[d], src.strides[d], dstr[d]};
    if (na > 0 && ax[na - 1].src == a.src * a.size && ax[na - 1].dst == a.dst * a.size) {
      ax[na - 1].size *= a.size;
      ax[na - 1].src = a.src;
      ax[na - 1].dst = a.dst;
    } else {
      ax[na++] = a;
    }
  }
  if (na < 2) return false;
  // Columns of the tiles: the destination's contiguous axis; rows: the axis the source is
  // densest along. When they are the same axis, rows are copied as runs already.
  int c = -1, r = -1;
  for (int d = 0; d < na; ++d) {
    if (ax[d].dst == 1) c = d;
    if (r < 0 || std::llabs(ax[d].src) < std::llabs(ax[r].src)) r = d;
  }
  if (c < 0 || r == c) return false;
  // Every other axis is looped over; tasks are (outer index, block of tile rows).
  Axis outer[kMaxAxes];
  int no = 0;
  for (int d = 0; d < na; ++d) {
    if (d != r && d != c) outer[no++] = ax[d];
  }
  const int64_t rows = ax[r].size, cols = ax[c].size;
  const int64_t row_block =
      std::max<int64_t>(kTile, (int64_t{1} << 16) / std::max<int64_t>(cols, 1));
  const int64_t blocks_per_outer = (rows + row_block - 1) / row_block;
  int64_t n_outer = 1;
  for (int d = 0; d < no; ++d) n_outer *= outer[d].size;
  const char* s0 = static_cast<const char*>(src.data) + src.byte_offset;
  char* d0 = static_cast<char*>(dst.data) + dst.byte_offset;
  std::optional<ScopedGILRelease> gil;
  if (n > kReleaseGILThreshold) gil.emplace();
  ParallelFor(n_outer * blocks_per_outer, row_block * cols, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / blocks_per_outer, so = 0, dof = 0;
      for (int d = no - 1; d >= 0; --d) {
        const int64_t idx = o % outer[d].size;
        o /= outer[d].size;
        so += idx * outer[d].src;
        dof += idx * outer[d].dst;
      }
      const int64_t i0 = (t % blocks_per_outer) * row_block;
      const int64_t i1 = std::min(rows, i0 + row_block);
      CopyTiled2D(s0 + (so + i0 * ax[r].src) * elem, ax[r].src, ax[c].src,
                  d0 + (dof + i0 * ax[r].dst) * elem, ax[r].dst, i1 - i0, cols,
                  static_cast<int>(elem));
    }
  });
  return true;
}

}  // namespace simd
}  // namespace op
}  // namespace mxffi
