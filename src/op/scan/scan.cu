/*!
 * \file scan.cu
 * \brief The CUDA kernel of the cumulative ops: one thread per line, scanning it in order with
 *  scan_functors.h's ScanLine, so each result is the CPU kernel's bit for bit. Threads of a
 *  warp take neighbouring lines, whose elements are neighbours in memory when the axis is not
 *  the last, so their reads coalesce. Every dtype of the CPU kernel, complex64 and complex128
 *  included.
 */
#include "op/complex.h"
#include "op/cuda_kernel.cuh"
#include "op/scan/scan_functors.h"
#include "scan_cuda.h"

namespace mxffi {
namespace cuda {
namespace {

template <int kKind, typename O, typename I>
__global__ void ScanKernel(const I* __restrict__ x, O* __restrict__ out, int64_t len, int64_t inner,
                           bool include_initial, int64_t lines) {
  MXFFI_CUDA_LOOP(line, lines) {
    const int64_t o = line / inner, i = line - o * inner;
    const int64_t olen = len + (include_initial ? 1 : 0);
    op::scan::ScanLine<kKind, O, I>(x + o * len * inner + i, out + o * olen * inner + i, len, inner,
                                    include_initial);
  }
}

template <int kKind>
void Launch(const DLTensor& x, const DLTensor& out, int64_t outer, int64_t len, int64_t inner,
            bool include_initial, const char* fname, cudaStream_t stream) {
  const int64_t lines = outer * inner;
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(out.dtype, fname, O, {
    const auto run = [&](auto i_tag, auto) {
      using I = decltype(i_tag);
      ScanKernel<kKind, O, I><<<Blocks(lines), kThreads, 0, stream>>>(
          DataPtr<const I>(x), DataPtr<O>(out), len, inner, include_initial, lines);
    };
    if (x.dtype.code == out.dtype.code && x.dtype.bits == out.dtype.bits) {
      run(O{}, O{});
    } else if (!op::scan::ScanInputSwitch<O>(x.dtype, run)) {
      op::ThrowNoKernel(fname, x.dtype);
    }
  });
}

}  // namespace

void Scan(int kind, const DLTensor& x, const DLTensor& out, int64_t outer, int64_t len,
          int64_t inner, bool include_initial, const char* fname, void* stream) {
  if (NumElements(out) == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (kind == op::scan::kSum) {
    Launch<op::scan::kSum>(x, out, outer, len, inner, include_initial, fname, s);
  } else {
    Launch<op::scan::kProd>(x, out, outer, len, inner, include_initial, fname, s);
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
