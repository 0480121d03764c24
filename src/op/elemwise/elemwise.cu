/*!
 * \file elemwise.cu
 * \brief The elementwise CUDA kernels: binary ops with numpy broadcasting, unary ops,
 *  quadratic and the converting copy, each as the CPU kernel computes it
 *  (elemwise_functors.cuh).
 *
 * Two kernels per (op, output dtype) the CPU op accepts:
 *   - contiguous: every array input is the output's dtype with unit stride (a Python number is
 *     a kernel argument); a flat grid-stride loop over 16-byte vectors when every pointer is
 *     16-byte aligned, the remaining elements one by one;
 *   - general: any broadcast, strides and input dtypes; each element's input offsets come from
 *     the merged layout (one multiply per input when it has one dimension), inputs of another
 *     dtype are read through a switch on their dtype, uniform across the grid.
 * Nothing is instantiated per rank: the layout is data.
 */
#include <cstring>
#include <type_traits>

#include "elemwise_cuda.h"
#include "elemwise_functors.cuh"
#include "op/cuda_kernel.cuh"

namespace mxffi {
namespace cuda {
namespace {

using namespace elemwise;  // NOLINT(build/namespaces): the functors of this file's kernels

/*! \brief 16 bytes of T, loaded and stored as one vector. */
template <typename T>
struct alignas(16) Vec16 {
  static constexpr int kN = 16 / static_cast<int>(sizeof(T));
  T v[kN];
};

/*! \brief Which operand is a Python number: none, the first or the second. */
enum ScalarSide : int { kNoScalar = 0, kFirst = 1, kSecond = 2 };

template <typename OP, typename T>
__global__ void BinaryContiguous(const T* __restrict__ a, const T* __restrict__ b, T sa, T sb,
                                 int side, T* __restrict__ out, int64_t n, int64_t nvec) {
  using V = Vec16<T>;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = first; i < nvec; i += step) {
    V va, vb, vo;
    if (side == kFirst) {
#pragma unroll
      for (int k = 0; k < V::kN; ++k) va.v[k] = sa;
    } else {
      va = reinterpret_cast<const V*>(a)[i];
    }
    if (side == kSecond) {
#pragma unroll
      for (int k = 0; k < V::kN; ++k) vb.v[k] = sb;
    } else {
      vb = reinterpret_cast<const V*>(b)[i];
    }
#pragma unroll
    for (int k = 0; k < V::kN; ++k) {
      vo.v[k] = FromAcc<T>(OP::Map(ToAcc(va.v[k]), ToAcc(vb.v[k])));
    }
    reinterpret_cast<V*>(out)[i] = vo;
  }
  for (int64_t i = nvec * V::kN + first; i < n; i += step) {
    const T x = side == kFirst ? sa : a[i];
    const T y = side == kSecond ? sb : b[i];
    out[i] = FromAcc<T>(OP::Map(ToAcc(x), ToAcc(y)));
  }
}

/*! \brief The element offsets of both inputs at flat output index i. */
template <int N>
__device__ __forceinline__ void InputOffsets(const StridedIndex<N>& idx, int64_t i, int64_t* off) {
  if (idx.ndim == 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = i * idx.stride[k][0];
  } else {
    idx.Offsets(i, off);
  }
}

template <typename OP, typename T>
__global__ void BinaryGeneral(StridedIndex<2> idx, const void* a, int ca, const void* b, int cb,
                              T sa, T sb, int side, T* __restrict__ out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[2];
    InputOffsets(idx, i, off);
    const T x = side == kFirst ? sa : LoadAs<T>(a, off[0], ca);
    const T y = side == kSecond ? sb : LoadAs<T>(b, off[1], cb);
    out[i] = FromAcc<T>(OP::Map(ToAcc(x), ToAcc(y)));
  }
}

template <typename F, typename T>
__global__ void UnaryContiguous(F f, const T* __restrict__ x, T* __restrict__ out, int64_t n,
                                int64_t nvec) {
  using V = Vec16<T>;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = first; i < nvec; i += step) {
    const V vx = reinterpret_cast<const V*>(x)[i];
    V vo;
#pragma unroll
    for (int k = 0; k < V::kN; ++k) vo.v[k] = FromAcc<T>(f(ToAcc(vx.v[k])));
    reinterpret_cast<V*>(out)[i] = vo;
  }
  for (int64_t i = nvec * V::kN + first; i < n; i += step) out[i] = FromAcc<T>(f(ToAcc(x[i])));
}

template <typename F, typename T>
__global__ void UnaryGeneral(F f, StridedIndex<1> idx, const void* x, int cx, T* __restrict__ out,
                             int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    InputOffsets(idx, i, off);
    out[i] = FromAcc<T>(f(ToAcc(LoadAs<T>(x, off[0], cx))));
  }
}

template <typename I>
__global__ void AnyNegativeKernel(StridedIndex<1> idx, const I* __restrict__ x, int64_t n,
                                  int* flag) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    InputOffsets(idx, i, off);
    if (x[off[0]] < 0) *flag = 1;
  }
}

bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

bool SameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/*! \brief Whether input k is read at the flat output index (a number, or a unit-stride run). */
bool IsContiguous(const ElemInput& x, const ElemLayout& layout, int k, DLDataType out) {
  return x.is_scalar || (layout.ndim == 1 && layout.stride[k][0] == 1 && SameDType(x.dtype, out));
}

template <int N>
StridedIndex<N> MakeIndex(const ElemLayout& layout) {
  StridedIndex<N> idx;
  idx.ndim = layout.ndim;
  for (int d = 0; d < layout.ndim; ++d) {
    idx.shape[d] = layout.shape[d];
    for (int k = 0; k < N; ++k) idx.stride[k][d] = layout.stride[k][d];
  }
  return idx;
}

int InputCode(const ElemInput& x, const char* fname) {
  if (x.is_scalar) return 0;
  const int code = elemwise::DTypeIndex(x.dtype);
  MXFFI_CHECK(code >= 0, TypeError) << fname << ": unsupported input dtype code "
                                    << int(x.dtype.code) << " bits " << int(x.dtype.bits);
  return code;
}

template <typename T>
T ScalarAs(const ElemInput& x) {
  T v{};
  if (x.is_scalar) std::memcpy(static_cast<void*>(&v), &x.scalar_bits, sizeof(T));
  return v;
}

/*! \brief Blocks for the contiguous kernels: a vector (or a tail element) per thread. */
unsigned int ContiguousBlocks(int64_t n, int64_t nvec, int per_vec) {
  return Blocks(nvec > 0 ? nvec + per_vec : n);
}

template <typename OP>
void LaunchBinary(const ElemInput& a, const ElemInput& b, const ElemLayout& layout,
                  const DLTensor& out, const char* fname, cudaStream_t stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  MXFFI_TYPE_SWITCH(out.dtype, fname, T, {
    if constexpr (OP::template Valid<T>()) {
      const T sa = ScalarAs<T>(a), sb = ScalarAs<T>(b);
      const int side = a.is_scalar ? kFirst : b.is_scalar ? kSecond : kNoScalar;
      T* o = DataPtr<T>(out);
      if (IsContiguous(a, layout, 0, out.dtype) && IsContiguous(b, layout, 1, out.dtype)) {
        const bool vec = Aligned16(o) && (a.is_scalar || Aligned16(a.data)) &&
                         (b.is_scalar || Aligned16(b.data));
        constexpr int kN = Vec16<T>::kN;
        const int64_t nvec = vec ? n / kN : 0;
        BinaryContiguous<OP, T><<<ContiguousBlocks(n, nvec, kN), kThreads, 0, stream>>>(
            static_cast<const T*>(a.data), static_cast<const T*>(b.data), sa, sb, side, o, n, nvec);
      } else {
        BinaryGeneral<OP, T>
            <<<Blocks(n), kThreads, 0, stream>>>(MakeIndex<2>(layout), a.data, InputCode(a, fname),
                                                 b.data, InputCode(b, fname), sa, sb, side, o, n);
      }
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    } else {
      MXFFI_THROW(TypeError) << fname << ": no kernel computes in dtype code "
                             << int(out.dtype.code) << " bits " << int(out.dtype.bits);
    }
  });
}

template <typename F>
void LaunchUnary(F f, const ElemInput& x, const ElemLayout& layout, const DLTensor& out,
                 const char* fname, cudaStream_t stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  MXFFI_TYPE_SWITCH(out.dtype, fname, T, {
    if constexpr (F::template Valid<T>()) {
      T* o = DataPtr<T>(out);
      if (!x.is_scalar && IsContiguous(x, layout, 0, out.dtype)) {
        const bool vec = Aligned16(o) && Aligned16(x.data);
        constexpr int kN = Vec16<T>::kN;
        const int64_t nvec = vec ? n / kN : 0;
        UnaryContiguous<F, T><<<ContiguousBlocks(n, nvec, kN), kThreads, 0, stream>>>(
            f, static_cast<const T*>(x.data), o, n, nvec);
      } else {
        UnaryGeneral<F, T><<<Blocks(n), kThreads, 0, stream>>>(f, MakeIndex<1>(layout), x.data,
                                                               InputCode(x, fname), o, n);
      }
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    } else {
      MXFFI_THROW(TypeError) << fname << ": no kernel computes in dtype code "
                             << int(out.dtype.code) << " bits " << int(out.dtype.bits);
    }
  });
}

}  // namespace

void BinaryElemwise(BinaryOpCode op, const ElemInput& a, const ElemInput& b,
                    const ElemLayout& layout, const DLTensor& out, const char* fname,
                    void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (op) {
    case BinaryOpCode::kAdd:
      return LaunchBinary<AddOp>(a, b, layout, out, fname, s);
    case BinaryOpCode::kSubtract:
      return LaunchBinary<SubtractOp>(a, b, layout, out, fname, s);
    case BinaryOpCode::kMultiply:
      return LaunchBinary<MultiplyOp>(a, b, layout, out, fname, s);
    case BinaryOpCode::kDivide:
      return LaunchBinary<DivideOp>(a, b, layout, out, fname, s);
    case BinaryOpCode::kPower:
      return LaunchBinary<PowerOp>(a, b, layout, out, fname, s);
    case BinaryOpCode::kMaximum:
      return LaunchBinary<MaximumOp>(a, b, layout, out, fname, s);
    case BinaryOpCode::kMinimum:
      return LaunchBinary<MinimumOp>(a, b, layout, out, fname, s);
  }
  MXFFI_THROW(ValueError) << fname << ": unknown binary op code " << static_cast<int>(op);
}

void UnaryElemwise(UnaryOpCode op, const ElemInput& x, const ElemLayout& layout,
                   const DLTensor& out, const double* coef, const char* fname, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (op) {
    case UnaryOpCode::kNegative:
      return LaunchUnary(NegativeOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kAbsolute:
      return LaunchUnary(AbsoluteOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kSquare:
      return LaunchUnary(SquareOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kSqrt:
      return LaunchUnary(SqrtOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kExp:
      return LaunchUnary(ExpOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kLog:
      return LaunchUnary(LogOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kSign:
      return LaunchUnary(SignOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kRelu:
      return LaunchUnary(ReluOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kIdentity:
      return LaunchUnary(IdentityOp{}, x, layout, out, fname, s);
    case UnaryOpCode::kQuadratic:
      return LaunchUnary(QuadraticOp{coef[0], coef[1], coef[2]}, x, layout, out, fname, s);
  }
  MXFFI_THROW(ValueError) << fname << ": unknown unary op code " << static_cast<int>(op);
}

bool AnyNegative(const ElemInput& x, const ElemLayout& layout, int64_t n, int* flag,
                 const char* fname, void* stream) {
  if (n == 0 || x.dtype.code != kDLInt) return false;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(flag, 0, sizeof(int), s));
  const StridedIndex<1> idx = MakeIndex<1>(layout);
  switch (x.dtype.bits) {
    case 8:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int8_t*>(x.data), n,
                                                       flag);
      break;
    case 16:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int16_t*>(x.data), n,
                                                       flag);
      break;
    case 32:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int32_t*>(x.data), n,
                                                       flag);
      break;
    case 64:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int64_t*>(x.data), n,
                                                       flag);
      break;
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported integer width " << int(x.dtype.bits);
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
  int host = 0;
  MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(s));
  return host != 0;
}

}  // namespace cuda
}  // namespace mxffi
