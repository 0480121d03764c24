/*!
 * \file cufft.cc
 * \brief cuFFT (cufft.h): loaded with dlopen; a bounded cache of plans, each used on one stream
 *  only (a plan's work area must not serve two streams at once) and by one thread at a time.
 */
#include "cufft.h"

#include <mxffi/error.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#if MXFFI_USE_CUDA
#include <cuda_runtime.h>

#include <list>
#include <mutex>

#include "cuda_common.h"
#include "device.h"
#include "dl_library.h"
#endif

namespace mxffi {
namespace cuda {

namespace {
std::atomic<int64_t> fft_exec_calls{0};
}  // namespace

int64_t FftExecCalls() { return fft_exec_calls.load(std::memory_order_relaxed); }

#if MXFFI_USE_CUDA

namespace {

// The few cuFFT declarations used, with the values of cufft.h (whose header this build does not
// need): the library is reached only through dlsym. cufftHandle is an int; the element pointers
// are void* here.
using FftHandle = int;
using FftResult = int;
constexpr int kC2C = 0x29, kR2C = 0x2a, kC2R = 0x2c;  // CUFFT_C2C, CUFFT_R2C, CUFFT_C2R
constexpr int kZ2Z = 0x69, kD2Z = 0x6a, kZ2D = 0x6c;  // CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D
constexpr int kForward = -1, kInverse = 1;            // CUFFT_FORWARD, CUFFT_INVERSE

using CreateFn = FftResult (*)(FftHandle*);
using MakePlanManyFn = FftResult (*)(FftHandle, int, int*, int*, int, int, int*, int, int, int, int,
                                     size_t*);
using SetStreamFn = FftResult (*)(FftHandle, cudaStream_t);
using DestroyFn = FftResult (*)(FftHandle);
using ExecC2CFn = FftResult (*)(FftHandle, void*, void*, int);
using ExecR2CFn = FftResult (*)(FftHandle, void*, void*);  // also C2R, D2Z, Z2D

struct FftLib {
  bool ok = false;
  std::string why;
  CreateFn create = nullptr;
  MakePlanManyFn make_plan_many = nullptr;
  SetStreamFn set_stream = nullptr;
  DestroyFn destroy = nullptr;
  ExecC2CFn exec_c2c = nullptr, exec_z2z = nullptr;
  ExecR2CFn exec_r2c = nullptr, exec_d2z = nullptr, exec_c2r = nullptr, exec_z2d = nullptr;
};

FftLib LoadFft() {
  FftLib lib;
  DlLibrary so("cuFFT", {"libcufft.so.12", "libcufft.so.11", "libcufft.so.10", "libcufft.so"});
  auto sym = [&](const char* name) { return so.Sym<void*>(name); };
  lib.create = reinterpret_cast<CreateFn>(sym("cufftCreate"));
  lib.make_plan_many = reinterpret_cast<MakePlanManyFn>(sym("cufftMakePlanMany"));
  lib.set_stream = reinterpret_cast<SetStreamFn>(sym("cufftSetStream"));
  lib.destroy = reinterpret_cast<DestroyFn>(sym("cufftDestroy"));
  lib.exec_c2c = reinterpret_cast<ExecC2CFn>(sym("cufftExecC2C"));
  lib.exec_z2z = reinterpret_cast<ExecC2CFn>(sym("cufftExecZ2Z"));
  lib.exec_r2c = reinterpret_cast<ExecR2CFn>(sym("cufftExecR2C"));
  lib.exec_d2z = reinterpret_cast<ExecR2CFn>(sym("cufftExecD2Z"));
  lib.exec_c2r = reinterpret_cast<ExecR2CFn>(sym("cufftExecC2R"));
  lib.exec_z2d = reinterpret_cast<ExecR2CFn>(sym("cufftExecZ2D"));
  lib.why = so.why();
  lib.ok = so.ok();
  return lib;
}

const FftLib& Fft() {
  static const FftLib lib = LoadFft();
  return lib;
}

/*! \return the name of a cufftResult (cuFFT has no function for it). */
const char* ResultName(FftResult r) {
  static const char* const names[] = {"CUFFT_SUCCESS",
                                      "CUFFT_INVALID_PLAN",
                                      "CUFFT_ALLOC_FAILED",
                                      "CUFFT_INVALID_TYPE",
                                      "CUFFT_INVALID_VALUE",
                                      "CUFFT_INTERNAL_ERROR",
                                      "CUFFT_EXEC_FAILED",
                                      "CUFFT_SETUP_FAILED",
                                      "CUFFT_INVALID_SIZE",
                                      "CUFFT_UNALIGNED_DATA",
                                      "CUFFT_INCOMPLETE_PARAMETER_LIST",
                                      "CUFFT_INVALID_DEVICE",
                                      "CUFFT_PARSE_ERROR",
                                      "CUFFT_NO_WORKSPACE",
                                      "CUFFT_NOT_IMPLEMENTED",
                                      "CUFFT_LICENSE_ERROR",
                                      "CUFFT_NOT_SUPPORTED"};
  return r >= 0 && r < static_cast<int>(sizeof(names) / sizeof(names[0])) ? names[r]
                                                                          : "an unknown result";
}

void CheckFft(FftResult r, const char* what, const char* fname) {
  if (r == 0) return;
  MXFFI_THROW(RuntimeError) << fname << ": " << what << " failed: cuFFT result " << r << " ("
                            << ResultName(r) << ")";
}

/*! \brief What a plan was made for. */
struct PlanKey {
  int device;
  void* stream;
  int type;
  int64_t n, batch;
  bool operator==(const PlanKey& o) const {
    return device == o.device && stream == o.stream && type == o.type && n == o.n &&
           batch == o.batch;
  }
};

/*!
 * \brief The plans not in use, most recently used first. A plan is taken out while a thread
 *  runs it and put back after; never freed at exit (so never torn down after the CUDA runtime).
 */
struct PlanCache {
  std::mutex mu;
  std::list<std::pair<PlanKey, FftHandle>> idle;
};

PlanCache& Cache() {
  static PlanCache* cache = new PlanCache();
  return *cache;
}

/*! \return a plan for key, from the cache or new (on the current device). */
FftHandle TakePlan(const PlanKey& key, const char* fname) {
  PlanCache& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    for (auto it = cache.idle.begin(); it != cache.idle.end(); ++it) {
      if (it->first == key) {
        const FftHandle h = it->second;
        cache.idle.erase(it);
        return h;
      }
    }
  }
  // One-dimensional lines, contiguous, one after another: the basic layout (null embeds). The
  // handle is made first and destroyed when planning fails, so that no failure leaks it.
  int n = static_cast<int>(key.n);
  FftHandle h = 0;
  CheckFft(Fft().create(&h), "cufftCreate", fname);
  size_t work = 0;
  const FftResult r = Fft().make_plan_many(h, 1, &n, nullptr, 1, 0, nullptr, 1, 0, key.type,
                                           static_cast<int>(key.batch), &work);
  if (r != 0) {
    Fft().destroy(h);
    CheckFft(r, "cufftMakePlanMany", fname);
  }
  return h;
}

/*! \brief Put a plan back for reuse; past the bound, the least recently used one is destroyed. */
void ReturnPlan(const PlanKey& key, FftHandle h) {
  PlanCache& cache = Cache();
  bool evict = false;
  std::pair<PlanKey, FftHandle> evicted;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    cache.idle.emplace_front(key, h);
    if (static_cast<int>(cache.idle.size()) > kFftPlanCacheSize) {
      evict = true;
      evicted = cache.idle.back();
      cache.idle.pop_back();
    }
  }
  // cufftDestroy frees the plan's work area, which waits for the work queued with it; the plan
  // may belong to another device than the caller's, so that device is made current for it.
  if (evict) {
    DeviceGuard guard(DLDevice{kDLCUDA, evicted.first.device});
    Fft().destroy(evicted.second);
  }
}

}  // namespace

bool FftAvailable(std::string* why) {
  const FftLib& lib = Fft();
  if (!lib.ok && why != nullptr) *why = lib.why;
  return lib.ok;
}

void FftExec(FftType type, bool dbl, int64_t n, int64_t count, void* in, void* out, bool inverse,
             DLDevice device, void* stream, const char* fname) {
  const FftLib& lib = Fft();
  MXFFI_CHECK(lib.ok, RuntimeError) << fname << ": " << lib.why;
  MXFFI_CHECK(n >= 1 && n <= INT32_MAX && count >= 0 && count <= INT32_MAX / n, RuntimeError)
      << fname << ": internal: cuFFT lines of " << n << " points, " << count << " of them";
  if (count == 0) return;
  int t = kC2C;
  if (type == FftType::kC2C) t = dbl ? kZ2Z : kC2C;
  if (type == FftType::kR2C) t = dbl ? kD2Z : kR2C;
  if (type == FftType::kC2R) t = dbl ? kZ2D : kC2R;
  const PlanKey key{device.device_id, stream, t, n, count};
  const FftHandle h = TakePlan(key, fname);
  FftResult r = lib.set_stream(h, static_cast<cudaStream_t>(stream));
  const char* what = "cufftSetStream";
  if (r == 0) {
    fft_exec_calls.fetch_add(1, std::memory_order_relaxed);
    switch (type) {
      case FftType::kC2C:
        what = dbl ? "cufftExecZ2Z" : "cufftExecC2C";
        r = (dbl ? lib.exec_z2z : lib.exec_c2c)(h, in, out, inverse ? kInverse : kForward);
        break;
      case FftType::kR2C:
        what = dbl ? "cufftExecD2Z" : "cufftExecR2C";
        r = (dbl ? lib.exec_d2z : lib.exec_r2c)(h, in, out);
        break;
      case FftType::kC2R:
        what = dbl ? "cufftExecZ2D" : "cufftExecC2R";
        r = (dbl ? lib.exec_z2d : lib.exec_c2r)(h, in, out);
        break;
    }
  }
  if (r != 0) {
    lib.destroy(h);  // a plan that failed is not reused
    CheckFft(r, what, fname);
  }
  ReturnPlan(key, h);
}

#else  // !MXFFI_USE_CUDA

bool FftAvailable(std::string* why) {
  if (why != nullptr) *why = "mxffi was built without CUDA";
  return false;
}

void FftExec(FftType, bool, int64_t, int64_t, void*, void*, bool, DLDevice, void*,
             const char* fname) {
  MXFFI_THROW(RuntimeError) << fname << ": mxffi was built without CUDA";
}

#endif  // MXFFI_USE_CUDA

}  // namespace cuda
}  // namespace mxffi
