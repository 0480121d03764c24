/*!
 * \file strided_copy.cu
 * \brief The strided device copy: one thread per element, each walking its flat index to a
 *  source and a destination offset (StridedIndex<2>).
 */
#include <cstdint>

#include "kernel_util.cuh"
#include "strided_copy.h"

namespace mxffi {
namespace cuda {
namespace {

/*! \brief A 16-byte element (e.g. float32x4) moved as one word. */
struct alignas(16) Word16 {
  uint64_t lo, hi;
};

template <typename W>
__global__ void StridedCopyKernel(const W* src, W* dst, int64_t n, StridedIndex<2> index) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[2];
    index.Offsets(i, off);
    dst[off[1]] = src[off[0]];
  }
}

/*! \brief Elements of any byte size: offsets in elements, each element copied byte by byte. */
__global__ void StridedCopyBytesKernel(const char* src, char* dst, int64_t n, int64_t elem,
                                       StridedIndex<2> index) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[2];
    index.Offsets(i, off);
    for (int64_t b = 0; b < elem; ++b) dst[off[1] * elem + b] = src[off[0] * elem + b];
  }
}

template <typename W>
void Launch(const char* src, char* dst, int64_t n, const StridedIndex<2>& index,
            cudaStream_t stream) {
  StridedCopyKernel<W><<<Blocks(n), kThreads, 0, stream>>>(reinterpret_cast<const W*>(src),
                                                           reinterpret_cast<W*>(dst), n, index);
}

}  // namespace

void LaunchStridedCopy(const DLTensor& src, const DLTensor& dst, void* stream, const char* fname) {
  const int64_t n = NumElements(src);
  if (n == 0) return;
  MXFFI_CHECK(src.ndim <= kMaxDims, ValueError)
      << fname << ": at most " << kMaxDims << " dimensions, got " << src.ndim;
  StridedIndex<2> index;
  index.ndim = src.ndim;
  const DLTensor* sides[2] = {&src, &dst};
  for (int k = 0; k < 2; ++k) {
    int64_t s = 1;
    for (int d = src.ndim - 1; d >= 0; --d) {
      index.shape[d] = src.shape[d];
      index.stride[k][d] = sides[k]->strides != nullptr ? sides[k]->strides[d] : s;
      s *= src.shape[d];
    }
  }
  const int64_t elem = (static_cast<int64_t>(src.dtype.bits) * src.dtype.lanes + 7) / 8;
  const char* s = static_cast<const char*>(src.data) + src.byte_offset;
  char* d = static_cast<char*>(dst.data) + dst.byte_offset;
  const uintptr_t both = reinterpret_cast<uintptr_t>(s) | reinterpret_cast<uintptr_t>(d);
  auto st = static_cast<cudaStream_t>(stream);
  if (elem == 1) {
    Launch<uint8_t>(s, d, n, index, st);
  } else if (elem == 2 && both % 2 == 0) {
    Launch<uint16_t>(s, d, n, index, st);
  } else if (elem == 4 && both % 4 == 0) {
    Launch<uint32_t>(s, d, n, index, st);
  } else if (elem == 8 && both % 8 == 0) {
    Launch<uint64_t>(s, d, n, index, st);
  } else if (elem == 16 && both % 16 == 0) {
    Launch<Word16>(s, d, n, index, st);
  } else {
    StridedCopyBytesKernel<<<Blocks(n), kThreads, 0, st>>>(s, d, n, elem, index);
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
