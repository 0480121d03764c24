/*!
 * \file parallel.h
 * \brief The one thread pool of mxffi's CPU kernels, and when a kernel releases the GIL (the
 *  release itself, ScopedGILRelease, is the core's: mxffi/env.h).
 *
 * Sized by MXFFI_NUM_THREADS, else the number of cores. The calling thread takes a share of
 * the work, so one thread means no pool at all. After fork() the child starts with no pool and
 * builds a new one on first use, so a parallel kernel before a fork never hangs the child.
 * OpenBLAS runs single-threaded inside mxffi: GEMM is split across this pool instead, so
 * mxffi never stacks a second set of busy threads on top of its own.
 */
#ifndef MXFFI_SRC_OP_PARALLEL_H_
#define MXFFI_SRC_OP_PARALLEL_H_

#include <mxffi/c_api.h>
#include <mxffi/env.h>

#include <algorithm>
#include <cstdint>
#include <functional>

namespace mxffi {
namespace op {

/*! \return the number of threads kernels use (the pool plus the caller). */
MXFFI_DLL int NumThreads();

/*! \brief Run f(begin, end) over [0, n) split into at most NumThreads() chunks, wait for all. */
MXFFI_DLL void ParallelRun(int64_t n, int num_chunks,
                           const std::function<void(int64_t, int64_t)>& f);

/*!
 * \brief f(begin, end) over [0, n): in the calling thread when n * cost_per_item is below the
 *  threshold where threads pay off, else split across the pool.
 */
template <typename F>
inline void ParallelFor(int64_t n, int64_t cost_per_item, F&& f) {
  constexpr int64_t kMinWorkPerThread = 1 << 16;
  int64_t work = n * std::max<int64_t>(cost_per_item, 1);
  int threads = NumThreads();
  if (threads <= 1 || work < 2 * kMinWorkPerThread || n < 2) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
  int chunks = static_cast<int>(std::min<int64_t>(threads, work / kMinWorkPerThread));
  ParallelRun(n, std::max(chunks, 2), std::function<void(int64_t, int64_t)>(f));
}

/*!
 * \brief Elements above which a kernel releases the GIL (a few microseconds of work), with
 *  ScopedGILRelease (mxffi/env.h).
 */
constexpr int64_t kReleaseGILThreshold = 1 << 15;

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_PARALLEL_H_
