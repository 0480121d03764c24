/*!
 * \file stream.cc
 * \brief The current stream of each device for each thread, stream creation and ordering, and
 *  the cuda.* globals behind mxffi.cuda.Stream.
 *
 * A stream crosses the C ABI as an integer, the cudaStream_t's value, as PyTorch's
 * `Stream.cuda_stream` and CuPy's `Stream.ptr` give it; 0 is the legacy default stream.
 */
#include "stream.h"

#include <mxffi/ndarray/ndarray.h>
#include <mxffi/registry.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "allocator.h"
#include "device.h"

#if MXFFI_USE_CUDA
#include "cuda_common.h"
#endif

namespace mxffi {
namespace cuda {
namespace {

/*! \brief The calling thread's current stream of each device it set one for. */
thread_local std::vector<void*> current_streams;

void* HandleToStream(int64_t handle) {
  return reinterpret_cast<void*>(static_cast<intptr_t>(handle));
}
int64_t StreamToHandle(void* stream) {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(stream));
}

/*!
 * \brief A stream handle from Python is a cudaStream_t's value (0, 1 and 2 are the legacy,
 *  legacy and per-thread default streams); a negative one is none, and the driver would
 *  dereference it as a stream.
 */
void CheckStreamHandle(int64_t handle, const char* fname, const char* arg = "stream") {
  MXFFI_CHECK(handle >= 0, ValueError)
      << fname << ": " << arg << " handle must be >= 0 (a cudaStream_t), got " << handle;
}

/*! \brief CheckDevice for an integer device index. */
void CheckDeviceId(int64_t device_id, const char* fname) {
  MXFFI_CHECK(device_id >= 0 && device_id < (int64_t{1} << 31), ValueError)
      << fname << ": device index must be a non-negative int32, got " << device_id;
  CheckDevice(DLDevice{kDLCUDA, static_cast<int32_t>(device_id)}, fname);
}

}  // namespace

void* CurrentStream(int device_id) {
  const std::vector<void*>& s = current_streams;
  return device_id >= 0 && static_cast<size_t>(device_id) < s.size() ? s[device_id] : nullptr;
}

void* SetCurrentStream(int device_id, void* stream) {
  if (device_id < 0) return nullptr;
  std::vector<void*>& s = current_streams;
  if (static_cast<size_t>(device_id) >= s.size()) {
    if (stream == nullptr) return nullptr;
    s.resize(device_id + 1, nullptr);
  }
  void* previous = s[device_id];
  s[device_id] = stream;
  return previous;
}

void StreamWaitStream(int device_id, void* waiter, void* waitee, const char* fname) {
#if MXFFI_USE_CUDA
  if (waiter == waitee) return;
  DeviceGuard guard(DLDevice{kDLCUDA, device_id});
  cudaEvent_t event;
  MXFFI_CUDA_CALL(fname, cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  cudaError_t err = cudaEventRecord(event, static_cast<cudaStream_t>(waitee));
  if (err == cudaSuccess) err = cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), event, 0);
  cudaEventDestroy(event);  // released once the wait is satisfied
  MXFFI_CUDA_CALL(fname, err);
#else
  (void)device_id, (void)waiter, (void)waitee;
  MXFFI_THROW(RuntimeError) << fname << ": mxffi was built without CUDA";
#endif
}

void SynchronizeStream(int device_id, void* stream, const char* fname) {
#if MXFFI_USE_CUDA
  DeviceGuard guard(DLDevice{kDLCUDA, device_id});
  MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
#else
  (void)device_id, (void)stream;
  MXFFI_THROW(RuntimeError) << fname << ": mxffi was built without CUDA";
#endif
}

}  // namespace cuda

MXFFI_REGISTER_API("cuda.current_stream")
    .describe(
        "The calling thread's current stream of a CUDA device, as an integer cudaStream_t "
        "(0: the legacy default stream).")
    .arg("device")
    .set_body_typed([](int64_t device) {
      cuda::CheckDeviceId(device, "cuda.current_stream");
      return cuda::StreamToHandle(cuda::CurrentStream(static_cast<int>(device)));
    });

MXFFI_REGISTER_API("cuda.set_current_stream")
    .describe(
        "Make a stream (an integer cudaStream_t of the device; 0 for the legacy default stream) "
        "the calling thread's current stream of a CUDA device; returns the one before.")
    .arg("device")
    .arg("stream")
    .set_body_typed([](int64_t device, int64_t stream) {
      cuda::CheckStreamHandle(stream, "cuda.set_current_stream");
      cuda::CheckDeviceId(device, "cuda.set_current_stream");
      return cuda::StreamToHandle(
          cuda::SetCurrentStream(static_cast<int>(device), cuda::HandleToStream(stream)));
    });

MXFFI_REGISTER_API("cuda.stream_create")
    .describe("A new non-blocking CUDA stream on a device, as an integer cudaStream_t.")
    .arg("device")
    .set_body_typed([](int64_t device) -> int64_t {
      cuda::CheckDeviceId(device, "cuda.stream_create");
#if MXFFI_USE_CUDA
      cuda::DeviceGuard guard(DLDevice{kDLCUDA, static_cast<int32_t>(device)});
      cudaStream_t s = nullptr;
      MXFFI_CUDA_CALL("cuda.stream_create", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      return cuda::StreamToHandle(s);
#else
      return 0;
#endif
    });

MXFFI_REGISTER_API("cuda.stream_destroy")
    .describe(
        "Destroy a stream made by cuda.stream_create after its queued work completes; the "
        "device memory cached for it goes to the default stream.")
    .arg("device")
    .arg("stream")
    .set_body_typed([](int64_t device, int64_t stream) {
      cuda::CheckStreamHandle(stream, "cuda.stream_destroy");
      cuda::CheckDeviceId(device, "cuda.stream_destroy");
      MXFFI_CHECK(stream != 0, ValueError)
          << "cuda.stream_destroy: the legacy default stream (0) cannot be destroyed";
#if MXFFI_USE_CUDA
      const int dev = static_cast<int>(device);
      void* s = cuda::HandleToStream(stream);
      cuda::SynchronizeStream(dev, s, "cuda.stream_destroy");
      cuda::DeviceAllocator(dev).ReleaseStream(s);
      cuda::DeviceGuard guard(DLDevice{kDLCUDA, dev});
      MXFFI_CUDA_CALL("cuda.stream_destroy", cudaStreamDestroy(static_cast<cudaStream_t>(s)));
#endif
    });

MXFFI_REGISTER_API("cuda.stream_synchronize")
    .describe("Block until the work queued on a stream of a CUDA device has completed.")
    .arg("device")
    .arg("stream")
    .set_body_typed([](int64_t device, int64_t stream) {
      cuda::CheckStreamHandle(stream, "cuda.stream_synchronize");
      cuda::CheckDeviceId(device, "cuda.stream_synchronize");
      cuda::SynchronizeStream(static_cast<int>(device), cuda::HandleToStream(stream),
                              "cuda.stream_synchronize");
    });

MXFFI_REGISTER_API("cuda.stream_wait_stream")
    .describe(
        "Make the stream waiter wait, on the device, for the work queued on waitee so far "
        "(both streams of the device).")
    .arg("device")
    .arg("waiter")
    .arg("waitee")
    .set_body_typed([](int64_t device, int64_t waiter, int64_t waitee) {
      cuda::CheckStreamHandle(waiter, "cuda.stream_wait_stream", "waiter");
      cuda::CheckStreamHandle(waitee, "cuda.stream_wait_stream", "waitee");
      cuda::CheckDeviceId(device, "cuda.stream_wait_stream");
      cuda::StreamWaitStream(static_cast<int>(device), cuda::HandleToStream(waiter),
                             cuda::HandleToStream(waitee), "cuda.stream_wait_stream");
    });

MXFFI_REGISTER_API("cuda.synchronize")
    .describe("Block until all work on a CUDA device (every device when None) has completed.")
    .arg("device", nullptr)
    .set_body_typed([](AnyView device_arg) {
      int first = 0, last = 0;
      std::optional<int64_t> device;
      if (!device_arg.is_none()) {
        device = device_arg.try_cast<int64_t>();
        MXFFI_CHECK(device.has_value(), TypeError)
            << "cuda.synchronize: argument #0 'device' expected int or None, got "
            << device_arg.GetTypeName();
        cuda::CheckDeviceId(*device, "cuda.synchronize");
        first = last = static_cast<int>(*device);
      } else {
        cuda::CheckDeviceId(0, "cuda.synchronize");
        last = cuda::DeviceCount() - 1;
      }
#if MXFFI_USE_CUDA
      for (int d = first; d <= last; ++d) {
        cuda::DeviceGuard guard(DLDevice{kDLCUDA, d});
        MXFFI_CUDA_CALL("cuda.synchronize", cudaDeviceSynchronize());
      }
#else
      (void)first, (void)last;
#endif
    });

MXFFI_REGISTER_API("cuda.record_stream")
    .describe(
        "Note that a CUDA array's memory is used on another stream of its device, so that "
        "when it is freed the memory is reused only after that stream's work so far.")
    .arg("array")
    .arg("stream")
    .set_body_typed([](NDArray array, int64_t stream) {
      cuda::CheckStreamHandle(stream, "cuda.record_stream");
      const DLTensor& t = array.tensor();
      MXFFI_CHECK(t.device.device_type == kDLCUDA, ValueError)
          << "cuda.record_stream: the array is not on a CUDA device (device type "
          << t.device.device_type << ")";
      MXFFI_CHECK(!array.is_sparse(), TypeError)
          << "cuda.record_stream: the array is " << StorageTypeName(array.stype())
          << "; record its parts (data, indices, indptr)";
      cuda::RecordStream(t.device.device_id, t.data, cuda::HandleToStream(stream));
    });

}  // namespace mxffi
