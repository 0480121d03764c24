/*!
 * \file elemwise_kernels.cuh
 * \brief The elementwise CUDA kernels and their launch, for any functor of functors.h; included
 *  by elemwise_binary.cu and elemwise_unary.cu, which instantiate them per op. nvcc only.
 *
 * Two kernels per (op, loop dtype) the CPU op accepts (a comparison: the general one only, and
 * one kernel comparing a signed with an unsigned integer exactly):
 *   - contiguous: every array input is the output's dtype with unit stride (a Python number is
 *     a kernel argument); a flat grid-stride loop over 16-byte vectors when every pointer is
 *     16-byte aligned, the remaining elements one by one;
 *   - general: any broadcast, strides and input dtypes; each element's input offsets come from
 *     the merged layout (one multiply per input when it has one dimension), inputs of another
 *     dtype are read through a switch on their dtype, uniform across the grid, converted as
 *     numpy's astype does (CastOne).
 * A unary predicate (isnan, ...) has one general kernel per input dtype, storing bools.
 * Nothing is instantiated per rank: the layout is data.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_ELEMWISE_KERNELS_CUH_
#define MXFFI_SRC_OP_ELEMWISE_ELEMWISE_KERNELS_CUH_

#include <cstdint>
#include <cstring>

#include "elemwise_cuda.h"
#include "functors.h"
#include "op/cuda_kernel.cuh"
#include "op/promote.h"

namespace mxffi {
namespace cuda {
namespace {

/*! \brief 16 bytes of T, loaded and stored as one vector. */
template <typename T>
struct alignas(16) Vec16 {
  static constexpr int kN = 16 / static_cast<int>(sizeof(T));
  T v[kN];
};

/*! \brief Which operand is a Python number: none, the first or the second. */
enum ScalarSide : int { kNoScalar = 0, kFirst = 1, kSecond = 2 };

/*!
 * \return element off of base (an array whose dtype has op::DTypeRuleIndex code) converted to To:
 *  as numpy's astype converts it (CastOne), or with kAstype false as a ufunc's loop reads an
 *  input (ConvertOne).
 */
template <typename To, bool kAstype = true>
__device__ __forceinline__ To LoadAs(const void* base, int64_t off, int code) {
#define MXFFI_LOAD_CASE_(I, From)                                 \
  case I:                                                         \
    if constexpr (kAstype) {                                      \
      return CastOne<To>(static_cast<const From*>(base)[off]);    \
    } else {                                                      \
      return ConvertOne<To>(static_cast<const From*>(base)[off]); \
    }
  switch (code) {
    MXFFI_LOAD_CASE_(0, bool)
    MXFFI_LOAD_CASE_(1, int8_t)
    MXFFI_LOAD_CASE_(2, int16_t)
    MXFFI_LOAD_CASE_(3, int32_t)
    MXFFI_LOAD_CASE_(4, int64_t)
    MXFFI_LOAD_CASE_(5, uint8_t)
    MXFFI_LOAD_CASE_(6, uint16_t)
    MXFFI_LOAD_CASE_(7, uint32_t)
    MXFFI_LOAD_CASE_(8, uint64_t)
    MXFFI_LOAD_CASE_(9, half_t)
    MXFFI_LOAD_CASE_(10, bf16_t)
    MXFFI_LOAD_CASE_(11, float)
    MXFFI_LOAD_CASE_(12, double)
    MXFFI_LOAD_CASE_(13, op::complex<float>)
    default:  // 14: complex128
      if constexpr (kAstype) {
        return CastOne<To>(static_cast<const op::complex<double>*>(base)[off]);
      } else {
        return ConvertOne<To>(static_cast<const op::complex<double>*>(base)[off]);
      }
  }
#undef MXFFI_LOAD_CASE_
}

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

/*! \brief The element offsets of the inputs at flat output index i. */
template <int N>
__device__ __forceinline__ void InputOffsets(const StridedIndex<N>& idx, int64_t i, int64_t* off) {
  if (idx.ndim == 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = i * idx.stride[k][0];
  } else {
    idx.Offsets(i, off);
  }
}

/*! \return OP's value as it is stored: rounded to T, or the bool of a comparison. */
template <typename OP, typename T, typename R>
__device__ __forceinline__ op::elemwise::OutType<OP, T> StoreOut(R v) {
  if constexpr (op::elemwise::kIsPredicate<OP>) {
    return v;
  } else {
    return FromAcc<T>(v);
  }
}

template <typename OP, typename T>
__global__ void BinaryGeneral(StridedIndex<2> idx, const void* a, int ca, const void* b, int cb,
                              T sa, T sb, int side, op::elemwise::OutType<OP, T>* __restrict__ out,
                              int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[2];
    InputOffsets(idx, i, off);
    const T x = side == kFirst ? sa : LoadAs<T>(a, off[0], ca);
    const T y = side == kSecond ? sb : LoadAs<T>(b, off[1], cb);
    out[i] = StoreOut<OP, T>(OP::Map(ToAcc(x), ToAcc(y)));
  }
}

/*!
 * \brief out = OP(x1, x2) for comparison OP with one input signed (s, read as int64, or the
 *  number sv) and one unsigned (u, read as uint64), exactly (MixedOrder); idx holds the strides
 *  of s then u; s_first: s is x1.
 */
template <typename OP>
__global__ void MixedCompare(StridedIndex<2> idx, const void* s, int cs, bool s_scalar, int64_t sv,
                             const void* u, int cu, bool s_first, bool* __restrict__ out,
                             int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[2];
    InputOffsets(idx, i, off);
    const int64_t x = s_scalar ? sv : LoadAs<int64_t, false>(s, off[0], cs);
    const uint64_t y = LoadAs<uint64_t, false>(u, off[1], cu);
    const int order = op::elemwise::MixedOrder(x, y);
    out[i] = s_first ? OP::Map(order, 0) : OP::Map(0, order);
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

/*! \brief out = f(x) for a unary predicate f: x read in its own dtype T, out bool. */
template <typename F, typename T>
__global__ void UnaryPredicateKernel(F f, StridedIndex<1> idx, const T* __restrict__ x,
                                     bool* __restrict__ out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    InputOffsets(idx, i, off);
    out[i] = f(ToAcc(x[off[0]]));
  }
}

/*! \brief out[i] = |z| of the complex input (numpy's hypot of the parts). */
template <typename R>
__global__ void AbsComplexKernel(StridedIndex<1> idx, const op::complex<R>* __restrict__ x,
                                 R* __restrict__ out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    InputOffsets(idx, i, off);
    const op::complex<R> z = x[off[0]];
    out[i] = hypot(z.real(), z.imag());
  }
}

inline bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

inline bool SameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/*!
 * \brief Whether input k (operand k + 1 of loop) is read at the flat output index (a number,
 *  or a unit-stride run).
 */
template <int N>
bool IsContiguous(const ElemInput& x, const op::elemwise::StridedLoop<N>& loop, int k,
                  DLDataType out) {
  return x.is_scalar || (loop.ndim == 1 && loop.stride[k + 1][0] == 1 && SameDType(x.dtype, out));
}

/*! \brief The extents of loop and the strides of its inputs (operands 1..N), for a kernel. */
template <int N>
StridedIndex<N> MakeIndex(const op::elemwise::StridedLoop<N + 1>& loop) {
  static_assert(op::elemwise::kLoopMaxDims <= kMaxDims, "a loop fits a kernel's index");
  StridedIndex<N> idx;
  idx.ndim = loop.ndim;
  for (int d = 0; d < loop.ndim; ++d) {
    idx.shape[d] = loop.shape[d];
    for (int k = 0; k < N; ++k) idx.stride[k][d] = loop.stride[k + 1][d];
  }
  return idx;
}

inline int InputCode(const ElemInput& x, const char* fname) {
  if (x.is_scalar) return 0;
  const int code = op::DTypeRuleIndex(x.dtype);
  if (code < 0) op::ThrowUnsupportedDType(fname, x.dtype);
  return code;
}

template <typename T>
T ScalarAs(const ElemInput& x) {
  T v{};
  if (x.is_scalar) std::memcpy(static_cast<void*>(&v), &x.scalar_bits, sizeof(T));
  return v;
}

/*! \brief Blocks for the contiguous kernels: a vector (or a tail element) per thread. */
inline unsigned int ContiguousBlocks(int64_t n, int64_t nvec, int per_vec) {
  return Blocks(nvec > 0 ? nvec + per_vec : n);
}

/*!
 * \brief out = OP(a, b) with both inputs read as loop_dtype: out's dtype, or a comparison's
 *  loop dtype (its out is bool; it always takes the general kernel).
 */
template <typename OP>
void LaunchBinary(const ElemInput& a, const ElemInput& b, const op::elemwise::StridedLoop<3>& loop,
                  const DLTensor& out, DLDataType loop_dtype, const char* fname,
                  cudaStream_t stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  constexpr bool kPredicate = op::elemwise::kIsPredicate<OP>;
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(loop_dtype, fname, T, {
    if constexpr (OP::template Valid<T>()) {
      const T sa = ScalarAs<T>(a), sb = ScalarAs<T>(b);
      const int side = a.is_scalar ? kFirst : b.is_scalar ? kSecond : kNoScalar;
      op::elemwise::OutType<OP, T>* o = DataPtr<op::elemwise::OutType<OP, T>>(out);
      bool contiguous = false;
      if constexpr (!kPredicate) {
        contiguous = IsContiguous(a, loop, 0, out.dtype) && IsContiguous(b, loop, 1, out.dtype);
        if (contiguous) {
          const bool vec = Aligned16(o) && (a.is_scalar || Aligned16(a.data)) &&
                           (b.is_scalar || Aligned16(b.data));
          constexpr int kN = Vec16<T>::kN;
          const int64_t nvec = vec ? n / kN : 0;
          BinaryContiguous<OP, T><<<ContiguousBlocks(n, nvec, kN), kThreads, 0, stream>>>(
              static_cast<const T*>(a.data), static_cast<const T*>(b.data), sa, sb, side, o, n,
              nvec);
        }
      }
      if (!contiguous) {
        BinaryGeneral<OP, T>
            <<<Blocks(n), kThreads, 0, stream>>>(MakeIndex<2>(loop), a.data, InputCode(a, fname),
                                                 b.data, InputCode(b, fname), sa, sb, side, o, n);
      }
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    } else {
      op::ThrowNoKernel(fname, loop_dtype);
    }
  });
}

/*!
 * \brief out = OP(a, b) for comparison OP, a signed and b unsigned (s_first) or the reverse;
 *  a number is always the signed side, its int64 in scalar_bits.
 */
template <typename OP>
void LaunchMixedCompare(const ElemInput& a, const ElemInput& b,
                        const op::elemwise::StridedLoop<3>& loop, const DLTensor& out, bool s_first,
                        const char* fname, cudaStream_t stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  const ElemInput& s = s_first ? a : b;
  const ElemInput& u = s_first ? b : a;
  StridedIndex<2> idx = MakeIndex<2>(loop);
  if (!s_first) {
    for (int d = 0; d < idx.ndim; ++d) {
      const int64_t t = idx.stride[0][d];
      idx.stride[0][d] = idx.stride[1][d];
      idx.stride[1][d] = t;
    }
  }
  MixedCompare<OP><<<Blocks(n), kThreads, 0, stream>>>(
      idx, s.data, InputCode(s, fname), s.is_scalar, ScalarAs<int64_t>(s), u.data,
      InputCode(u, fname), s_first, DataPtr<bool>(out), n);
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

template <typename F>
void LaunchUnary(const F& f, const ElemInput& x, const op::elemwise::StridedLoop<2>& loop,
                 const DLTensor& out, const char* fname, cudaStream_t stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  if constexpr (op::elemwise::kIsPredicate<F>) {
    // isnan, signbit, ...: computed in the input's dtype, a bool stored.
    MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, T, {
      if constexpr (F::template Valid<T>()) {
        UnaryPredicateKernel<F, T><<<Blocks(n), kThreads, 0, stream>>>(
            f, MakeIndex<1>(loop), static_cast<const T*>(x.data), DataPtr<bool>(out), n);
        MXFFI_CUDA_CHECK_LAUNCH(fname);
      } else {
        op::ThrowNoKernel(fname, x.dtype);
      }
    });
  } else if (std::is_same_v<F, op::elemwise::AbsoluteOp> && x.dtype.code == kDLComplex) {
    // |z| into the real dtype of the parts.
    if (x.dtype.bits == 64) {
      AbsComplexKernel<float><<<Blocks(n), kThreads, 0, stream>>>(
          MakeIndex<1>(loop), static_cast<const op::complex<float>*>(x.data), DataPtr<float>(out),
          n);
    } else {
      AbsComplexKernel<double><<<Blocks(n), kThreads, 0, stream>>>(
          MakeIndex<1>(loop), static_cast<const op::complex<double>*>(x.data), DataPtr<double>(out),
          n);
    }
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  } else {
    MXFFI_TYPE_SWITCH_WITH_COMPLEX(out.dtype, fname, T, {
      if constexpr (F::template Valid<T>()) {
        T* o = DataPtr<T>(out);
        if (!x.is_scalar && IsContiguous(x, loop, 0, out.dtype)) {
          const bool vec = Aligned16(o) && Aligned16(x.data);
          constexpr int kN = Vec16<T>::kN;
          const int64_t nvec = vec ? n / kN : 0;
          UnaryContiguous<F, T><<<ContiguousBlocks(n, nvec, kN), kThreads, 0, stream>>>(
              f, static_cast<const T*>(x.data), o, n, nvec);
        } else {
          UnaryGeneral<F, T><<<Blocks(n), kThreads, 0, stream>>>(f, MakeIndex<1>(loop), x.data,
                                                                 InputCode(x, fname), o, n);
        }
        MXFFI_CUDA_CHECK_LAUNCH(fname);
      } else {
        op::ThrowNoKernel(fname, out.dtype);
      }
    });
  }
}

}  // namespace

template <typename OP>
void BinaryElemwise(const ElemInput& a, const ElemInput& b,
                    const op::elemwise::StridedLoop<3>& loop, const DLTensor& out,
                    DLDataType loop_dtype, int mixed, const char* fname, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if constexpr (op::elemwise::kIsPredicate<OP>) {
    if (mixed != 0) return LaunchMixedCompare<OP>(a, b, loop, out, mixed == 1, fname, s);
  }
  LaunchBinary<OP>(a, b, loop, out, loop_dtype, fname, s);
}

/*! \brief The explicit instantiation of BinaryElemwise for functor F of functors.h. */
#define MXFFI_INSTANTIATE_BINARY_ELEMWISE(F)                                                    \
  template void BinaryElemwise<op::elemwise::F>(                                                \
      const ElemInput&, const ElemInput&, const op::elemwise::StridedLoop<3>&, const DLTensor&, \
      DLDataType, int, const char*, void*);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_ELEMWISE_KERNELS_CUH_
