/*!
 * \file device.h
 * \brief CUDA devices as the rest of mxffi sees them: how many there are, why there are none,
 *  and device memory. Built without CUDA, every question has the answer "none", with the
 *  reason.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_DEVICE_H_
#define MXFFI_SRC_NDARRAY_CUDA_DEVICE_H_

#include <dlpack/dlpack.h>
#include <mxffi/ndarray/ndarray.h>

#include <string>

namespace mxffi {
namespace cuda {

/*! \return whether this build of mxffi has CUDA support compiled in. */
bool Compiled();

/*!
 * \return the number of CUDA devices the driver reports, 0 when there is none, no driver, or
 *  no CUDA support compiled in; asked once per process. *why (when given) receives the reason
 *  for 0: the driver's message, or that mxffi was built without CUDA.
 */
int DeviceCount(std::string* why = nullptr);

/*!
 * \brief Throw a RuntimeError naming fname unless device is a CUDA device that exists: "no CUDA
 *  device is available" with the driver's message, or the number of devices there are.
 */
void CheckDevice(DLDevice device, const char* fname);

/*!
 * \return the current stream (a cudaStream_t) of device_id for the calling thread: the one
 *  set with SetCurrentStream (stream.h), or nullptr (the legacy default stream) when none
 *  was; nullptr without CUDA. Ops launch their kernels on it (Invoke passes it in
 *  OpContext::stream), and device memory is allocated for it.
 */
void* CurrentStream(int device_id);

/*!
 * \brief NDArray::CopyFromTo where src or dst is on a CUDA device (the other on the CPU or a CUDA
 *  device): queued on the current stream of the CUDA side (copy.cc says which between two
 *  devices); a copy to the host returns once the data is there. Shapes and dtypes are checked
 *  by the caller.
 * \throws RuntimeError ("no CUDA device is available") for a CUDA side that cannot be had.
 */
void CopyFromTo(const DLTensor& src, const DLTensor& dst);

/*!
 * \brief A copy of src on device (the CPU or a CUDA device): always a new array, C-contiguous;
 *  a sparse array's parts are each copied. What ndarray.to_device and np.array(device=) do.
 * \throws RuntimeError naming fname when a CUDA device cannot be had; NotImplementedError for
 *  other device types.
 */
NDArray ToDevice(const NDArray& src, DLDevice device, const char* fname);

/*!
 * \brief Makes a device current for the calling thread for its lifetime (cudaSetDevice), then
 *  restores the previous one; does nothing for a CPU device or without CUDA.
 */
class DeviceGuard {
 public:
  // Inline, so the CPU calls of Invoke pay one comparison each way, not two calls.
  explicit DeviceGuard(DLDevice device) {
    if (device.device_type == kDLCUDA) Enter(device.device_id);
  }
  ~DeviceGuard() {
    if (previous_ >= 0) Leave();
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  void Enter(int device_id);
  void Leave();
  int previous_ = -1;
};

/*!
 * \brief An uninitialised dense array on a CUDA device (NDArray::Empty's CUDA branch); its
 *  memory comes from the device's caching allocator for the current stream and goes back to
 *  it when the array is freed.
 */
NDArray Empty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device,
              int64_t nbytes);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_DEVICE_H_
