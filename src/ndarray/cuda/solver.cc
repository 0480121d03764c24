/*!
 * \file solver.cc
 * \brief cuSOLVER (solver.h): loaded with dlopen, one handle per device and thread, and one loop
 *  of calls over a stack of matrices for each routine, sharing one workspace.
 */
#include "solver.h"

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <algorithm>
#include <atomic>
#include <vector>

#if MXFFI_USE_CUDA
#include <cuda_runtime.h>

#include "cuda_common.h"
#include "dl_library.h"
#endif

namespace mxffi {
namespace cuda {

namespace {
std::atomic<int64_t> solver_calls{0};
}  // namespace

int64_t SolverRoutineCalls() { return solver_calls.load(std::memory_order_relaxed); }

#if MXFFI_USE_CUDA

namespace {

// The few cusolverDn declarations used, with the values of cusolverDn.h, cusolver_common.h and
// cublas_api.h (whose headers this build does not need): the library is reached only through
// dlsym. The S, D, C and Z forms of a routine differ only in the element type their pointers
// point to, so one pointer type with void* serves all four.
using SolverHandle = void*;
using SolverStatus = int;
constexpr int kFillLower = 0, kFillUpper = 1;    // CUBLAS_FILL_MODE_LOWER / _UPPER
constexpr int kOpN = 0, kOpT = 1;                // CUBLAS_OP_N / CUBLAS_OP_T
constexpr int kEigNoVector = 0, kEigVector = 1;  // CUSOLVER_EIG_MODE_NOVECTOR / _VECTOR

using CreateFn = SolverStatus (*)(SolverHandle*);
using SetStreamFn = SolverStatus (*)(SolverHandle, cudaStream_t);
using GetrfBufFn = SolverStatus (*)(SolverHandle, int, int, void*, int, int*);
using GetrfFn = SolverStatus (*)(SolverHandle, int, int, void*, int, void*, int*, int*);
using GetrsFn = SolverStatus (*)(SolverHandle, int, int, int, const void*, int, const int*, void*,
                                 int, int*);
using PotrfBufFn = SolverStatus (*)(SolverHandle, int, int, void*, int, int*);
using PotrfFn = SolverStatus (*)(SolverHandle, int, int, void*, int, void*, int, int*);
using SyevdBufFn = SolverStatus (*)(SolverHandle, int, int, int, const void*, int, const void*,
                                    int*);
using SyevdFn = SolverStatus (*)(SolverHandle, int, int, int, void*, int, void*, void*, int, int*);
using GeqrfBufFn = SolverStatus (*)(SolverHandle, int, int, void*, int, int*);
using GeqrfFn = SolverStatus (*)(SolverHandle, int, int, void*, int, void*, void*, int, int*);
using OrgqrBufFn = SolverStatus (*)(SolverHandle, int, int, int, const void*, int, const void*,
                                    int*);
using OrgqrFn = SolverStatus (*)(SolverHandle, int, int, int, void*, int, const void*, void*, int,
                                 int*);
using GesvdBufFn = SolverStatus (*)(SolverHandle, int, int, int*);
using GesvdFn = SolverStatus (*)(SolverHandle, signed char, signed char, int, int, void*, int,
                                 void*, void*, int, void*, int, void*, int, void*, int*);

/*! \brief The routines of one element type: index 0 float32, 1 float64, 2 complex64, 3 c128. */
struct TypedRoutines {
  GetrfBufFn getrf_buf = nullptr;
  GetrfFn getrf = nullptr;
  GetrsFn getrs = nullptr;
  PotrfBufFn potrf_buf = nullptr;
  PotrfFn potrf = nullptr;
  SyevdBufFn syevd_buf = nullptr;
  SyevdFn syevd = nullptr;
  GeqrfBufFn geqrf_buf = nullptr;
  GeqrfFn geqrf = nullptr;
  OrgqrBufFn orgqr_buf = nullptr;
  OrgqrFn orgqr = nullptr;
  GesvdBufFn gesvd_buf = nullptr;
  GesvdFn gesvd = nullptr;
};

struct SolverLib {
  bool ok = false;
  std::string why;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  TypedRoutines typed[4];
};

SolverLib LoadSolver() {
  SolverLib lib;
  DlLibrary so("cuSOLVER", {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"});
  auto sym = [&](const std::string& name) { return so.Sym<void*>(name); };
  lib.create = reinterpret_cast<CreateFn>(sym("cusolverDnCreate"));
  lib.set_stream = reinterpret_cast<SetStreamFn>(sym("cusolverDnSetStream"));
  const char prefix[4] = {'S', 'D', 'C', 'Z'};
  for (int i = 0; i < 4; ++i) {
    const std::string p = std::string("cusolverDn") + prefix[i];
    const bool complex = i >= 2;
    const std::string syevd = complex ? "heevd" : "syevd", orgqr = complex ? "ungqr" : "orgqr";
    TypedRoutines& r = lib.typed[i];
    r.getrf_buf = reinterpret_cast<GetrfBufFn>(sym(p + "getrf_bufferSize"));
    r.getrf = reinterpret_cast<GetrfFn>(sym(p + "getrf"));
    r.getrs = reinterpret_cast<GetrsFn>(sym(p + "getrs"));
    r.potrf_buf = reinterpret_cast<PotrfBufFn>(sym(p + "potrf_bufferSize"));
    r.potrf = reinterpret_cast<PotrfFn>(sym(p + "potrf"));
    r.syevd_buf = reinterpret_cast<SyevdBufFn>(sym(p + syevd + "_bufferSize"));
    r.syevd = reinterpret_cast<SyevdFn>(sym(p + syevd));
    r.geqrf_buf = reinterpret_cast<GeqrfBufFn>(sym(p + "geqrf_bufferSize"));
    r.geqrf = reinterpret_cast<GeqrfFn>(sym(p + "geqrf"));
    r.orgqr_buf = reinterpret_cast<OrgqrBufFn>(sym(p + orgqr + "_bufferSize"));
    r.orgqr = reinterpret_cast<OrgqrFn>(sym(p + orgqr));
    r.gesvd_buf = reinterpret_cast<GesvdBufFn>(sym(p + "gesvd_bufferSize"));
    r.gesvd = reinterpret_cast<GesvdFn>(sym(p + "gesvd"));
  }
  lib.why = so.why();
  lib.ok = so.ok();
  return lib;
}

const SolverLib& Solver() {
  static const SolverLib lib = LoadSolver();
  return lib;
}

/*! \return the name of a cusolverStatus_t (cuSOLVER has no function for it). */
const char* StatusName(SolverStatus status) {
  static const char* const names[] = {"CUSOLVER_STATUS_SUCCESS",
                                      "CUSOLVER_STATUS_NOT_INITIALIZED",
                                      "CUSOLVER_STATUS_ALLOC_FAILED",
                                      "CUSOLVER_STATUS_INVALID_VALUE",
                                      "CUSOLVER_STATUS_ARCH_MISMATCH",
                                      "CUSOLVER_STATUS_MAPPING_ERROR",
                                      "CUSOLVER_STATUS_EXECUTION_FAILED",
                                      "CUSOLVER_STATUS_INTERNAL_ERROR",
                                      "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
                                      "CUSOLVER_STATUS_NOT_SUPPORTED",
                                      "CUSOLVER_STATUS_ZERO_PIVOT",
                                      "CUSOLVER_STATUS_INVALID_LICENSE"};
  return status >= 0 && status < static_cast<int>(sizeof(names) / sizeof(names[0]))
             ? names[status]
             : "an unknown status";
}

void CheckSolver(SolverStatus status, const char* what, const char* fname) {
  if (status == 0) return;
  MXFFI_THROW(RuntimeError) << fname << ": " << what << " failed: cuSOLVER status " << status
                            << " (" << StatusName(status) << ")";
}

/*! \brief CheckSolver for a factorization routine's call, which is counted (SolverRoutineCalls). */
void CheckRoutine(SolverStatus status, const char* what, const char* fname) {
  solver_calls.fetch_add(1, std::memory_order_relaxed);
  CheckSolver(status, what, fname);
}

struct SolverHandles {};  // ThreadHandle's tag for cuSOLVER

/*! \return this thread's handle for device_id (the current device), set to stream. */
SolverHandle Handle(int device_id, cudaStream_t stream, const char* fname) {
  const SolverLib& lib = Solver();
  SolverHandle h = ThreadHandle<SolverHandles, SolverHandle>(device_id, [&] {
    SolverHandle made = nullptr;
    CheckSolver(lib.create(&made), "cusolverDnCreate", fname);
    return made;
  });
  CheckSolver(lib.set_stream(h, stream), "cusolverDnSetStream", fname);
  return h;
}

/*! \return 0..3 for float32, float64, complex64, complex128; -1 for any other dtype. */
int TypeIndex(DLDataType t) {
  if (t.lanes != 1) return -1;
  if (t.code == kDLFloat && t.bits == 32) return 0;
  if (t.code == kDLFloat && t.bits == 64) return 1;
  if (t.code == kDLComplex && t.bits == 64) return 2;
  if (t.code == kDLComplex && t.bits == 128) return 3;
  return -1;
}

/*! \brief The routines for dtype and the handle for the call, after checking both. */
struct Ready {
  const TypedRoutines* r;
  SolverHandle h;
  int64_t elem;  // bytes of one element of dtype
};

Ready Prepare(DLDataType dtype, const SolverCall& call) {
  const SolverLib& lib = Solver();
  MXFFI_CHECK(lib.ok, RuntimeError) << call.fname << ": " << lib.why;
  const int k = TypeIndex(dtype);
  MXFFI_CHECK(k >= 0, RuntimeError)
      << call.fname << ": cuSOLVER does not factor " << DataTypeToString(dtype);
  Ready ready;
  ready.r = &lib.typed[k];
  ready.h = Handle(call.device.device_id, static_cast<cudaStream_t>(call.stream), call.fname);
  ready.elem = DataTypeBytes(dtype);
  return ready;
}

/*! \brief A device workspace of lwork elements of elem bytes (at least one), on the call's
 *  stream: the caching allocator hands a freed block only to later work on the same stream. */
NDArray Workspace(int lwork, int64_t elem, const SolverCall& call) {
  const int64_t bytes = std::max<int64_t>(1, static_cast<int64_t>(lwork) * elem);
  return NDArray::Empty(std::vector<int64_t>{bytes}, DLDataType{kDLUInt, 8, 1}, call.device);
}

char* At(void* p, int64_t i, int64_t stride, int64_t elem) {
  return p == nullptr ? nullptr : static_cast<char*>(p) + i * stride * elem;
}

const char* At(const void* p, int64_t i, int64_t stride, int64_t elem) {
  return p == nullptr ? nullptr : static_cast<const char*>(p) + i * stride * elem;
}

}  // namespace

bool SolverAvailable(std::string* why) {
  const SolverLib& lib = Solver();
  if (!lib.ok && why != nullptr) *why = lib.why;
  return lib.ok;
}

bool SolverSupports(DLDataType dtype) { return TypeIndex(dtype) >= 0; }

void SolverGetrf(DLDataType dtype, int n, void* a, int64_t stride_a, int* ipiv, int* info,
                 int count, const SolverCall& call) {
  if (count == 0) return;
  const Ready c = Prepare(dtype, call);
  int lwork = 0;
  CheckSolver(c.r->getrf_buf(c.h, n, n, a, n, &lwork), "cusolverDn<t>getrf_bufferSize", call.fname);
  NDArray work = Workspace(lwork, c.elem, call);
  for (int i = 0; i < count; ++i) {
    CheckRoutine(c.r->getrf(c.h, n, n, At(a, i, stride_a, c.elem), n, work.data(),
                            ipiv + int64_t{i} * n, info + i),
                 "cusolverDn<t>getrf", call.fname);
  }
}

void SolverGetrs(DLDataType dtype, bool trans, int n, int nrhs, const void* a, int64_t stride_a,
                 const int* ipiv, void* b, int64_t stride_b, int* info, int count,
                 const SolverCall& call) {
  if (count == 0) return;
  const Ready c = Prepare(dtype, call);
  for (int i = 0; i < count; ++i) {
    CheckRoutine(c.r->getrs(c.h, trans ? kOpT : kOpN, n, nrhs, At(a, i, stride_a, c.elem), n,
                            ipiv + int64_t{i} * n, At(b, i, stride_b, c.elem), n, info + i),
                 "cusolverDn<t>getrs", call.fname);
  }
}

void SolverPotrf(DLDataType dtype, bool lower, int n, void* a, int64_t stride_a, int* info,
                 int count, const SolverCall& call) {
  if (count == 0) return;
  const Ready c = Prepare(dtype, call);
  const int uplo = lower ? kFillLower : kFillUpper;
  int lwork = 0;
  CheckSolver(c.r->potrf_buf(c.h, uplo, n, a, n, &lwork), "cusolverDn<t>potrf_bufferSize",
              call.fname);
  NDArray work = Workspace(lwork, c.elem, call);
  for (int i = 0; i < count; ++i) {
    CheckRoutine(
        c.r->potrf(c.h, uplo, n, At(a, i, stride_a, c.elem), n, work.data(), lwork, info + i),
        "cusolverDn<t>potrf", call.fname);
  }
}

void SolverSyevd(DLDataType dtype, bool vectors, bool lower, int n, void* a, int64_t stride_a,
                 void* w, int* info, int count, const SolverCall& call) {
  if (count == 0) return;
  const Ready c = Prepare(dtype, call);
  const int jobz = vectors ? kEigVector : kEigNoVector;
  const int uplo = lower ? kFillLower : kFillUpper;
  const int64_t real_elem = dtype.code == kDLComplex ? c.elem / 2 : c.elem;
  int lwork = 0;
  CheckSolver(c.r->syevd_buf(c.h, jobz, uplo, n, a, n, w, &lwork), "cusolverDn<t>syevd_bufferSize",
              call.fname);
  NDArray work = Workspace(lwork, c.elem, call);
  for (int i = 0; i < count; ++i) {
    CheckRoutine(c.r->syevd(c.h, jobz, uplo, n, At(a, i, stride_a, c.elem), n,
                            At(w, i, n, real_elem), work.data(), lwork, info + i),
                 "cusolverDn<t>syevd", call.fname);
  }
}

void SolverGeqrf(DLDataType dtype, int m, int n, void* a, int64_t stride_a, void* tau, int* info,
                 int count, const SolverCall& call) {
  if (count == 0) return;
  const Ready c = Prepare(dtype, call);
  const int64_t k = std::min(m, n);
  int lwork = 0;
  CheckSolver(c.r->geqrf_buf(c.h, m, n, a, m, &lwork), "cusolverDn<t>geqrf_bufferSize", call.fname);
  NDArray work = Workspace(lwork, c.elem, call);
  for (int i = 0; i < count; ++i) {
    CheckRoutine(c.r->geqrf(c.h, m, n, At(a, i, stride_a, c.elem), m, At(tau, i, k, c.elem),
                            work.data(), lwork, info + i),
                 "cusolverDn<t>geqrf", call.fname);
  }
}

void SolverOrgqr(DLDataType dtype, int m, int n, int k, void* a, int64_t stride_a, const void* tau,
                 int* info, int count, const SolverCall& call) {
  if (count == 0) return;
  const Ready c = Prepare(dtype, call);
  int lwork = 0;
  CheckSolver(c.r->orgqr_buf(c.h, m, n, k, a, m, tau, &lwork), "cusolverDn<t>orgqr_bufferSize",
              call.fname);
  NDArray work = Workspace(lwork, c.elem, call);
  for (int i = 0; i < count; ++i) {
    CheckRoutine(c.r->orgqr(c.h, m, n, k, At(a, i, stride_a, c.elem), m, At(tau, i, k, c.elem),
                            work.data(), lwork, info + i),
                 "cusolverDn<t>orgqr", call.fname);
  }
}

void SolverGesvd(DLDataType dtype, char jobu, char jobvt, int m, int n, void* a, int64_t stride_a,
                 void* s, void* u, int64_t stride_u, void* vt, int64_t stride_vt, int* info,
                 int count, const SolverCall& call) {
  if (count == 0) return;
  MXFFI_CHECK(m >= n, RuntimeError)
      << call.fname << ": internal: cuSOLVER's gesvd takes m >= n, got " << m << " x " << n;
  const Ready c = Prepare(dtype, call);
  const int64_t real_elem = dtype.code == kDLComplex ? c.elem / 2 : c.elem;
  int lwork = 0;
  CheckSolver(c.r->gesvd_buf(c.h, m, n, &lwork), "cusolverDn<t>gesvd_bufferSize", call.fname);
  NDArray work = Workspace(lwork, c.elem, call);
  for (int i = 0; i < count; ++i) {
    // rwork (the unconverged superdiagonal when info > 0) is optional: null.
    CheckRoutine(c.r->gesvd(c.h, static_cast<signed char>(jobu), static_cast<signed char>(jobvt), m,
                            n, At(a, i, stride_a, c.elem), m, At(s, i, n, real_elem),
                            At(u, i, stride_u, c.elem), m, At(vt, i, stride_vt, c.elem), n,
                            work.data(), lwork, nullptr, info + i),
                 "cusolverDn<t>gesvd", call.fname);
  }
}

#else  // !MXFFI_USE_CUDA

bool SolverAvailable(std::string* why) {
  if (why != nullptr) *why = "mxffi was built without CUDA";
  return false;
}

bool SolverSupports(DLDataType) { return false; }

namespace {
[[noreturn]] void NoCuda(const SolverCall& call) {
  MXFFI_THROW(RuntimeError) << call.fname << ": mxffi was built without CUDA";
}
}  // namespace

void SolverGetrf(DLDataType, int, void*, int64_t, int*, int*, int, const SolverCall& call) {
  NoCuda(call);
}
void SolverGetrs(DLDataType, bool, int, int, const void*, int64_t, const int*, void*, int64_t, int*,
                 int, const SolverCall& call) {
  NoCuda(call);
}
void SolverPotrf(DLDataType, bool, int, void*, int64_t, int*, int, const SolverCall& call) {
  NoCuda(call);
}
void SolverSyevd(DLDataType, bool, bool, int, void*, int64_t, void*, int*, int,
                 const SolverCall& call) {
  NoCuda(call);
}
void SolverGeqrf(DLDataType, int, int, void*, int64_t, void*, int*, int, const SolverCall& call) {
  NoCuda(call);
}
void SolverOrgqr(DLDataType, int, int, int, void*, int64_t, const void*, int*, int,
                 const SolverCall& call) {
  NoCuda(call);
}
void SolverGesvd(DLDataType, char, char, int, int, void*, int64_t, void*, void*, int64_t, void*,
                 int64_t, int*, int, const SolverCall& call) {
  NoCuda(call);
}

#endif  // MXFFI_USE_CUDA

}  // namespace cuda
}  // namespace mxffi
