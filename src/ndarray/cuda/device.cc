/*!
 * \file device.cc
 * \brief CUDA device discovery, the device guard, and device arrays (memory from the caching
 *  allocator, allocator.h).
 *
 * The CUDA runtime is linked statically (CUDA::cudart_static): it loads the driver (libcuda)
 * only when first asked, so `import mxffi` works on a machine without a GPU or a driver, and
 * the first question about devices gets the driver's own answer (cudaErrorNoDevice,
 * cudaErrorInsufficientDriver, ...), which the errors below quote.
 */
#include "device.h"

#include <mxffi/registry.h>

#include <memory>
#include <mutex>

#include "allocator.h"

#if MXFFI_USE_CUDA
#include <cuda_runtime.h>
#endif

namespace mxffi {
namespace cuda {
namespace {

struct Discovery {
  int count = 0;
  std::string why;
};

const Discovery& Discover() {
  static const Discovery found = [] {
    Discovery d;
#if MXFFI_USE_CUDA
    cudaError_t err = cudaGetDeviceCount(&d.count);
    if (err != cudaSuccess) {
      d.count = 0;
      d.why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err) + " (" +
              cudaGetErrorName(err) + ")";
      cudaGetLastError();  // clear the sticky error for later calls
    } else if (d.count == 0) {
      d.why = "cudaGetDeviceCount: no CUDA device was found";
    }
#else
    d.why = "mxffi was built without CUDA (MXFFI_USE_CUDA=OFF, or no CUDA compiler at build time)";
#endif
    return d;
  }();
  return found;
}

#if MXFFI_USE_CUDA
/*! \brief The device memory of one array, returned to the caching allocator with the array (its
 *  DLPack deleter). */
struct DeviceBuffer {
  DLManagedTensor managed{};
  std::unique_ptr<int64_t[]> shape;
};

void FreeDeviceBuffer(DLManagedTensor* self) {
  auto* buffer = static_cast<DeviceBuffer*>(self->manager_ctx);
  void* data = buffer->managed.dl_tensor.data;
  if (data != nullptr) DeviceAllocator(buffer->managed.dl_tensor.device.device_id).Free(data);
  delete buffer;
}
#endif

}  // namespace

bool Compiled() { return MXFFI_USE_CUDA != 0; }

void DeviceGuard::Enter(int device_id) {
#if MXFFI_USE_CUDA
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  if (current != device_id && cudaSetDevice(device_id) == cudaSuccess) previous_ = current;
  cudaGetLastError();
#else
  (void)device_id;
#endif
}

void DeviceGuard::Leave() {
#if MXFFI_USE_CUDA
  cudaSetDevice(previous_);
#endif
}

int DeviceCount(std::string* why) {
  const Discovery& d = Discover();
  if (why != nullptr) *why = d.why;
  return d.count;
}

void CheckDevice(DLDevice device, const char* fname) {
  MXFFI_CHECK(device.device_type == kDLCUDA, ValueError)
      << fname << ": device type " << device.device_type << " is not a CUDA device";
  std::string why;
  const int count = DeviceCount(&why);
  MXFFI_CHECK(count > 0, RuntimeError)
      << fname << ": cuda:" << device.device_id << " was asked for, but no CUDA device is "
      << "available: " << why;
  MXFFI_CHECK(device.device_id >= 0 && device.device_id < count, ValueError)
      << fname << ": cuda:" << device.device_id << " does not exist; " << count
      << (count == 1 ? " CUDA device is" : " CUDA devices are") << " available (cuda:0"
      << (count > 1 ? " to cuda:" + std::to_string(count - 1) : std::string()) << ")";
}

NDArray Empty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device,
              int64_t nbytes) {
  CheckDevice(device, "ndarray.empty");
#if MXFFI_USE_CUDA
  auto buffer = std::make_unique<DeviceBuffer>();
  buffer->shape.reset(new int64_t[ndim > 0 ? ndim : 1]);
  for (int32_t i = 0; i < ndim; ++i) buffer->shape[i] = shape[i];
  DLTensor& t = buffer->managed.dl_tensor;
  t.device = device;
  t.dtype = dtype;
  t.ndim = ndim;
  t.shape = buffer->shape.get();
  t.strides = nullptr;
  t.byte_offset = 0;
  t.data = nullptr;
  // Memory from the caching allocator, for use on the device's current stream: a block freed
  // by that stream is reused without waiting (see allocator.h).
  t.data = DeviceAllocator(device.device_id)
               .Allocate(static_cast<size_t>(nbytes), CurrentStream(device.device_id));
  buffer->managed.manager_ctx = buffer.get();
  buffer->managed.deleter = FreeDeviceBuffer;
  DLManagedTensor* managed = &buffer.release()->managed;
  try {
    return NDArray::FromDLPack(managed);
  } catch (...) {
    FreeDeviceBuffer(managed);
    throw;
  }
#else
  (void)shape, (void)ndim, (void)dtype, (void)nbytes;
  MXFFI_THROW(RuntimeError) << "ndarray.empty: unreachable without CUDA";
#endif
}

}  // namespace cuda

MXFFI_REGISTER_API("cuda.device_count")
    .describe(
        "The number of CUDA devices the driver reports: 0 without a GPU, a driver, or CUDA "
        "support in this build (cuda.unavailable_reason says which).")
    .set_body_typed([]() { return static_cast<int64_t>(cuda::DeviceCount()); });

MXFFI_REGISTER_API("cuda.unavailable_reason")
    .describe("Why cuda.device_count is 0 (the driver's message), or '' when it is not.")
    .set_body_typed([]() {
      std::string why;
      return cuda::DeviceCount(&why) > 0 ? std::string() : why;
    });

MXFFI_REGISTER_API("cuda.compiled")
    .describe("Whether this build of mxffi has CUDA support compiled in (MXFFI_USE_CUDA).")
    .set_body_typed([]() { return cuda::Compiled(); });

}  // namespace mxffi
