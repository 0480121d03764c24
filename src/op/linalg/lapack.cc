/*!
 * \file lapack.cc
 * \brief The batched LAPACK calls of lapack.h. Each matrix is gathered from the C-contiguous
 *  input into a column-major workspace (LAPACK's layout, and LAPACK overwrites its input
 *  anyway), factored there, and its results scattered back into C-contiguous outputs.
 */
#include "lapack.h"

#include <complex>
// LAPACKE's complex arguments as std::complex (the same layout as its C99 default).
#define LAPACK_COMPLEX_CUSTOM
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>
#include <mxffi/error.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "../type_switch.h"
#include "scalar.h"

namespace mxffi {
namespace op {
namespace linalg {
namespace {

// ---- LAPACKE by element type (column-major throughout) ----

#define MXFFI_LAPACK_4(Ret, Name, s, d, c, z, Params, Args)                    \
  inline Ret Name(float* a, Params) { return LAPACKE_##s Args; }               \
  inline Ret Name(double* a, Params) { return LAPACKE_##d Args; }              \
  inline Ret Name(std::complex<float>* a, Params) { return LAPACKE_##c Args; } \
  inline Ret Name(std::complex<double>* a, Params) { return LAPACKE_##z Args; }

#define MXFFI_P(...) __VA_ARGS__

// LU with partial pivoting: a = P L U.
MXFFI_LAPACK_4(lapack_int, Getrf, sgetrf, dgetrf, cgetrf, zgetrf,
               MXFFI_P(lapack_int m, lapack_int n, lapack_int* ipiv),
               (LAPACK_COL_MAJOR, m, n, a, m, ipiv))
// The inverse from the LU factors.
MXFFI_LAPACK_4(lapack_int, Getri, sgetri, dgetri, cgetri, zgetri,
               MXFFI_P(lapack_int n, const lapack_int* ipiv), (LAPACK_COL_MAJOR, n, a, n, ipiv))
// Cholesky.
MXFFI_LAPACK_4(lapack_int, Potrf, spotrf, dpotrf, cpotrf, zpotrf, MXFFI_P(char uplo, lapack_int n),
               (LAPACK_COL_MAJOR, uplo, n, a, n))

#undef MXFFI_LAPACK_4
#undef MXFFI_P

// Solve with the LU factors of a (n x n) for b (n x nrhs), both column-major.
inline lapack_int Getrs(lapack_int n, lapack_int nrhs, const float* a, const lapack_int* ipiv,
                        float* b) {
  return LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, n, ipiv, b, n);
}
inline lapack_int Getrs(lapack_int n, lapack_int nrhs, const double* a, const lapack_int* ipiv,
                        double* b) {
  return LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, n, ipiv, b, n);
}
inline lapack_int Getrs(lapack_int n, lapack_int nrhs, const std::complex<float>* a,
                        const lapack_int* ipiv, std::complex<float>* b) {
  return LAPACKE_cgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, n, ipiv, b, n);
}
inline lapack_int Getrs(lapack_int n, lapack_int nrhs, const std::complex<double>* a,
                        const lapack_int* ipiv, std::complex<double>* b) {
  return LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, n, ipiv, b, n);
}

// Householder QR: a (m x n) -> R above the diagonal, reflectors below; tau (min(m, n)).
inline lapack_int Geqrf(lapack_int m, lapack_int n, float* a, float* tau) {
  return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, m, tau);
}
inline lapack_int Geqrf(lapack_int m, lapack_int n, double* a, double* tau) {
  return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, m, tau);
}
inline lapack_int Geqrf(lapack_int m, lapack_int n, std::complex<float>* a,
                        std::complex<float>* tau) {
  return LAPACKE_cgeqrf(LAPACK_COL_MAJOR, m, n, a, m, tau);
}
inline lapack_int Geqrf(lapack_int m, lapack_int n, std::complex<double>* a,
                        std::complex<double>* tau) {
  return LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, a, m, tau);
}

// Q (m x n) from the first k reflectors of geqrf.
inline lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, float* a, const float* tau) {
  return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, a, m, tau);
}
inline lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, double* a, const double* tau) {
  return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, m, tau);
}
inline lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, std::complex<float>* a,
                        const std::complex<float>* tau) {
  return LAPACKE_cungqr(LAPACK_COL_MAJOR, m, n, k, a, m, tau);
}
inline lapack_int Orgqr(lapack_int m, lapack_int n, lapack_int k, std::complex<double>* a,
                        const std::complex<double>* tau) {
  return LAPACKE_zungqr(LAPACK_COL_MAJOR, m, n, k, a, m, tau);
}

// Symmetric / Hermitian eigensolver (divide and conquer): w ascending, vectors in a.
inline lapack_int Syevd(char jobz, char uplo, lapack_int n, float* a, float* w) {
  return LAPACKE_ssyevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
}
inline lapack_int Syevd(char jobz, char uplo, lapack_int n, double* a, double* w) {
  return LAPACKE_dsyevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
}
inline lapack_int Syevd(char jobz, char uplo, lapack_int n, std::complex<float>* a, float* w) {
  return LAPACKE_cheevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
}
inline lapack_int Syevd(char jobz, char uplo, lapack_int n, std::complex<double>* a, double* w) {
  return LAPACKE_zheevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
}

// SVD (divide and conquer): u (m x ucols, ld m), vt (vrows x n, ld vrows).
inline lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, float* a, float* s, float* u,
                        float* vt, lapack_int ldvt) {
  return LAPACKE_sgesdd(LAPACK_COL_MAJOR, jobz, m, n, a, m, s, u, m, vt, ldvt);
}
inline lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, double* a, double* s, double* u,
                        double* vt, lapack_int ldvt) {
  return LAPACKE_dgesdd(LAPACK_COL_MAJOR, jobz, m, n, a, m, s, u, m, vt, ldvt);
}
inline lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, std::complex<float>* a, float* s,
                        std::complex<float>* u, std::complex<float>* vt, lapack_int ldvt) {
  return LAPACKE_cgesdd(LAPACK_COL_MAJOR, jobz, m, n, a, m, s, u, m, vt, ldvt);
}
inline lapack_int Gesdd(char jobz, lapack_int m, lapack_int n, std::complex<double>* a, double* s,
                        std::complex<double>* u, std::complex<double>* vt, lapack_int ldvt) {
  return LAPACKE_zgesdd(LAPACK_COL_MAJOR, jobz, m, n, a, m, s, u, m, vt, ldvt);
}

// ---- shapes, workspaces, dispatch ----

/*! \brief A stack of matrices: the leading shape, its element count, and each matrix's M, N. */
struct Stack {
  std::vector<int64_t> batch;
  int64_t count = 1;
  int64_t m = 0, n = 0;
};

Stack StackOf(const NDArray& a, const char* fname) {
  const DLTensor& t = a.tensor();
  MXFFI_CHECK(t.ndim >= 2, ValueError)
      << fname << ": expected a stack of matrices (at least 2 dimensions), got " << t.ndim;
  MXFFI_CHECK(a.IsContiguous() && t.device.device_type == kDLCPU, ValueError)
      << fname << ": internal: the LAPACK kernels take C-contiguous host arrays";
  Stack s;
  s.batch.assign(t.shape, t.shape + t.ndim - 2);
  for (int64_t d : s.batch) s.count *= d;
  s.m = t.shape[t.ndim - 2];
  s.n = t.shape[t.ndim - 1];
  MXFFI_CHECK(s.m <= INT_MAX && s.n <= INT_MAX, ValueError)
      << fname << ": matrices of " << s.m << " x " << s.n << " exceed LAPACK's 32-bit sizes";
  return s;
}

void CheckSquare(const Stack& s, const char* fname) {
  MXFFI_CHECK(s.m == s.n, LinAlgError)
      << fname << ": Last 2 dimensions of the array must be square, got " << s.m << " x " << s.n;
}

/*! \return the shape batch + tail. */
std::vector<int64_t> ShapeWith(const Stack& s, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> shape = s.batch;
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

DLDataType RealDType(DLDataType t) {
  return t.code == kDLComplex ? DLDataType{kDLFloat, static_cast<uint8_t>(t.bits / 2), 1} : t;
}

/*! \brief The side of the square tiles the layout changes below copy through: a tile of
 *  complex128 (16 KiB) stays in L1 while it is read along one axis and written along the other.
 *  Copying element by element across the whole matrix instead strides the writes by a row, which
 *  for a 512 x 512 float64 matrix cost more than its LU factorization. */
constexpr int64_t kLayoutTile = 32;

/*! \brief Copy the row-major m x n matrix src into the column-major workspace dst (ld m). */
template <typename T>
void GatherColMajor(const T* src, int64_t m, int64_t n, T* dst) {
  for (int64_t i0 = 0; i0 < m; i0 += kLayoutTile) {
    const int64_t i1 = std::min(m, i0 + kLayoutTile);
    for (int64_t j0 = 0; j0 < n; j0 += kLayoutTile) {
      const int64_t j1 = std::min(n, j0 + kLayoutTile);
      for (int64_t j = j0; j < j1; ++j) {
        for (int64_t i = i0; i < i1; ++i) dst[i + j * m] = src[i * n + j];
      }
    }
  }
}

/*! \brief Copy rows x cols of the column-major src (leading dimension ld) into row-major dst. */
template <typename T>
void ScatterRowMajor(const T* src, int64_t ld, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i0 = 0; i0 < rows; i0 += kLayoutTile) {
    const int64_t i1 = std::min(rows, i0 + kLayoutTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kLayoutTile) {
      const int64_t j1 = std::min(cols, j0 + kLayoutTile);
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) dst[i * cols + j] = src[i + j * ld];
      }
    }
  }
}

/*!
 * \brief LAPACKE's high-level functions refuse a matrix holding a NaN or an infinity (info -i
 *  for the matrix, before LAPACK runs) while their NaN check is on. numpy calls LAPACK with no
 *  such check: a NaN flows into the results, or the routine reports that it did not converge
 *  (LinAlgError). The check is one process-wide LAPACKE setting; it is turned off once, when
 *  this library loads.
 */
[[maybe_unused]] const bool kLapackeNanCheckOff = [] {
  LAPACKE_set_nancheck(0);
  return true;
}();

/*!
 * \brief LAPACKE returns a negative info for a bad argument (a bug here, never the user's) or
 *  for a workspace it could not allocate (MemoryError).
 */
void CheckArgs(lapack_int info, const char* routine, const char* fname) {
  MXFFI_CHECK(info != LAPACK_WORK_MEMORY_ERROR && info != LAPACK_TRANSPOSE_MEMORY_ERROR,
              MemoryError)
      << fname << ": out of memory for LAPACK " << routine << "'s workspace";
  MXFFI_CHECK(info >= 0, RuntimeError)
      << fname << ": LAPACK " << routine << " rejected argument " << -info;
}

}  // namespace

NDArray Inv(const NDArray& a, const char* fname) {
  const Stack s = StackOf(a, fname);
  CheckSquare(s, fname);
  const DLDataType dtype = a.tensor().dtype;
  NDArray out = NDArray::Empty(ShapeWith(s, {s.n, s.n}), dtype, a.tensor().device);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    const int64_t nn = s.n * s.n;
    std::vector<T> work(static_cast<size_t>(nn));
    std::vector<lapack_int> ipiv(static_cast<size_t>(s.n) + 1);
    const T* src = static_cast<const T*>(a.data());
    T* dst = static_cast<T*>(out.data());
    for (int64_t b = 0; b < s.count && s.n > 0; ++b) {
      GatherColMajor(src + b * nn, s.n, s.n, work.data());
      lapack_int info = Getrf(work.data(), s.n, s.n, ipiv.data());
      CheckArgs(info, "getrf", fname);
      MXFFI_CHECK(info == 0, LinAlgError) << fname << ": Singular matrix";
      info = Getri(work.data(), s.n, ipiv.data());
      CheckArgs(info, "getri", fname);
      MXFFI_CHECK(info == 0, LinAlgError) << fname << ": Singular matrix";
      ScatterRowMajor(work.data(), s.n, s.n, s.n, dst + b * nn);
    }
  });
  return out;
}

NDArray Solve(const NDArray& a, const NDArray& b, const char* fname) {
  const Stack sa = StackOf(a, fname), sb = StackOf(b, fname);
  CheckSquare(sa, fname);
  const int64_t n = sa.n, k = sb.n;
  const DLDataType dtype = a.tensor().dtype;
  NDArray out = NDArray::Empty(ShapeWith(sb, {n, k}), dtype, a.tensor().device);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    std::vector<T> lu(static_cast<size_t>(n * n)), rhs(static_cast<size_t>(n * k));
    std::vector<lapack_int> ipiv(static_cast<size_t>(n) + 1);
    const T* pa = static_cast<const T*>(a.data());
    const T* pb = static_cast<const T*>(b.data());
    T* px = static_cast<T*>(out.data());
    for (int64_t i = 0; i < sa.count && n > 0 && k > 0; ++i) {
      GatherColMajor(pa + i * n * n, n, n, lu.data());
      GatherColMajor(pb + i * n * k, n, k, rhs.data());
      lapack_int info = Getrf(lu.data(), n, n, ipiv.data());
      CheckArgs(info, "getrf", fname);
      MXFFI_CHECK(info == 0, LinAlgError) << fname << ": Singular matrix";
      CheckArgs(Getrs(n, k, lu.data(), ipiv.data(), rhs.data()), "getrs", fname);
      ScatterRowMajor(rhs.data(), n, n, k, px + i * n * k);
    }
  });
  return out;
}

void Slogdet(const NDArray& a, NDArray* sign, NDArray* logabs, const char* fname) {
  const Stack s = StackOf(a, fname);
  CheckSquare(s, fname);
  const DLDataType dtype = a.tensor().dtype;
  const DLDevice dev = a.tensor().device;
  *sign = NDArray::Empty(s.batch, dtype, dev);
  *logabs = NDArray::Empty(s.batch, RealDType(dtype), dev);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    using R = Real<T>;
    const int64_t nn = s.n * s.n;
    std::vector<T> work(static_cast<size_t>(nn));
    std::vector<lapack_int> ipiv(static_cast<size_t>(s.n) + 1);
    const T* src = static_cast<const T*>(a.data());
    T* psign = static_cast<T*>(sign->data());
    R* plog = static_cast<R*>(logabs->data());
    for (int64_t b = 0; b < s.count; ++b) {
      psign[b] = T(1);
      plog[b] = R(0);
      if (s.n == 0) continue;
      GatherColMajor(src + b * nn, s.n, s.n, work.data());
      const lapack_int info = Getrf(work.data(), s.n, s.n, ipiv.data());
      CheckArgs(info, "getrf", fname);
      if (info > 0) {
        // An exactly zero pivot: numpy's sign 0 and log|det| -inf.
        psign[b] = T(0);
        plog[b] = -std::numeric_limits<R>::infinity();
      } else {
        SignLogFromLU(work.data(), s.n + 1, ipiv.data(), s.n, psign + b, plog + b);
      }
    }
  });
}

void DetFromSlogdet(const NDArray& sign, const NDArray& logabs, const char* fname) {
  LinalgSwitch(sign.tensor().dtype, fname, [&](auto v) {
    using T = decltype(v);
    using R = Real<T>;
    T* ps = static_cast<T*>(sign.data());
    const R* pl = static_cast<const R*>(logabs.data());
    const int64_t count = sign.numel();
    for (int64_t i = 0; i < count; ++i) ps[i] = ps[i] * std::exp(pl[i]);
  });
}

NDArray Det(const NDArray& a, const char* fname) {
  NDArray sign, logabs;
  Slogdet(a, &sign, &logabs, fname);
  DetFromSlogdet(sign, logabs, fname);
  return sign;
}

NDArray Cholesky(const NDArray& a, bool upper, const char* fname) {
  const Stack s = StackOf(a, fname);
  CheckSquare(s, fname);
  const DLDataType dtype = a.tensor().dtype;
  NDArray out = NDArray::Empty(ShapeWith(s, {s.n, s.n}), dtype, a.tensor().device);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    const int64_t n = s.n, nn = n * n;
    std::vector<T> work(static_cast<size_t>(nn));
    const T* src = static_cast<const T*>(a.data());
    T* dst = static_cast<T*>(out.data());
    for (int64_t b = 0; b < s.count && n > 0; ++b) {
      GatherColMajor(src + b * nn, n, n, work.data());
      const lapack_int info = Potrf(work.data(), upper ? 'U' : 'L', n);
      CheckArgs(info, "potrf", fname);
      MXFFI_CHECK(info == 0, LinAlgError) << fname << ": Matrix is not positive definite";
      // potrf leaves the other triangle as it found it: the factor has zeros there.
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < n; ++i) {
          if (upper ? i > j : i < j) work[i + j * n] = T(0);
        }
      }
      ScatterRowMajor(work.data(), n, n, n, dst + b * nn);
    }
  });
  return out;
}

void Qr(const NDArray& a, bool complete, NDArray* q, NDArray* r, const char* fname) {
  const Stack s = StackOf(a, fname);
  const int64_t m = s.m, n = s.n, k = std::min(m, n);
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  const DLDataType dtype = a.tensor().dtype;
  const DLDevice dev = a.tensor().device;
  if (q != nullptr) *q = NDArray::Empty(ShapeWith(s, {m, qcols}), dtype, dev);
  *r = NDArray::Empty(ShapeWith(s, {rrows, n}), dtype, dev);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    std::vector<T> work(static_cast<size_t>(m * n)), tau(static_cast<size_t>(k) + 1),
        qw(static_cast<size_t>(m * qcols));
    const T* src = static_cast<const T*>(a.data());
    T* pr = static_cast<T*>(r->data());
    T* pq = q != nullptr ? static_cast<T*>(q->data()) : nullptr;
    for (int64_t b = 0; b < s.count; ++b) {
      if (k > 0) {
        GatherColMajor(src + b * m * n, m, n, work.data());
        CheckArgs(Geqrf(m, n, work.data(), tau.data()), "geqrf", fname);
      }
      T* rb = pr + b * rrows * n;
      for (int64_t i = 0; i < rrows; ++i) {
        for (int64_t j = 0; j < n; ++j) rb[i * n + j] = i <= j && k > 0 ? work[i + j * m] : T(0);
      }
      if (pq == nullptr || m == 0 || qcols == 0) continue;
      // Q from the k reflectors, extended to qcols columns (orgqr needs m >= qcols >= k).
      std::fill(qw.begin(), qw.end(), T(0));
      if (k > 0) {
        std::memcpy(qw.data(), work.data(), sizeof(T) * static_cast<size_t>(m * k));
        CheckArgs(Orgqr(m, qcols, k, qw.data(), tau.data()), "orgqr", fname);
      } else {
        for (int64_t i = 0; i < qcols; ++i) qw[i + i * m] = T(1);  // no reflectors: I
      }
      ScatterRowMajor(qw.data(), m, m, qcols, pq + b * m * qcols);
    }
  });
}

void Eigh(const NDArray& a, bool lower, NDArray* w, NDArray* vecs, const char* fname) {
  const Stack s = StackOf(a, fname);
  CheckSquare(s, fname);
  const int64_t n = s.n, nn = n * n;
  const DLDataType dtype = a.tensor().dtype;
  const DLDevice dev = a.tensor().device;
  *w = NDArray::Empty(ShapeWith(s, {n}), RealDType(dtype), dev);
  if (vecs != nullptr) *vecs = NDArray::Empty(ShapeWith(s, {n, n}), dtype, dev);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    using R = Real<T>;
    std::vector<T> work(static_cast<size_t>(nn));
    const T* src = static_cast<const T*>(a.data());
    R* pw = static_cast<R*>(w->data());
    T* pv = vecs != nullptr ? static_cast<T*>(vecs->data()) : nullptr;
    for (int64_t b = 0; b < s.count && n > 0; ++b) {
      GatherColMajor(src + b * nn, n, n, work.data());
      const lapack_int info =
          Syevd(pv != nullptr ? 'V' : 'N', lower ? 'L' : 'U', n, work.data(), pw + b * n);
      CheckArgs(info, "syevd", fname);
      MXFFI_CHECK(info == 0, LinAlgError) << fname << ": Eigenvalues did not converge";
      if (pv != nullptr) ScatterRowMajor(work.data(), n, n, n, pv + b * nn);
    }
  });
}

void Svd(const NDArray& a, bool full, NDArray* u, NDArray* s_out, NDArray* vh, const char* fname) {
  const Stack s = StackOf(a, fname);
  const int64_t m = s.m, n = s.n, k = std::min(m, n);
  const bool vectors = u != nullptr;
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  const DLDataType dtype = a.tensor().dtype;
  const DLDevice dev = a.tensor().device;
  *s_out = NDArray::Empty(ShapeWith(s, {k}), RealDType(dtype), dev);
  if (vectors) {
    *u = NDArray::Empty(ShapeWith(s, {m, ucols}), dtype, dev);
    *vh = NDArray::Empty(ShapeWith(s, {vrows, n}), dtype, dev);
  }
  const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    using R = Real<T>;
    std::vector<T> work(static_cast<size_t>(m * n));
    std::vector<T> uw(vectors ? static_cast<size_t>(m * ucols) : 1),
        vw(vectors ? static_cast<size_t>(vrows * n) : 1);
    const T* src = static_cast<const T*>(a.data());
    R* ps = static_cast<R*>(s_out->data());
    T* pu = vectors ? static_cast<T*>(u->data()) : nullptr;
    T* pv = vectors ? static_cast<T*>(vh->data()) : nullptr;
    for (int64_t b = 0; b < s.count; ++b) {
      if (k == 0) {
        // Nothing to factor: the singular vectors are the identity's columns and rows.
        if (!vectors) continue;
        std::fill(uw.begin(), uw.end(), T(0));
        std::fill(vw.begin(), vw.end(), T(0));
        for (int64_t i = 0; i < std::min(m, ucols); ++i) uw[i + i * m] = T(1);
        for (int64_t i = 0; i < std::min(vrows, n); ++i) vw[i + i * vrows] = T(1);
      } else {
        GatherColMajor(src + b * m * n, m, n, work.data());
        const lapack_int info =
            Gesdd(jobz, m, n, work.data(), ps + b * k, uw.data(), vw.data(), vectors ? vrows : 1);
        // gesdd refuses a matrix holding a NaN as a bad argument A (-5 in LAPACKE's count, the
        // layout first); numpy reports that, as any failure of gesdd, as non-convergence.
        MXFFI_CHECK(info != -5, LinAlgError) << fname << ": SVD did not converge";
        CheckArgs(info, "gesdd", fname);
        MXFFI_CHECK(info == 0, LinAlgError) << fname << ": SVD did not converge";
      }
      if (!vectors) continue;
      if (m > 0) ScatterRowMajor(uw.data(), m, m, ucols, pu + b * m * ucols);
      if (vrows > 0) ScatterRowMajor(vw.data(), vrows, vrows, n, pv + b * vrows * n);
    }
  });
}

NDArray Pinv(const NDArray& a, const std::vector<double>& rtol, const char* fname) {
  const Stack st = StackOf(a, fname);
  const int64_t m = st.m, n = st.n, k = std::min(m, n);
  NDArray u, s, vh;
  Svd(a, false, &u, &s, &vh, fname);
  const DLDataType dtype = a.tensor().dtype;
  NDArray out = NDArray::Empty(ShapeWith(st, {n, m}), dtype, a.tensor().device);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    using R = Real<T>;
    std::vector<T> scaled(static_cast<size_t>(k * m));
    for (int64_t b = 0; b < st.count; ++b) {
      const T* pu = static_cast<const T*>(u.data()) + b * m * k;
      const R* ps = static_cast<const R*>(s.data()) + b * k;
      const T* pv = static_cast<const T*>(vh.data()) + b * k * n;
      T* po = static_cast<T*>(out.data()) + b * n * m;
      const R cutoff = static_cast<R>(rtol[rtol.size() == 1 ? 0 : b]) * (k > 0 ? ps[0] : R(0));
      // pinv = Vh^H diag(1 / s) U^H: first scaled = diag(1 / s) U^H (k x m), then Vh^H scaled.
      for (int64_t l = 0; l < k; ++l) {
        const R inv = ps[l] > cutoff ? R(1) / ps[l] : R(0);
        for (int64_t j = 0; j < m; ++j) {
          T c = pu[j * k + l];
          if constexpr (kIsComplex<T>) c = std::conj(c);
          scaled[l * m + j] = c * inv;
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < m; ++j) po[i * m + j] = T(0);
        for (int64_t l = 0; l < k; ++l) {
          T c = pv[l * n + i];
          if constexpr (kIsComplex<T>) c = std::conj(c);
          if (c == T(0)) continue;
          for (int64_t j = 0; j < m; ++j) po[i * m + j] += c * scaled[l * m + j];
        }
      }
    }
  });
  return out;
}

NDArray MatrixRank(const NDArray& a, const std::vector<double>& rtol, const char* fname) {
  const Stack st = StackOf(a, fname);
  const int64_t k = std::min(st.m, st.n);
  NDArray s;
  Svd(a, false, nullptr, &s, nullptr, fname);
  NDArray out = NDArray::Empty(st.batch, DLDataType{kDLInt, 64, 1}, a.tensor().device);
  int64_t* po = static_cast<int64_t*>(out.data());
  LinalgSwitch(a.tensor().dtype, fname, [&](auto v) {
    using R = Real<decltype(v)>;
    for (int64_t b = 0; b < st.count; ++b) {
      const R* ps = static_cast<const R*>(s.data()) + b * k;
      const R cutoff = static_cast<R>(rtol[rtol.size() == 1 ? 0 : b]) * (k > 0 ? ps[0] : R(0));
      int64_t rank = 0;
      for (int64_t l = 0; l < k; ++l) rank += ps[l] > cutoff;
      po[b] = rank;
    }
  });
  return out;
}

}  // namespace linalg
}  // namespace op
}  // namespace mxffi
