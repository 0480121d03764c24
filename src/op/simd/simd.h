/*!
 * \file simd.h
 * \brief Vectorized CPU kernels over contiguous buffers, compiled for several instruction sets
 *  (SSE4, AVX2, AVX-512 and a portable fallback) with Highway, the best one the CPU supports
 *  chosen once, when a kernel is first called (as numpy chooses its loops).
 *
 * The elementwise, reduction and copy ops call these on the layouts they fit (contiguous
 * operands of float32 or float64, a transposed copy) and keep their general loops for the rest.
 * Each function takes plain pointers and a count and makes no allocation and no call into the
 * thread pool: the caller splits large work across threads. An elementwise call writing 8 MiB or
 * more uses streaming (non-temporal) stores, which skip reading the output lines before writing
 * them: about a quarter less memory traffic for a large add, a third for a large exp.
 *
 * Accuracy: arithmetic, sqrt, negative, absolute, square, sign and relu are exact (IEEE), so they
 * equal the general loops bit for bit; exp is within 1 ulp of the correctly rounded result
 * (Highway's exp, with +-inf, NaN, overflow and underflow handled here); sums are pairwise over
 * vector accumulators (see Sum).
 *
 * MXFFI_SIMD_TARGET (read once) caps the instruction set: "avx512", "avx2", "sse4" or
 * "scalar" (the portable fallback); the best target the CPU has at or below it is used. Tests
 * and benchmarks use it to run every compiled target on one machine.
 */
#ifndef MXFFI_SRC_OP_SIMD_SIMD_H_
#define MXFFI_SRC_OP_SIMD_SIMD_H_

#include <cstdint>

namespace mxffi {
namespace op {
namespace simd {

/*! \return the name of the instruction set the kernels run with: "AVX3" (AVX-512), "AVX2",
 *  "SSE4", "EMU128" or "SCALAR" (Highway's names). */
const char* TargetName();

/*!
 * \brief Runs shorter than this keep the ops' general loops: for a handful of elements the call
 *  through the dispatch pointer costs more than the vector code saves (a (3,4) add is 12).
 */
constexpr int64_t kMinRun = 16;

/*!
 * \return whether n elements at x and at y are the same elements or share none: the condition
 *  of the elementwise kernels, which read a vector before they write it. (A partial overlap
 *  keeps the general loop, whose element order the results then depend on.)
 */
template <typename T>
inline bool NoPartialOverlap(const T* x, const T* y, int64_t n) {
  const auto xa = reinterpret_cast<uintptr_t>(x), ya = reinterpret_cast<uintptr_t>(y);
  const auto bytes = static_cast<uintptr_t>(n) * sizeof(T);
  return xa == ya || xa + bytes <= ya || ya + bytes <= xa;
}

/*! \return whether the n elements at x and the n bools at o share no byte (the condition of
 *  the kernels with a bool result, whose output is narrower than their input). */
template <typename T>
inline bool Disjoint(const T* x, const bool* o, int64_t n) {
  const auto xa = reinterpret_cast<uintptr_t>(x), oa = reinterpret_cast<uintptr_t>(o);
  return xa + static_cast<uintptr_t>(n) * sizeof(T) <= oa || oa + static_cast<uintptr_t>(n) <= xa;
}

// ---- elementwise, y[i] = f(x[i]); y may be x itself, never a partial overlap --------------

/*! \brief e ** x; +inf above the overflow bound, +0 below the underflow one, NaN stays NaN. */
void Exp(const float* x, float* y, int64_t n);
void Exp(const double* x, double* y, int64_t n);
/*! \brief IEEE square root (negative: NaN, -0.0: -0.0). */
void Sqrt(const float* x, float* y, int64_t n);
void Sqrt(const double* x, double* y, int64_t n);
/*! \brief -x. */
void Negative(const float* x, float* y, int64_t n);
void Negative(const double* x, double* y, int64_t n);
/*! \brief |x| (the sign bit cleared, NaN included). */
void Absolute(const float* x, float* y, int64_t n);
void Absolute(const double* x, double* y, int64_t n);
/*! \brief x * x. */
void Square(const float* x, float* y, int64_t n);
void Square(const double* x, double* y, int64_t n);
/*! \brief numpy's sign: 1 for x > 0, -1 for x < 0, +0 for either zero, NaN for NaN. */
void Sign(const float* x, float* y, int64_t n);
void Sign(const double* x, double* y, int64_t n);
/*! \brief x where x > 0 or x is NaN, else +0 (MXNet's relu). */
void Relu(const float* x, float* y, int64_t n);
void Relu(const double* x, double* y, int64_t n);
/*! \brief floor, ceil and trunc: exact (IEEE), -0.0, +-inf and NaN kept. */
void Floor(const float* x, float* y, int64_t n);
void Floor(const double* x, double* y, int64_t n);
void Ceil(const float* x, float* y, int64_t n);
void Ceil(const double* x, double* y, int64_t n);
void Trunc(const float* x, float* y, int64_t n);
void Trunc(const double* x, double* y, int64_t n);

// ---- transcendental, y[i] = f(x[i]) on SLEEF (sleef.cc): within 1.0 ulp, C99's special
// values (NaN, +-inf, signed zeros) and every argument's range -----------------------------

#define MXFFI_SIMD_SLEEF_DECL(Name)               \
  void Name(const float* x, float* y, int64_t n); \
  void Name(const double* x, double* y, int64_t n);
MXFFI_SIMD_SLEEF_DECL(Sin)
MXFFI_SIMD_SLEEF_DECL(Cos)
MXFFI_SIMD_SLEEF_DECL(Tan)
MXFFI_SIMD_SLEEF_DECL(Asin)
MXFFI_SIMD_SLEEF_DECL(Acos)
MXFFI_SIMD_SLEEF_DECL(Atan)
MXFFI_SIMD_SLEEF_DECL(Sinh)
MXFFI_SIMD_SLEEF_DECL(Cosh)
MXFFI_SIMD_SLEEF_DECL(Tanh)
MXFFI_SIMD_SLEEF_DECL(Asinh)
MXFFI_SIMD_SLEEF_DECL(Acosh)
MXFFI_SIMD_SLEEF_DECL(Atanh)
MXFFI_SIMD_SLEEF_DECL(Log)
MXFFI_SIMD_SLEEF_DECL(Log2)
MXFFI_SIMD_SLEEF_DECL(Log10)
MXFFI_SIMD_SLEEF_DECL(Log1p)
MXFFI_SIMD_SLEEF_DECL(Expm1)
#undef MXFFI_SIMD_SLEEF_DECL

// ---- elementwise, out[i] = f(a[i], b[i]); out may be a or b, never a partial overlap -------

void Add(const float* a, const float* b, float* out, int64_t n);
void Add(const double* a, const double* b, double* out, int64_t n);
void Subtract(const float* a, const float* b, float* out, int64_t n);
void Subtract(const double* a, const double* b, double* out, int64_t n);
void Multiply(const float* a, const float* b, float* out, int64_t n);
void Multiply(const double* a, const double* b, double* out, int64_t n);
void Divide(const float* a, const float* b, float* out, int64_t n);
void Divide(const double* a, const double* b, double* out, int64_t n);
/*! \brief (isnan(a) || a > b) ? a : b, numpy's maximum (NaN propagates; equal gives b). */
void Maximum(const float* a, const float* b, float* out, int64_t n);
void Maximum(const double* a, const double* b, double* out, int64_t n);
/*! \brief (isnan(a) || a < b) ? a : b, numpy's minimum. */
void Minimum(const float* a, const float* b, float* out, int64_t n);
void Minimum(const double* a, const double* b, double* out, int64_t n);

// ---- bool results: out[i] = f(a[i], b[i]) or f(x[i]), 0 or 1 -----------------------------

#define MXFFI_SIMD_COMPARE_DECL(Name)                              \
  void Name(const float* a, const float* b, bool* out, int64_t n); \
  void Name(const double* a, const double* b, bool* out, int64_t n);
/*! \brief IEEE comparisons: false where a NaN is involved, but not_equal, which is true. */
MXFFI_SIMD_COMPARE_DECL(Less)
MXFFI_SIMD_COMPARE_DECL(LessEqual)
MXFFI_SIMD_COMPARE_DECL(Greater)
MXFFI_SIMD_COMPARE_DECL(GreaterEqual)
MXFFI_SIMD_COMPARE_DECL(Equal)
MXFFI_SIMD_COMPARE_DECL(NotEqual)
#undef MXFFI_SIMD_COMPARE_DECL
/*! \brief isnan, isinf, isfinite. */
void IsNan(const float* x, bool* out, int64_t n);
void IsNan(const double* x, bool* out, int64_t n);
void IsInf(const float* x, bool* out, int64_t n);
void IsInf(const double* x, bool* out, int64_t n);
void IsFinite(const float* x, bool* out, int64_t n);
void IsFinite(const double* x, bool* out, int64_t n);

// ---- reductions over x[0..n) -------------------------------------------------------------

/*!
 * \brief The sum, pairwise: blocks of a few hundred elements are summed in 8 vector
 *  accumulators (each lane adds at most 8 elements in sequence), the accumulators and lanes
 *  are combined as a binary tree, and blocks are combined by recursive halving. The error
 *  bound grows with log2(n), as numpy's pairwise sum's does, with a smaller constant (numpy's
 *  8 accumulators each add 16 elements in sequence). 0 for n == 0.
 */
float Sum(const float* x, int64_t n);
double Sum(const double* x, int64_t n);
/*! \brief The largest element; the first NaN when there is one (numpy's max). n >= 1. */
float Max(const float* x, int64_t n);
double Max(const double* x, int64_t n);
/*! \brief The smallest element; the first NaN when there is one. n >= 1. */
float Min(const float* x, int64_t n);
double Min(const double* x, int64_t n);

// ---- copies ------------------------------------------------------------------------------

/*!
 * \brief dst[i * dst_rs + j] = src[i * src_rs + j * src_cs] for i < rows, j < cols, elements
 *  of elem_bytes (1, 2, 4 or 8) bytes, strides in elements. Walks the matrix in tiles that fit
 *  the L1 cache, so a transposed read touches each cache line and page a few times, not once
 *  per element. Single-threaded; the caller splits rows across threads.
 */
void CopyTiled2D(const void* src, int64_t src_rs, int64_t src_cs, void* dst, int64_t dst_rs,
                 int64_t rows, int64_t cols, int elem_bytes);

}  // namespace simd
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SIMD_SIMD_H_
