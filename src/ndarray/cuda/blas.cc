/*!
 * \file blas.cc
 * \brief cuBLAS (blas.h): loaded with dlopen, one handle per device and thread, and one call for
 *  a product or a strided batch of them.
 */
#include "blas.h"

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <vector>

#if MXFFI_USE_CUDA
#include <cuda_runtime.h>

#include "cuda_common.h"
#include "dl_library.h"
#endif

namespace mxffi {
namespace cuda {

#if MXFFI_USE_CUDA

namespace {

// The few cuBLAS declarations used, with the values of cublas_api.h (whose header this build
// does not need): the library is reached only through dlsym.
using BlasHandle = void*;
using BlasStatus = int;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kComputeF32 = 68, kComputeF64 = 70;  // CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F
constexpr int kDefaultMath = 0;                    // CUBLAS_DEFAULT_MATH: no TF32
constexpr int kNoReducedPrecisionReduction = 16;   // CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_...
constexpr int kGemmDefault = -1;                   // CUBLAS_GEMM_DEFAULT

using CreateFn = BlasStatus (*)(BlasHandle*);
using SetStreamFn = BlasStatus (*)(BlasHandle, cudaStream_t);
using SetMathModeFn = BlasStatus (*)(BlasHandle, int);
using GemmExFn = BlasStatus (*)(BlasHandle, int, int, int, int, int, const void*, const void*,
                                cudaDataType, int, const void*, cudaDataType, int, const void*,
                                void*, cudaDataType, int, int, int);
using GemmStridedBatchedExFn = BlasStatus (*)(BlasHandle, int, int, int, int, int, const void*,
                                              const void*, cudaDataType, int, long long,
                                              const void*, cudaDataType, int, long long,
                                              const void*, void*, cudaDataType, int, long long, int,
                                              int, int);
using StatusStringFn = const char* (*)(BlasStatus);

struct BlasLib {
  bool ok = false;
  std::string why;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  SetMathModeFn set_math_mode = nullptr;
  GemmExFn gemm = nullptr;
  GemmStridedBatchedExFn gemm_batched = nullptr;
  StatusStringFn status_string = nullptr;
};

BlasLib LoadBlas() {
  BlasLib lib;
  DlLibrary so("cuBLAS", {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"});
  lib.create = so.Sym<CreateFn>("cublasCreate_v2");
  lib.set_stream = so.Sym<SetStreamFn>("cublasSetStream_v2");
  lib.set_math_mode = so.Sym<SetMathModeFn>("cublasSetMathMode");
  lib.gemm = so.Sym<GemmExFn>("cublasGemmEx");
  lib.gemm_batched = so.Sym<GemmStridedBatchedExFn>("cublasGemmStridedBatchedEx");
  lib.status_string = so.OptionalSym<StatusStringFn>("cublasGetStatusString");
  lib.why = so.why();
  lib.ok = so.ok();
  return lib;
}

const BlasLib& Blas() {
  static const BlasLib lib = LoadBlas();
  return lib;
}

void CheckBlas(BlasStatus status, const char* what, const char* fname) {
  if (status == 0) return;
  const BlasLib& lib = Blas();
  MXFFI_THROW(RuntimeError) << fname << ": " << what << " failed: cuBLAS status " << status
                            << (lib.status_string
                                    ? std::string(" (") + lib.status_string(status) + ")"
                                    : std::string());
}

struct BlasHandles {};  // ThreadHandle's tag for cuBLAS

/*! \return this thread's handle for device_id (the current device), set to stream. */
BlasHandle Handle(int device_id, cudaStream_t stream, const char* fname) {
  const BlasLib& lib = Blas();
  BlasHandle h = ThreadHandle<BlasHandles, BlasHandle>(device_id, [&] {
    BlasHandle made = nullptr;
    CheckBlas(lib.create(&made), "cublasCreate", fname);
    CheckBlas(lib.set_math_mode(made, kDefaultMath | kNoReducedPrecisionReduction),
              "cublasSetMathMode", fname);
    return made;
  });
  CheckBlas(lib.set_stream(h, stream), "cublasSetStream", fname);
  return h;
}

/*! \brief The cuBLAS data type of a float dtype, or false for any other. */
bool BlasType(DLDataType t, cudaDataType* out) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat && t.bits == 32) {
    *out = CUDA_R_32F;
  } else if (t.code == kDLFloat && t.bits == 64) {
    *out = CUDA_R_64F;
  } else if (t.code == kDLFloat && t.bits == 16) {
    *out = CUDA_R_16F;
  } else if (t.code == kDLBfloat && t.bits == 16) {
    *out = CUDA_R_16BF;
  } else if (t.code == kDLComplex && t.bits == 64) {
    *out = CUDA_C_32F;
  } else if (t.code == kDLComplex && t.bits == 128) {
    *out = CUDA_C_64F;
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool BlasAvailable(std::string* why) {
  const BlasLib& lib = Blas();
  if (!lib.ok && why != nullptr) *why = lib.why;
  return lib.ok;
}

bool BlasSupports(DLDataType dtype) {
  cudaDataType type;
  return BlasType(dtype, &type);
}

void BlasGemm(DLDataType dtype, bool trans_a, bool trans_b, int m, int n, int k, const void* A,
              int lda, int64_t stride_a, const void* B, int ldb, int64_t stride_b, void* C, int ldc,
              int64_t stride_c, int count, DLDevice device, void* stream, const char* fname) {
  const BlasLib& lib = Blas();
  MXFFI_CHECK(lib.ok, RuntimeError) << fname << ": " << lib.why;
  cudaDataType type = CUDA_R_32F;
  MXFFI_CHECK(BlasType(dtype, &type), RuntimeError)
      << fname << ": cuBLAS does not multiply " << DataTypeToString(dtype);
  const bool f64 = (dtype.code == kDLFloat && dtype.bits == 64) ||
                   (dtype.code == kDLComplex && dtype.bits == 128);
  // alpha and beta have the scale type: the compute precision, complex for complex data. A
  // real part followed by a zero imaginary part serves both.
  const double one64[2] = {1.0, 0.0}, zero64[2] = {0.0, 0.0};
  const float one32[2] = {1.0f, 0.0f}, zero32[2] = {0.0f, 0.0f};
  const void* alpha = f64 ? static_cast<const void*>(one64) : one32;
  const void* beta = f64 ? static_cast<const void*>(zero64) : zero32;
  const int compute = f64 ? kComputeF64 : kComputeF32;
  BlasHandle h = Handle(device.device_id, static_cast<cudaStream_t>(stream), fname);
  const int ta = trans_a ? kOpT : kOpN, tb = trans_b ? kOpT : kOpN;
  if (count == 1) {
    CheckBlas(lib.gemm(h, ta, tb, m, n, k, alpha, A, type, lda, B, type, ldb, beta, C, type, ldc,
                       compute, kGemmDefault),
              "cublasGemmEx", fname);
  } else {
    CheckBlas(
        lib.gemm_batched(h, ta, tb, m, n, k, alpha, A, type, lda, stride_a, B, type, ldb, stride_b,
                         beta, C, type, ldc, stride_c, count, compute, kGemmDefault),
        "cublasGemmStridedBatchedEx", fname);
  }
}

#else  // !MXFFI_USE_CUDA

bool BlasAvailable(std::string* why) {
  if (why != nullptr) *why = "mxffi was built without CUDA";
  return false;
}

bool BlasSupports(DLDataType) { return false; }

void BlasGemm(DLDataType, bool, bool, int, int, int, const void*, int, int64_t, const void*, int,
              int64_t, void*, int, int64_t, int, DLDevice, void*, const char* fname) {
  MXFFI_THROW(RuntimeError) << fname << ": mxffi was built without CUDA";
}

#endif  // MXFFI_USE_CUDA

}  // namespace cuda
}  // namespace mxffi
