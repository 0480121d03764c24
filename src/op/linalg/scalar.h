/*!
 * \file scalar.h
 * \brief What the host LAPACK path (lapack.cc) and the cuSOLVER path (cusolver_ops.cc) share on
 *  the element side: the real type of a scalar, the dtype switch of the four linalg dtypes, and
 *  numpy's sign and log|det| of a matrix from its LU factors.
 */
#ifndef MXFFI_SRC_OP_LINALG_SCALAR_H_
#define MXFFI_SRC_OP_LINALG_SCALAR_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "../type_switch.h"

namespace mxffi {
namespace op {
namespace linalg {

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <typename T>
using Real = typename RealOf<T>::type;

template <typename T>
constexpr bool kIsComplex = !std::is_same_v<T, Real<T>>;

/*! \brief f(a value of the C++ type of t): float32/64, complex64/128; else fname's TypeError. */
template <typename F>
void LinalgSwitch(DLDataType t, const char* fname, F&& f) {
  const int code = t.lanes == 1 ? (t.code << 8 | t.bits) : -1;
  switch (code) {
    case kDLFloat << 8 | 32:
      return f(float{});
    case kDLFloat << 8 | 64:
      return f(double{});
    case kDLComplex << 8 | 64:
      return f(std::complex<float>{});
    case kDLComplex << 8 | 128:
      return f(std::complex<double>{});
    default:
      ThrowUnsupportedDType(fname, t);
  }
}

/*!
 * \brief numpy's sign and log|det| of one n x n matrix from its LU factors: diag[i * step] the
 *  i-th diagonal element of U, ipiv the 1-based pivots. A NaN or infinite pivot leaves the sign
 *  as it is (numpy's rule). An exactly zero pivot (getrf's info > 0) is the caller's: sign 0 and
 *  log|det| -inf.
 */
template <typename T, typename I>
void SignLogFromLU(const T* diag, int64_t step, const I* ipiv, int64_t n, T* sign,
                   Real<T>* logabs) {
  using R = Real<T>;
  T sg = T(1);
  R lg = R(0);
  for (int64_t i = 0; i < n; ++i) {
    const T d = diag[i * step];
    const R mag = std::abs(d);
    if constexpr (kIsComplex<T>) {
      sg *= d / mag;
    } else if (d < R(0)) {
      sg = -sg;
    }
    lg += std::log(mag);
    if (ipiv[i] != i + 1) sg = -sg;
  }
  *sign = sg;
  *logabs = lg;
}

}  // namespace linalg
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_LINALG_SCALAR_H_
