/*!
 * \file broadcast.h
 * \brief The loop every CPU elementwise kernel runs: over the output's elements laid out by
 *  StridedLoop (strided_loop.h), each input read through its own strides (0 along broadcast
 *  dimensions), and inputs of another dtype converted in small blocks on the stack.
 *
 * The output is C-contiguous (Invoke guarantees it); the inputs may be strided (the ops set
 * TStridedInputs), so a transposed or sliced numpy array is read in place, never copied. An
 * input whose dtype is not the output's (int8 + float32, or int64 / int64 giving float64) is
 * converted kBlock elements at a time, as numpy's buffered ufunc loops do, so mixed dtypes cost
 * no temporary array.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_BROADCAST_H_
#define MXFFI_SRC_OP_ELEMWISE_BROADCAST_H_

#include <mxffi/op/op.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "../complex.h"
#include "../dtype.h"
#include "../parallel.h"
#include "strided_loop.h"

namespace mxffi {
namespace op {
namespace elemwise {

static_assert(kLoopMaxDims == kMaxNDim, "a loop has as many dimensions as an array");

/*! \brief ConvertOne (cast.h), as the elementwise kernels have called it. */
using op::ConvertOne;

/*! \brief Convert n elements of From read at src with element stride into dst. */
template <typename To, typename From>
void ConvertRun(const void* src, int64_t stride, To* dst, int64_t n) {
  const From* s = static_cast<const From*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = ConvertOne<To, From>(s[i * stride]);
}

template <typename To>
using ConvertFn = void (*)(const void* src, int64_t stride, To* dst, int64_t n);

/*!
 * \return the converter from dtype from to To; nullptr when from is To already. A complex
 *  input is read by a complex loop, or by a bool one (the logical ops: x != 0); no loop reads
 *  it as a real number (promotion never asks for that): TypeError.
 */
template <typename To>
ConvertFn<To> GetConverter(DLDataType from, const char* fname) {
  ConvertFn<To> fn = nullptr;
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(from, fname, From, {
    if constexpr (kIsComplex<From> && !kIsComplex<To> && !std::is_same_v<To, bool>) {
      ThrowUnsupportedDType(fname, from);
    } else if constexpr (!std::is_same_v<From, To>) {
      fn = &ConvertRun<To, From>;
    }
  });
  return fn;
}

/*! \brief An input as a kernel of element type T reads it. */
template <typename T>
struct Operand {
  const char* base;
  int64_t elem_bytes;
  ConvertFn<T> convert;  // nullptr when the input is T already

  Operand(const DLTensor& t, const char* fname)
      : base(DataPtr<const char>(t)),
        elem_bytes(DataTypeBytes(t.dtype)),
        convert(GetConverter<T>(t.dtype, fname)) {}
  const void* At(int64_t off) const { return base + off * elem_bytes; }
};

/*! \brief Elements converted per block: small enough to stay in L1 next to the output. */
constexpr int64_t kBlock = 256;

/*!
 * \brief Run body(ptr0, s0, ptr1, s1, out, len) over a run of two inputs as T: inputs that are
 *  T already are passed in place with their strides; others are converted into stack blocks
 *  (stride 1), or once into a scalar when their stride is 0. The output's element type O is
 *  T, or bool for a comparison.
 */
template <typename T, typename O, typename Body>
inline void BinaryRunAs(const Operand<T>& a, int64_t oa, int64_t sa, const Operand<T>& b,
                        int64_t ob, int64_t sb, O* out, int64_t len, Body&& body) {
  if (a.convert == nullptr && b.convert == nullptr) {
    body(reinterpret_cast<const T*>(a.At(oa)), sa, reinterpret_cast<const T*>(b.At(ob)), sb, out,
         len);
    return;
  }
  T ascalar, bscalar;
  if (a.convert != nullptr && sa == 0) a.convert(a.At(oa), 0, &ascalar, 1);
  if (b.convert != nullptr && sb == 0) b.convert(b.At(ob), 0, &bscalar, 1);
  const bool ablock = a.convert != nullptr && sa != 0;
  const bool bblock = b.convert != nullptr && sb != 0;
  if (!ablock && !bblock) {
    const T* pa = a.convert ? &ascalar : reinterpret_cast<const T*>(a.At(oa));
    const T* pb = b.convert ? &bscalar : reinterpret_cast<const T*>(b.At(ob));
    body(pa, sa, pb, sb, out, len);
    return;
  }
  T abuf[kBlock], bbuf[kBlock];
  for (int64_t i = 0; i < len; i += kBlock) {
    const int64_t m = std::min(kBlock, len - i);
    const T* pa;
    const T* pb;
    int64_t ssa = sa, ssb = sb;
    if (ablock) {
      a.convert(a.At(oa + i * sa), sa, abuf, m);
      pa = abuf;
      ssa = 1;
    } else {
      pa = a.convert ? &ascalar : reinterpret_cast<const T*>(a.At(oa + i * sa));
    }
    if (bblock) {
      b.convert(b.At(ob + i * sb), sb, bbuf, m);
      pb = bbuf;
      ssb = 1;
    } else {
      pb = b.convert ? &bscalar : reinterpret_cast<const T*>(b.At(ob + i * sb));
    }
    body(pa, ssa, pb, ssb, out + i, m);
  }
}

/*! \brief The one-input form of BinaryRunAs: body(ptr, stride, out, len). */
template <typename T, typename Body>
inline void UnaryRunAs(const Operand<T>& a, int64_t oa, int64_t sa, T* out, int64_t len,
                       Body&& body) {
  if (a.convert == nullptr) {
    body(reinterpret_cast<const T*>(a.At(oa)), sa, out, len);
    return;
  }
  if (sa == 0) {
    T v;
    a.convert(a.At(oa), 0, &v, 1);
    body(&v, int64_t{0}, out, len);
    return;
  }
  T buf[kBlock];
  for (int64_t i = 0; i < len; i += kBlock) {
    const int64_t m = std::min(kBlock, len - i);
    a.convert(a.At(oa + i * sa), sa, buf, m);
    body(static_cast<const T*>(buf), int64_t{1}, out + i, m);
  }
}

/*!
 * \brief Split the output's n elements across the kernel pool (ParallelFor) with the GIL
 *  released when n is large enough for that to pay (kReleaseGILThreshold).
 */
template <typename F>
inline void RunParallel(int64_t n, int64_t cost_per_item, F&& f) {
  if (n <= 0) return;
  std::optional<ScopedGILRelease> gil;
  if (n > kReleaseGILThreshold) gil.emplace();
  ParallelFor(n, cost_per_item, std::forward<F>(f));
}

}  // namespace elemwise
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_BROADCAST_H_
