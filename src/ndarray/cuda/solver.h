/*!
 * \file solver.h
 * \brief cuSOLVER's dense routines (cusolverDn) for np.linalg on a CUDA device
 *  (src/op/linalg/cusolver_ops.cc): loaded with dlopen the first time a factorization runs on a
 *  GPU, never linked, and called through the functions here, as blas.h does for cuBLAS.
 *
 * Every function factors count matrices that lie stride_* elements apart, one cuSOLVER call each
 * (column-major, LAPACK's conventions), in stream order on stream with the calling thread's
 * handle for the current device (the caller holds a DeviceGuard for device). info points to
 * count int32 on the device, one per matrix, which the caller reads back after the calls: the
 * functions never wait for the device. dtype is float32, float64, complex64 or complex128
 * (SolverSupports). Built without CUDA, or where libcusolver cannot be loaded, SolverAvailable is
 * false with the reason and the others throw RuntimeError naming fname.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_SOLVER_H_
#define MXFFI_SRC_NDARRAY_CUDA_SOLVER_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace mxffi {
namespace cuda {

/*!
 * \return whether cuSOLVER could be loaded (it is loaded on the first call); *why (when given)
 *  receives the reason when it could not: each library tried and dlopen's message.
 */
bool SolverAvailable(std::string* why = nullptr);

/*!
 * \return how many cuSOLVER factorization routine calls (getrf, getrs, potrf, syevd / heevd,
 *  geqrf, orgqr / ungqr, gesvd; one per matrix) this process has made: tests tell with it that
 *  a function ran on cuSOLVER, not on the host.
 */
int64_t SolverRoutineCalls();

/*! \return whether the cuSOLVER routines here take dtype: float32/64, complex64/128. */
bool SolverSupports(DLDataType dtype);

/*! \brief Where the routines run: the device, its stream, and the name for messages. */
struct SolverCall {
  DLDevice device;
  void* stream;
  const char* fname;
};

/*!
 * \brief LU with partial pivoting (getrf) of count n x n matrices a (lda n, stride_a elements
 *  apart); ipiv gets n 1-based pivots per matrix (stride n), info > 0 for a zero pivot.
 */
void SolverGetrf(DLDataType dtype, int n, void* a, int64_t stride_a, int* ipiv, int* info,
                 int count, const SolverCall& call);

/*!
 * \brief Solve op(A) X = B with getrf's factors (getrs): op is A's transpose (not conjugated)
 *  when trans; b n x nrhs (ldb n), overwritten by X.
 */
void SolverGetrs(DLDataType dtype, bool trans, int n, int nrhs, const void* a, int64_t stride_a,
                 const int* ipiv, void* b, int64_t stride_b, int* info, int count,
                 const SolverCall& call);

/*!
 * \brief Cholesky (potrf) of count n x n Hermitian matrices, reading and writing the lower
 *  triangle (lower) or the upper one; info > 0 where a matrix is not positive definite.
 */
void SolverPotrf(DLDataType dtype, bool lower, int n, void* a, int64_t stride_a, int* info,
                 int count, const SolverCall& call);

/*!
 * \brief The eigenvalues (w: n per matrix, ascending, the real dtype) and, when vectors, the
 *  eigenvectors (overwriting a's columns) of count n x n Hermitian matrices (syevd / heevd),
 *  reading the lower or upper triangle; info > 0 when the method did not converge.
 */
void SolverSyevd(DLDataType dtype, bool vectors, bool lower, int n, void* a, int64_t stride_a,
                 void* w, int* info, int count, const SolverCall& call);

/*!
 * \brief Householder QR (geqrf) of count m x n matrices a (lda m): R on and above the
 *  diagonal, the reflectors below it, min(m, n) factors in tau per matrix (stride min(m, n)).
 */
void SolverGeqrf(DLDataType dtype, int m, int n, void* a, int64_t stride_a, void* tau, int* info,
                 int count, const SolverCall& call);

/*!
 * \brief The m x n matrices Q (orgqr / ungqr) with orthonormal columns from the first k of
 *  geqrf's reflectors in a's columns (lda m) and tau (stride k), overwriting a.
 */
void SolverOrgqr(DLDataType dtype, int m, int n, int k, void* a, int64_t stride_a, const void* tau,
                 int* info, int count, const SolverCall& call);

/*!
 * \brief The SVD a = U diag(s) VT (gesvd) of count m x n matrices a (lda m, m >= n as cuSOLVER
 *  requires), destroying a: s (n per matrix, descending, the real dtype), U m x m (jobu 'A') or
 *  m x n ('S') with ldu m, VT n x n with ldvt n (jobvt 'A'); 'N' leaves that factor out (its
 *  pointer may be null). info > 0 when the method did not converge.
 */
void SolverGesvd(DLDataType dtype, char jobu, char jobvt, int m, int n, void* a, int64_t stride_a,
                 void* s, void* u, int64_t stride_u, void* vt, int64_t stride_vt, int* info,
                 int count, const SolverCall& call);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_SOLVER_H_
