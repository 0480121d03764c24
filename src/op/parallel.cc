/*!
 * \file parallel.cc
 * \brief The kernel thread pool.
 */
#include "parallel.h"

#include <mxffi/error.h>
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mxffi {
namespace op {
namespace {

int ThreadsFromEnv() {
  if (const char* env = std::getenv("MXFFI_NUM_THREADS")) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);  // NOLINT(runtime/int)
    if (end != env && *end == '\0' && n >= 1) return static_cast<int>(std::min(n, 1024L));
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

/*!
 * \brief Workers waiting on one job at a time. Jobs from several calling threads queue on
 *  run_mutex_; a kernel called from inside a job runs serially (no nested parallelism).
 */
class ThreadPool {
 public:
  explicit ThreadPool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int workers() const { return static_cast<int>(threads_.size()); }

  void Run(int64_t n, int chunks, const std::function<void(int64_t, int64_t)>& f) {
    std::lock_guard<std::mutex> run_lock(run_mutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &f;
      n_ = n;
      chunks_ = chunks;
      next_.store(0);
      pending_ = chunks;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    in_job_ = true;
    TakeChunks();
    in_job_ = false;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

  static thread_local bool in_job_;

 private:
  void Work() {
    in_job_ = true;
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (job_ != nullptr && generation_ != seen); });
        if (stop_) return;
        seen = generation_;
      }
      TakeChunks();
    }
  }
  void TakeChunks() {
    for (;;) {
      int c = next_.fetch_add(1);
      if (c >= chunks_) return;
      int64_t begin = n_ * c / chunks_, end = n_ * (c + 1) / chunks_;
      try {
        (*job_)(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t n_ = 0;
  int chunks_ = 0;
  std::atomic<int> next_{0};
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

thread_local bool ThreadPool::in_job_ = false;

std::once_flag g_atfork_once;
std::mutex g_pool_mutex;
ThreadPool* g_pool = nullptr;  // leaked at exit: workers may still sleep on it

void AfterForkInChild() {
  // The workers did not survive the fork; their mutexes may be held. Start afresh.
  new (&g_pool_mutex) std::mutex();
  g_pool = nullptr;
}

ThreadPool* Pool() {
  std::call_once(g_atfork_once, [] { pthread_atfork(nullptr, nullptr, AfterForkInChild); });
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (g_pool == nullptr && NumThreads() > 1) g_pool = new ThreadPool(NumThreads() - 1);
  return g_pool;
}

}  // namespace

int NumThreads() {
  static const int num_threads = ThreadsFromEnv();  // read once, thread-safely
  return num_threads;
}

void ParallelRun(int64_t n, int num_chunks, const std::function<void(int64_t, int64_t)>& f) {
  ThreadPool* pool = ThreadPool::in_job_ ? nullptr : Pool();
  if (pool == nullptr || num_chunks <= 1) {
    f(0, n);
    return;
  }
  pool->Run(n, std::min<int64_t>(num_chunks, n), f);
}

}  // namespace op
}  // namespace mxffi
