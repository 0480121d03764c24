/*!
 * \file binary_op.cc
 * \brief add, subtract, multiply, divide, power, maximum, minimum with numpy broadcasting:
 *  `_npi_<op>` on two arrays and `_npi_<op>_scalar` / `_npi_r<op>_scalar` on an array and a
 *  Python number.
 *
 * The values are the op's functor's (functors.h, shared with the CUDA kernels): integer
 * arithmetic wraps as numpy's does (done in unsigned types, where C++ defines the wrap);
 * float16 and bfloat16 compute in float32 and round once per op; maximum and minimum propagate
 * NaN.
 */
#include <cstring>
#include <type_traits>

#include "../infer.h"
#include "../simd/simd.h"
#include "broadcast.h"
#include "elemwise.h"
#include "functors.h"

namespace mxffi {
namespace op {
namespace {

using elemwise::AddOp;
using elemwise::BinaryRunAs;
using elemwise::DivideOp;
using elemwise::kIsInt;
using elemwise::MaximumOp;
using elemwise::MinimumOp;
using elemwise::MultiplyOp;
using elemwise::Operand;
using elemwise::PowerOp;
using elemwise::RunParallel;
using elemwise::StridedLoop;
using elemwise::SubtractOp;

/*! \brief The vectorized kernel (simd.h) of OP on contiguous runs of T, or nullptr. */
template <typename OP, typename T>
constexpr void (*kSimdBinary)(const T*, const T*, T*, int64_t) = nullptr;
#define MXFFI_SIMD_BINARY(OP, Fn)                                                             \
  template <>                                                                                 \
  constexpr void (*kSimdBinary<OP, float>)(const float*, const float*, float*, int64_t) =     \
      &simd::Fn;                                                                              \
  template <>                                                                                 \
  constexpr void (*kSimdBinary<OP, double>)(const double*, const double*, double*, int64_t) = \
      &simd::Fn;
MXFFI_SIMD_BINARY(AddOp, Add)
MXFFI_SIMD_BINARY(SubtractOp, Subtract)
MXFFI_SIMD_BINARY(MultiplyOp, Multiply)
MXFFI_SIMD_BINARY(DivideOp, Divide)
MXFFI_SIMD_BINARY(MaximumOp, Maximum)
MXFFI_SIMD_BINARY(MinimumOp, Minimum)
#undef MXFFI_SIMD_BINARY

/*! \brief The inner loop of one run: out[i] = OP(a[i * sa], b[i * sb]) with fast paths. */
template <typename OP, typename T>
struct BinaryBody {
  using A = typename AccType<T>::type;
  void operator()(const T* a, int64_t sa, const T* b, int64_t sb, T* o, int64_t n) const {
    if constexpr (kSimdBinary<OP, T> != nullptr) {
      if (sa == 1 && sb == 1 && n >= simd::kMinRun && simd::NoPartialOverlap(a, o, n) &&
          simd::NoPartialOverlap(b, o, n)) {
        return kSimdBinary<OP, T>(a, b, o, n);
      }
    }
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = T(OP::Map(A(a[i]), A(b[i])));
    } else if (sa == 1 && sb == 0) {
      const A bv = A(b[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = T(OP::Map(A(a[i]), bv));
    } else if (sa == 0 && sb == 1) {
      const A av = A(a[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = T(OP::Map(av, A(b[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = T(OP::Map(A(a[i * sa]), A(b[i * sb])));
    }
  }
};

/*! \return whether a signed integer tensor t of element type T holds a negative element. */
template <typename T>
bool AnyNegativeAs(const DLTensor& t) {
  if constexpr (kIsInt<T> && std::is_signed_v<T>) {
    // A loop over t's own elements: the "output" operand is a shape-only stand-in.
    DLTensor shape_only = t;
    shape_only.strides = nullptr;
    const DLTensor* ins[1] = {&t};
    const StridedLoop<2> loop(shape_only, ins);
    const T* p = DataPtr<const T>(t);
    const int64_t s = loop.stride[1][loop.ndim - 1];
    bool neg = false;
    loop.ForEachRun(0, NumElements(t), [&](const int64_t* off, int64_t len) {
      for (int64_t i = 0; i < len && !neg; ++i) neg = p[off[1] + i * s] < 0;
    });
    return neg;
  } else {
    return false;
  }
}

/*! \return whether t holds a negative integer (numpy refuses those as integer exponents). */
bool AnyNegative(const DLTensor& t) {
  if (t.dtype.code != kDLInt) return false;
  bool neg = false;
  MXFFI_TYPE_SWITCH(t.dtype, "np.power", T, { neg = AnyNegativeAs<T>(t); });
  return neg;
}

/*! \brief out = OP(a, b) broadcast; a and b of any dtypes, read as out's dtype. */
template <typename OP>
void RunBinary(BinaryKind kind, const DLTensor& a, const DLTensor& b, const DLTensor& out) {
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
  MXFFI_TYPE_SWITCH(out.dtype, fname, T, {
    if constexpr (OP::template Valid<T>()) {
      const Operand<T> oa(a, fname), ob(b, fname);
      T* o = DataPtr<T>(out);
      RunParallel(n, OP::kCost, [&](int64_t begin, int64_t end) {
        loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
          BinaryRunAs<T>(oa, off[1], sa, ob, off[2], sb, o + off[0], len, BinaryBody<OP, T>());
        });
      });
    } else {
      ThrowNoKernel(fname, out.dtype);
    }
  });
}

/*! \brief The number s as a 0-d tensor of dtype (stack storage the caller owns). */
DLTensor ScalarTensor(const ScalarValue& s, DLDataType dtype, uint64_t* storage,
                      const char* fname) {
  MXFFI_TYPE_SWITCH(dtype, fname, T, {
    T v = s.kind == ScalarKind::kFloat ? ConvertOne<T, double>(s.f) : ConvertOne<T, int64_t>(s.i);
    std::memcpy(storage, &v, sizeof(T));
  });
  DLTensor t{};
  t.data = storage;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 0;
  t.dtype = dtype;
  return t;
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
  static void Compute(const OpAttrs&, const OpContext&, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
    RunBinary<OP>(K, in[0], in[1], out[0]);
  }
  static void ScalarType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
    out[0] = ScalarResultType(K, in[0], attrs.get<BinaryScalarParam>().scalar);
  }
  /*! \brief array op number (kReverse: number op array). */
  template <bool kReverse>
  static void ScalarCompute(const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                            Span<const OpReqType>, Span<const DLTensor> out) {
    uint64_t storage;
    // The number converted once to the loop dtype (numpy casts the weak scalar to it).
    DLTensor s =
        ScalarTensor(attrs.get<BinaryScalarParam>().scalar, out[0].dtype, &storage, BinaryName(K));
    if constexpr (kReverse) {
      RunBinary<OP>(K, s, in[0], out[0]);
    } else {
      RunBinary<OP>(K, in[0], s, out[0]);
    }
  }
};

}  // namespace

#define MXFFI_ELEMWISE_BINARY(Name, Kind, Functor, Doc)                                 \
  MXFFI_REGISTER_OP(_npi_##Name)                                                        \
      .describe(Doc " Inputs broadcast as numpy's do; the result dtype is numpy's.")    \
      .set_num_inputs(2)                                                                \
      .add_argument("x1", "NDArray", "the first input")                                 \
      .add_argument("x2", "NDArray", "the second input")                                \
      .set_attr<FInferShape>("FInferShape", Binary<Kind, Functor>::Shape)               \
      .set_attr<FInferType>("FInferType", Binary<Kind, Functor>::Type)                  \
      .set_attr<bool>("TStridedInputs", true)                                           \
      .set_attr<bool>("TWriteInplace", true)                                            \
      .set_attr<FCompute>("FCompute<cpu>", Binary<Kind, Functor>::Compute);             \
  MXFFI_REGISTER_OP(_npi_##Name##_scalar)                                               \
      .describe(Doc " The second operand is the Python number `scalar` (NEP 50 weak).") \
      .add_argument("x1", "NDArray", "the array")                                       \
      .set_param<BinaryScalarParam>()                                                   \
      .set_attr<FInferShape>("FInferShape", UnaryShape)                                 \
      .set_attr<FInferType>("FInferType", Binary<Kind, Functor>::ScalarType)            \
      .set_attr<bool>("TStridedInputs", true)                                           \
      .set_attr<bool>("TWriteInplace", true)                                            \
      .set_attr<FCompute>("FCompute<cpu>", Binary<Kind, Functor>::ScalarCompute<false>)

#define MXFFI_ELEMWISE_RSCALAR(Name, Kind, Functor, Doc)                               \
  MXFFI_REGISTER_OP(_npi_r##Name##_scalar)                                             \
      .describe(Doc " The first operand is the Python number `scalar` (NEP 50 weak).") \
      .add_argument("x2", "NDArray", "the array")                                      \
      .set_param<BinaryScalarParam>()                                                  \
      .set_attr<FInferShape>("FInferShape", UnaryShape)                                \
      .set_attr<FInferType>("FInferType", Binary<Kind, Functor>::ScalarType)           \
      .set_attr<bool>("TStridedInputs", true)                                          \
      .set_attr<bool>("TWriteInplace", true)                                           \
      .set_attr<FCompute>("FCompute<cpu>", Binary<Kind, Functor>::ScalarCompute<true>)

MXFFI_ELEMWISE_BINARY(add, BinaryKind::kAdd, AddOp, "x1 + x2, elementwise (bools: logical or).");
MXFFI_ELEMWISE_BINARY(subtract, BinaryKind::kSubtract, SubtractOp,
                      "x1 - x2, elementwise (not for two bools).");
MXFFI_ELEMWISE_RSCALAR(subtract, BinaryKind::kSubtract, SubtractOp, "x1 - x2, elementwise.");
MXFFI_ELEMWISE_BINARY(multiply, BinaryKind::kMultiply, MultiplyOp,
                      "x1 * x2, elementwise (bools: logical and).");
MXFFI_ELEMWISE_BINARY(true_divide, BinaryKind::kDivide, DivideOp,
                      "x1 / x2, elementwise; integers and bools divide in float64.");
MXFFI_ELEMWISE_RSCALAR(true_divide, BinaryKind::kDivide, DivideOp, "x1 / x2, elementwise.");
MXFFI_ELEMWISE_BINARY(power, BinaryKind::kPower, PowerOp,
                      "x1 ** x2, elementwise; integers to negative integer powers are a "
                      "ValueError; bools compute in int8.");
MXFFI_ELEMWISE_RSCALAR(power, BinaryKind::kPower, PowerOp, "x1 ** x2, elementwise.");
MXFFI_ELEMWISE_BINARY(maximum, BinaryKind::kMaximum, MaximumOp,
                      "The larger of x1 and x2, elementwise; NaN propagates.");
MXFFI_ELEMWISE_RSCALAR(maximum, BinaryKind::kMaximum, MaximumOp,
                       "The larger of x1 and x2, elementwise (equal values give x2, as numpy).");
MXFFI_ELEMWISE_BINARY(minimum, BinaryKind::kMinimum, MinimumOp,
                      "The smaller of x1 and x2, elementwise; NaN propagates.");
MXFFI_ELEMWISE_RSCALAR(minimum, BinaryKind::kMinimum, MinimumOp,
                       "The smaller of x1 and x2, elementwise (equal values give x2, as numpy).");

}  // namespace op
}  // namespace mxffi
