/*!
 * \file copy.cc
 * \brief NDArray::CopyFromTo where a side is on a CUDA device: host to device, device to host,
 *  and device to device on one device or two.
 *
 * Each copy is queued on the current stream of its CUDA side (of the destination's device
 * between two devices), after the work already queued there. A copy to the host waits for its
 * stream before returning, since the host reads the data next. A strided side goes through a
 * contiguous temporary: gathered (or scattered) by the strided copy kernel on the device, or by
 * the CPU copy on the host.
 */
#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include "device.h"
#include "stream.h"

#if MXFFI_USE_CUDA
#include "cuda_common.h"
#include "strided_copy.h"
#endif

namespace mxffi {
namespace cuda {

#if MXFFI_USE_CUDA
namespace {

constexpr const char* kCopy = "ndarray.copy";

int64_t NumBytes(const DLTensor& t) {
  int64_t n = DataTypeBytes(t.dtype);
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

const void* Ptr(const DLTensor& t) { return static_cast<const char*>(t.data) + t.byte_offset; }
void* Ptr(DLTensor& t) { return static_cast<char*>(t.data) + t.byte_offset; }

/*! \brief A contiguous array like t on t's device (a temporary for a strided side). */
NDArray ContiguousLike(const DLTensor& t) {
  return NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
}

/*! \brief Whether host memory at p is page-locked (a cudaMemcpyAsync from it runs later). */
bool IsPinned(const void* p) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace
#endif

void CopyFromTo(const DLTensor& src, const DLTensor& dst) {
  const bool src_gpu = src.device.device_type == kDLCUDA;
  const bool dst_gpu = dst.device.device_type == kDLCUDA;
  if (src_gpu) CheckDevice(src.device, "ndarray.copy");
  if (dst_gpu) CheckDevice(dst.device, "ndarray.copy");
#if MXFFI_USE_CUDA
  const int64_t nbytes = NumBytes(src);
  if (nbytes == 0) return;
  if (src_gpu && dst_gpu && src.device.device_id == dst.device.device_id) {
    DeviceGuard guard(dst.device);
    void* stream = CurrentStream(dst.device.device_id);
    if (NDArray::IsContiguous(src) && NDArray::IsContiguous(dst)) {
      DLTensor d = dst;
      MXFFI_CUDA_CALL(kCopy, cudaMemcpyAsync(Ptr(d), Ptr(src), nbytes, cudaMemcpyDeviceToDevice,
                                             static_cast<cudaStream_t>(stream)));
    } else {
      LaunchStridedCopy(src, dst, stream, kCopy);
    }
    return;
  }
  if (src_gpu && dst_gpu) {
    // Two devices: gather the source on its own stream, copy on the destination's stream once
    // the source stream's work so far is done, then let the source stream go on only after
    // the copy (a block it frees next may be reused by it at once).
    const int sd = src.device.device_id, dd = dst.device.device_id;
    void* ss = CurrentStream(sd);
    void* ds = CurrentStream(dd);
    NDArray src_tmp, dst_tmp;
    DLTensor s = src, d = dst;
    if (!NDArray::IsContiguous(src)) {
      DeviceGuard guard(src.device);
      src_tmp = ContiguousLike(src);
      LaunchStridedCopy(src, src_tmp.tensor(), ss, kCopy);
      s = src_tmp.tensor();
    }
    if (!NDArray::IsContiguous(dst)) {
      dst_tmp = ContiguousLike(dst);
      d = dst_tmp.tensor();
    }
    cudaEvent_t src_done, copy_done;
    {
      DeviceGuard guard(src.device);
      MXFFI_CUDA_CALL(kCopy, cudaEventCreateWithFlags(&src_done, cudaEventDisableTiming));
      MXFFI_CUDA_CALL(kCopy, cudaEventRecord(src_done, static_cast<cudaStream_t>(ss)));
    }
    {
      DeviceGuard guard(dst.device);
      const cudaError_t err = cudaStreamWaitEvent(static_cast<cudaStream_t>(ds), src_done, 0);
      cudaEventDestroy(src_done);
      MXFFI_CUDA_CALL(kCopy, err);
      MXFFI_CUDA_CALL(kCopy, cudaMemcpyPeerAsync(Ptr(d), dd, Ptr(s), sd, nbytes,
                                                 static_cast<cudaStream_t>(ds)));
      MXFFI_CUDA_CALL(kCopy, cudaEventCreateWithFlags(&copy_done, cudaEventDisableTiming));
      MXFFI_CUDA_CALL(kCopy, cudaEventRecord(copy_done, static_cast<cudaStream_t>(ds)));
      if (dst_tmp.defined()) LaunchStridedCopy(d, dst, ds, kCopy);
    }
    {
      DeviceGuard guard(src.device);
      const cudaError_t err = cudaStreamWaitEvent(static_cast<cudaStream_t>(ss), copy_done, 0);
      cudaEventDestroy(copy_done);
      MXFFI_CUDA_CALL(kCopy, err);
    }
    return;
  }
  if (dst_gpu) {
    // Host to device. A pageable source is staged by the driver before cudaMemcpyAsync
    // returns; a pinned one is read later, so the stream is waited for (the caller may free
    // the source next).
    DeviceGuard guard(dst.device);
    void* stream = CurrentStream(dst.device.device_id);
    NDArray host_tmp = NDArray::IsContiguous(src) ? NDArray() : NDArray::Copy(src);
    const void* from = host_tmp.defined() ? host_tmp.data() : Ptr(src);
    NDArray dst_tmp = NDArray::IsContiguous(dst) ? NDArray() : ContiguousLike(dst);
    DLTensor d = dst_tmp.defined() ? dst_tmp.tensor() : dst;
    MXFFI_CUDA_CALL(kCopy, cudaMemcpyAsync(Ptr(d), from, nbytes, cudaMemcpyHostToDevice,
                                           static_cast<cudaStream_t>(stream)));
    if (dst_tmp.defined()) LaunchStridedCopy(d, dst, stream, kCopy);
    if (IsPinned(from)) SynchronizeStream(dst.device.device_id, stream, kCopy);
    return;
  }
  // Device to host: the host reads the data next, so the stream is waited for.
  DeviceGuard guard(src.device);
  void* stream = CurrentStream(src.device.device_id);
  NDArray src_tmp;
  DLTensor s = src;
  if (!NDArray::IsContiguous(src)) {
    src_tmp = ContiguousLike(src);
    LaunchStridedCopy(src, src_tmp.tensor(), stream, kCopy);
    s = src_tmp.tensor();
  }
  NDArray host_tmp = NDArray::IsContiguous(dst)
                         ? NDArray()
                         : NDArray::Empty(dst.shape, dst.ndim, dst.dtype, DLDevice{kDLCPU, 0});
  DLTensor d = host_tmp.defined() ? host_tmp.tensor() : dst;
  MXFFI_CUDA_CALL(kCopy, cudaMemcpyAsync(Ptr(d), Ptr(s), nbytes, cudaMemcpyDeviceToHost,
                                         static_cast<cudaStream_t>(stream)));
  SynchronizeStream(src.device.device_id, stream, kCopy);
  if (host_tmp.defined()) NDArray::CopyFromTo(host_tmp.tensor(), dst);
#else
  (void)src_gpu, (void)dst_gpu;
  MXFFI_THROW(RuntimeError) << "ndarray.copy: unreachable without CUDA";
#endif
}

namespace {

/*! \brief A C-contiguous copy of a dense array on device. */
NDArray DenseTo(const NDArray& src, DLDevice device) {
  const DLTensor& t = src.tensor();
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, device);
  NDArray::CopyFromTo(t, out.tensor());
  return out;
}

}  // namespace

NDArray ToDevice(const NDArray& src, DLDevice device, const char* fname) {
  MXFFI_CHECK(device.device_type == kDLCPU || device.device_type == kDLCUDA, NotImplementedError)
      << fname << ": device type " << device.device_type
      << " is not supported; only the CPU (1) and CUDA (2) are";
  if (device.device_type == kDLCUDA) CheckDevice(device, fname);
  src.CheckStorageKnown(fname, "the array");
  if (!src.is_sparse()) return DenseTo(src, device);
  const DLTensor& t = src.tensor();
  NDArray out = NDArray::EmptySparse(src.stype(), t.shape, t.ndim, t.dtype, device);
  if (!src.storage_initialized()) return out;
  const NDArray& third = src.sparse_part(2);  // csr indptr, coo col; none for row_sparse
  out.SetSparseStorage(DenseTo(src.sparse_part(0), device), DenseTo(src.sparse_part(1), device),
                       third.defined() ? DenseTo(third, device) : NDArray());
  return out;
}

}  // namespace cuda
}  // namespace mxffi
