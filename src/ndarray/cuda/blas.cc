/*!
 * \file blas.cc
 * \brief The device GEMM (blas.h): cuBLAS loaded with dlopen, one handle per device and thread,
 *  and the choice between cuBLAS and the tiled kernel.
 *
 * An operand reaches cuBLAS as it lies in memory when its dtype is the result's and one of its
 * two strides is 1 (a transposed view becomes CUBLAS_OP_T, not a copy); anything else is packed
 * once into a contiguous matrix of the result's dtype. A batched product is one strided-batched
 * call over the longest run of trailing batch axes along which every operand advances by one
 * stride, repeated over the leading axes where broadcasting prevents that.
 */
#include "blas.h"

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <algorithm>
#include <climits>
#include <vector>

#if MXFFI_USE_CUDA
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <mutex>
#include <unordered_map>

#include "cuda_common.h"
#include "op/dot/gemm_cuda.h"
#include "op/dot/gemm_layout.h"
#endif

namespace mxffi {
namespace cuda {

int64_t DeviceGemmOperand::rows() const {
  int64_t n = 1;
  for (int i = 0; i < nrow; ++i) n *= row[i].size;
  return n;
}

int64_t DeviceGemmOperand::cols() const {
  int64_t n = 1;
  for (int i = 0; i < ncol; ++i) n *= col[i].size;
  return n;
}

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
  std::vector<std::string> names = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                                    "libcublas.so"};
#ifdef MXFFI_CUDA_TOOLKIT_LIBDIR
  // The toolkit this library was built with, for a machine where it is not on the loader path.
  const std::string dir = MXFFI_CUDA_TOOLKIT_LIBDIR;
  if (!dir.empty()) {
    for (const char* n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
      names.push_back(dir + "/" + n);
    }
  }
#endif
  void* so = nullptr;
  std::string tried;
  for (const std::string& name : names) {
    so = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (so != nullptr) break;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + (err ? std::string(err) : name + ": not found");
  }
  if (so == nullptr) {
    lib.why = "cuBLAS could not be loaded (" + tried + ")";
    return lib;
  }
  auto sym = [&](const char* name) {
    void* p = dlsym(so, name);
    if (p == nullptr && lib.why.empty()) lib.why = std::string("cuBLAS lacks ") + name;
    return p;
  };
  lib.create = reinterpret_cast<CreateFn>(sym("cublasCreate_v2"));
  lib.set_stream = reinterpret_cast<SetStreamFn>(sym("cublasSetStream_v2"));
  lib.set_math_mode = reinterpret_cast<SetMathModeFn>(sym("cublasSetMathMode"));
  lib.gemm = reinterpret_cast<GemmExFn>(sym("cublasGemmEx"));
  lib.gemm_batched = reinterpret_cast<GemmStridedBatchedExFn>(sym("cublasGemmStridedBatchedEx"));
  lib.status_string = reinterpret_cast<StatusStringFn>(dlsym(so, "cublasGetStatusString"));
  // The library stays loaded for the life of the process: handles made from it are pooled.
  lib.ok = lib.why.empty();
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

/*!
 * \brief Handles no thread uses any more, per device, for the next thread that needs one. Never
 *  freed (so never torn down after the CUDA runtime at exit), and never more of them than
 *  threads that ran products at once.
 */
struct HandlePool {
  std::mutex mu;
  std::unordered_map<int, std::vector<BlasHandle>> free;
};

HandlePool& Pool() {
  static HandlePool* pool = new HandlePool();
  return *pool;
}

/*! \brief The calling thread's handles, one per device; returned to the pool when it exits. */
struct ThreadHandles {
  std::unordered_map<int, BlasHandle> by_device;
  ~ThreadHandles() {
    HandlePool& pool = Pool();
    std::lock_guard<std::mutex> lock(pool.mu);
    for (auto& kv : by_device) pool.free[kv.first].push_back(kv.second);
  }
};

/*! \return this thread's handle for device_id (the current device), set to stream. */
BlasHandle Handle(int device_id, cudaStream_t stream, const char* fname) {
  thread_local ThreadHandles mine;
  const BlasLib& lib = Blas();
  auto it = mine.by_device.find(device_id);
  if (it == mine.by_device.end()) {
    BlasHandle h = nullptr;
    {
      HandlePool& pool = Pool();
      std::lock_guard<std::mutex> lock(pool.mu);
      std::vector<BlasHandle>& v = pool.free[device_id];
      if (!v.empty()) {
        h = v.back();
        v.pop_back();
      }
    }
    if (h == nullptr) {
      CheckBlas(lib.create(&h), "cublasCreate", fname);
      CheckBlas(lib.set_math_mode(h, kDefaultMath | kNoReducedPrecisionReduction),
                "cublasSetMathMode", fname);
    }
    it = mine.by_device.emplace(device_id, h).first;
  }
  CheckBlas(lib.set_stream(it->second, stream), "cublasSetStream", fname);
  return it->second;
}

bool SameDType(DLDataType x, DLDataType y) {
  return x.code == y.code && x.bits == y.bits && x.lanes == y.lanes;
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
  } else {
    return false;
  }
  return true;
}

/*! \brief The operand's matrix as (rs, cs) when its rows and columns each collapse. */
bool As2D(const DeviceGemmOperand& op, int64_t* rs, int64_t* cs) {
  return op::OperandAs2D<DeviceGemmOperand, kBlasMaxDims>(op, rs, cs);
}
using op::BlasLayout;

/*! \brief One operand as the kernels read it: a strided matrix of the result's dtype. */
struct Matrix {
  const void* p = nullptr;
  int64_t rs = 0, cs = 0;
  int64_t batch_stride[kBlasMaxDims] = {};
  NDArray storage;  // the packed copy, when there is one
};

/*!
 * \brief The operand as a Matrix of out_dtype: itself when its dtype is out_dtype, its rows and
 *  columns collapse and (for cuBLAS) one of its strides is 1; otherwise a packed copy,
 *  C-contiguous over its own batch axes (those it broadcasts along stay extent 1, stride 0).
 */
Matrix Prepare(const DeviceGemmOperand& op, int nb, const int64_t* batch_shape,
               DLDataType out_dtype, bool for_blas, DLDevice device, cudaStream_t stream) {
  Matrix m;
  const int64_t rows = op.rows(), cols = op.cols();
  if (SameDType(op.dtype, out_dtype) && As2D(op, &m.rs, &m.cs)) {
    bool col_major = false;
    int64_t ld = 0;
    if (!for_blas || BlasLayout(rows, cols, m.rs, m.cs, &col_major, &ld)) {
      m.p = op.data;
      std::copy(op.batch_stride, op.batch_stride + nb, m.batch_stride);
      return m;
    }
  }
  int64_t shape[3 * kBlasMaxDims], strides[3 * kBlasMaxDims];
  int n = 0;
  for (int d = 0; d < nb; ++d) {
    shape[n] = op.batch_stride[d] != 0 ? batch_shape[d] : 1;
    strides[n++] = op.batch_stride[d];
  }
  for (int d = 0; d < op.nrow; ++d) {
    shape[n] = op.row[d].size;
    strides[n++] = op.row[d].stride;
  }
  for (int d = 0; d < op.ncol; ++d) {
    shape[n] = op.col[d].size;
    strides[n++] = op.col[d].stride;
  }
  int64_t total = rows * cols;
  for (int d = nb - 1; d >= 0; --d) {
    m.batch_stride[d] = shape[d] == 1 ? 0 : total;
    total *= shape[d];
  }
  const int64_t one = std::max<int64_t>(total, 1);
  m.storage = NDArray::Empty(&one, 1, out_dtype, device);
  PackStrided(op.data, op.dtype, n, shape, strides, m.storage.data(), out_dtype, stream);
  m.p = m.storage.data();
  m.rs = cols;
  m.cs = 1;
  return m;
}

int64_t ElementBytes(DLDataType t) { return (t.bits * t.lanes + 7) / 8; }

/*!
 * \brief c[t] = a[t] @ b[t] through cuBLAS. cuBLAS is column-major: the row-major product
 *  c = a @ b is the column-major c^T = b^T @ a^T, so b goes first, and a row-major operand is
 *  its transpose in column-major order.
 */
void BlasGemm(int64_t M, int64_t N, int64_t K, const Matrix& a, const Matrix& b, int nb,
              const int64_t* batch_shape, DLDataType dtype, void* c, DLDevice device,
              cudaStream_t stream, const char* fname) {
  cudaDataType type = CUDA_R_32F;
  BlasType(dtype, &type);
  bool a_cm = false, b_cm = false;
  int64_t lda = 0, ldb = 0;
  BlasLayout(M, K, a.rs, a.cs, &a_cm, &lda);
  BlasLayout(K, N, b.rs, b.cs, &b_cm, &ldb);
  const bool f64 = dtype.code == kDLFloat && dtype.bits == 64;
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const void* alpha = f64 ? static_cast<const void*>(&one64) : &one32;
  const void* beta = f64 ? static_cast<const void*>(&zero64) : &zero32;
  const int compute = f64 ? kComputeF64 : kComputeF32;
  const BlasLib& lib = Blas();
  BlasHandle h = Handle(device.device_id, stream, fname);
  // The trailing batch axes [p, nb) along which a and b each advance by one stride (c, being
  // contiguous, always does): the strided-batched call covers them.
  auto linear = [&](const int64_t* st, int p, int64_t* out) {
    int64_t inner = 1, s = 0;
    bool seen = false;
    for (int d = nb - 1; d >= p; --d) {
      if (batch_shape[d] == 1) continue;
      if (st[d] < 0 || st[d] % inner != 0) return false;
      const int64_t sd = st[d] / inner;
      if (seen && sd != s) return false;
      s = sd;
      seen = true;
      inner *= batch_shape[d];
    }
    *out = s;
    return true;
  };
  int p = 0;
  int64_t sa = 0, sb = 0;
  while (p < nb && !(linear(a.batch_stride, p, &sa) && linear(b.batch_stride, p, &sb))) ++p;
  if (p == nb) sa = sb = 0;
  int64_t inner = 1, outer = 1;
  for (int d = 0; d < nb; ++d) (d < p ? outer : inner) *= batch_shape[d];
  const int64_t elem = ElementBytes(dtype);
  const char* ap = static_cast<const char*>(a.p);
  const char* bp = static_cast<const char*>(b.p);
  char* cp = static_cast<char*>(c);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t oa = 0, ob = 0, rest = o;
    for (int d = p - 1; d >= 0; --d) {
      const int64_t i = rest % batch_shape[d];
      rest /= batch_shape[d];
      oa += i * a.batch_stride[d];
      ob += i * b.batch_stride[d];
    }
    for (int64_t t0 = 0; t0 < inner; t0 += INT_MAX) {
      const int64_t count = std::min<int64_t>(inner - t0, INT_MAX);
      const void* A = bp + (ob + t0 * sb) * elem;
      const void* B = ap + (oa + t0 * sa) * elem;
      void* C = cp + ((o * inner + t0) * M * N) * elem;
      const int ta = b_cm ? kOpT : kOpN, tb = a_cm ? kOpT : kOpN;
      if (count == 1) {
        CheckBlas(lib.gemm(h, ta, tb, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                           alpha, A, type, static_cast<int>(ldb), B, type, static_cast<int>(lda),
                           beta, C, type, static_cast<int>(N), compute, kGemmDefault),
                  "cublasGemmEx", fname);
      } else {
        CheckBlas(
            lib.gemm_batched(h, ta, tb, static_cast<int>(N), static_cast<int>(M),
                             static_cast<int>(K), alpha, A, type, static_cast<int>(ldb), sb, B,
                             type, static_cast<int>(lda), sa, beta, C, type, static_cast<int>(N),
                             M * N, static_cast<int>(count), compute, kGemmDefault),
            "cublasGemmStridedBatchedEx", fname);
      }
    }
  }
}

}  // namespace

bool BlasAvailable(std::string* why) {
  const BlasLib& lib = Blas();
  if (!lib.ok && why != nullptr) *why = lib.why;
  return lib.ok;
}

void DeviceGemm(const DeviceGemmOperand& a, const DeviceGemmOperand& b, int nbatch_dims,
                const int64_t* batch_shape, DLDataType out_dtype, void* c, DLDevice device,
                void* stream, const char* fname) {
  const int64_t M = a.rows(), N = b.cols(), K = a.cols();
  MXFFI_CHECK(K == b.rows(), ValueError)
      << fname << ": inner extents differ: " << K << " and " << b.rows();
  MXFFI_CHECK(nbatch_dims >= 0 && nbatch_dims <= kBlasMaxDims, ValueError)
      << fname << ": " << nbatch_dims << " batch axes; at most " << kBlasMaxDims;
  int64_t nbatch = 1;
  for (int d = 0; d < nbatch_dims; ++d) nbatch *= batch_shape[d];
  if (M == 0 || N == 0 || nbatch == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (K == 0) {  // an empty sum: zeros, whose bits are all 0 in every dtype
    MXFFI_CUDA_CALL(fname, cudaMemsetAsync(c, 0, nbatch * M * N * ElementBytes(out_dtype), s));
    return;
  }
  cudaDataType type = CUDA_R_32F;
  const bool use_blas =
      BlasType(out_dtype, &type) && M <= INT_MAX && N <= INT_MAX && K <= INT_MAX && BlasAvailable();
  Matrix ma = Prepare(a, nbatch_dims, batch_shape, out_dtype, use_blas, device, s);
  Matrix mb = Prepare(b, nbatch_dims, batch_shape, out_dtype, use_blas, device, s);
  if (use_blas) {
    BlasGemm(M, N, K, ma, mb, nbatch_dims, batch_shape, out_dtype, c, device, s, fname);
    return;
  }
  GemmBatch batch;
  batch.ndim = nbatch_dims;
  for (int d = 0; d < nbatch_dims; ++d) {
    batch.shape[d] = batch_shape[d];
    batch.a_stride[d] = ma.batch_stride[d];
    batch.b_stride[d] = mb.batch_stride[d];
  }
  TiledGemm(out_dtype, M, N, K, ma.p, ma.rs, ma.cs, mb.p, mb.rs, mb.cs, batch, nbatch, c, s);
}

#else  // !MXFFI_USE_CUDA

bool BlasAvailable(std::string* why) {
  if (why != nullptr) *why = "mxffi was built without CUDA";
  return false;
}

void DeviceGemm(const DeviceGemmOperand&, const DeviceGemmOperand&, int, const int64_t*, DLDataType,
                void*, DLDevice, void*, const char* fname) {
  MXFFI_THROW(RuntimeError) << fname << ": mxffi was built without CUDA";
}

#endif  // MXFFI_USE_CUDA

}  // namespace cuda
}  // namespace mxffi
