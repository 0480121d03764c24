/*!
 * \file sort.cu
 * \brief The CUDA kernels of the sort ops, kept simple: a thread per line sorting the line's
 *  positions by a bottom-up merge sort (stable, in the order of sort_functors.h) in scratch
 *  memory, then writing values or positions; a thread per searched value; and unique's count
 *  and write as one thread each walking the sorted order, which numpy's first-occurrence and
 *  group numbering need in sequence. Every real and complex dtype (complex in numpy's order).
 */
#include "op/complex.h"
#include "op/cuda_kernel.cuh"
#include "op/sort/sort_functors.h"
#include "sort_cuda.h"

namespace mxffi {
namespace cuda {
namespace {

using op::sort::Before;
using op::sort::NewGroup;

template <bool kDesc, typename T>
__global__ void SortLinesKernel(const T* __restrict__ x, T* vals, int64_t* idx, int64_t* scratch,
                                int64_t lines, int64_t n, int64_t inner) {
  MXFFI_CUDA_LOOP(l, lines) {
    const int64_t base = (l / inner) * n * inner + l % inner;
    int64_t* a = scratch + l * 2 * n;
    int64_t* b = a + n;
    for (int64_t j = 0; j < n; ++j) a[j] = j;
    for (int64_t w = 1; w < n; w *= 2) {
      for (int64_t lo = 0; lo < n; lo += 2 * w) {
        const int64_t mid = lo + w < n ? lo + w : n;
        const int64_t hi = lo + 2 * w < n ? lo + 2 * w : n;
        int64_t i = lo, k = mid, o = lo;
        while (i < mid && k < hi) {
          // The right run's element goes first only when strictly before: stable.
          if (Before<kDesc>(ToAcc(x[base + a[k] * inner]), ToAcc(x[base + a[i] * inner]))) {
            b[o++] = a[k++];
          } else {
            b[o++] = a[i++];
          }
        }
        while (i < mid) b[o++] = a[i++];
        while (k < hi) b[o++] = a[k++];
      }
      int64_t* t = a;
      a = b;
      b = t;
    }
    for (int64_t j = 0; j < n; ++j) {
      if (idx != nullptr) {
        idx[base + j * inner] = a[j];
      } else {
        vals[base + j * inner] = x[base + a[j] * inner];
      }
    }
  }
}

template <typename T>
__global__ void SearchSortedKernel(const T* __restrict__ a, const T* __restrict__ v,
                                   int64_t* __restrict__ out, int64_t n, int64_t m, bool right) {
  MXFFI_CUDA_LOOP(i, m) { out[i] = op::sort::SearchSorted(a, 1, n, ToAcc(v[i]), right); }
}

template <typename T>
__global__ void UniqueCountKernel(const T* __restrict__ x, const int64_t* __restrict__ perm,
                                  int64_t n, bool equal_nan, int64_t* count) {
  int64_t groups = 0;
  AccT<T> prev{};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = perm[i];
    if (j < 0 || j >= n) {
      *count = -1;
      return;
    }
    const AccT<T> v = ToAcc(x[j]);
    if (i == 0 || NewGroup(prev, v, equal_nan)) ++groups;
    prev = v;
  }
  *count = groups;
}

template <typename T>
__global__ void UniqueKernel(const T* __restrict__ x, const int64_t* __restrict__ perm, int64_t n,
                             bool equal_nan, T* values, int64_t* first, int64_t* inverse,
                             int64_t* counts) {
  int64_t g = -1;
  AccT<T> prev{};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = perm[i];
    const AccT<T> v = ToAcc(x[j]);
    if (i == 0 || NewGroup(prev, v, equal_nan)) {
      ++g;
      values[g] = x[j];
      first[g] = j;
      counts[g] = 0;
    }
    ++counts[g];
    inverse[j] = g;
    prev = v;
  }
}

}  // namespace

void SortLines(const DLTensor& x, const DLTensor& out, int64_t* scratch, int64_t outer, int64_t n,
               int64_t inner, bool descending, bool arg, const char* fname, void* stream) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, T, {
    const T* px = DataPtr<const T>(x);
    T* vals = arg ? nullptr : DataPtr<T>(out);
    int64_t* idx = arg ? DataPtr<int64_t>(out) : nullptr;
    if (descending) {
      SortLinesKernel<true, T>
          <<<Blocks(lines), kThreads, 0, s>>>(px, vals, idx, scratch, lines, n, inner);
    } else {
      SortLinesKernel<false, T>
          <<<Blocks(lines), kThreads, 0, s>>>(px, vals, idx, scratch, lines, n, inner);
    }
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void SearchSorted(const DLTensor& a, const DLTensor& v, const DLTensor& out, bool right,
                  const char* fname, void* stream) {
  const int64_t m = NumElements(v);
  if (m == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(a.dtype, fname, T, {
    SearchSortedKernel<T><<<Blocks(m), kThreads, 0, s>>>(
        DataPtr<const T>(a), DataPtr<const T>(v), DataPtr<int64_t>(out), a.shape[0], m, right);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void UniqueCount(const DLTensor& x, const int64_t* perm, int64_t* count, bool equal_nan,
                 const char* fname, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, T, {
    UniqueCountKernel<T><<<1, 1, 0, s>>>(DataPtr<const T>(x), perm, x.shape[0], equal_nan, count);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void Unique(const DLTensor& x, const int64_t* perm, const DLTensor* out, bool equal_nan,
            const char* fname, void* stream) {
  if (x.shape[0] == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, T, {
    UniqueKernel<T><<<1, 1, 0, s>>>(DataPtr<const T>(x), perm, x.shape[0], equal_nan,
                                    DataPtr<T>(out[0]), DataPtr<int64_t>(out[1]),
                                    DataPtr<int64_t>(out[2]), DataPtr<int64_t>(out[3]));
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
