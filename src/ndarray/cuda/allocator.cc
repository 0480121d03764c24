/*!
 * \file allocator.cc
 * \brief The CUDA backend of the caching allocator (cudaMalloc, cudaFree, events), one
 *  allocator per device, and the cuda.memory_stats / cuda.empty_cache globals.
 */
#include "allocator.h"

#include <mxffi/container/map.h>
#include <mxffi/registry.h>

#include <memory>
#include <string>

#include "device.h"

#if MXFFI_USE_CUDA
#include "cuda_common.h"
#endif

namespace mxffi {
namespace cuda {
namespace {

#if MXFFI_USE_CUDA
/*!
 * \brief Device memory and events of one device, each call made with that device current (a
 *  block may be freed from any thread, whatever device it has current).
 */
class CudaBackend final : public AllocatorBackend {
 public:
  explicit CudaBackend(int device_id) : device_id_(device_id) {}

  void* Malloc(size_t nbytes) override {
    DeviceGuard guard(DLDevice{kDLCUDA, device_id_});
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    MXFFI_CUDA_CALL("ndarray.empty", err);
    return ptr;
  }
  void Free(void* ptr) override {
    DeviceGuard guard(DLDevice{kDLCUDA, device_id_});
    if (cudaFree(ptr) != cudaSuccess) cudaGetLastError();
  }
  void* RecordEvent(void* stream) override {
    // Called where a block is freed, from an array's deleter, which must not throw: when no
    // event can be recorded, the device is synchronised instead and nullptr ("done") returned.
    DeviceGuard guard(DLDevice{kDLCUDA, device_id_});
    cudaEvent_t event = nullptr;
    if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) == cudaSuccess) {
      if (cudaEventRecord(event, static_cast<cudaStream_t>(stream)) == cudaSuccess) return event;
      cudaEventDestroy(event);
    }
    cudaGetLastError();
    cudaDeviceSynchronize();
    cudaGetLastError();
    return nullptr;
  }
  bool EventDone(void* event) override {
    if (event == nullptr) return true;
    DeviceGuard guard(DLDevice{kDLCUDA, device_id_});
    const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    MXFFI_CUDA_CALL("cuda.allocator", err);
    return true;
  }
  void DestroyEvent(void* event) override {
    if (event == nullptr) return;
    DeviceGuard guard(DLDevice{kDLCUDA, device_id_});
    if (cudaEventDestroy(static_cast<cudaEvent_t>(event)) != cudaSuccess) cudaGetLastError();
  }

 private:
  int device_id_;
};
#endif

/*! \brief A device's backend and allocator; never destroyed (CUDA may be torn down first). */
struct DeviceHeap {
#if MXFFI_USE_CUDA
  explicit DeviceHeap(int device_id) : backend(device_id), allocator(&backend, device_id) {}
  CudaBackend backend;
#else
  explicit DeviceHeap(int device_id) : allocator(nullptr, device_id) {}
#endif
  CachingAllocator allocator;
};

}  // namespace

CachingAllocator& DeviceAllocator(int device_id) {
  // Sized on first use by the device count; CheckDevice has vetted device_id before.
  static std::unique_ptr<DeviceHeap>* heaps = [] {
    const int n = DeviceCount();
    auto* h = new std::unique_ptr<DeviceHeap>[n > 0 ? n : 1];
    for (int i = 0; i < n; ++i) h[i].reset(new DeviceHeap(i));
    return h;
  }();
  MXFFI_CHECK(device_id >= 0 && device_id < DeviceCount(), ValueError)
      << "cuda.allocator: cuda:" << device_id << " does not exist";
  return heaps[device_id]->allocator;
}

void RecordStream(int device_id, void* ptr, void* stream) {
  if (ptr == nullptr) return;
  DeviceAllocator(device_id).RecordStream(ptr, stream);
}

}  // namespace cuda

MXFFI_REGISTER_API("cuda.memory_stats")
    .describe(
        "The caching allocator's figures for a CUDA device: allocated_bytes, "
        "peak_allocated_bytes, reserved_bytes, cached_bytes, pending_bytes, num_blocks, "
        "num_allocations, num_cache_hits, num_device_mallocs, num_device_frees, "
        "num_oom_retries.")
    .arg("device")
    .set_body_typed([](int64_t device) {
      MXFFI_CHECK(device >= 0 && device < (int64_t{1} << 31), ValueError)
          << "cuda.memory_stats: device index must be a non-negative int32, got " << device;
      cuda::CheckDevice(DLDevice{kDLCUDA, static_cast<int32_t>(device)}, "cuda.memory_stats");
      const cuda::AllocatorStats s = cuda::DeviceAllocator(static_cast<int>(device)).Stats();
      Map<String, Any> out;
      out.Set("allocated_bytes", s.allocated_bytes);
      out.Set("peak_allocated_bytes", s.peak_allocated_bytes);
      out.Set("reserved_bytes", s.reserved_bytes);
      out.Set("cached_bytes", s.cached_bytes);
      out.Set("pending_bytes", s.pending_bytes);
      out.Set("num_blocks", s.num_blocks);
      out.Set("num_allocations", s.num_allocations);
      out.Set("num_cache_hits", s.num_cache_hits);
      out.Set("num_device_mallocs", s.num_device_mallocs);
      out.Set("num_device_frees", s.num_device_frees);
      out.Set("num_oom_retries", s.num_oom_retries);
      return out;
    });

MXFFI_REGISTER_API("cuda.empty_cache")
    .describe(
        "Give the device memory cached in free blocks back to the driver (every device when "
        "device is None); memory held by arrays stays.")
    .arg("device", nullptr)
    .set_body_typed([](AnyView device) {
      std::optional<int64_t> id;
      if (!device.is_none()) {
        id = device.try_cast<int64_t>();
        MXFFI_CHECK(id.has_value(), TypeError)
            << "cuda.empty_cache: argument #0 'device' expected a device index or None, got "
            << device.GetTypeName();
        MXFFI_CHECK(*id >= 0 && *id < (int64_t{1} << 31), ValueError)
            << "cuda.empty_cache: device index must be a non-negative int32, got " << *id;
      }
      cuda::CheckDevice(DLDevice{kDLCUDA, static_cast<int32_t>(id.value_or(0))},
                        "cuda.empty_cache");
      const int first = static_cast<int>(id.value_or(0));
      const int last = id.has_value() ? first : cuda::DeviceCount() - 1;
      for (int d = first; d <= last; ++d) cuda::DeviceAllocator(d).EmptyCache();
    });

}  // namespace mxffi
