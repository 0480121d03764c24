/*!
 * \file allocator.h
 * \brief The stream-aware caching allocator behind CUDA arrays.
 *
 * cudaMalloc and cudaFree synchronise the device and cost tens of microseconds, so freed device
 * blocks are kept and handed out again. A freed block goes back to the free list of the stream
 * it was allocated on, and only that stream reuses it: work queued on one stream runs in order,
 * so a kernel writing the new owner's data runs after every kernel that read the old owner's.
 * A block also used on other streams (RecordStream) is held back when freed until an event
 * recorded on each of those streams has completed.
 *
 * The policy (CachingAllocator) talks to the device through AllocatorBackend only, so it is
 * tested without a GPU (tests/cpp/test_cuda_allocator.cc) with a fake backend; CudaBackend in
 * allocator.cc is the real one. This header includes nothing of CUDA.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_ALLOCATOR_H_
#define MXFFI_SRC_NDARRAY_CUDA_ALLOCATOR_H_

#include <mxffi/error.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mxffi {
namespace cuda {

/*! \brief What the caching policy needs from a device: memory and events on streams. */
class AllocatorBackend {
 public:
  virtual ~AllocatorBackend() = default;
  /*! \return nbytes of device memory, or nullptr when the device is out of memory. */
  virtual void* Malloc(size_t nbytes) = 0;
  /*! \brief Give memory from Malloc back to the device. */
  virtual void Free(void* ptr) = 0;
  /*!
   * \return a new event recorded on stream (a cudaStream_t; nullptr is the default stream).
   *  Must not throw (Free calls it from array deleters).
   */
  virtual void* RecordEvent(void* stream) = 0;
  /*! \return whether the work before the event has completed (never blocks). */
  virtual bool EventDone(void* event) = 0;
  /*! \brief Destroy an event from RecordEvent. */
  virtual void DestroyEvent(void* event) = 0;
};

/*! \brief The figures mxffi.cuda.memory_stats reports for one device. */
struct AllocatorStats {
  int64_t allocated_bytes = 0;       // bytes of the blocks arrays hold now (rounded sizes)
  int64_t peak_allocated_bytes = 0;  // the most allocated_bytes has been
  int64_t reserved_bytes = 0;        // bytes obtained from the device and not given back
  int64_t cached_bytes = 0;          // reserved bytes in free blocks, reusable now
  int64_t pending_bytes = 0;         // freed blocks waiting for other streams' events
  int64_t num_blocks = 0;            // blocks obtained from the device and not given back
  int64_t num_allocations = 0;       // Allocate calls that returned memory
  int64_t num_cache_hits = 0;        // of those, served from a free block
  int64_t num_device_mallocs = 0;    // backend Malloc calls that succeeded
  int64_t num_device_frees = 0;      // blocks given back to the device
  int64_t num_oom_retries = 0;       // times the cache was emptied to retry a failed Malloc
};

/*!
 * \brief The caching policy for one device.
 *
 * Sizes are rounded up to kSmallRound bytes below kLargeSize and to kLargeRound above, so that
 * freed blocks fit later requests of similar sizes. A request is served by the smallest free
 * block of its stream at least its rounded size and at most twice it; otherwise from the
 * backend; when the backend is out of memory, every free block is given back and Malloc is tried
 * once more before MemoryError. Thread-safe.
 */
class CachingAllocator {
 public:
  static constexpr size_t kSmallRound = 512;
  static constexpr size_t kLargeSize = size_t{1} << 20;
  static constexpr size_t kLargeRound = size_t{2} << 20;

  /*! \param backend not owned; outlives the allocator. \param device_id for messages. */
  CachingAllocator(AllocatorBackend* backend, int device_id)
      : backend_(backend), device_id_(device_id) {}
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /*! \return nbytes rounded up to the size of block that serves them. */
  static size_t RoundSize(size_t nbytes) {
    if (nbytes == 0) return kSmallRound;
    const size_t unit = nbytes < kLargeSize ? kSmallRound : kLargeRound;
    return (nbytes + unit - 1) / unit * unit;
  }

  /*!
   * \return a block of at least nbytes for use on stream (nullptr for nbytes 0).
   * \throws MemoryError naming fname, the size and the device when the device has no room even
   *  after the cache was given back.
   */
  void* Allocate(size_t nbytes, void* stream, const char* fname = "ndarray.empty");
  /*!
   * \brief Return a block from Allocate to the cache: at once to its stream's free list, or,
   *  when RecordStream named other streams, once events recorded on them now have completed.
   * \return false (and nothing done) for a pointer this allocator did not hand out.
   */
  bool Free(void* ptr);
  /*!
   * \brief Note that the block holding ptr is used on stream too, so its Free waits for that
   *  stream's work. \return false for a pointer this allocator did not hand out.
   */
  bool RecordStream(void* ptr, void* stream);
  /*!
   * \brief A stream is going away: its free blocks and the live blocks allocated on it are
   *  handed to the default stream (nullptr). The caller has synchronised the stream, so
   *  nothing queued on it still uses them.
   */
  void ReleaseStream(void* stream);
  /*! \brief Give every free block back to the device (blocks in use and pending stay). */
  void EmptyCache();
  /*! \return the figures now (after collecting pending blocks whose events completed). */
  AllocatorStats Stats();

 private:
  struct Block {
    size_t size = 0;
    void* stream = nullptr;      // the stream it was allocated on
    std::vector<void*> used_on;  // other streams it was used on (RecordStream)
    std::vector<void*> events;   // pending: events recorded at Free
    bool in_use = false;
  };
  using FreeKey = std::pair<void*, size_t>;  // (stream, size)

  void CollectPendingLocked();
  void EmptyCacheLocked();

  AllocatorBackend* backend_;
  int device_id_;
  std::mutex mu_;
  std::unordered_map<void*, Block> blocks_;  // every block obtained from the device
  std::multimap<FreeKey, void*> free_;       // free blocks by (stream, size)
  std::vector<void*> pending_;               // freed blocks waiting for events
  AllocatorStats stats_;
};

// ---- CachingAllocator (inline: the policy is compiled into its unit test as well) ----------

inline void CachingAllocator::CollectPendingLocked() {
  for (size_t i = 0; i < pending_.size();) {
    Block& b = blocks_[pending_[i]];
    bool done = true;
    for (void* e : b.events) done = done && backend_->EventDone(e);
    if (!done) {
      ++i;
      continue;
    }
    for (void* e : b.events) backend_->DestroyEvent(e);
    b.events.clear();
    stats_.pending_bytes -= static_cast<int64_t>(b.size);
    stats_.cached_bytes += static_cast<int64_t>(b.size);
    free_.emplace(FreeKey(b.stream, b.size), pending_[i]);
    pending_[i] = pending_.back();
    pending_.pop_back();
  }
}

inline void CachingAllocator::EmptyCacheLocked() {
  for (auto& kv : free_) {
    Block& b = blocks_[kv.second];
    stats_.cached_bytes -= static_cast<int64_t>(b.size);
    stats_.reserved_bytes -= static_cast<int64_t>(b.size);
    stats_.num_blocks -= 1;
    stats_.num_device_frees += 1;
    backend_->Free(kv.second);
    blocks_.erase(kv.second);
  }
  free_.clear();
}

inline void* CachingAllocator::Allocate(size_t nbytes, void* stream, const char* fname) {
  if (nbytes == 0) return nullptr;
  const size_t size = RoundSize(nbytes);
  MXFFI_CHECK(size >= nbytes, MemoryError)
      << fname << ": cannot allocate " << nbytes << " bytes on cuda:" << device_id_;
  std::lock_guard<std::mutex> lock(mu_);
  if (!pending_.empty()) CollectPendingLocked();
  void* ptr = nullptr;
  auto it = free_.lower_bound(FreeKey(stream, size));
  if (it != free_.end() && it->first.first == stream && it->first.second <= 2 * size) {
    ptr = it->second;
    free_.erase(it);
    Block& b = blocks_[ptr];
    b.in_use = true;
    stats_.cached_bytes -= static_cast<int64_t>(b.size);
    stats_.allocated_bytes += static_cast<int64_t>(b.size);
    stats_.num_cache_hits += 1;
  } else {
    ptr = backend_->Malloc(size);
    if (ptr == nullptr && (!free_.empty() || !pending_.empty())) {
      // Out of memory with blocks cached: give them back and try once more.
      stats_.num_oom_retries += 1;
      CollectPendingLocked();
      EmptyCacheLocked();
      ptr = backend_->Malloc(size);
    }
    if (ptr == nullptr) {
      MXFFI_THROW(MemoryError) << fname << ": cannot allocate " << nbytes << " bytes (" << size
                               << " rounded) on cuda:" << device_id_ << ": out of memory; "
                               << stats_.allocated_bytes << " bytes are held by arrays and "
                               << stats_.pending_bytes << " wait for other streams";
    }
    Block& b = blocks_[ptr];
    b.size = size;
    b.stream = stream;
    b.in_use = true;
    stats_.reserved_bytes += static_cast<int64_t>(size);
    stats_.allocated_bytes += static_cast<int64_t>(size);
    stats_.num_blocks += 1;
    stats_.num_device_mallocs += 1;
  }
  stats_.num_allocations += 1;
  if (stats_.allocated_bytes > stats_.peak_allocated_bytes) {
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
  return ptr;
}

inline bool CachingAllocator::Free(void* ptr) {
  if (ptr == nullptr) return true;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end() || !it->second.in_use) return false;
  Block& b = it->second;
  b.in_use = false;
  stats_.allocated_bytes -= static_cast<int64_t>(b.size);
  if (b.used_on.empty()) {
    stats_.cached_bytes += static_cast<int64_t>(b.size);
    free_.emplace(FreeKey(b.stream, b.size), ptr);
    return true;
  }
  for (void* s : b.used_on) b.events.push_back(backend_->RecordEvent(s));
  b.used_on.clear();
  stats_.pending_bytes += static_cast<int64_t>(b.size);
  pending_.push_back(ptr);
  return true;
}

inline bool CachingAllocator::RecordStream(void* ptr, void* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end() || !it->second.in_use) return false;
  Block& b = it->second;
  if (stream == b.stream) return true;
  for (void* s : b.used_on) {
    if (s == stream) return true;
  }
  b.used_on.push_back(stream);
  return true;
}

inline void CachingAllocator::ReleaseStream(void* stream) {
  if (stream == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& kv : blocks_) {
    Block& b = kv.second;
    if (b.stream == stream) b.stream = nullptr;  // in use, pending or free (re-keyed below)
    std::vector<void*>& on = b.used_on;
    for (size_t i = 0; i < on.size(); ++i) {
      if (on[i] == stream) {
        on[i] = on.back();
        on.pop_back();
        break;
      }
    }
  }
  auto first = free_.lower_bound(FreeKey(stream, 0));
  auto last = first;
  while (last != free_.end() && last->first.first == stream) ++last;
  std::vector<void*> moved;
  for (auto it = first; it != last; ++it) moved.push_back(it->second);
  free_.erase(first, last);
  for (void* p : moved) free_.emplace(FreeKey(nullptr, blocks_[p].size), p);
}

inline void CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  CollectPendingLocked();
  EmptyCacheLocked();
}

inline AllocatorStats CachingAllocator::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  CollectPendingLocked();
  return stats_;
}

/*! \return the allocator of a CUDA device (created on first use; never destroyed). */
CachingAllocator& DeviceAllocator(int device_id);

/*!
 * \brief Note that a CUDA array's memory (ptr, from DeviceAllocator) is used on stream as well
 *  as the stream it was allocated on; does nothing for memory mxffi did not allocate.
 */
void RecordStream(int device_id, void* ptr, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_ALLOCATOR_H_
