/*!
 * \file reducers.h
 * \brief The reductions of _sum, _mean, _prod, _max, _min, _all, _any and _count_nonzero (and
 *  the comparison of _argmax and _argmin), each written once for both devices: g++ compiles
 *  them into the CPU kernels (reduce_op.cc, reduce_arg.cc) and nvcc into the CUDA ones
 *  (reduce.cu, reduce_sum.cu, reduce_logical.cu, reduce_arg.cu). A reducer has an identity, a
 * combining function and kTruth (whether it reads an element as its truth, x != 0); RedAcc is the
 * type it accumulates in, Load how an input element enters the accumulator and Finish how the
 *  accumulator becomes the output element, so both devices give numpy's results: integer sums
 *  wrap, max and min propagate NaN, float16 and bfloat16 accumulate in float32, integer means
 *  divide in float64, all and any read NaN as true. Complex (std::complex on the CPU, known
 *  here by kHasRealPart, so this header needs no <complex>): sums and products in themselves
 *  with numpy's schoolbook product, means divided as numpy divides by the count, max and min
 *  lexicographic (real part first) with NaN in either part winning, as numpy's (combined in
 *  order, kInOrder); var and std of complex are real (VarMean, SquaredDeviation).
 *  Float sums agree to rounding, not bit for bit: the CPU sums pairwise, the GPU by warps. The
 *  sums of a csr array's values (SumAcc, ToSum, FinishSum) are shared the same way.
 */
#ifndef MXFFI_SRC_OP_REDUCE_REDUCERS_H_
#define MXFFI_SRC_OP_REDUCE_REDUCERS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../cast.h"
#include "../half.h"
#include "../xinline.h"

namespace mxffi {
namespace op {
namespace reduce {

/*! \brief Whether T is an integer type other than bool. */
template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/*! \return the smallest value of an integer or bool type. */
template <typename T>
MXFFI_XINLINE constexpr T Lowest() {
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return T(0);
  } else {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(1) << (sizeof(T) * 8 - 1));
  }
}

/*! \return the largest value of an integer or bool type. */
template <typename T>
MXFFI_XINLINE constexpr T Highest() {
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else {
    return static_cast<T>(~Lowest<T>());
  }
}

/*! \return whether a complex x has a NaN part. */
template <typename C>
MXFFI_XINLINE bool ComplexNan(C x) {
  return x.real() != x.real() || x.imag() != x.imag();  // NOLINT(misc-redundant-expression)
}

/*!
 * \return whether a complex a is at least (kMax) or at most (!kMax) b in numpy's lexicographic
 *  order (its CGE and CLE): the real parts decide unless equal, then the imaginary ones; a NaN
 *  part makes a comparison of real parts false.
 */
template <bool kMax, typename C>
MXFFI_XINLINE bool ComplexAtLeast(C a, C b) {
  const bool no_nan_imag = a.imag() == a.imag() && b.imag() == b.imag();
  if (kMax) {
    return (a.real() > b.real() && no_nan_imag) || (a.real() == b.real() && a.imag() >= b.imag());
  }
  return (a.real() < b.real() && no_nan_imag) || (a.real() == b.real() && a.imag() <= b.imag());
}

/*! \brief Sum (bools: logical or, numpy's add on bool). */
struct SumOp {
  static constexpr bool kTruth = false;
  template <typename A>
  static MXFFI_XINLINE A Identity() {
    return A(0);
  }
  template <typename A>
  static MXFFI_XINLINE A Combine(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return a || b;
    } else {
      return a + b;
    }
  }
};

/*! \brief Maximum; NaN wins, as numpy's maximum. */
struct MaxOp {
  static constexpr bool kTruth = false;
  template <typename A>
  static MXFFI_XINLINE A Identity() {
    if constexpr (std::is_floating_point_v<A>) {
      return static_cast<A>(-INFINITY);
    } else if constexpr (kHasRealPart<A>) {
      return A(-INFINITY, -INFINITY);
    } else {
      return Lowest<A>();
    }
  }
  /*! \brief Whether v replaces m (no NaN involved); works on GCC vector types too. */
  template <typename V>
  static MXFFI_XINLINE auto Better(V v, V m) {
    return v > m;
  }
  // A NaN in a stays, a NaN in b is taken. Bitwise |, not ||: no branch, so the CPU loops
  // around it vectorise.
  template <typename A>
  static MXFFI_XINLINE A Combine(A a, A b) {
    if constexpr (kHasRealPart<A>) {
      return (ComplexNan(a) || ComplexAtLeast<true>(a, b)) ? a : b;
    } else {
      return ((a > b) | (a != a)) ? a : b;  // NOLINT(misc-redundant-expression)
    }
  }
};

/*! \brief Minimum; NaN wins. */
struct MinOp {
  static constexpr bool kTruth = false;
  template <typename A>
  static MXFFI_XINLINE A Identity() {
    if constexpr (std::is_floating_point_v<A>) {
      return static_cast<A>(INFINITY);
    } else if constexpr (kHasRealPart<A>) {
      return A(INFINITY, INFINITY);
    } else {
      return Highest<A>();
    }
  }
  template <typename V>
  static MXFFI_XINLINE auto Better(V v, V m) {
    return v < m;
  }
  template <typename A>
  static MXFFI_XINLINE A Combine(A a, A b) {
    if constexpr (kHasRealPart<A>) {
      return (ComplexNan(a) || ComplexAtLeast<false>(a, b)) ? a : b;
    } else {
      return ((a < b) | (a != a)) ? a : b;  // NOLINT(misc-redundant-expression)
    }
  }
};

/*! \brief Product (bools: logical and, numpy's multiply on bool). */
struct ProdOp {
  static constexpr bool kTruth = false;
  template <typename A>
  static MXFFI_XINLINE A Identity() {
    return A(1);
  }
  template <typename A>
  static MXFFI_XINLINE A Combine(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return static_cast<A>(a & b);
    } else if constexpr (kHasRealPart<A>) {
      // numpy's complex multiply: no C99 Annex G recovery of infinities.
      return A(a.real() * b.real() - a.imag() * b.imag(),
               a.real() * b.imag() + a.imag() * b.real());
    } else {
      return a * b;
    }
  }
};

/*! \brief Logical and of the elements' truth (numpy's all: true for nothing). */
struct AllOp {
  static constexpr bool kTruth = true;
  using TruthResult = bool;
  template <typename A>
  static MXFFI_XINLINE A Identity() {
    return A(true);
  }
  // Bitwise on bools (0 or 1): no branch, so the CPU loops around it vectorise.
  template <typename A>
  static MXFFI_XINLINE A Combine(A a, A b) {
    return static_cast<A>(a & b);
  }
};

/*! \brief Logical or of the elements' truth (numpy's any: false for nothing). */
struct AnyOp {
  static constexpr bool kTruth = true;
  using TruthResult = bool;
  template <typename A>
  static MXFFI_XINLINE A Identity() {
    return A(false);
  }
  template <typename A>
  static MXFFI_XINLINE A Combine(A a, A b) {
    return static_cast<A>(a | b);
  }
};

/*! \brief The count of the elements that are nonzero (numpy's count_nonzero): an int64 result. */
struct CountOp {
  static constexpr bool kTruth = true;
  using TruthResult = int64_t;
  template <typename A>
  static MXFFI_XINLINE A Identity() {
    return A(0);
  }
  template <typename A>
  static MXFFI_XINLINE A Combine(A a, A b) {
    return a + b;
  }
};

/*!
 * \brief Whether R's Combine on accumulator A must see its operands in order, the earlier
 *  elements first: complex max and min keep the first element with a NaN part and the first of
 *  equal values (equal complex numbers may still differ in the signs of their zeros), as
 *  numpy's loop does. Their Combine is associative, so any tree that combines neighbouring runs
 *  of elements left to right gives the loop's result; the other reducers may combine in any
 *  order (float sums then agree to rounding).
 */
template <typename R, typename A>
constexpr bool kInOrder = kHasRealPart<A> && (std::is_same_v<R, MaxOp> || std::is_same_v<R, MinOp>);

/*! \brief numpy's sum dtype of In: int64 for bool and narrower signed integers, uint64 for
 *  narrower unsigned ones, In otherwise. */
template <typename In>
using SumOut = std::conditional_t<
    std::is_same_v<In, bool> || (std::is_signed_v<In> && kIsInt<In> && sizeof(In) < 8), int64_t,
    std::conditional_t<std::is_unsigned_v<In> && kIsInt<In> && sizeof(In) < 8, uint64_t, In>>;
/*! \brief numpy's mean dtype of In: float64 for integers and bools, In otherwise. */
template <typename In>
using MeanOut = std::conditional_t<std::is_integral_v<In>, double, In>;
/*! \brief The natural result type of a mean (kMean) or a sum or product of In. */
template <bool kMean, typename In>
using NaturalOut = std::conditional_t<kMean, MeanOut<In>, SumOut<In>>;

/*!
 * \brief The type reducer R accumulates Out in: integer sums, products and counts in unsigned
 *  arithmetic (numpy's wraparound, without signed overflow; 32 bits are enough for types up to
 *  32 bits since the result is taken modulo 2^bits), float16/bfloat16 in float, everything else
 *  in Out.
 */
template <typename R, typename Out>
using RedAcc =
    std::conditional_t<(std::is_same_v<R, SumOp> || std::is_same_v<R, ProdOp> ||
                        std::is_same_v<R, CountOp>) &&
                           kIsInt<Out>,
                       std::conditional_t<sizeof(Out) == 8, uint64_t, uint32_t>, AccT<Out>>;

/*!
 * \brief Whether v (later in the reduced order) replaces a as argmax's (kMax) or argmin's
 *  best: strictly greater (less), or the first NaN, which then stays (numpy's rule). Both are
 *  accumulator values (AccT), so float16 and bfloat16 compare as float.
 */
template <bool kMax, typename A>
MXFFI_XINLINE bool ArgTakes(A v, A a) {
  if constexpr (kHasRealPart<A>) {
    // Lexicographic; the first element with a NaN part stays (numpy's complex argmax).
    const bool better =
        kMax ? (v.real() > a.real() || (v.real() == a.real() && v.imag() > a.imag()))
             : (v.real() < a.real() || (v.real() == a.real() && v.imag() < a.imag()));
    return !ComplexNan(a) && (better || ComplexNan(v));
  } else {
    const bool better = kMax ? (v > a) : (v < a);
    if constexpr (std::is_floating_point_v<A>) {
      return better | ((v != v) & (a == a));  // NOLINT(misc-redundant-expression)
    } else {
      return better;
    }
  }
}

/*!
 * \return one input element as reducer R's accumulator sees it: converted to Out, then to
 *  Acc; for a reducer of truths (R::kTruth) whether it is nonzero (NaN is, -0.0 is not).
 */
template <typename R, typename Acc, typename Out, typename In>
MXFFI_XINLINE Acc Load(In x) {
  if constexpr (R::kTruth) {
    return static_cast<Acc>(ToAcc(x) != AccT<In>(0));
  } else {
    return static_cast<Acc>(static_cast<AccT<Out>>(ToAcc(x)));
  }
}

/*!
 * \return the output element of an accumulator: the accumulator stored as Out, or for a mean
 *  the sum divided by count; an integer or bool mean (dtype=int...) divides the wrapped sum as
 *  float64 and casts back unsafely, as numpy does (out of range: INT64_MIN, truncated).
 */
template <bool kMean, typename Out, typename Acc>
MXFFI_XINLINE Out Finish(Acc acc, int64_t count) {
  if constexpr (!kMean) {
    return FromAcc<Out>(acc);
  } else if constexpr (kHasRealPart<Acc>) {
    // numpy divides by the count as by the complex number (count, 0) (Smith's method): each
    // part times 1/count, plus the other part times 0, so an infinite part makes the other NaN.
    using R = std::decay_t<decltype(acc.real())>;
    const R n = static_cast<R>(count), zero = R(0);
    if (count == 0) return Out(acc.real() / n, acc.imag() / n);
    const R scale = R(1) / n;
    return Out((acc.real() + acc.imag() * zero) * scale, (acc.imag() - acc.real() * zero) * scale);
  } else if constexpr (std::is_floating_point_v<Acc>) {
    return FromAcc<Out>(acc / static_cast<Acc>(count));
  } else {
    const double q = static_cast<double>(static_cast<Out>(acc)) / static_cast<double>(count);
    if constexpr (std::is_same_v<Out, bool>) {
      return q != 0;
    } else {
      if (!(q >= -9.2233720368547758e18 && q < 9.2233720368547758e18)) {
        return static_cast<Out>(static_cast<uint64_t>(1) << 63);
      }
      return static_cast<Out>(static_cast<int64_t>(q));
    }
  }
}

// ---- var and std (reduce_var.cc, reduce_var.cu) -------------------------------------------------

/*!
 * \brief What var and std sum the elements of In in, their result's accumulator type being A:
 *  In itself for complex (the mean is complex), A otherwise.
 */
template <typename In, typename A>
using VarSumT = std::conditional_t<kHasRealPart<In>, In, A>;

/*!
 * \return var's mean of count elements whose sum is sum: a complex sum divided as numpy divides
 *  it by the count (Finish), a real one plainly.
 */
template <typename S>
MXFFI_XINLINE S VarMean(S sum, int64_t count) {
  if constexpr (kHasRealPart<S>) {
    return Finish<true, S>(sum, count);
  } else {
    return sum / static_cast<S>(count);
  }
}

/*!
 * \return the squared deviation of v from mean in A (both VarSumT): (v - mean)**2, or for a
 *  complex v |v - mean|**2 = re**2 + im**2, a real number.
 */
template <typename A, typename S>
MXFFI_XINLINE A SquaredDeviation(S v, S mean) {
  const S d = v - mean;
  if constexpr (kHasRealPart<S>) {
    return d.real() * d.real() + d.imag() * d.imag();
  } else {
    return d * d;
  }
}

// ---- the sums of a csr array's stored values (sparse/reduce_sparse.cc, sparse/sparse_misc.cu) ---

/*!
 * \brief What a csr sum accumulates T in: double for floats and means, a wrapping 64-bit
 *  unsigned integer for integer and bool sums.
 */
template <typename T, bool kMean>
using SumAcc = std::conditional_t<kMean || !std::is_integral_v<T>, double, unsigned long long>;

/*! \return one stored value as a csr sum's accumulator sees it. */
template <typename T, bool kMean>
MXFFI_XINLINE SumAcc<T, kMean> ToSum(T v) {
  if constexpr (std::is_integral_v<T> && !kMean) {
    return static_cast<unsigned long long>(v);
  } else {
    return static_cast<double>(ToAcc(v));
  }
}

/*!
 * \return the result element of a csr sum over count elements (the empty mean of an integer
 *  dtype is 0).
 */
template <typename T, bool kMean>
MXFFI_XINLINE T FinishSum(SumAcc<T, kMean> acc, int64_t count) {
  if constexpr (kMean) {
    if constexpr (std::is_integral_v<T>) {
      if (count == 0) return T(0);
    }
    return ConvertOne<T>(acc / static_cast<double>(count));
  } else if constexpr (std::is_integral_v<T>) {
    return FromAcc<T>(acc);
  } else {
    return ConvertOne<T>(acc);
  }
}

}  // namespace reduce
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_REDUCE_REDUCERS_H_
