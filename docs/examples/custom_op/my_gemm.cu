// my_gemm's CUDA kernel: one thread per output element, tiles of A and B staged in shared memory.
#include <cuda_runtime.h>

#include "my_ops.h"

using mxffi::oplib::Attrs;
using mxffi::oplib::DType;
using mxffi::oplib::Error;
using mxffi::oplib::Resource;
using mxffi::oplib::Status;
using mxffi::oplib::Tensor;

namespace {

constexpr int kTile = 16;

template <typename T>
__global__ void GemmKernel(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, T alpha) {
  __shared__ T ta[kTile][kTile];
  __shared__ T tb[kTile][kTile];
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + threadIdx.y;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  T acc = 0;
  for (int64_t p0 = 0; p0 < k; p0 += kTile) {
    ta[threadIdx.y][threadIdx.x] =
        row < m && p0 + threadIdx.x < k ? a[row * k + p0 + threadIdx.x] : T(0);
    tb[threadIdx.y][threadIdx.x] =
        p0 + threadIdx.y < k && col < n ? b[(p0 + threadIdx.y) * n + col] : T(0);
    __syncthreads();
    for (int p = 0; p < kTile; ++p) acc += ta[threadIdx.y][p] * tb[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = alpha * acc;
}

}  // namespace

Status GemmForwardGPU(const Attrs& attrs, const std::vector<Tensor>& in,
                      const std::vector<Tensor>& out, const Resource& res) {
  double alpha = 1;
  attrs.get_double("alpha", &alpha);
  const int64_t m = in[0].dim(0), k = in[0].dim(1), n = in[1].dim(1);
  if (m == 0 || n == 0) return Status::Ok();
  dim3 block(kTile, kTile);
  dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
            static_cast<unsigned>((m + kTile - 1) / kTile));
  auto stream = static_cast<cudaStream_t>(res.stream());
  if (in[0].dtype() == DType::Float32()) {
    GemmKernel<float><<<grid, block, 0, stream>>>(in[0].data<float>(), in[1].data<float>(),
                                                  out[0].data<float>(), m, k, n,
                                                  static_cast<float>(alpha));
  } else {
    GemmKernel<double><<<grid, block, 0, stream>>>(in[0].data<double>(), in[1].data<double>(),
                                                   out[0].data<double>(), m, k, n, alpha);
  }
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    return Error("RuntimeError") << "my_gemm: the CUDA kernel did not start: "
                                 << cudaGetErrorString(err);
  }
  return Status::Ok();
}
