/*!
 * \file lapack.h
 * \brief Batched dense linear algebra on the host through LAPACK (LAPACKE, column-major): the
 *  factorizations and solvers behind np.linalg. Each function takes C-contiguous host arrays of
 *  shape (..., M, N) in float32, float64, complex64 or complex128 (TypeError naming fname for
 *  any other), runs one LAPACK call sequence per matrix of the stack, and returns new
 *  C-contiguous host arrays. A failed factorization is numpy's LinAlgError naming fname.
 */
#ifndef MXFFI_SRC_OP_LINALG_LAPACK_H_
#define MXFFI_SRC_OP_LINALG_LAPACK_H_

#include <mxffi/ndarray/ndarray.h>

#include <vector>

namespace mxffi {
namespace op {
namespace linalg {

/*! \return the inverse of each square matrix of a; LinAlgError "Singular matrix" for one. */
NDArray Inv(const NDArray& a, const char* fname);

/*!
 * \return x with a @ x == b for each pair of the stacks a (..., M, M) and b (..., M, K) (the
 *  same leading shape); LinAlgError "Singular matrix" for a singular a.
 */
NDArray Solve(const NDArray& a, const NDArray& b, const char* fname);

/*!
 * \brief The determinant of each square matrix of a as sign and log|det| (numpy's slogdet:
 *  sign 0 and logabs -inf for a singular matrix; sign has a's dtype, logabs its real dtype).
 */
void Slogdet(const NDArray& a, NDArray* sign, NDArray* logabs, const char* fname);

/*! \return the determinant of each square matrix of a, sign * exp(logabs) as numpy computes. */
NDArray Det(const NDArray& a, const char* fname);

/*! \brief sign = sign * exp(logabs): the determinants from Slogdet's parts (on the host). */
void DetFromSlogdet(const NDArray& sign, const NDArray& logabs, const char* fname);

/*!
 * \return the Cholesky factor of each Hermitian positive-definite matrix of a, lower (a = L L^H)
 *  or upper (a = U^H U); only that triangle of a is read. LinAlgError "Matrix is not positive
 *  definite" otherwise.
 */
NDArray Cholesky(const NDArray& a, bool upper, const char* fname);

/*!
 * \brief The QR factorization of each matrix of a (M, N), K = min(M, N): complete gives Q (M, M)
 *  and R (M, N), reduced Q (M, K) and R (K, N). q may be null (R only).
 */
void Qr(const NDArray& a, bool complete, NDArray* q, NDArray* r, const char* fname);

/*!
 * \brief Eigenvalues (ascending, a's real dtype) and, when v is not null, eigenvectors (the
 *  columns of v) of each Hermitian matrix of a, reading its lower or upper triangle.
 */
void Eigh(const NDArray& a, bool lower, NDArray* w, NDArray* v, const char* fname);

/*!
 * \brief The singular value decomposition a = U diag(S) Vh of each matrix of a (M, N), K = min(M,
 *  N): S (K,) descending in a's real dtype; U (M, M) and Vh (N, N) when full, (M, K) and (K, N)
 *  otherwise; u and vh null for the singular values only.
 */
void Svd(const NDArray& a, bool full, NDArray* u, NDArray* s, NDArray* vh, const char* fname);

/*!
 * \return the pseudo-inverse (..., N, M) of each matrix of a (..., M, N) from its SVD, the
 *  singular values at most rtol * the largest taken as zero; rtol holds one value for every
 *  matrix, or one per matrix of the stack.
 */
NDArray Pinv(const NDArray& a, const std::vector<double>& rtol, const char* fname);

/*! \return the number of singular values above rtol * the largest, per matrix, as int64. */
NDArray MatrixRank(const NDArray& a, const std::vector<double>& rtol, const char* fname);

}  // namespace linalg
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_LINALG_LAPACK_H_
