/*!
 * \file xinline.h
 * \brief MXFFI_XINLINE, the mark of a function compiled for both devices: the kernels' functors
 *  and element types are written once, in headers that g++ compiles into the CPU kernels and
 *  nvcc into the CUDA ones (MXNet's MSHADOW_XINLINE).
 *
 * Such a header includes nothing that nvcc should not see (no dmlc, no op registry), and where
 * the two devices must compute differently (the CUDA _rn intrinsics, the 16-bit float
 * conversions) it tests MXFFI_DEVICE_CODE, which is 1 only in nvcc's device pass.
 */
#ifndef MXFFI_SRC_OP_XINLINE_H_
#define MXFFI_SRC_OP_XINLINE_H_

#if defined(__CUDACC__)
/*! \brief A function for the host and the device, always inlined (kernels call it per element). */
#define MXFFI_XINLINE __host__ __device__ __forceinline__
#else
/*! \brief A function for the host and the device; on the host, an inline function. */
#define MXFFI_XINLINE inline
#endif

#if defined(__CUDA_ARCH__)
/*! \brief 1 while nvcc compiles device code, 0 for host code (g++, or nvcc's host pass). */
#define MXFFI_DEVICE_CODE 1
#else
#define MXFFI_DEVICE_CODE 0
#endif

#endif  // MXFFI_SRC_OP_XINLINE_H_
