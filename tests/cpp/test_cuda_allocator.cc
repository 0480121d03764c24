// The caching allocator's policy (src/ndarray/cuda/allocator.h) against a fake device: no GPU needed.
#include <gtest/gtest.h>
#include <mxffi/error.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../../src/ndarray/cuda/allocator.h"

namespace {

using mxffi::cuda::AllocatorBackend;
using mxffi::cuda::CachingAllocator;

/*!
 * \brief A device with a byte budget: Malloc hands out fresh addresses while the budget lasts;
 *  events complete when the test says so.
 */
class FakeBackend : public AllocatorBackend {
 public:
  explicit FakeBackend(size_t budget) : budget_(budget) {}

  void* Malloc(size_t nbytes) override {
    ++mallocs;
    if (used_ + nbytes > budget_) return nullptr;
    used_ += nbytes;
    next_ += nbytes + 4096;
    live_.insert(next_);
    sizes_[next_] = nbytes;
    return reinterpret_cast<void*>(next_);
  }
  void Free(void* ptr) override {
    auto p = reinterpret_cast<uintptr_t>(ptr);
    EXPECT_EQ(live_.count(p), 1u) << "freed twice or never allocated";
    live_.erase(p);
    used_ -= sizes_[p];
    ++frees;
  }
  void* RecordEvent(void* stream) override {
    recorded_on.push_back(stream);
    events_.push_back(false);
    return reinterpret_cast<void*>(events_.size());  // 1-based id
  }
  bool EventDone(void* event) override {
    ++queries;
    return events_[reinterpret_cast<uintptr_t>(event) - 1];
  }
  void DestroyEvent(void* event) override { destroyed.insert(reinterpret_cast<uintptr_t>(event)); }
  void CompleteAllEvents() { events_.assign(events_.size(), true); }

  size_t used() const { return used_; }
  int mallocs = 0, frees = 0, queries = 0;
  std::vector<void*> recorded_on;
  std::set<uintptr_t> destroyed;

 private:
  size_t budget_;
  size_t used_ = 0;
  uintptr_t next_ = 0x10000;
  std::set<uintptr_t> live_;
  std::map<uintptr_t, size_t> sizes_;
  std::vector<bool> events_;
};

void* const kStreamA = reinterpret_cast<void*>(0xA0);
void* const kStreamB = reinterpret_cast<void*>(0xB0);

TEST(CudaAllocator, RoundsSmallTo512AndLargeTo2MiB) {
  EXPECT_EQ(CachingAllocator::RoundSize(1), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(512), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::RoundSize((1 << 20) - 1), size_t{1} << 20);
  EXPECT_EQ(CachingAllocator::RoundSize(1 << 20), size_t{2} << 20);
  EXPECT_EQ(CachingAllocator::RoundSize((2 << 20) + 1), size_t{4} << 20);
  FakeBackend dev(size_t{1} << 30);
  CachingAllocator alloc(&dev, 0);
  EXPECT_EQ(alloc.Allocate(0, kStreamA), nullptr);
  EXPECT_EQ(dev.mallocs, 0);
  void* p = alloc.Allocate(100, kStreamA);
  EXPECT_EQ(dev.used(), 512u);
  EXPECT_EQ(alloc.Stats().allocated_bytes, 512);
  alloc.Free(p);
}

TEST(CudaAllocator, ReusesAFreedBlockOnTheSameStream) {
  FakeBackend dev(size_t{1} << 30);
  CachingAllocator alloc(&dev, 0);
  void* p = alloc.Allocate(1000, kStreamA);
  EXPECT_TRUE(alloc.Free(p));
  EXPECT_EQ(alloc.Stats().cached_bytes, 1024);
  void* q = alloc.Allocate(700, kStreamA);  // rounds to 1024 too
  EXPECT_EQ(q, p);
  EXPECT_EQ(dev.mallocs, 1);
  EXPECT_EQ(alloc.Stats().num_cache_hits, 1);
  // A block more than twice the request is not handed out: a new one is made.
  void* big = alloc.Allocate(1 << 20, kStreamA);
  alloc.Free(big);
  void* small = alloc.Allocate(512, kStreamA);
  EXPECT_NE(small, big);
  EXPECT_EQ(dev.mallocs, 3);
  alloc.Free(q);
  alloc.Free(small);
}

TEST(CudaAllocator, AnotherStreamDoesNotReuseTheBlock) {
  FakeBackend dev(size_t{1} << 30);
  CachingAllocator alloc(&dev, 0);
  void* p = alloc.Allocate(4096, kStreamA);
  alloc.Free(p);
  void* q = alloc.Allocate(4096, kStreamB);
  EXPECT_NE(q, p);
  EXPECT_EQ(dev.mallocs, 2);
  // Each stream gets its own block back.
  alloc.Free(q);
  EXPECT_EQ(alloc.Allocate(4096, kStreamA), p);
  EXPECT_EQ(alloc.Allocate(4096, kStreamB), q);
}

TEST(CudaAllocator, ABlockUsedOnAnotherStreamWaitsForItsEvent) {
  FakeBackend dev(size_t{1} << 30);
  CachingAllocator alloc(&dev, 0);
  void* p = alloc.Allocate(4096, kStreamA);
  EXPECT_TRUE(alloc.RecordStream(p, kStreamB));
  EXPECT_TRUE(alloc.RecordStream(p, kStreamA));  // its own stream: nothing to wait for
  alloc.Free(p);
  ASSERT_EQ(dev.recorded_on, std::vector<void*>{kStreamB});
  mxffi::cuda::AllocatorStats s = alloc.Stats();
  EXPECT_EQ(s.pending_bytes, 4096);
  EXPECT_EQ(s.cached_bytes, 0);
  // The event has not completed: stream A gets a new block.
  void* q = alloc.Allocate(4096, kStreamA);
  EXPECT_NE(q, p);
  EXPECT_GT(dev.queries, 0);
  dev.CompleteAllEvents();
  void* r = alloc.Allocate(4096, kStreamA);
  EXPECT_EQ(r, p);
  EXPECT_EQ(dev.destroyed.size(), 1u);
  s = alloc.Stats();
  EXPECT_EQ(s.pending_bytes, 0);
  EXPECT_EQ(s.allocated_bytes, 2 * 4096);
  // Unknown pointers are refused, not trusted.
  int x = 0;
  EXPECT_FALSE(alloc.Free(&x));
  EXPECT_FALSE(alloc.RecordStream(&x, kStreamB));
  alloc.Free(q);
  alloc.Free(r);
  EXPECT_FALSE(alloc.Free(r));  // a second free of the same block
}

TEST(CudaAllocator, OutOfMemoryEmptiesTheCacheAndRetriesOnce) {
  FakeBackend dev(8192);
  CachingAllocator alloc(&dev, 3);
  void* a = alloc.Allocate(4096, kStreamA);
  void* b = alloc.Allocate(4096, kStreamB);
  alloc.Free(a);
  alloc.Free(b);
  // 8192 bytes on stream A: neither cached block fits, the device is full; the cache goes back.
  void* c = alloc.Allocate(8192, kStreamA);
  ASSERT_NE(c, nullptr);
  mxffi::cuda::AllocatorStats s = alloc.Stats();
  EXPECT_EQ(s.num_oom_retries, 1);
  EXPECT_EQ(s.num_device_frees, 2);
  EXPECT_EQ(s.reserved_bytes, 8192);
  EXPECT_EQ(dev.frees, 2);
  // Nothing cached and still no room: MemoryError naming the size and the device.
  try {
    alloc.Allocate(100, kStreamA, "np.zeros");
    FAIL() << "expected MemoryError";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "MemoryError");
    std::string msg = e.what();
    EXPECT_NE(msg.find("np.zeros: cannot allocate 100 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cuda:3"), std::string::npos) << msg;
  }
  EXPECT_EQ(alloc.Stats().allocated_bytes, 8192);
  alloc.Free(c);
}

TEST(CudaAllocator, StatsAndEmptyCache) {
  FakeBackend dev(size_t{1} << 30);
  CachingAllocator alloc(&dev, 0);
  void* a = alloc.Allocate(3 << 20, kStreamA);  // 4 MiB
  void* b = alloc.Allocate(100, kStreamA);      // 512 B
  mxffi::cuda::AllocatorStats s = alloc.Stats();
  EXPECT_EQ(s.allocated_bytes, (4 << 20) + 512);
  EXPECT_EQ(s.reserved_bytes, (4 << 20) + 512);
  EXPECT_EQ(s.num_blocks, 2);
  EXPECT_EQ(s.num_allocations, 2);
  EXPECT_EQ(s.num_device_mallocs, 2);
  alloc.Free(a);
  s = alloc.Stats();
  EXPECT_EQ(s.allocated_bytes, 512);
  EXPECT_EQ(s.peak_allocated_bytes, (4 << 20) + 512);
  EXPECT_EQ(s.cached_bytes, 4 << 20);
  alloc.EmptyCache();
  s = alloc.Stats();
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.reserved_bytes, 512);
  EXPECT_EQ(s.num_blocks, 1);
  EXPECT_EQ(dev.used(), 512u);
  // A pending block is not given back by EmptyCache until its event completes.
  alloc.RecordStream(b, kStreamB);
  alloc.Free(b);
  alloc.EmptyCache();
  EXPECT_EQ(dev.used(), 512u);
  dev.CompleteAllEvents();
  alloc.EmptyCache();
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(alloc.Stats().reserved_bytes, 0);
}

TEST(CudaAllocator, AReleasedStreamHandsItsBlocksToTheDefaultStream) {
  FakeBackend dev(size_t{1} << 30);
  CachingAllocator alloc(&dev, 0);
  void* cached = alloc.Allocate(4096, kStreamB);
  void* live = alloc.Allocate(8192, kStreamB);
  alloc.Free(cached);
  alloc.ReleaseStream(kStreamB);
  // A new stream that happens to get B's handle value must not inherit B's blocks.
  EXPECT_NE(alloc.Allocate(4096, kStreamB), cached);
  EXPECT_EQ(alloc.Allocate(4096, nullptr), cached);
  alloc.Free(live);
  EXPECT_EQ(alloc.Allocate(8192, nullptr), live);
}

}  // namespace
