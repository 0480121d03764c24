/*!
 * \file sleef.cc
 * \brief The transcendental kernels of simd.h on SLEEF's vectorized functions (Debian's
 *  libsleef-dev), the 1.0-ulp ("u10") variants (tanh: the 3.5-ulp one): sin, cos, tan, their
 *  inverses, the hyperbolic functions and their inverses, log, log2, log10, log1p and expm1. SLEEF
 * gives each function once per instruction set (SSE4, AVX2, AVX-512F) and once as scalar code; the
 * instruction set is the one Highway chose for the other kernels (TargetName, capped by
 * MXFFI_SIMD_TARGET), so every kernel of a process runs the same code on the same machine. A tail
 * shorter than a vector is computed in a zero-padded vector of its own.
 */
#include <algorithm>
#include <cmath>
#include <cstring>

#include "op/simd/simd.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <x86intrin.h>
// sleef.h declares an instruction set's functions only where the compiler targets that set
// (__AVX__, __AVX512F__), and this file is built for the baseline: the declarations are read as
// if it were (the intrinsics headers are in already, so only sleef.h sees the macros), and each
// function is called only from a loop compiled for its own set.
#if !defined(__AVX__)
#define __AVX__ 1
#define MXFFI_SLEEF_UNDEF_AVX_
#endif
#if !defined(__AVX512F__)
#define __AVX512F__ 1
#define MXFFI_SLEEF_UNDEF_AVX512F_
#endif
#endif
#include <sleef.h>
#if defined(MXFFI_SLEEF_UNDEF_AVX_)
#undef __AVX__
#undef MXFFI_SLEEF_UNDEF_AVX_
#endif
#if defined(MXFFI_SLEEF_UNDEF_AVX512F_)
#undef __AVX512F__
#undef MXFFI_SLEEF_UNDEF_AVX512F_
#endif

namespace mxffi {
namespace op {
namespace simd {
namespace {

enum class Isa { kScalar, kSse4, kAvx2, kAvx512 };

Isa ChosenIsa() {
  static const Isa isa = [] {
#if defined(__x86_64__)
    const char* t = TargetName();
    if (std::strncmp(t, "AVX3", 4) == 0) return Isa::kAvx512;
    if (std::strcmp(t, "AVX2") == 0) return Isa::kAvx2;
    if (std::strcmp(t, "SSE4") == 0) return Isa::kSse4;
#endif
    return Isa::kScalar;
  }();
  return isa;
}

#if defined(__x86_64__)
// One loop per instruction set, each compiled for it (the vector types cross the calls into
// SLEEF in that set's registers). V: the vector type, W: elements per vector.
#define MXFFI_SLEEF_LOOP(Name, Attr, T, V, W, Load, Store)                                \
  __attribute__((target(Attr))) void Name(const V (*f)(V), const T* x, T* y, int64_t n) { \
    int64_t i = 0;                                                                        \
    for (; i + (W) <= n; i += (W)) Store(y + i, f(Load(x + i)));                          \
    if (i < n) {                                                                          \
      T buf[W] = {};                                                                      \
      std::memcpy(buf, x + i, sizeof(T) * static_cast<size_t>(n - i));                    \
      Store(buf, f(Load(buf)));                                                           \
      std::memcpy(y + i, buf, sizeof(T) * static_cast<size_t>(n - i));                    \
    }                                                                                     \
  }

MXFFI_SLEEF_LOOP(LoopSse4D, "sse4.1", double, __m128d, 2, _mm_loadu_pd, _mm_storeu_pd)
MXFFI_SLEEF_LOOP(LoopSse4F, "sse4.1", float, __m128, 4, _mm_loadu_ps, _mm_storeu_ps)
MXFFI_SLEEF_LOOP(LoopAvx2D, "avx2,fma", double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd)
MXFFI_SLEEF_LOOP(LoopAvx2F, "avx2,fma", float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps)
MXFFI_SLEEF_LOOP(LoopAvx512D, "avx512f", double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd)
MXFFI_SLEEF_LOOP(LoopAvx512F, "avx512f", float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps)
#undef MXFFI_SLEEF_LOOP
#endif

// SLEEF declares its functions' results const (a GCC-ism of its CONST macro).
template <typename T>
void LoopScalar(const T (*f)(T), const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

/*!
 * \brief vec over x[0, n) into y, then, where |x| > limit (limit > 0), the scalar libm exact:
 *  some of SLEEF's functions overflow inside for arguments near the top of the range (asinh
 *  and acosh square x; log1p adds 1; sinh and cosh just below the overflow bound), where libm
 *  is right. Blocks keep a copy of their inputs, since y may be x itself.
 */
template <typename T, typename Vec>
void WithFixup(Vec vec, T (*exact)(T), T limit, const T* x, T* y, int64_t n) {
  if (!(limit > 0)) return vec(x, y, n);
  constexpr int64_t kBlock = 256;
  T saved[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    std::memcpy(saved, x + i, sizeof(T) * static_cast<size_t>(m));
    vec(x + i, y + i, m);
    for (int64_t j = 0; j < m; ++j) {
      if (std::fabs(saved[j]) > limit) y[i + j] = exact(saved[j]);
    }
  }
}

}  // namespace

#if defined(__x86_64__)
#define MXFFI_SLEEF_VEC_D(fn, u)                                  \
  [](const double* x, double* y, int64_t n) {                     \
    switch (ChosenIsa()) {                                        \
      case Isa::kAvx512:                                          \
        return LoopAvx512D(Sleef_##fn##d8_##u##avx512f, x, y, n); \
      case Isa::kAvx2:                                            \
        return LoopAvx2D(Sleef_##fn##d4_##u##avx2, x, y, n);      \
      case Isa::kSse4:                                            \
        return LoopSse4D(Sleef_##fn##d2_##u##sse4, x, y, n);      \
      default:                                                    \
        return LoopScalar<double>(Sleef_##fn##_##u, x, y, n);     \
    }                                                             \
  }
#define MXFFI_SLEEF_VEC_F(fn, u)                                   \
  [](const float* x, float* y, int64_t n) {                        \
    switch (ChosenIsa()) {                                         \
      case Isa::kAvx512:                                           \
        return LoopAvx512F(Sleef_##fn##f16_##u##avx512f, x, y, n); \
      case Isa::kAvx2:                                             \
        return LoopAvx2F(Sleef_##fn##f8_##u##avx2, x, y, n);       \
      case Isa::kSse4:                                             \
        return LoopSse4F(Sleef_##fn##f4_##u##sse4, x, y, n);       \
      default:                                                     \
        return LoopScalar<float>(Sleef_##fn##f_##u, x, y, n);      \
    }                                                              \
  }
#else
#define MXFFI_SLEEF_VEC_D(fn, u) \
  [](const double* x, double* y, int64_t n) { LoopScalar<double>(Sleef_##fn##_##u, x, y, n); }
#define MXFFI_SLEEF_VEC_F(fn, u) \
  [](const float* x, float* y, int64_t n) { LoopScalar<float>(Sleef_##fn##f_##u, x, y, n); }
#endif

// Name, SLEEF's name, its accuracy variant, the |x| above which libm's answer replaces it
// (float, double; 0: nowhere).
#define MXFFI_SLEEF_UNARY(Name, fn, u, flimit, dlimit)                     \
  void Name(const double* x, double* y, int64_t n) {                       \
    WithFixup<double>(MXFFI_SLEEF_VEC_D(fn, u), std::fn, dlimit, x, y, n); \
  }                                                                        \
  void Name(const float* x, float* y, int64_t n) {                         \
    WithFixup<float>(MXFFI_SLEEF_VEC_F(fn, u), std::fn, flimit, x, y, n);  \
  }

MXFFI_SLEEF_UNARY(Sin, sin, u10, 0, 0)
MXFFI_SLEEF_UNARY(Cos, cos, u10, 0, 0)
MXFFI_SLEEF_UNARY(Tan, tan, u10, 0, 0)
MXFFI_SLEEF_UNARY(Asin, asin, u10, 0, 0)
MXFFI_SLEEF_UNARY(Acos, acos, u10, 0, 0)
MXFFI_SLEEF_UNARY(Atan, atan, u10, 0, 0)
MXFFI_SLEEF_UNARY(Sinh, sinh, u10, 88.0f, 709.0)
MXFFI_SLEEF_UNARY(Cosh, cosh, u10, 88.0f, 709.0)
// tanh: the 3.5-ulp variant; the 1.0-ulp one is half numpy's speed.
MXFFI_SLEEF_UNARY(Tanh, tanh, u35, 0, 0)
MXFFI_SLEEF_UNARY(Asinh, asinh, u10, 1e18f, 1e153)
MXFFI_SLEEF_UNARY(Acosh, acosh, u10, 1e18f, 1e153)
MXFFI_SLEEF_UNARY(Atanh, atanh, u10, 0, 0)
MXFFI_SLEEF_UNARY(Log, log, u10, 0, 0)
MXFFI_SLEEF_UNARY(Log2, log2, u10, 0, 0)
MXFFI_SLEEF_UNARY(Log10, log10, u10, 0, 0)
MXFFI_SLEEF_UNARY(Log1p, log1p, u10, 1e37f, 1e306)
MXFFI_SLEEF_UNARY(Expm1, expm1, u10, 0, 0)
#undef MXFFI_SLEEF_UNARY
#undef MXFFI_SLEEF_VEC_D
#undef MXFFI_SLEEF_VEC_F

}  // namespace simd
}  // namespace op
}  // namespace mxffi
