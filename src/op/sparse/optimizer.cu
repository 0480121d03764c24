/*!
 * \file optimizer.cu
 * \brief GPU kernels of sgd_update, adam_update, sgd_mom_update, ftrl_update and adagrad_update
 * (launchers in optimizer_cuda.h).
 *
 * One thread per value, each running the CPU kernel's own step (optimizer_step.h), whose
 * operations are the round-to-nearest intrinsics on the device (__fmul_rn, __dadd_rn, ...),
 * which the compiler never fuses into a multiply-add: each rounds as on the CPU, in the same
 * order, and a step gives the CPU's bits.
 */
#include "op/cuda_kernel.cuh"
#include "optimizer_cuda.h"
#include "optimizer_step.h"

namespace mxffi {
namespace cuda {
namespace {

using op::AdagradStep;
using op::AdamStep;
using op::FtrlStep;
using op::SGDMomStep;
using op::SGDStep;

/*! \return the position of row r in the sorted ids[0, k), or -1. */
template <typename I>
__device__ __forceinline__ int64_t FindRow(const I* ids, int64_t k, int64_t r) {
  int64_t lo = 0, hi = k;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(ids[mid]) < r) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < k && static_cast<int64_t>(ids[lo]) == r ? lo : -1;
}

/*!
 * \brief Index i of the values a row_sparse step visits: lazy, the i-th stored gradient value;
 *  else the i-th weight value. Sets the weight offset and the gradient offset (-1: none).
 */
template <typename I>
__device__ __forceinline__ void RowStepAt(bool lazy, const I* ids, int64_t k, int64_t width,
                                          int64_t i, int64_t* w_at, int64_t* g_at) {
  const int64_t q = i / width, c = i - q * width;
  if (lazy) {
    *w_at = static_cast<int64_t>(ids[q]) * width + c;
    *g_at = i;
  } else {
    const int64_t j = FindRow(ids, k, q);
    *w_at = i;
    *g_at = j < 0 ? -1 : j * width + c;
  }
}

template <typename T>
__global__ void SGDDenseKernel(SGDStep<T> step, const T* w, const T* g, T* w_out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) { w_out[i] = step(w[i], g[i], true); }
}

template <typename T, typename I>
__global__ void SGDRowsKernel(SGDStep<T> step, bool lazy, T* w, const T* gd, const I* ids,
                              int64_t k, int64_t width, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t wa, ga;
    RowStepAt(lazy, ids, k, width, i, &wa, &ga);
    w[wa] = step(w[wa], ga >= 0 ? gd[ga] : T(0), ga >= 0);
  }
}

template <typename T>
__global__ void AdamDenseKernel(AdamStep<T> step, const T* w, const T* g, const T* m, const T* v,
                                T* w_out, T* m_out, T* v_out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    T wi = w[i], mi = m[i], vi = v[i];
    step(wi, g[i], true, mi, vi);
    m_out[i] = mi;
    v_out[i] = vi;
    w_out[i] = wi;
  }
}

template <typename T, typename I>
__global__ void AdamRowsKernel(AdamStep<T> step, bool lazy, T* w, T* m, T* v, const T* gd,
                               const I* ids, int64_t k, int64_t width, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t wa, ga;
    RowStepAt(lazy, ids, k, width, i, &wa, &ga);
    T wi = w[wa], mi = m[wa], vi = v[wa];
    step(wi, ga >= 0 ? gd[ga] : T(0), ga >= 0, mi, vi);
    w[wa] = wi;
    m[wa] = mi;
    v[wa] = vi;
  }
}

/*! \brief Up to two state pointers, passed to a kernel by value. */
template <typename T>
struct States {
  T* p[2];
};

template <typename T, typename Step>
__global__ void StateDenseKernel(Step step, const T* w, const T* g, States<const T> s, T* w_out,
                                 States<T> s_out, int64_t n) {
  constexpr int K = Step::kStates;
  MXFFI_CUDA_LOOP(i, n) {
    T wi = w[i], si[K];
    for (int j = 0; j < K; ++j) si[j] = s.p[j][i];
    step(wi, g[i], true, si);
    for (int j = 0; j < K; ++j) s_out.p[j][i] = si[j];
    w_out[i] = wi;
  }
}

template <typename T, typename I, typename Step>
__global__ void StateRowsKernel(Step step, bool lazy, T* w, States<T> s, const T* gd, const I* ids,
                                int64_t k, int64_t width, int64_t n) {
  constexpr int K = Step::kStates;
  MXFFI_CUDA_LOOP(i, n) {
    int64_t wa, ga;
    RowStepAt(lazy, ids, k, width, i, &wa, &ga);
    T wi = w[wa], si[K];
    for (int j = 0; j < K; ++j) si[j] = s.p[j][wa];
    step(wi, ga >= 0 ? gd[ga] : T(0), ga >= 0, si);
    for (int j = 0; j < K; ++j) s.p[j][wa] = si[j];
    w[wa] = wi;
  }
}

cudaStream_t AsStream(void* stream) { return static_cast<cudaStream_t>(stream); }

/*! \return the number of values a row_sparse step visits, and the row width. */
int64_t RowStepCount(bool lazy, const DLTensor& w, const DLTensor& g_indices, int64_t* width) {
  const int64_t n = NumElements(w);
  *width = w.shape[0] > 0 ? n / w.shape[0] : 0;
  return lazy ? g_indices.shape[0] * *width : n;
}

template <template <typename> class StepT, typename H>
void StateDense(const char* fname, const H& p, const DLTensor& w, const DLTensor& g,
                const DLTensor* s, const DLTensor& w_out, const DLTensor* s_out, void* stream) {
  const int64_t n = NumElements(w);
  if (n == 0) return;
  RealSwitch(w.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    constexpr int K = StepT<T>::kStates;
    States<const T> si{{nullptr, nullptr}};
    States<T> so{{nullptr, nullptr}};
    for (int j = 0; j < K; ++j) {
      si.p[j] = DataPtr<T>(s[j]);
      so.p[j] = DataPtr<T>(s_out[j]);
    }
    StateDenseKernel<T, StepT<T>><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
        StepT<T>(p), DataPtr<T>(w), DataPtr<T>(g), si, DataPtr<T>(w_out), so, n);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

template <template <typename> class StepT, typename H>
void StateRows(const char* fname, const H& p, bool lazy, const DLTensor& w, const DLTensor* s,
               const DLTensor& g_data, const DLTensor& g_indices, void* stream) {
  int64_t width = 0;
  const int64_t n = RowStepCount(lazy, w, g_indices, &width);
  if (n == 0) return;
  const int64_t k = g_indices.shape[0];
  RealSwitch(w.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    constexpr int K = StepT<T>::kStates;
    States<T> st{{nullptr, nullptr}};
    for (int j = 0; j < K; ++j) st.p[j] = DataPtr<T>(s[j]);
    IndexSwitch(g_indices.dtype, fname, [&](auto itag) {
      using I = decltype(itag);
      StateRowsKernel<T, I, StepT<T>><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
          StepT<T>(p), lazy, DataPtr<T>(w), st, DataPtr<T>(g_data), DataPtr<I>(g_indices), k, width,
          n);
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace

void SGDMomDense(const SGDMomHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor* s,
                 const DLTensor& w_out, const DLTensor* s_out, void* stream) {
  StateDense<SGDMomStep>("sgd_mom_update", p, w, g, s, w_out, s_out, stream);
}

void FtrlDense(const FtrlHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor* s,
               const DLTensor& w_out, const DLTensor* s_out, void* stream) {
  StateDense<FtrlStep>("ftrl_update", p, w, g, s, w_out, s_out, stream);
}

void AdagradDense(const AdagradHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor* s,
                  const DLTensor& w_out, const DLTensor* s_out, void* stream) {
  StateDense<AdagradStep>("adagrad_update", p, w, g, s, w_out, s_out, stream);
}

void SGDMomRows(const SGDMomHyper& p, bool lazy, const DLTensor& w, const DLTensor* s,
                const DLTensor& g_data, const DLTensor& g_indices, void* stream) {
  StateRows<SGDMomStep>("sgd_mom_update", p, lazy, w, s, g_data, g_indices, stream);
}

void FtrlRows(const FtrlHyper& p, bool lazy, const DLTensor& w, const DLTensor* s,
              const DLTensor& g_data, const DLTensor& g_indices, void* stream) {
  StateRows<FtrlStep>("ftrl_update", p, lazy, w, s, g_data, g_indices, stream);
}

void AdagradRows(const AdagradHyper& p, bool lazy, const DLTensor& w, const DLTensor* s,
                 const DLTensor& g_data, const DLTensor& g_indices, void* stream) {
  StateRows<AdagradStep>("adagrad_update", p, lazy, w, s, g_data, g_indices, stream);
}

void SGDDense(const SGDHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor& w_out,
              void* stream) {
  constexpr const char* fname = "sgd_update";
  const int64_t n = NumElements(w);
  if (n == 0) return;
  RealSwitch(w.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    SGDDenseKernel<T><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
        SGDStep<T>(p), DataPtr<T>(w), DataPtr<T>(g), DataPtr<T>(w_out), n);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void SGDRows(const SGDHyper& p, bool lazy, const DLTensor& w, const DLTensor& g_data,
             const DLTensor& g_indices, void* stream) {
  constexpr const char* fname = "sgd_update";
  int64_t width = 0;
  const int64_t n = RowStepCount(lazy, w, g_indices, &width);
  if (n == 0) return;
  const int64_t k = g_indices.shape[0];
  RealSwitch(w.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    IndexSwitch(g_indices.dtype, fname, [&](auto itag) {
      using I = decltype(itag);
      SGDRowsKernel<T, I><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
          SGDStep<T>(p), lazy, DataPtr<T>(w), DataPtr<T>(g_data), DataPtr<I>(g_indices), k, width,
          n);
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void AdamDense(const AdamHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor& m,
               const DLTensor& v, const DLTensor& w_out, const DLTensor& m_out,
               const DLTensor& v_out, void* stream) {
  constexpr const char* fname = "adam_update";
  const int64_t n = NumElements(w);
  if (n == 0) return;
  RealSwitch(w.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    AdamDenseKernel<T><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
        AdamStep<T>(p), DataPtr<T>(w), DataPtr<T>(g), DataPtr<T>(m), DataPtr<T>(v),
        DataPtr<T>(w_out), DataPtr<T>(m_out), DataPtr<T>(v_out), n);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void AdamRows(const AdamHyper& p, bool lazy, const DLTensor& w, const DLTensor& m,
              const DLTensor& v, const DLTensor& g_data, const DLTensor& g_indices, void* stream) {
  constexpr const char* fname = "adam_update";
  int64_t width = 0;
  const int64_t n = RowStepCount(lazy, w, g_indices, &width);
  if (n == 0) return;
  const int64_t k = g_indices.shape[0];
  RealSwitch(w.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    IndexSwitch(g_indices.dtype, fname, [&](auto itag) {
      using I = decltype(itag);
      AdamRowsKernel<T, I><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
          AdamStep<T>(p), lazy, DataPtr<T>(w), DataPtr<T>(m), DataPtr<T>(v), DataPtr<T>(g_data),
          DataPtr<I>(g_indices), k, width, n);
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
