/*!
 * \file unary_op.cc
 * \brief The unary elementwise ops of unary_ops.def (negative, absolute, square, sqrt, exp,
 *  log, sign, relu, ...): `_npi_<op>` with numpy's output dtypes (the float ops of integers
 *  give the smallest float holding them, square of bools int8), each registered with its CPU
 *  kernel, a loop over the op's functor (functors.h).
 */
#include <cmath>
#include <type_traits>

#include "../infer.h"
#include "../simd/simd.h"
#include "broadcast.h"
#include "elemwise.h"
#include "functors.h"

namespace mxffi {
namespace op {
namespace {

using elemwise::Operand;
using elemwise::RunParallel;
using elemwise::StridedLoop;
using elemwise::UnaryRunAs;

/*!
 * \brief The vectorized kernel (simd.h) of OP on contiguous runs of T, or nullptr, and whether
 *  there is one (see kHasSimdBinary).
 */
template <typename OP, typename T>
constexpr void (*kSimdUnary)(const T*, T*, int64_t) = nullptr;
template <typename OP, typename T>
constexpr bool kHasSimdUnary = false;
#define MXFFI_SIMD_UNARY(OP, Fn)                                                      \
  template <>                                                                         \
  constexpr bool kHasSimdUnary<OP, float> = true;                                     \
  template <>                                                                         \
  constexpr bool kHasSimdUnary<OP, double> = true;                                    \
  template <>                                                                         \
  constexpr void (*kSimdUnary<OP, float>)(const float*, float*, int64_t) = &simd::Fn; \
  template <>                                                                         \
  constexpr void (*kSimdUnary<OP, double>)(const double*, double*, int64_t) = &simd::Fn;
MXFFI_SIMD_UNARY(elemwise::NegativeOp, Negative)
MXFFI_SIMD_UNARY(elemwise::AbsoluteOp, Absolute)
MXFFI_SIMD_UNARY(elemwise::SquareOp, Square)
MXFFI_SIMD_UNARY(elemwise::SignOp, Sign)
MXFFI_SIMD_UNARY(elemwise::ReluOp, Relu)
MXFFI_SIMD_UNARY(elemwise::SqrtOp, Sqrt)
MXFFI_SIMD_UNARY(elemwise::ExpOp, Exp)
MXFFI_SIMD_UNARY(elemwise::FloorOp, Floor)
MXFFI_SIMD_UNARY(elemwise::CeilOp, Ceil)
MXFFI_SIMD_UNARY(elemwise::TruncOp, Trunc)
MXFFI_SIMD_UNARY(elemwise::FixOp, Trunc)
MXFFI_SIMD_UNARY(elemwise::SinOp, Sin)
MXFFI_SIMD_UNARY(elemwise::CosOp, Cos)
MXFFI_SIMD_UNARY(elemwise::TanOp, Tan)
MXFFI_SIMD_UNARY(elemwise::AsinOp, Asin)
MXFFI_SIMD_UNARY(elemwise::AcosOp, Acos)
MXFFI_SIMD_UNARY(elemwise::AtanOp, Atan)
MXFFI_SIMD_UNARY(elemwise::SinhOp, Sinh)
MXFFI_SIMD_UNARY(elemwise::CoshOp, Cosh)
MXFFI_SIMD_UNARY(elemwise::TanhOp, Tanh)
MXFFI_SIMD_UNARY(elemwise::AsinhOp, Asinh)
MXFFI_SIMD_UNARY(elemwise::AcoshOp, Acosh)
MXFFI_SIMD_UNARY(elemwise::AtanhOp, Atanh)
MXFFI_SIMD_UNARY(elemwise::LogOp, Log)
MXFFI_SIMD_UNARY(elemwise::Log2Op, Log2)
MXFFI_SIMD_UNARY(elemwise::Log10Op, Log10)
MXFFI_SIMD_UNARY(elemwise::Log1pOp, Log1p)
MXFFI_SIMD_UNARY(elemwise::Expm1Op, Expm1)
#undef MXFFI_SIMD_UNARY

/*! \brief The vectorized predicate (simd.h) of OP on contiguous runs of T, as kSimdUnary. */
template <typename OP, typename T>
constexpr void (*kSimdClassify)(const T*, bool*, int64_t) = nullptr;
template <typename OP, typename T>
constexpr bool kHasSimdClassify = false;
#define MXFFI_SIMD_CLASSIFY(OP, Fn)                                                     \
  template <>                                                                           \
  constexpr bool kHasSimdClassify<OP, float> = true;                                    \
  template <>                                                                           \
  constexpr bool kHasSimdClassify<OP, double> = true;                                   \
  template <>                                                                           \
  constexpr void (*kSimdClassify<OP, float>)(const float*, bool*, int64_t) = &simd::Fn; \
  template <>                                                                           \
  constexpr void (*kSimdClassify<OP, double>)(const double*, bool*, int64_t) = &simd::Fn;
MXFFI_SIMD_CLASSIFY(elemwise::IsNanOp, IsNan)
MXFFI_SIMD_CLASSIFY(elemwise::IsInfOp, IsInf)
MXFFI_SIMD_CLASSIFY(elemwise::IsFiniteOp, IsFinite)
#undef MXFFI_SIMD_CLASSIFY

template <typename OP, typename T>
struct UnaryBody {
  using A = typename AccType<T>::type;
  void operator()(const T* a, int64_t sa, T* o, int64_t n) const {
    if constexpr (kHasSimdUnary<OP, T>) {
      if (sa == 1 && n >= simd::kMinRun && simd::NoPartialOverlap(a, o, n)) {
        return kSimdUnary<OP, T>(a, o, n);
      }
    }
    const OP op{};
    if (sa == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = T(op(A(a[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = T(op(A(a[i * sa])));
    }
  }
};

/*! \brief out = |a| for complex a, into the real dtype of its parts (numpy's absolute). */
void AbsComplex(const DLTensor& a, const DLTensor& out, const char* fname) {
  const int64_t n = NumElements(out);
  const DLTensor* ins[1] = {&a};
  const StridedLoop<2> loop(out, ins);
  const int64_t sa = loop.stride[1][loop.ndim - 1];
  auto run = [&](auto zero) {
    using C = decltype(zero);
    using R = RealT<C>;
    const C* x = DataPtr<const C>(a);
    R* o = DataPtr<R>(out);
    RunParallel(n, 4, [&](int64_t begin, int64_t end) {
      loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
        for (int64_t i = 0; i < len; ++i) {
          const C z = x[off[1] + i * sa];
          o[off[0] + i] = std::hypot(z.real(), z.imag());  // numpy's npy_cabs
        }
      });
    });
  };
  if (a.dtype.bits == 64) {
    run(complex<float>());
  } else if (a.dtype.bits == 128) {
    run(complex<double>());
  } else {
    ThrowUnsupportedDType(fname, a.dtype);
  }
}

template <UnaryKind K, typename OP>
struct Unary {
  static void Type(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
    out[0] = UnaryResultType(K, in[0]);
  }
  static void Compute(const OpAttrs&, const OpContext&, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
    const char* fname = UnaryName(K);
    const DLTensor& a = in[0];
    const int64_t n = NumElements(out[0]);
    if (n == 0) return;
    if constexpr (K == UnaryKind::kAbsolute) {
      if (a.dtype.code == kDLComplex) return AbsComplex(a, out[0], fname);
    }
    const DLTensor* ins[1] = {&a};
    const StridedLoop<2> loop(out[0], ins);
    const int64_t sa = loop.stride[1][loop.ndim - 1];
    if constexpr (elemwise::kIsPredicate<OP>) {
      // A bool result computed in the input's own dtype (isnan of a float reads the float).
      MXFFI_TYPE_SWITCH_WITH_COMPLEX(a.dtype, fname, T, {
        if constexpr (OP::template Valid<T>()) {
          using A = typename AccType<T>::type;
          const T* x = DataPtr<const T>(a);
          bool* o = DataPtr<bool>(out[0]);
          RunParallel(n, OP::kCost, [&](int64_t begin, int64_t end) {
            const OP op{};
            loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
              const T* xr = x + off[1];
              bool* orun = o + off[0];
              if constexpr (kHasSimdClassify<OP, T>) {
                if (sa == 1 && len >= simd::kMinRun && simd::Disjoint(xr, orun, len)) {
                  return kSimdClassify<OP, T>(xr, orun, len);
                }
              }
              for (int64_t i = 0; i < len; ++i) orun[i] = op(A(xr[i * sa]));
            });
          });
        } else {
          ThrowNoKernel(fname, a.dtype);
        }
      });
    } else {
      MXFFI_TYPE_SWITCH_WITH_COMPLEX(out[0].dtype, fname, T, {
        if constexpr (OP::template Valid<T>()) {
          const Operand<T> oa(a, fname);
          T* o = DataPtr<T>(out[0]);
          RunParallel(n, OP::kCost, [&](int64_t begin, int64_t end) {
            loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
              UnaryRunAs<T>(oa, off[1], sa, o + off[0], len, UnaryBody<OP, T>());
            });
          });
        } else {
          ThrowNoKernel(fname, out[0].dtype);
        }
      });
    }
  }
};

}  // namespace

#define MXFFI_UNARY_OP(Kind, OpName, Name, Functor, Doc)                                      \
  MXFFI_REGISTER_OP(OpName)                                                                   \
      .describe(Doc)                                                                          \
      .add_argument("x", "NDArray", "the input")                                              \
      .set_attr<FInferShape>("FInferShape", UnaryShape)                                       \
      .set_attr<FInferType>("FInferType", Unary<UnaryKind::k##Kind, elemwise::Functor>::Type) \
      .set_attr<bool>("TStridedInputs", true)                                                 \
      .set_attr<bool>("TWriteInplace", true)                                                  \
      .set_attr<FCompute>("FCompute<cpu>", Unary<UnaryKind::k##Kind, elemwise::Functor>::Compute);
#include "unary_ops.def"

}  // namespace op
}  // namespace mxffi
