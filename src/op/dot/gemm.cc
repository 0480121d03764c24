/*!
 * \file gemm.cc
 * \brief The GEMM under _tensordot and _matmul: OpenBLAS for float32/float64 and
 *  complex64/complex128 (sgemm, dgemm, cgemm, zgemm; float16/bfloat16 through float32), a
 *  blocked loop for integers, bool and small products.
 *
 * Operands reach OpenBLAS as they lie in memory whenever one of their two strides is 1 (a
 * transposed view becomes CblasTrans, not a copy); anything else, and any operand of another
 * dtype, is packed once into a contiguous matrix of the compute type.
 *
 * Threads (design section 5): OpenBLAS is told to use one thread, once, when this library
 * loads, and a large product is split into row (or column) blocks across mxffi's own pool, each
 * block one single-threaded cblas call. So mxffi never runs OpenBLAS's threads next to its own,
 * and the numpy in the same process (which bundles its own OpenBLAS) is not disturbed.
 */
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <type_traits>

#include "../cast.h"
#include "../complex.h"
#include "../dtype.h"
#include "../parallel.h"
#include "dot_op.h"
#include "gemm_layout.h"

extern "C" void openblas_set_num_threads(int);

namespace mxffi {
namespace op {
namespace {

// One thread for OpenBLAS inside mxffi; see the file comment.
[[maybe_unused]] const int kOpenBLASSingleThreaded = (openblas_set_num_threads(1), 0);

/*! \brief The DLDataType of a kernel element type. */
template <typename T>
constexpr DLDataType DataTypeOf() {
  if constexpr (std::is_same_v<T, bool>) {
    return DLDataType{kDLBool, 8, 1};
  } else if constexpr (std::is_same_v<T, half_t>) {
    return DLDataType{kDLFloat, 16, 1};
  } else if constexpr (std::is_same_v<T, bf16_t>) {
    return DLDataType{kDLBfloat, 16, 1};
  } else if constexpr (std::is_floating_point_v<T>) {
    return DLDataType{kDLFloat, static_cast<uint8_t>(8 * sizeof(T)), 1};
  } else if constexpr (kIsComplex<T>) {
    return DLDataType{kDLComplex, static_cast<uint8_t>(8 * sizeof(T)), 1};
  } else if constexpr (std::is_signed_v<T>) {
    return DLDataType{kDLInt, static_cast<uint8_t>(8 * sizeof(T)), 1};
  } else {
    return DLDataType{kDLUInt, static_cast<uint8_t>(8 * sizeof(T)), 1};
  }
}

/*! \brief A matrix of T: element (i, j) at p[i * rs + j * cs]. */
template <typename T>
struct View2D {
  const T* p;
  int64_t rs, cs;
};

/*! \brief The operand as (rs, cs) when its rows and columns each collapse to one stride. */
bool As2D(const GemmOperand& op, int64_t* rs, int64_t* cs) {
  return OperandAs2D<GemmOperand, kMaxNDim>(op, rs, cs);
}

/*!
 * \brief One element of From as To, the way numpy converts dot's operands (a real one becomes
 *  a complex one's real part; a complex one only ever becomes complex, the promoted type).
 */
template <typename To, typename From>
inline To Convert(From x) {
  if constexpr (kIsComplex<From> || kIsComplex<To>) {
    return ConvertOne<To>(x);
  } else {
    return static_cast<To>(static_cast<typename AccType<From>::type>(x));
  }
}

/*! \return acc + a * b; complex with the schoolbook formula, as numpy's and BLAS's loops. */
template <typename Acc>
inline Acc MulAddOf(Acc acc, Acc a, Acc b) {
  if constexpr (kIsComplex<Acc>) {
    return Acc(acc.real() + (a.real() * b.real() - a.imag() * b.imag()),
               acc.imag() + (a.real() * b.imag() + a.imag() * b.real()));
  } else {
    return MulAdd<Acc>(acc, a, b);
  }
}

/*! \brief The operand packed C-contiguously (rows x cols) as To. */
template <typename To>
std::unique_ptr<To[]> Pack(const GemmOperand& op, bool parallel) {
  const int64_t rows = op.rows(), cols = op.cols();
  std::unique_ptr<To[]> out(new To[std::max<int64_t>(rows * cols, 1)]);
  // Column offsets once; rows walked with an index per row axis.
  std::unique_ptr<int64_t[]> coff(new int64_t[std::max<int64_t>(cols, 1)]);
  {
    int64_t idx[kMaxNDim] = {0};
    int64_t off = 0;
    for (int64_t j = 0; j < cols; ++j) {
      coff[j] = off;
      for (int d = op.ncol - 1; d >= 0; --d) {
        off += op.col[d].stride;
        if (++idx[d] < op.col[d].size) break;
        off -= op.col[d].stride * op.col[d].size;
        idx[d] = 0;
      }
    }
  }
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(op.dtype, "dot", From, {
    if constexpr (kIsComplex<From> && !kIsComplex<To>) {
      // Promotion gives a complex result for a complex operand: never reached.
      ThrowNoKernel("dot", DataTypeOf<To>());
    }
    const From* src = static_cast<const From*>(op.data);
    To* dst = out.get();
    auto body = [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t roff = 0, rest = i;
        for (int d = op.nrow - 1; d >= 0; --d) {
          roff += (rest % op.row[d].size) * op.row[d].stride;
          rest /= op.row[d].size;
        }
        const From* s = src + roff;
        To* t = dst + i * cols;
        for (int64_t j = 0; j < cols; ++j) t[j] = Convert<To>(s[coff[j]]);
      }
    };
    if (parallel) {
      ParallelFor(rows, cols, body);
    } else if (rows > 0) {
      body(0, rows);
    }
  });
  return out;
}

/*! \brief The operand as a 2-D view of T: itself when it is one, else a packed copy. */
template <typename T>
View2D<T> Prepare(const GemmOperand& op, bool need_blas, bool parallel,
                  std::unique_ptr<T[]>* storage, bool* trans = nullptr, int64_t* ld = nullptr) {
  int64_t rs = 0, cs = 0;
  if (SameDType(op.dtype, DataTypeOf<T>()) && As2D(op, &rs, &cs)) {
    if (!need_blas) return View2D<T>{static_cast<const T*>(op.data), rs, cs};
    if (BlasLayout(op.rows(), op.cols(), rs, cs, trans, ld)) {
      return View2D<T>{static_cast<const T*>(op.data), rs, cs};
    }
  }
  *storage = Pack<T>(op, parallel);
  if (need_blas) {
    *trans = false;
    *ld = std::max<int64_t>(op.cols(), 1);
  }
  return View2D<T>{storage->get(), op.cols(), 1};
}

/*!
 * \brief c (M x N, contiguous) = a @ b in a blocked loop: column blocks of c, row blocks of b
 *  (integers only: partial sums go through c, which is exact modulo 2^bits), then rows of a;
 *  the inner loop runs along a row of b.
 */
template <typename T>
void LoopGemm(int64_t M, int64_t N, int64_t K, View2D<T> a, View2D<T> b, T* c, bool parallel) {
  using Acc = GemmAcc<T>;
  constexpr int64_t kColBlock = 256;
  const int64_t k_block = std::is_integral_v<T> ? 128 : std::max<int64_t>(K, 1);
  auto body = [&](int64_t i0, int64_t i1) {
    Acc acc[kColBlock];
    for (int64_t jb = 0; jb < N; jb += kColBlock) {
      const int64_t jn = std::min(kColBlock, N - jb);
      for (int64_t kb = 0; kb < K; kb += k_block) {
        const int64_t kn = std::min(k_block, K - kb);
        for (int64_t i = i0; i < i1; ++i) {
          T* crow = c + i * N + jb;
          if (kb == 0) {
            for (int64_t j = 0; j < jn; ++j) acc[j] = Acc(0);
          } else {
            for (int64_t j = 0; j < jn; ++j) acc[j] = static_cast<Acc>(crow[j]);
          }
          const T* arow = a.p + i * a.rs;
          for (int64_t k = kb; k < kb + kn; ++k) {
            const Acc av = static_cast<Acc>(arow[k * a.cs]);
            const T* brow = b.p + k * b.rs + jb * b.cs;
            if (b.cs == 1) {
              for (int64_t j = 0; j < jn; ++j) {
                acc[j] = MulAddOf<Acc>(acc[j], av, static_cast<Acc>(brow[j]));
              }
            } else {
              for (int64_t j = 0; j < jn; ++j) {
                acc[j] = MulAddOf<Acc>(acc[j], av, static_cast<Acc>(brow[j * b.cs]));
              }
            }
          }
          for (int64_t j = 0; j < jn; ++j) crow[j] = static_cast<T>(acc[j]);
        }
      }
    }
  };
  if (parallel) {
    ParallelFor(M, N * K, body);
  } else {
    body(0, M);
  }
}

inline void BlasCall(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                     const float* b, int64_t ldb, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), 0.0f, c, static_cast<int>(ldc));
}
inline void BlasCall(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a,
                     int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), 0.0, c, static_cast<int>(ldc));
}
inline void BlasCall(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const complex<float>* a,
                     int64_t lda, const complex<float>* b, int64_t ldb, complex<float>* c,
                     int64_t ldc) {
  const complex<float> one(1.0f, 0.0f), zero(0.0f, 0.0f);
  cblas_cgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &one, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), &zero, c, static_cast<int>(ldc));
}
inline void BlasCall(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const complex<double>* a,
                     int64_t lda, const complex<double>* b, int64_t ldb, complex<double>* c,
                     int64_t ldc) {
  const complex<double> one(1.0, 0.0), zero(0.0, 0.0);
  cblas_zgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &one, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), &zero, c, static_cast<int>(ldc));
}

/*!
 * \brief c = a @ b through OpenBLAS, split into blocks of rows of c (or of columns, when c is
 *  wider than tall) across the pool; each block is one single-threaded cblas call.
 */
template <typename T>
void BlasGemm(int64_t M, int64_t N, int64_t K, const T* a, bool ta, int64_t lda, const T* b,
              bool tb, int64_t ldb, T* c, bool parallel) {
  if (!parallel) {
    BlasCall(ta, tb, M, N, K, a, lda, b, ldb, c, N);
    return;
  }
  if (M >= N) {
    ParallelFor(M, N * K, [&](int64_t r0, int64_t r1) {
      BlasCall(ta, tb, r1 - r0, N, K, ta ? a + r0 : a + r0 * lda, lda, b, ldb, c + r0 * N, N);
    });
  } else {
    ParallelFor(N, M * K, [&](int64_t c0, int64_t c1) {
      BlasCall(ta, tb, M, c1 - c0, K, a, lda, tb ? b + c0 * ldb : b + c0, ldb, c + c0, N);
    });
  }
}

/*! \brief float32/float64, complex64/complex128: OpenBLAS, or the loop for a small product. */
template <typename T>
void FloatGemm(const GemmOperand& a, const GemmOperand& b, T* c, bool parallel) {
  const int64_t M = a.rows(), N = b.cols(), K = a.cols();
  std::unique_ptr<T[]> sa, sb;
  if (M * N * K < kSmallGemm) {
    View2D<T> va = Prepare<T>(a, false, false, &sa);
    View2D<T> vb = Prepare<T>(b, false, false, &sb);
    LoopGemm<T>(M, N, K, va, vb, c, false);
    return;
  }
  bool ta = false, tb = false;
  int64_t lda = 0, ldb = 0;
  View2D<T> va = Prepare<T>(a, true, parallel, &sa, &ta, &lda);
  View2D<T> vb = Prepare<T>(b, true, parallel, &sb, &tb, &ldb);
  BlasGemm<T>(M, N, K, va.p, ta, lda, vb.p, tb, ldb, c, parallel);
}

/*! \brief float16/bfloat16: float32 GEMM on converted copies, rounded once at the end. */
template <typename H>
void HalfGemm(const GemmOperand& a, const GemmOperand& b, H* c, bool parallel) {
  const int64_t M = a.rows(), N = b.cols(), K = a.cols();
  if (M * N * K < kSmallGemm) {
    std::unique_ptr<H[]> sa, sb;
    View2D<H> va = Prepare<H>(a, false, false, &sa);
    View2D<H> vb = Prepare<H>(b, false, false, &sb);
    LoopGemm<H>(M, N, K, va, vb, c, false);
    return;
  }
  // Operands of another dtype become H first (numpy converts to the result type, then
  // multiplies), then float.
  GemmOperand ha = a, hb = b;
  std::unique_ptr<H[]> pa, pb;
  if (!SameDType(a.dtype, DataTypeOf<H>())) {
    pa = Pack<H>(a, parallel);
    ha = GemmOperand();
    ha.data = pa.get();
    ha.dtype = DataTypeOf<H>();
    ha.nrow = ha.ncol = 1;
    ha.row[0] = GemmDim{M, K};
    ha.col[0] = GemmDim{K, 1};
  }
  if (!SameDType(b.dtype, DataTypeOf<H>())) {
    pb = Pack<H>(b, parallel);
    hb = GemmOperand();
    hb.data = pb.get();
    hb.dtype = DataTypeOf<H>();
    hb.nrow = hb.ncol = 1;
    hb.row[0] = GemmDim{K, N};
    hb.col[0] = GemmDim{N, 1};
  }
  std::unique_ptr<float[]> fa = Pack<float>(ha, parallel), fb = Pack<float>(hb, parallel);
  std::unique_ptr<float[]> fc(new float[M * N]);
  BlasGemm<float>(M, N, K, fa.get(), false, K, fb.get(), false, N, fc.get(), parallel);
  const float* src = fc.get();
  auto body = [&](int64_t b0, int64_t e0) {
    for (int64_t i = b0; i < e0; ++i) c[i] = H(src[i]);
  };
  if (parallel) {
    ParallelFor(M * N, 1, body);
  } else {
    body(0, M * N);
  }
}

/*! \brief Integers and bool: the blocked loop, in the result type. */
template <typename T>
void IntGemm(const GemmOperand& a, const GemmOperand& b, T* c, bool parallel) {
  const int64_t M = a.rows(), N = b.cols(), K = a.cols();
  std::unique_ptr<T[]> sa, sb;
  View2D<T> va = Prepare<T>(a, false, parallel, &sa);
  View2D<T> vb = Prepare<T>(b, false, parallel, &sb);
  LoopGemm<T>(M, N, K, va, vb, c, parallel);
}

}  // namespace

void Gemm(const GemmOperand& a, const GemmOperand& b, DLDataType out_dtype, void* c,
          bool parallel) {
  const int64_t M = a.rows(), N = b.cols(), K = a.cols();
  MXFFI_CHECK(K == b.rows(), ValueError)
      << "gemm: inner extents differ: " << K << " and " << b.rows();
  if (M == 0 || N == 0) return;
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(out_dtype, "dot", T, {
    T* out = static_cast<T*>(c);
    if (K == 0) {
      std::fill(out, out + M * N, static_cast<T>(0));
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || kIsComplex<T>) {
      FloatGemm<T>(a, b, out, parallel);
    } else if constexpr (std::is_same_v<T, half_t> || std::is_same_v<T, bf16_t>) {
      HalfGemm<T>(a, b, out, parallel);
    } else {
      IntGemm<T>(a, b, out, parallel);
    }
  });
}

}  // namespace op
}  // namespace mxffi
