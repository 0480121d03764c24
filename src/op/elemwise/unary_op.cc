/*!
 * \file unary_op.cc
 * \brief negative, absolute, square, sqrt, exp, log, sign: `_npi_<op>`, with numpy's output
 *  dtypes (sqrt, exp and log of integers give the smallest float holding them, square of bools
 *  int8); relu, MXNet's max(x, 0).
 */
#include <cmath>
#include <type_traits>

#include "../infer.h"
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

using elemwise::kIsInt;
using elemwise::Wide;

struct NegativeOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  static A Map(A x) {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(Wide<A>(0) - static_cast<Wide<A>>(x));  // -(-128) wraps to -128
    } else {
      return -x;
    }
  }
};

struct AbsoluteOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  static A Map(A x) {
    if constexpr (std::is_floating_point_v<A>) {
      return std::fabs(x);
    } else if constexpr (kIsInt<A> && std::is_signed_v<A>) {
      return x < 0 ? static_cast<A>(Wide<A>(0) - static_cast<Wide<A>>(x)) : x;
    } else {
      return x;  // bool and unsigned: the identity
    }
  }
};

struct SquareOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;  // bools square in int8
  }
  template <typename A>
  static A Map(A x) {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(x) * static_cast<Wide<A>>(x));
    } else {
      return x * x;
    }
  }
};

/*! \brief numpy's sign: -1, 0 or 1 in x's dtype; NaN stays NaN, -0.0 gives 0.0. */
struct SignOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  static A Map(A x) {
    if constexpr (std::is_floating_point_v<A>) {
      return x > 0 ? A(1) : x < 0 ? A(-1) : x == 0 ? A(0) : x;  // the last: NaN
    } else if constexpr (std::is_signed_v<A>) {
      return static_cast<A>((x > 0) - (x < 0));
    } else {
      return static_cast<A>(x > 0);
    }
  }
};

/*! \brief MXNet's relu, max(x, 0) in x's dtype; NaN stays NaN (as np.maximum(x, 0)). */
struct ReluOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  static A Map(A x) {
    if constexpr (std::is_same_v<A, bool> || std::is_unsigned_v<A>) {
      return x;
    } else if constexpr (std::is_floating_point_v<A>) {
      return x > 0 || x != x ? x : A(0);
    } else {
      return x > 0 ? x : A(0);
    }
  }
};

/*! \brief The float-only ops: integers and bools were converted to a float dtype first. */
template <typename F>
struct FloatOp {
  static constexpr int64_t kCost = 8;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
  template <typename A>
  static A Map(A x) {
    return F::Apply(x);
  }
};
struct SqrtFn {
  template <typename A>
  static A Apply(A x) {
    return std::sqrt(x);
  }
};
struct ExpFn {
  template <typename A>
  static A Apply(A x) {
    return std::exp(x);
  }
};
struct LogFn {
  template <typename A>
  static A Apply(A x) {
    return std::log(x);
  }
};

template <typename OP, typename T>
struct UnaryBody {
  using A = typename AccType<T>::type;
  void operator()(const T* a, int64_t sa, T* o, int64_t n) const {
    if (sa == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = T(OP::Map(A(a[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = T(OP::Map(A(a[i * sa])));
    }
  }
};

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
    const DLTensor* ins[1] = {&a};
    const StridedLoop<2> loop(out[0], ins);
    const int64_t sa = loop.stride[1][loop.ndim - 1];
    MXFFI_TYPE_SWITCH(out[0].dtype, fname, T, {
      if constexpr (OP::template Valid<T>()) {
        const Operand<T> oa(a, fname);
        T* o = DataPtr<T>(out[0]);
        RunParallel(n, OP::kCost, [&](int64_t begin, int64_t end) {
          loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
            UnaryRunAs<T>(oa, off[1], sa, o + off[0], len, UnaryBody<OP, T>());
          });
        });
      } else {
        MXFFI_THROW(TypeError) << fname << ": no kernel computes in "
                               << DataTypeToString(out[0].dtype);
      }
    });
  }
};

}  // namespace

#define MXFFI_ELEMWISE_UNARY(Name, Kind, Functor, Doc) \
  MXFFI_ELEMWISE_UNARY_OP(_npi_##Name, Kind, Functor, Doc)
#define MXFFI_ELEMWISE_UNARY_OP(OpName, Kind, Functor, Doc)           \
  MXFFI_REGISTER_OP(OpName)                                           \
      .describe(Doc)                                                  \
      .add_argument("x", "NDArray", "the input")                      \
      .set_attr<FInferShape>("FInferShape", UnaryShape)               \
      .set_attr<FInferType>("FInferType", Unary<Kind, Functor>::Type) \
      .set_attr<bool>("TStridedInputs", true)                         \
      .set_attr<bool>("TWriteInplace", true)                          \
      .set_attr<FCompute>("FCompute<cpu>", Unary<Kind, Functor>::Compute)

MXFFI_ELEMWISE_UNARY(negative, UnaryKind::kNegative, NegativeOp,
                     "-x, elementwise; integers wrap; not for bools.");
MXFFI_ELEMWISE_UNARY(absolute, UnaryKind::kAbsolute, AbsoluteOp,
                     "|x|, elementwise; the identity for unsigned and bool; abs(-128) of int8 "
                     "wraps to -128 as numpy's.");
MXFFI_ELEMWISE_UNARY(square, UnaryKind::kSquare, SquareOp, "x * x, elementwise; bools give int8.");
MXFFI_ELEMWISE_UNARY(sqrt, UnaryKind::kSqrt, FloatOp<SqrtFn>,
                     "The square root, elementwise; integers give a float dtype (numpy's).");
MXFFI_ELEMWISE_UNARY(exp, UnaryKind::kExp, FloatOp<ExpFn>,
                     "e ** x, elementwise; integers give a float dtype (numpy's).");
MXFFI_ELEMWISE_UNARY(log, UnaryKind::kLog, FloatOp<LogFn>,
                     "The natural logarithm, elementwise; integers give a float dtype.");
MXFFI_ELEMWISE_UNARY(sign, UnaryKind::kSign, SignOp,
                     "-1, 0 or 1 by the sign of x, elementwise, in x's dtype; NaN stays NaN; not "
                     "for bools.");
MXFFI_ELEMWISE_UNARY_OP(relu, UnaryKind::kRelu, ReluOp,
                        "max(x, 0), elementwise, in x's dtype (MXNet's relu); NaN stays NaN.");

}  // namespace op
}  // namespace mxffi
