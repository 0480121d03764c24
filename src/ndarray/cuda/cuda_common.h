/*!
 * \file cuda_common.h
 * \brief What the device runtime, the CUDA kernels (src/op/<family>/<name>.cu) and the GPU ops
 *  (src/op/<family>/<name>_gpu.cc) share: checked CUDA calls. Included only where MXFFI_USE_CUDA
 *  is 1.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_CUDA_COMMON_H_
#define MXFFI_SRC_NDARRAY_CUDA_CUDA_COMMON_H_

#include <cuda_runtime.h>
#include <mxffi/error.h>

/*!
 * \brief Run a CUDA runtime call; on failure throw RuntimeError "<fname>: <call> failed:
 *  <message> (<error name>)", after clearing the error so later calls are not poisoned.
 */
#define MXFFI_CUDA_CALL(fname, call)                                                             \
  do {                                                                                           \
    const cudaError_t mxffi_cuda_err_ = (call);                                                  \
    if (mxffi_cuda_err_ != cudaSuccess) {                                                        \
      cudaGetLastError();                                                                        \
      MXFFI_THROW(RuntimeError) << (fname)                                                       \
                                << ": " #call " failed: " << cudaGetErrorString(mxffi_cuda_err_) \
                                << " (" << cudaGetErrorName(mxffi_cuda_err_) << ")";             \
    }                                                                                            \
  } while (0)

/*! \brief After a kernel launch: throw RuntimeError naming fname if the launch failed. */
#define MXFFI_CUDA_CHECK_LAUNCH(fname) MXFFI_CUDA_CALL(fname, cudaGetLastError())

#endif  // MXFFI_SRC_NDARRAY_CUDA_CUDA_COMMON_H_
