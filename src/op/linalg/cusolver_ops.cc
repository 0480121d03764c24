/*!
 * \file cusolver_ops.cc
 * \brief dispatch.h: np.linalg on a CUDA device through cuSOLVER (src/ndarray/cuda/solver.h),
 *  and the host fallback.
 *
 * cuSOLVER is column-major like LAPACK. A C-contiguous matrix A read as column-major is A^T, and
 * several routines take that as it is: inv(A^T) = inv(A)^T and det(A^T) = det(A) factor the
 * input's own bytes, solve factors A^T and solves with its transpose (getrs 'T'), cholesky and
 * eigvalsh read the other triangle of A^T (conj(A) for a Hermitian A), and the SVD of a wide A
 * is that of A^T with U and V^H trading places. The others copy the matrix with its last two
 * axes swapped (the strided device copy) into a column-major workspace and the results back.
 * Every routine's info is read back once all matrices of the stack are done: LinAlgError as
 * numpy's for a singular, not positive definite or unconverged matrix. Batches loop over the
 * stack; a stack with no elements, or sizes past cuSOLVER's 32-bit ones, runs on the host.
 */
#include <mxffi/error.h>
#include <mxffi/op/op.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../ndarray/cuda/device.h"
#include "../../ndarray/cuda/solver.h"
#include "../tri/tri_op.h"
#include "dispatch.h"
#include "lapack.h"
#include "scalar.h"

namespace mxffi {
namespace op {
namespace linalg {
namespace dispatch {
namespace {

constexpr DLDevice kHost{kDLCPU, 0};
constexpr DLDataType kInt32{kDLInt, 32, 1};

NDArray ToDevice(const NDArray& a, DLDevice device) {
  const DLDevice d = a.tensor().device;
  if (d.device_type == device.device_type && d.device_id == device.device_id) return a;
  NDArray out = NDArray::Empty(a.tensor().shape, a.tensor().ndim, a.tensor().dtype, device);
  NDArray::CopyFromTo(a.tensor(), out.tensor());
  return out;
}

NDArray ToHost(const NDArray& a) { return ToDevice(a, kHost); }

/*!
 * \return whether cuSOLVER takes the CUDA array a: its library loads, its dtype is one it
 *  factors, it has elements, and its matrices, their count and their size fit in int, as does
 *  the size of a square output matrix of out_side rows (0: none larger than a's matrices), such
 *  as the full U of a wide SVD (n x n) or the complete QR's Q (m x m).
 */
bool Usable(const NDArray& a, int64_t out_side = 0) {
  const DLTensor& t = a.tensor();
  if (t.device.device_type != kDLCUDA || t.ndim < 2 || a.numel() == 0) return false;
  if (!cuda::SolverSupports(t.dtype) || !cuda::SolverAvailable()) return false;
  const int64_t m = t.shape[t.ndim - 2], n = t.shape[t.ndim - 1];
  if (out_side > INT_MAX || out_side * out_side > INT_MAX) return false;
  return m <= INT_MAX && n <= INT_MAX && a.numel() / (m * n) <= INT_MAX && m * n <= INT_MAX;
}

/*! \return the rows of a's matrices (..., m, n): m. */
int64_t RowsOf(const NDArray& a) { return a.tensor().shape[a.tensor().ndim - 2]; }

/*! \brief A stack of matrices (..., m, n): the leading shape, its element count, m and n. */
struct Stack {
  std::vector<int64_t> batch;
  int count = 1;
  int m = 0, n = 0;
};

Stack StackOf(const NDArray& a) {
  const DLTensor& t = a.tensor();
  Stack s;
  s.batch.assign(t.shape, t.shape + t.ndim - 2);
  int64_t count = 1;
  for (int64_t d : s.batch) count *= d;
  s.count = static_cast<int>(count);
  s.m = static_cast<int>(t.shape[t.ndim - 2]);
  s.n = static_cast<int>(t.shape[t.ndim - 1]);
  return s;
}

std::vector<int64_t> ShapeWith(const Stack& s, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> shape = s.batch;
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

DLDataType RealDType(DLDataType t) {
  return t.code == kDLComplex ? DLDataType{kDLFloat, static_cast<uint8_t>(t.bits / 2), 1} : t;
}

/*!
 * \return a new C-contiguous array of a (C-contiguous, (..., r, c)) with its last two axes
 *  swapped, (..., c, r): a's matrices in column-major order, or a column-major workspace's
 *  matrices in row-major order. One strided copy on a's device.
 */
NDArray SwapCopy(const NDArray& a) {
  const DLTensor& t = a.tensor();
  const int nd = t.ndim;
  std::vector<int64_t> shape(t.shape, t.shape + nd), strides(nd);
  int64_t step = 1;
  for (int i = nd - 1; i >= 0; --i) {
    strides[i] = step;
    step *= t.shape[i];
  }
  std::swap(shape[nd - 1], shape[nd - 2]);
  std::swap(strides[nd - 1], strides[nd - 2]);
  const NDArray view = NDArray::View(a, shape.data(), strides.data(), nd, 0);
  return NDArray::Copy(view.tensor());
}

/*! \brief Set every element of the CUDA array a (contiguous) to zero: a broadcast copy. */
void FillZero(const NDArray& a) {
  NDArray zero = NDArray::Empty(std::vector<int64_t>{1}, a.tensor().dtype, kHost);
  std::memset(zero.data(), 0, DataTypeBytes(a.tensor().dtype));
  const NDArray dev = ToDevice(zero, a.tensor().device);
  const std::vector<int64_t> st(a.tensor().ndim, 0);
  const NDArray view = NDArray::View(dev, a.tensor().shape, st.data(), a.tensor().ndim, 0);
  NDArray::CopyFromTo(view.tensor(), a.tensor());
}

/*! \return np.tril (lower) or np.triu of a: the op on a's device. */
NDArray Triangle(const NDArray& a, bool lower) {
  static const Op* tril = Op::Get("_npi_tril");
  static const Op* triu = Op::Get("_npi_triu");
  TriParam p;
  p.k = 0;
  OpAttrs attrs;
  attrs.op = lower ? tril : triu;
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(&a, 1));
}

/*! \brief The device, stream and name of a sequence of cuSOLVER calls, and the device current. */
struct Session {
  cuda::DeviceGuard guard;
  cuda::SolverCall call;
  Session(DLDevice device, const char* fname)
      : guard(device), call{device, cuda::CurrentStream(device.device_id), fname} {}
};

NDArray Ints(int64_t count, DLDevice device) {
  return NDArray::Empty(std::vector<int64_t>{count}, kInt32, device);
}

/*!
 * \brief Read info (count int32 on the device) back: a negative value is an argument cuSOLVER
 *  rejected (RuntimeError), a positive one the failure numpy reports as LinAlgError with
 *  message (none expected when message is null).
 */
void CheckInfo(const NDArray& info, const char* routine, const char* message, const char* fname) {
  const NDArray host = ToHost(info);
  const int32_t* p = static_cast<const int32_t*>(host.data());
  for (int64_t i = 0; i < host.numel(); ++i) {
    MXFFI_CHECK(p[i] >= 0, RuntimeError)
        << fname << ": cuSOLVER " << routine << " rejected argument " << -p[i];
    if (p[i] > 0) {
      if (message != nullptr) MXFFI_THROW(LinAlgError) << fname << ": " << message;
      MXFFI_THROW(RuntimeError) << fname << ": cuSOLVER " << routine << " reported info " << p[i];
    }
  }
}

/*!
 * \brief LU of each matrix of a, as the column-major A^T (its own bytes): lu, ipiv (count x n)
 *  and getrf's info, all on the device; nothing is read back.
 */
void Lu(const NDArray& a, const Stack& s, const cuda::SolverCall& call, NDArray* lu, NDArray* ipiv,
        NDArray* info) {
  *lu = NDArray::Copy(a.tensor());
  *ipiv = Ints(int64_t{s.count} * s.n, call.device);
  *info = Ints(s.count, call.device);
  cuda::SolverGetrf(a.tensor().dtype, s.n, lu->data(), int64_t{s.n} * s.n,
                    static_cast<int*>(ipiv->data()), static_cast<int*>(info->data()), s.count,
                    call);
}

/*! \brief Slogdet of a usable CUDA a: LU on the device, sign and log on the host. */
void GpuSlogdet(const NDArray& a, NDArray* sign, NDArray* logabs, const char* fname) {
  const Stack s = StackOf(a);
  const DLDataType dtype = a.tensor().dtype;
  NDArray lu, ipiv, info;
  {
    Session session(a.tensor().device, fname);
    Lu(a, s, session.call, &lu, &ipiv, &info);
  }
  // The diagonal of each U: elements i * (n + 1) of each matrix, whichever order it is read in.
  const int64_t shape[2] = {s.count, s.n}, strides[2] = {int64_t{s.n} * s.n, int64_t{s.n} + 1};
  const NDArray diag = ToHost(NDArray::Copy(NDArray::View(lu, shape, strides, 2, 0).tensor()));
  const NDArray hpiv = ToHost(ipiv), hinfo = ToHost(info);
  const int32_t* pinfo = static_cast<const int32_t*>(hinfo.data());
  for (int b = 0; b < s.count; ++b) {
    // A positive info is an exactly zero pivot (sign 0); only a negative one is an error.
    MXFFI_CHECK(pinfo[b] >= 0, RuntimeError)
        << fname << ": cuSOLVER getrf rejected argument " << -pinfo[b];
  }
  *sign = NDArray::Empty(s.batch, dtype, kHost);
  *logabs = NDArray::Empty(s.batch, RealDType(dtype), kHost);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    using R = Real<T>;
    const T* pdiag = static_cast<const T*>(diag.data());
    const int32_t* ppiv = static_cast<const int32_t*>(hpiv.data());
    T* psign = static_cast<T*>(sign->data());
    R* plog = static_cast<R*>(logabs->data());
    for (int b = 0; b < s.count; ++b) {
      if (pinfo[b] > 0) {  // an exactly zero pivot: numpy's sign 0 and log|det| -inf
        psign[b] = T(0);
        plog[b] = -std::numeric_limits<R>::infinity();
      } else {
        SignLogFromLU(pdiag + int64_t{b} * s.n, 1, ppiv + int64_t{b} * s.n, s.n, psign + b,
                      plog + b);
      }
    }
  });
}

}  // namespace

DLDevice ComputeDevice(DLDevice device) {
  return device.device_type == kDLCUDA && cuda::SolverAvailable() ? device : kHost;
}

NDArray Inv(const NDArray& a, const char* fname) {
  if (!Usable(a)) return linalg::Inv(ToHost(a), fname);
  const Stack s = StackOf(a);
  const DLDevice dev = a.tensor().device;
  const DLDataType dtype = a.tensor().dtype;
  // The identity for every matrix of the stack: one on the host, broadcast on the device.
  NDArray eye = NDArray::Empty(std::vector<int64_t>{s.n, s.n}, dtype, kHost);
  LinalgSwitch(dtype, fname, [&](auto v) {
    using T = decltype(v);
    T* p = static_cast<T*>(eye.data());
    for (int64_t i = 0; i < int64_t{s.n} * s.n; ++i) p[i] = T(i % (s.n + 1) == 0 ? 1 : 0);
  });
  Session session(dev, fname);
  const NDArray eye_dev = ToDevice(eye, dev);
  const int64_t shape[3] = {s.count, s.n, s.n}, strides[3] = {0, s.n, 1};
  NDArray out = NDArray::Copy(NDArray::View(eye_dev, shape, strides, 3, 0).tensor());
  NDArray lu, ipiv, info;
  Lu(a, s, session.call, &lu, &ipiv, &info);
  // out = inv(A^T) in column-major order: inv(A) in row-major order.
  NDArray info_s = Ints(s.count, dev);
  cuda::SolverGetrs(dtype, false, s.n, s.n, lu.data(), int64_t{s.n} * s.n,
                    static_cast<const int*>(ipiv.data()), out.data(), int64_t{s.n} * s.n,
                    static_cast<int*>(info_s.data()), s.count, session.call);
  CheckInfo(info, "getrf", "Singular matrix", fname);
  CheckInfo(info_s, "getrs", nullptr, fname);
  return NDArray::View(out, ShapeWith(s, {s.n, s.n}).data(), nullptr, a.tensor().ndim, 0);
}

NDArray Solve(const NDArray& a, const NDArray& b, const char* fname) {
  if (!Usable(a) || !Usable(b) || b.tensor().shape[b.tensor().ndim - 1] > INT_MAX) {
    return linalg::Solve(ToHost(a), ToHost(b), fname);
  }
  const Stack s = StackOf(a), sb = StackOf(b);
  const DLDevice dev = a.tensor().device;
  const int k = sb.n;
  Session session(dev, fname);
  NDArray lu, ipiv, info;
  Lu(a, s, session.call, &lu, &ipiv, &info);
  // lu holds the factors of A^T; getrs 'T' solves (A^T)^T X = A X = B, B column-major.
  NDArray x = SwapCopy(b);
  NDArray info_s = Ints(s.count, dev);
  cuda::SolverGetrs(a.tensor().dtype, true, s.n, k, lu.data(), int64_t{s.n} * s.n,
                    static_cast<const int*>(ipiv.data()), x.data(), int64_t{s.n} * k,
                    static_cast<int*>(info_s.data()), s.count, session.call);
  CheckInfo(info, "getrf", "Singular matrix", fname);
  CheckInfo(info_s, "getrs", nullptr, fname);
  return SwapCopy(x);
}

void Slogdet(const NDArray& a, NDArray* sign, NDArray* logabs, const char* fname) {
  if (!Usable(a)) return linalg::Slogdet(ToHost(a), sign, logabs, fname);
  GpuSlogdet(a, sign, logabs, fname);
}

NDArray Det(const NDArray& a, const char* fname) {
  if (!Usable(a)) return linalg::Det(ToHost(a), fname);
  NDArray sign, logabs;
  GpuSlogdet(a, &sign, &logabs, fname);
  linalg::DetFromSlogdet(sign, logabs, fname);
  return sign;
}

NDArray Cholesky(const NDArray& a, bool upper, const char* fname) {
  if (!Usable(a)) return linalg::Cholesky(ToHost(a), upper, fname);
  const Stack s = StackOf(a);
  const DLDevice dev = a.tensor().device;
  Session session(dev, fname);
  // The column-major X = A^T = conj(A): numpy's lower triangle of A is X's upper one, and
  // X = U^H U with U upper gives A = U^T conj(U) = L L^H with L = U^T, the bytes of U read in
  // row-major order (and the other way round for upper=True). potrf leaves the other triangle as
  // it was: tril / triu clear it.
  NDArray w = NDArray::Copy(a.tensor());
  NDArray info = Ints(s.count, dev);
  cuda::SolverPotrf(a.tensor().dtype, /*lower=*/upper, s.n, w.data(), int64_t{s.n} * s.n,
                    static_cast<int*>(info.data()), s.count, session.call);
  CheckInfo(info, "potrf", "Matrix is not positive definite", fname);
  return Triangle(w, !upper);
}

void Qr(const NDArray& a, bool complete, NDArray* q, NDArray* r, const char* fname) {
  // The complete Q is m x m.
  if (a.tensor().ndim < 2 || !Usable(a, complete && q != nullptr ? RowsOf(a) : 0))
    return linalg::Qr(ToHost(a), complete, q, r, fname);
  const Stack s = StackOf(a);
  const DLDevice dev = a.tensor().device;
  const DLDataType dtype = a.tensor().dtype;
  const int m = s.m, n = s.n, k = std::min(m, n);
  const int rrows = complete ? m : k, qcols = complete ? m : k;
  Session session(dev, fname);
  // x: (..., n, m), each matrix A (m x n) in column-major order.
  NDArray x = SwapCopy(a);
  NDArray tau = NDArray::Empty(std::vector<int64_t>{int64_t{s.count} * k}, dtype, dev);
  NDArray info = Ints(s.count, dev);
  cuda::SolverGeqrf(dtype, m, n, x.data(), int64_t{m} * n, tau.data(),
                    static_cast<int*>(info.data()), s.count, session.call);
  // R: the first rrows rows of the factored matrix, read in row-major order, upper triangle.
  const int nd = a.tensor().ndim;
  std::vector<int64_t> rshape = ShapeWith(s, {rrows, n}), rstrides(nd);
  int64_t step = int64_t{m} * n;
  for (int i = nd - 3; i >= 0; --i) {
    rstrides[i] = step;
    step *= rshape[i];
  }
  rstrides[nd - 2] = 1;
  rstrides[nd - 1] = m;
  const NDArray rview = NDArray::View(x, rshape.data(), rstrides.data(), nd, 0);
  *r = Triangle(NDArray::Copy(rview.tensor()), false);
  if (q != nullptr) {
    // Q (m x qcols, column-major) from the first min(n, qcols) columns of reflectors; the
    // columns past n (complete, m > n) start as zeros.
    NDArray qw = NDArray::Empty(ShapeWith(s, {qcols, m}), dtype, dev);
    const int cols = std::min(n, qcols);
    if (cols < qcols) FillZero(qw);
    const int64_t shape[3] = {s.count, cols, m};
    const int64_t src_st[3] = {int64_t{n} * m, m, 1}, dst_st[3] = {int64_t{qcols} * m, m, 1};
    NDArray::CopyFromTo(NDArray::View(x, shape, src_st, 3, 0).tensor(),
                        NDArray::View(qw, shape, dst_st, 3, 0).tensor());
    NDArray info_q = Ints(s.count, dev);
    cuda::SolverOrgqr(dtype, m, qcols, k, qw.data(), int64_t{qcols} * m, tau.data(),
                      static_cast<int*>(info_q.data()), s.count, session.call);
    CheckInfo(info_q, "orgqr", nullptr, fname);
    *q = SwapCopy(qw);
  }
  CheckInfo(info, "geqrf", nullptr, fname);
}

void Eigh(const NDArray& a, bool lower, NDArray* w, NDArray* v, const char* fname) {
  if (!Usable(a)) return linalg::Eigh(ToHost(a), lower, w, v, fname);
  const Stack s = StackOf(a);
  const DLDevice dev = a.tensor().device;
  const DLDataType dtype = a.tensor().dtype;
  const int n = s.n;
  Session session(dev, fname);
  // With the vectors: A in column-major order, the triangle as asked. The values alone: the
  // input's bytes, X = A^T = conj(A), whose eigenvalues are A's, reading X's other triangle.
  NDArray x = v != nullptr ? SwapCopy(a) : NDArray::Copy(a.tensor());
  const bool uplo_lower = v != nullptr ? lower : !lower;
  *w = NDArray::Empty(ShapeWith(s, {n}), RealDType(dtype), dev);
  NDArray info = Ints(s.count, dev);
  cuda::SolverSyevd(dtype, v != nullptr, uplo_lower, n, x.data(), int64_t{n} * n, w->data(),
                    static_cast<int*>(info.data()), s.count, session.call);
  CheckInfo(info, "syevd", "Eigenvalues did not converge", fname);
  if (v != nullptr) *v = SwapCopy(x);
}

void Svd(const NDArray& a, bool full, NDArray* u, NDArray* s_out, NDArray* vh, const char* fname) {
  // The full U of a tall A is m x m, its V^H for a wide one n x n (cuSOLVER's U of A^T).
  const bool vectors = u != nullptr || vh != nullptr;
  const int64_t side = a.tensor().ndim < 2 || !vectors || !full
                           ? 0
                           : std::max(RowsOf(a), a.tensor().shape[a.tensor().ndim - 1]);
  if (!Usable(a, side)) return linalg::Svd(ToHost(a), full, u, s_out, vh, fname);
  const Stack s = StackOf(a);
  const DLDevice dev = a.tensor().device;
  const DLDataType dtype = a.tensor().dtype;
  const int m = s.m, n = s.n, k = std::min(m, n);
  Session session(dev, fname);
  *s_out = NDArray::Empty(ShapeWith(s, {k}), RealDType(dtype), dev);
  NDArray info = Ints(s.count, dev);
  int* pinfo = static_cast<int*>(info.data());
  if (m <= n) {
    // Wide (or square): the input's bytes are the column-major X = A^T (n x m, n >= m). With X =
    // U_x S V_x^H, A = conj(V_x) S U_x^T: numpy's U (m x m) is the bytes of V_x^H (m x m,
    // column-major) read in row-major order, and its V^H (ucols x n) those of U_x (n x ucols).
    NDArray x = NDArray::Copy(a.tensor());
    const int ucols = full ? n : m;
    NDArray ux, vtx;
    if (vectors) {
      ux = NDArray::Empty(ShapeWith(s, {ucols, n}), dtype, dev);
      vtx = NDArray::Empty(ShapeWith(s, {m, m}), dtype, dev);
    }
    cuda::SolverGesvd(dtype, vectors ? (full ? 'A' : 'S') : 'N', vectors ? 'A' : 'N', n, m,
                      x.data(), int64_t{n} * m, s_out->data(), vectors ? ux.data() : nullptr,
                      int64_t{n} * ucols, vectors ? vtx.data() : nullptr, int64_t{m} * m, pinfo,
                      s.count, session.call);
    CheckInfo(info, "gesvd", "SVD did not converge", fname);
    if (u != nullptr) *u = vtx;
    if (vh != nullptr) *vh = ux;
    return;
  }
  // Tall: A in column-major order (m x n, m > n); U_y (m x ucols) and V_y^H (n x n) come back
  // column-major and are swapped into row-major order.
  NDArray y = SwapCopy(a);
  const int ucols = full ? m : n;
  NDArray uy, vty;
  if (vectors) {
    uy = NDArray::Empty(ShapeWith(s, {ucols, m}), dtype, dev);
    vty = NDArray::Empty(ShapeWith(s, {n, n}), dtype, dev);
  }
  cuda::SolverGesvd(dtype, vectors ? (full ? 'A' : 'S') : 'N', vectors ? 'A' : 'N', m, n, y.data(),
                    int64_t{m} * n, s_out->data(), vectors ? uy.data() : nullptr,
                    int64_t{m} * ucols, vectors ? vty.data() : nullptr, int64_t{n} * n, pinfo,
                    s.count, session.call);
  CheckInfo(info, "gesvd", "SVD did not converge", fname);
  if (u != nullptr) *u = SwapCopy(uy);
  if (vh != nullptr) *vh = SwapCopy(vty);
}

NDArray Pinv(const NDArray& a, const std::vector<double>& rtol, const char* fname) {
  return linalg::Pinv(ToHost(a), rtol, fname);
}

NDArray MatrixRank(const NDArray& a, const std::vector<double>& rtol, const char* fname) {
  return linalg::MatrixRank(ToHost(a), rtol, fname);
}

}  // namespace dispatch
}  // namespace linalg
}  // namespace op
}  // namespace mxffi
