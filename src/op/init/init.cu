/*!
 * \file init.cu
 * \brief The CUDA kernels of the ops that make arrays: fill (_zeros, _ones, _full), arange and
 *  the strided copy (_copy, and _cast to the same dtype).
 *
 * Fill and copy move bits, so they are instantiated per element size (1, 2, 4, 8 bytes), not per
 * dtype; arange converts per dtype as the CPU kernel does.
 */
#include <cstring>
#include <type_traits>

#include "init_cuda.h"
#include "op/cuda_kernel.cuh"

namespace mxffi {
namespace cuda {
namespace {

/*!
 * \brief out[0..n) = v: 16-byte stores of the repeated pattern over the first nvec * 16 bytes
 *  (out is 16-byte aligned when nvec > 0), single elements after.
 */
template <typename U>
__global__ void FillKernel(U* __restrict__ out, U v, uint4 pattern, int64_t n, int64_t nvec) {
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = first; i < nvec; i += step) reinterpret_cast<uint4*>(out)[i] = pattern;
  constexpr int64_t kPer = 16 / sizeof(U);
  for (int64_t i = nvec * kPer + first; i < n; i += step) out[i] = v;
}

/*!
 * \brief One arange value as the CPU kernel stores it (static_cast<T>(double)): numpy's
 *  conversion, except that a uint64 value in [2^63, 2^64) is exact there, not INT64_MIN.
 */
template <typename T>
__device__ __forceinline__ T ArangeValue(double v) {
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (v >= 9.2233720368547758e18 && v < 1.8446744073709552e19) return static_cast<T>(v);
  }
  return CastOne<T>(v);
}

template <typename T>
__global__ void ArangeKernel(T* __restrict__ out, double start, double step, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    out[i] = ArangeValue<T>(__dadd_rn(start, __dmul_rn(static_cast<double>(i), step)));
  }
}

template <typename U>
__global__ void GatherKernel(StridedIndex<1> idx, const U* __restrict__ src, U* __restrict__ dst,
                             int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    idx.Offsets(i, off);
    dst[i] = src[off[0]];
  }
}

int ElemBytes(DLDataType t) { return (t.bits * t.lanes + 7) / 8; }

template <typename U>
void LaunchFill(void* data, uint64_t bits, int64_t n, cudaStream_t stream, const char* fname) {
  U v;
  std::memcpy(&v, &bits, sizeof(U));
  uint4 pattern;
  unsigned char raw[16];
  for (size_t k = 0; k < 16; k += sizeof(U)) std::memcpy(raw + k, &v, sizeof(U));
  std::memcpy(&pattern, raw, 16);
  const bool aligned = (reinterpret_cast<uintptr_t>(data) & 15) == 0;
  const int64_t nvec = aligned ? n * static_cast<int64_t>(sizeof(U)) / 16 : 0;
  FillKernel<U><<<Blocks(nvec > 0 ? nvec + 16 : n), kThreads, 0, stream>>>(static_cast<U*>(data), v,
                                                                           pattern, n, nvec);
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace

void Fill(const DLTensor& out, uint64_t bits, const char* fname, void* stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  void* data = DataPtr<char>(out);
  const int bytes = ElemBytes(out.dtype);
  if (bits == 0) {
    MXFFI_CUDA_CALL(fname, cudaMemsetAsync(data, 0, static_cast<size_t>(n) * bytes, s));
    return;
  }
  switch (bytes) {
    case 1:
      return LaunchFill<uint8_t>(data, bits, n, s, fname);
    case 2:
      return LaunchFill<uint16_t>(data, bits, n, s, fname);
    case 4:
      return LaunchFill<uint32_t>(data, bits, n, s, fname);
    case 8:
      return LaunchFill<uint64_t>(data, bits, n, s, fname);
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported element size " << bytes;
  }
}

void Arange(const DLTensor& out, double start, double step, const char* fname, void* stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_TYPE_SWITCH(out.dtype, fname, T, {
    ArangeKernel<T><<<Blocks(n), kThreads, 0, s>>>(DataPtr<T>(out), start, step, n);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void CopyToContiguous(const DLTensor& src, const DLTensor& dst, const char* fname, void* stream) {
  const int64_t n = NumElements(dst);
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int bytes = ElemBytes(src.dtype);
  // src's dimensions with extent-1 ones dropped and neighbours merged where the strides allow.
  StridedIndex<1> idx;
  idx.ndim = 0;
  int64_t compact = 1;
  int64_t strides[kMaxDims];
  for (int d = src.ndim - 1; d >= 0; --d) {
    strides[d] = src.strides != nullptr ? src.strides[d] : compact;
    compact *= src.shape[d];
  }
  for (int d = 0; d < src.ndim; ++d) {
    if (src.shape[d] == 1) continue;
    if (idx.ndim > 0 && idx.stride[0][idx.ndim - 1] == strides[d] * src.shape[d]) {
      idx.shape[idx.ndim - 1] *= src.shape[d];
      idx.stride[0][idx.ndim - 1] = strides[d];
    } else {
      idx.shape[idx.ndim] = src.shape[d];
      idx.stride[0][idx.ndim] = strides[d];
      ++idx.ndim;
    }
  }
  const void* from = DataPtr<const char>(src);
  void* to = DataPtr<char>(dst);
  if (idx.ndim == 0 || (idx.ndim == 1 && idx.stride[0][0] == 1)) {
    MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(to, from, static_cast<size_t>(n) * bytes,
                                           cudaMemcpyDeviceToDevice, s));
    return;
  }
  switch (bytes) {
    case 1:
      GatherKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const uint8_t*>(from),
                                                  static_cast<uint8_t*>(to), n);
      break;
    case 2:
      GatherKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const uint16_t*>(from),
                                                  static_cast<uint16_t*>(to), n);
      break;
    case 4:
      GatherKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const uint32_t*>(from),
                                                  static_cast<uint32_t*>(to), n);
      break;
    case 8:
      GatherKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const uint64_t*>(from),
                                                  static_cast<uint64_t*>(to), n);
      break;
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported element size " << bytes;
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
