/*!
 * \file dispatch.h
 * \brief np.linalg's factorizations and solvers on the device of their input: the functions of
 *  lapack.h, with the same arguments and results, that run cuSOLVER (cusolver_ops.cc) for an
 *  array on a CUDA device where the library loads, and LAPACK on the host otherwise (a CUDA
 *  input is then copied to the host; its results stay there). Inputs are C-contiguous arrays of
 *  float32, float64, complex64 or complex128 on one device.
 */
#ifndef MXFFI_SRC_OP_LINALG_DISPATCH_H_
#define MXFFI_SRC_OP_LINALG_DISPATCH_H_

#include <mxffi/ndarray/ndarray.h>

#include <vector>

namespace mxffi {
namespace op {
namespace linalg {
namespace dispatch {

/*!
 * \return where the factorizations of an array on device run: device itself when it is a CUDA
 *  device and cuSOLVER could be loaded, else the host.
 */
DLDevice ComputeDevice(DLDevice device);

NDArray Inv(const NDArray& a, const char* fname);
NDArray Solve(const NDArray& a, const NDArray& b, const char* fname);
void Slogdet(const NDArray& a, NDArray* sign, NDArray* logabs, const char* fname);
NDArray Det(const NDArray& a, const char* fname);
NDArray Cholesky(const NDArray& a, bool upper, const char* fname);
void Qr(const NDArray& a, bool complete, NDArray* q, NDArray* r, const char* fname);
void Eigh(const NDArray& a, bool lower, NDArray* w, NDArray* v, const char* fname);
void Svd(const NDArray& a, bool full, NDArray* u, NDArray* s, NDArray* vh, const char* fname);
/*! \brief Pinv and MatrixRank run on the host (LAPACK's SVD) for every input. */
NDArray Pinv(const NDArray& a, const std::vector<double>& rtol, const char* fname);
NDArray MatrixRank(const NDArray& a, const std::vector<double>& rtol, const char* fname);

}  // namespace dispatch
}  // namespace linalg
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_LINALG_DISPATCH_H_
