/*!
 * \file binary_op.h
 * \brief The CPU kernels and the op registration of the binary elementwise ops of
 *  binary_ops.def, shared by the files that register them by group (binary_op.cc: Arith,
 *  binary_int_op.cc: Int, compare_op.cc: Bool), so that no one file compiles every kernel.
 *
 * The values are the op's functor's (functors.h, shared with the CUDA kernels): integer
 * arithmetic wraps as numpy's does (done in unsigned types, where C++ defines the wrap);
 * float16 and bfloat16 compute in float32 and round once per op; maximum and minimum propagate
 * NaN. A comparison reads its inputs as numpy's loop dtype for them (CompareLoopType) and
 * stores bools; a signed integer against uint64 (or a negative Python int against unsigned
 * elements) is compared exactly by MixedOrder. One instantiation per functor and loop dtype:
 * the layout (StridedLoop) is data, never a template parameter.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_BINARY_OP_H_
#define MXFFI_SRC_OP_ELEMWISE_BINARY_OP_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../infer.h"
#include "../simd/simd.h"
#include "broadcast.h"
#include "elemwise.h"
#include "functors.h"

namespace mxffi {
namespace op {
namespace elemwise {

/*!
 * \brief The vectorized kernel (simd.h) of OP on contiguous runs of T, or nullptr, and whether
 *  there is one (a separate constant: a function's address is no constant expression under
 *  -fno-delete-null-pointer-checks, which the sanitizer builds use).
 */
template <typename OP, typename T>
inline constexpr void (*kSimdBinary)(const T*, const T*, T*, int64_t) = nullptr;
template <typename OP, typename T>
inline constexpr bool kHasSimdBinary = false;
#define MXFFI_SIMD_BINARY(OP, Fn)                                                                \
  template <>                                                                                    \
  inline constexpr bool kHasSimdBinary<OP, float> = true;                                        \
  template <>                                                                                    \
  inline constexpr bool kHasSimdBinary<OP, double> = true;                                       \
  template <>                                                                                    \
  inline constexpr void (*kSimdBinary<OP, float>)(const float*, const float*, float*, int64_t) = \
      &simd::Fn;                                                                                 \
  template <>                                                                                    \
  inline constexpr void (*kSimdBinary<OP, double>)(const double*, const double*, double*,        \
                                                   int64_t) = &simd::Fn;
MXFFI_SIMD_BINARY(AddOp, Add)
MXFFI_SIMD_BINARY(SubtractOp, Subtract)
MXFFI_SIMD_BINARY(MultiplyOp, Multiply)
MXFFI_SIMD_BINARY(DivideOp, Divide)
MXFFI_SIMD_BINARY(MaximumOp, Maximum)
MXFFI_SIMD_BINARY(MinimumOp, Minimum)
#undef MXFFI_SIMD_BINARY

/*! \brief The vectorized comparison (simd.h) of OP on contiguous runs of T, as kSimdBinary. */
template <typename OP, typename T>
inline constexpr void (*kSimdCompare)(const T*, const T*, bool*, int64_t) = nullptr;
template <typename OP, typename T>
inline constexpr bool kHasSimdCompare = false;
#define MXFFI_SIMD_COMPARE(OP, Fn)                                                               \
  template <>                                                                                    \
  inline constexpr bool kHasSimdCompare<OP, float> = true;                                       \
  template <>                                                                                    \
  inline constexpr bool kHasSimdCompare<OP, double> = true;                                      \
  template <>                                                                                    \
  inline constexpr void (*kSimdCompare<OP, float>)(const float*, const float*, bool*, int64_t) = \
      &simd::Fn;                                                                                 \
  template <>                                                                                    \
  inline constexpr void (*kSimdCompare<OP, double>)(const double*, const double*, bool*,         \
                                                    int64_t) = &simd::Fn;
MXFFI_SIMD_COMPARE(LessOp, Less)
MXFFI_SIMD_COMPARE(LessEqualOp, LessEqual)
MXFFI_SIMD_COMPARE(GreaterOp, Greater)
MXFFI_SIMD_COMPARE(GreaterEqualOp, GreaterEqual)
MXFFI_SIMD_COMPARE(EqualOp, Equal)
MXFFI_SIMD_COMPARE(NotEqualOp, NotEqual)
#undef MXFFI_SIMD_COMPARE

/*!
 * \brief The inner loop of one run: out[i] = OP(a[i * sa], b[i * sb]) with fast paths; out is
 *  of OP's output type (T, or bool for a comparison).
 */
template <typename OP, typename T>
struct BinaryBody {
  using A = typename AccType<T>::type;
  using O = OutType<OP, T>;
  void operator()(const T* a, int64_t sa, const T* b, int64_t sb, O* o, int64_t n) const {
    if constexpr (!kIsPredicate<OP> && kHasSimdBinary<OP, T>) {
      if (sa == 1 && sb == 1 && n >= simd::kMinRun && simd::NoPartialOverlap(a, o, n) &&
          simd::NoPartialOverlap(b, o, n)) {
        return kSimdBinary<OP, T>(a, b, o, n);
      }
    }
    if constexpr (kIsPredicate<OP> && kHasSimdCompare<OP, T>) {
      if (sa == 1 && sb == 1 && n >= simd::kMinRun && simd::Disjoint(a, o, n) &&
          simd::Disjoint(b, o, n)) {
        return kSimdCompare<OP, T>(a, b, o, n);
      }
    }
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = O(OP::Map(A(a[i]), A(b[i])));
    } else if (sa == 1 && sb == 0) {
      const A bv = A(b[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = O(OP::Map(A(a[i]), bv));
    } else if (sa == 0 && sb == 1) {
      const A av = A(a[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = O(OP::Map(av, A(b[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = O(OP::Map(A(a[i * sa]), A(b[i * sb])));
    }
  }
};

/*! \return whether t holds a negative integer (numpy refuses those as integer exponents). */
bool AnyNegative(const DLTensor& t);

/*!
 * \brief The number s as a 0-d tensor of dtype (stack storage the caller owns: two words, for
 *  a complex128).
 */
DLTensor ScalarTensor(const ScalarValue& s, DLDataType dtype, uint64_t* storage, const char* fname);

/*!
 * \brief out = OP(a, b) broadcast; a and b of any dtypes, read as the loop dtype (out's, or a
 *  comparison's CompareLoop dtype).
 */
template <typename OP>
void RunBinary(BinaryKind kind, const DLTensor& a, const DLTensor& b, const DLTensor& out,
               DLDataType loop_dtype) {
  const char* fname = BinaryName(kind);
  const int64_t n = NumElements(out);
  if (n == 0) return;
  if constexpr (std::is_same_v<OP, PowerOp>) {
    MXFFI_CHECK(!(IsIntegral(out.dtype) && AnyNegative(b)), ValueError)
        << fname << ": Integers to negative integer powers are not allowed.";
  }
  const DLTensor* ins[2] = {&a, &b};
  const StridedLoop<3> loop(out, ins);
  const int last = loop.ndim - 1;
  const int64_t sa = loop.stride[1][last], sb = loop.stride[2][last];
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(loop_dtype, fname, T, {
    if constexpr (OP::template Valid<T>()) {
      const Operand<T> oa(a, fname), ob(b, fname);
      OutType<OP, T>* o = DataPtr<OutType<OP, T>>(out);
      RunParallel(n, OP::kCost, [&](int64_t begin, int64_t end) {
        loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
          BinaryRunAs<T>(oa, off[1], sa, ob, off[2], sb, o + off[0], len, BinaryBody<OP, T>());
        });
      });
    } else {
      ThrowNoKernel(fname, loop_dtype);
    }
  });
}

/*!
 * \return a pointer to len elements of x as T from element offset off (stride s), converted
 *  into buf when x is of another dtype; *step is the stride to read them with.
 */
template <typename T>
const T* ReadAs(const Operand<T>& x, int64_t off, int64_t s, int64_t len, T* buf, int64_t* step) {
  if (x.convert == nullptr) {
    *step = s;
    return static_cast<const T*>(x.At(off));
  }
  x.convert(x.At(off), s, buf, s == 0 ? 1 : len);
  *step = s == 0 ? 0 : 1;
  return buf;
}

/*!
 * \brief out = OP(a, b) for comparison OP where one input is a signed integer (read as int64)
 *  and the other unsigned (read as uint64): exact, by MixedOrder. signed_first: a is signed.
 */
template <typename OP>
void RunMixedCompare(BinaryKind kind, const DLTensor& a, const DLTensor& b, const DLTensor& out,
                     bool signed_first) {
  const char* fname = BinaryName(kind);
  const int64_t n = NumElements(out);
  if (n == 0) return;
  const DLTensor* ins[2] = {&a, &b};
  const StridedLoop<3> loop(out, ins);
  const int last = loop.ndim - 1;
  const int ks = signed_first ? 1 : 2, ku = signed_first ? 2 : 1;
  const int64_t ss = loop.stride[ks][last], su = loop.stride[ku][last];
  const Operand<int64_t> os(signed_first ? a : b, fname);
  const Operand<uint64_t> ou(signed_first ? b : a, fname);
  bool* o = DataPtr<bool>(out);
  RunParallel(n, OP::kCost, [&](int64_t begin, int64_t end) {
    loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
      int64_t sbuf[kBlock];
      uint64_t ubuf[kBlock];
      for (int64_t i = 0; i < len; i += kBlock) {
        const int64_t m = std::min(kBlock, len - i);
        int64_t ds, du;
        const int64_t* ps = ReadAs(os, off[ks] + i * ss, ss, m, sbuf, &ds);
        const uint64_t* pu = ReadAs(ou, off[ku] + i * su, su, m, ubuf, &du);
        bool* y = o + off[0] + i;
        for (int64_t j = 0; j < m; ++j) {
          const int order = elemwise::MixedOrder(ps[j * ds], pu[j * du]);
          y[j] = signed_first ? OP::Map(order, 0) : OP::Map(0, order);
        }
      }
    });
  });
}

/*! \brief Inference and kernels of one binary op, as plain functions for the tables. */
template <BinaryKind K, typename OP>
struct Binary {
  static void Shape(const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
    BroadcastShapes(in[0], in[1], &out[0], BinaryName(K));
  }
  static void Type(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
    out[0] = BinaryResultType(K, in[0], in[1]);
  }
  /*! \brief The kernel for the loop; a comparison's may be the mixed signed/unsigned one. */
  static void Run(const DLTensor& a, const DLTensor& b, const DLTensor& out,
                  [[maybe_unused]] const CompareLoop& cmp) {
    if constexpr (kIsPredicate<OP>) {
      if (cmp.mixed != 0) return RunMixedCompare<OP>(K, a, b, out, cmp.mixed == 1);
      RunBinary<OP>(K, a, b, out, cmp.dtype);
    } else {
      RunBinary<OP>(K, a, b, out, out.dtype);
    }
  }
  static void Compute(const OpAttrs&, const OpContext&, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
    CompareLoop cmp;
    if constexpr (kIsPredicate<OP>) cmp = CompareLoopType(K, in[0].dtype, in[1].dtype);
    Run(in[0], in[1], out[0], cmp);
  }
  static void ScalarType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
    out[0] = ScalarResultType(K, in[0], attrs.get<BinaryScalarParam>().scalar);
  }
  /*! \brief array op number (kReverse: number op array). */
  template <bool kReverse>
  static void ScalarCompute(const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                            Span<const OpReqType>, Span<const DLTensor> out) {
    const ScalarValue& v = attrs.get<BinaryScalarParam>().scalar;
    CompareLoop cmp;
    DLDataType sdtype = out[0].dtype;
    if constexpr (kIsPredicate<OP>) {
      cmp = CompareScalarLoopType(K, in[0].dtype, v, kReverse);
      sdtype = cmp.dtype;  // int64 in a mixed loop: the number is the signed side
    }
    uint64_t storage[2];  // a complex128 too
    // The number converted once to the loop dtype (numpy casts the weak scalar to it).
    DLTensor s = ScalarTensor(v, sdtype, storage, BinaryName(K));
    if constexpr (kReverse) {
      Run(s, in[0], out[0], cmp);
    } else {
      Run(in[0], s, out[0], cmp);
    }
  }
};

}  // namespace elemwise
}  // namespace op
}  // namespace mxffi

// A number first: Asym ops register `_npi_r<op>_scalar`; Sym ops have none (x op y == y op x).
#define MXFFI_RSCALAR_Sym(Stem, Kind, Functor, Doc)
#define MXFFI_RSCALAR_Asym(Stem, Kind, Functor, Doc)                                   \
  MXFFI_REGISTER_OP(_npi_r##Stem##_scalar)                                             \
      .describe(Doc " The first operand is the Python number `scalar` (NEP 50 weak).") \
      .add_argument("x2", "NDArray", "the array")                                      \
      .set_param<BinaryScalarParam>()                                                  \
      .set_attr<FInferShape>("FInferShape", UnaryShape)                                \
      .set_attr<FInferType>("FInferType", elemwise::Binary<Kind, Functor>::ScalarType) \
      .set_attr<bool>("TStridedInputs", true)                                          \
      .set_attr<bool>("TWriteInplace", true)                                           \
      .set_attr<FCompute>("FCompute<cpu>", elemwise::Binary<Kind, Functor>::ScalarCompute<true>);

#define MXFFI_ELEMWISE_BINARY(Stem, Kind, Functor, Side, Doc)                                      \
  MXFFI_REGISTER_OP(_npi_##Stem)                                                                   \
      .describe(Doc " Inputs broadcast as numpy's do; the result dtype is numpy's.")               \
      .set_num_inputs(2)                                                                           \
      .add_argument("x1", "NDArray", "the first input")                                            \
      .add_argument("x2", "NDArray", "the second input")                                           \
      .set_attr<FInferShape>("FInferShape", elemwise::Binary<Kind, Functor>::Shape)                \
      .set_attr<FInferType>("FInferType", elemwise::Binary<Kind, Functor>::Type)                   \
      .set_attr<bool>("TStridedInputs", true)                                                      \
      .set_attr<bool>("TWriteInplace", true)                                                       \
      .set_attr<FCompute>("FCompute<cpu>", elemwise::Binary<Kind, Functor>::Compute);              \
  MXFFI_REGISTER_OP(_npi_##Stem##_scalar)                                                          \
      .describe(Doc " The second operand is the Python number `scalar` (NEP 50 weak).")            \
      .add_argument("x1", "NDArray", "the array")                                                  \
      .set_param<BinaryScalarParam>()                                                              \
      .set_attr<FInferShape>("FInferShape", UnaryShape)                                            \
      .set_attr<FInferType>("FInferType", elemwise::Binary<Kind, Functor>::ScalarType)             \
      .set_attr<bool>("TStridedInputs", true)                                                      \
      .set_attr<bool>("TWriteInplace", true)                                                       \
      .set_attr<FCompute>("FCompute<cpu>", elemwise::Binary<Kind, Functor>::ScalarCompute<false>); \
  MXFFI_RSCALAR_##Side(Stem, Kind, Functor, Doc)

/*!
 * \brief Registers the ops of binary_ops.def whose Group is G: define MXFFI_BINARY_GROUP_<G>
 *  as MXFFI_ELEMWISE_BINARY and the other groups as nothing, then include binary_ops.def.
 */
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc) \
  MXFFI_BINARY_GROUP_##Group(Stem, BinaryKind::k##Kind, elemwise::Functor, Side, Doc)

#endif  // MXFFI_SRC_OP_ELEMWISE_BINARY_OP_H_
