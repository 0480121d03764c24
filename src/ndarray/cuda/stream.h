/*!
 * \file stream.h
 * \brief CUDA streams: the current stream of each device for each thread, and ordering one
 *  stream after another. Built without CUDA, the current stream is always nullptr and the rest
 *  is never reached (every caller checks the device first).
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_STREAM_H_
#define MXFFI_SRC_NDARRAY_CUDA_STREAM_H_

namespace mxffi {
namespace cuda {

/*!
 * \brief Make stream (a cudaStream_t of device_id; nullptr for the legacy default stream) the
 *  calling thread's current stream of device_id.
 * \return the stream that was current before.
 */
void* SetCurrentStream(int device_id, void* stream);

/*!
 * \brief Make waiter wait (on the device, not the host) for the work queued on waitee so far:
 *  an event recorded on waitee and cudaStreamWaitEvent on waiter. Nothing when they are the
 *  same stream. Both are streams of device_id. Throws RuntimeError naming fname on failure.
 */
void StreamWaitStream(int device_id, void* waiter, void* waitee, const char* fname);

/*! \brief Block the host until the work queued on stream (of device_id) has completed. */
void SynchronizeStream(int device_id, void* stream, const char* fname);

/*!
 * \brief Sets a device's current stream for the calling thread for its lifetime, then restores
 *  the one before.
 */
class StreamGuard {
 public:
  StreamGuard(int device_id, void* stream)
      : device_id_(device_id), previous_(SetCurrentStream(device_id, stream)) {}
  ~StreamGuard() { SetCurrentStream(device_id_, previous_); }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  int device_id_;
  void* previous_;
};

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_STREAM_H_
