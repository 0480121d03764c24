/*!
 * \file cufft_ops.cc
 * \brief dispatch.h: np.fft on a CUDA device through cuFFT (src/ndarray/cuda/cufft.h), and the
 *  host fallback.
 *
 * cuFFT transforms contiguous lines. A transform along the last axis runs on the array as it
 * is; along another axis, the array is first copied with that axis moved last (the strided
 * device copy, which also crops or zero-pads the lines to the transform's length) and the result
 * copied back into the input's axis order. numpy's normalization is one multiply by a scalar on
 * the device after the unnormalized transform. The lines of one call are one batched cuFFT plan.
 * An array with no elements, or lines or counts past int, runs on the host.
 */
#include <mxffi/error.h>
#include <mxffi/op/op.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "../../ndarray/cuda/cufft.h"
#include "../../ndarray/cuda/device.h"
#include "../elemwise/elemwise.h"
#include "../init/init_op.h"
#include "dispatch.h"
#include "fft.h"

namespace mxffi {
namespace op {
namespace fft {
namespace dispatch {
namespace {

constexpr DLDevice kHost{kDLCPU, 0};

bool OnCuda(const NDArray& a) { return a.tensor().device.device_type == kDLCUDA; }

NDArray ToDevice(const NDArray& a, DLDevice device) {
  const DLDevice d = a.tensor().device;
  if (d.device_type == device.device_type && d.device_id == device.device_id) return a;
  NDArray out = NDArray::Empty(a.tensor().shape, a.tensor().ndim, a.tensor().dtype, device);
  NDArray::CopyFromTo(a.tensor(), out.tensor());
  return out;
}

NDArray ToHost(const NDArray& a) { return ToDevice(a, kHost); }

bool IsDouble(DLDataType t) { return t.bits == (t.code == kDLComplex ? 128 : 64); }

DLDataType ComplexOf(bool dbl) {
  return DLDataType{kDLComplex, static_cast<uint8_t>(dbl ? 128 : 64), 1};
}

DLDataType RealOf(bool dbl) { return DLDataType{kDLFloat, static_cast<uint8_t>(dbl ? 64 : 32), 1}; }

/*!
 * \return whether cuFFT runs the transform of the CUDA array a along axis with lines of n
 *  points: the library loads, there are elements, and the lines' points all together (n times
 *  the number of lines) fit in int, as cuFFT's 32-bit plans need.
 */
bool Usable(const NDArray& a, int axis, int64_t n) {
  const DLTensor& t = a.tensor();
  if (t.device.device_type != kDLCUDA || a.numel() == 0 || n < 1 || n > INT_MAX) return false;
  if (!cuda::FftAvailable()) return false;
  const int64_t lines = a.numel() / t.shape[axis];
  return lines <= INT_MAX / n;
}

std::vector<int64_t> CompactStrides(const int64_t* shape, int nd) {
  std::vector<int64_t> st(nd);
  int64_t step = 1;
  for (int i = nd - 1; i >= 0; --i) {
    st[i] = step;
    step *= shape[i];
  }
  return st;
}

/*! \brief Set every element of the CUDA tensor t (any strides) to zero: a broadcast copy. */
void FillZero(const DLTensor& t) {
  NDArray zero = NDArray::Empty(std::vector<int64_t>{1}, t.dtype, kHost);
  std::memset(zero.data(), 0, DataTypeBytes(t.dtype));
  const NDArray dev = ToDevice(zero, t.device);
  const std::vector<int64_t> st(t.ndim, 0);
  const NDArray view = NDArray::View(dev, t.shape, st.data(), t.ndim, 0);
  NDArray::CopyFromTo(view.tensor(), t);
}

void FillZero(const NDArray& a) { FillZero(a.tensor()); }

NDArray CastTo(const NDArray& a, DLDataType dtype) {
  const DLDataType t = a.tensor().dtype;
  if (t.code == dtype.code && t.bits == dtype.bits && t.lanes == dtype.lanes) return a;
  static const Op* cast = Op::Get("_cast");
  CastParam p;
  p.dtype = dtype;
  OpAttrs attrs;
  attrs.op = cast;
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(&a, 1));
}

/*! \return the op opname (a scalar op) of a and the Python float v. */
NDArray ScalarOp(const char* opname, const NDArray& a, double v) {
  BinaryScalarParam p;
  p.scalar = ScalarValue::Float(v);
  OpAttrs attrs;
  attrs.op = Op::Get(opname);
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(&a, 1));
}

/*! \return the op opname of the given inputs. */
NDArray ArrayOp(const char* opname, std::initializer_list<NDArray> in) {
  OpAttrs attrs;
  attrs.op = Op::Get(opname);
  return Invoke(attrs, Span<const NDArray>(in.begin(), in.size()));
}

NDArray Scaled(const NDArray& a, double scale) {
  return scale == 1.0 ? a : ScalarOp("_npi_multiply_scalar", a, scale);
}

/*!
 * \return a new contiguous array of a's values (a contiguous, on the device) with axis moved
 *  last and cropped or zero-padded to n there: shape (the other axes..., n).
 */
NDArray MoveLast(const NDArray& a, int axis, int64_t n) {
  const DLTensor& t = a.tensor();
  const int nd = t.ndim;
  const std::vector<int64_t> st = CompactStrides(t.shape, nd);
  std::vector<int64_t> oshape, vshape, vstrides;
  for (int i = 0; i < nd; ++i) {
    if (i == axis) continue;
    oshape.push_back(t.shape[i]);
    vshape.push_back(t.shape[i]);
    vstrides.push_back(st[i]);
  }
  const int64_t keep = std::min(t.shape[axis], n);
  oshape.push_back(n);
  vshape.push_back(keep);
  vstrides.push_back(st[axis]);
  NDArray out = NDArray::Empty(oshape, t.dtype, t.device);
  if (out.numel() == 0) return out;
  if (keep < n) FillZero(out);
  if (keep > 0) {
    const std::vector<int64_t> ost = CompactStrides(oshape.data(), nd);
    const NDArray src = NDArray::View(a, vshape.data(), vstrides.data(), nd, 0);
    const NDArray dst = NDArray::View(out, vshape.data(), ost.data(), nd, 0);
    NDArray::CopyFromTo(src.tensor(), dst.tensor());
  }
  return out;
}

/*! \return a view of t (contiguous, (the other axes..., m)) with its last axis at axis. */
NDArray BackView(const NDArray& t, int axis) {
  const DLTensor& d = t.tensor();
  const int nd = d.ndim;
  const std::vector<int64_t> st = CompactStrides(d.shape, nd);
  std::vector<int64_t> shape, strides;
  int k = 0;
  for (int i = 0; i < nd; ++i) {
    if (i == axis) {
      shape.push_back(d.shape[nd - 1]);
      strides.push_back(st[nd - 1]);
    } else {
      shape.push_back(d.shape[k]);
      strides.push_back(st[k]);
      ++k;
    }
  }
  return NDArray::View(t, shape.data(), strides.data(), nd, 0);
}

/*! \return t with its last axis moved back to axis, contiguous. */
NDArray MoveBack(const NDArray& t, int axis) {
  if (axis == t.tensor().ndim - 1) return t;
  return NDArray::Copy(BackView(t, axis).tensor());
}

/*! \brief The device, its stream and the device current for a sequence of cuFFT calls. */
struct Session {
  cuda::DeviceGuard guard;
  DLDevice device;
  void* stream;
  explicit Session(DLDevice d) : guard(d), device(d), stream(cuda::CurrentStream(d.device_id)) {}
};

/*!
 * \brief Give column j of the lines of t (complex, contiguous, (..., m)) a zero imaginary part,
 *  leaving the real part as it is: zeros written into the imaginary parts, read as the real
 *  dtype (..., m, 2) at [..., j, 1]. Whatever the imaginary part held (inf, NaN) is gone, and
 *  the real part is not touched by any arithmetic (which could overflow it).
 */
void DropImag(const NDArray& t, int64_t j) {
  const DLTensor& d = t.tensor();
  const int nd = d.ndim;
  std::vector<int64_t> shape(d.shape, d.shape + nd);
  shape[nd - 1] = 1;
  // The strides of the complex elements, in real elements: twice as many.
  std::vector<int64_t> st = CompactStrides(d.shape, nd);
  for (int64_t& v : st) v *= 2;
  DLTensor imag = d;
  imag.dtype = RealOf(IsDouble(d.dtype));
  imag.shape = shape.data();
  imag.strides = st.data();
  imag.byte_offset = d.byte_offset + j * DataTypeBytes(d.dtype) + DataTypeBytes(imag.dtype);
  FillZero(imag);
}

}  // namespace

DLDevice ComputeDevice(DLDevice device) {
  return device.device_type == kDLCUDA && cuda::FftAvailable() ? device : kHost;
}

NDArray ToComplex(const NDArray& a, int axis, int64_t n) {
  if (!OnCuda(a)) return fft::ToComplex(a, axis, n);
  if (!cuda::FftAvailable()) return fft::ToComplex(ToHost(a), axis, n);
  const DLTensor& t = a.tensor();
  const NDArray c = CastTo(a, ComplexOf(IsDouble(t.dtype)));
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  shape[axis] = n;
  NDArray out = NDArray::Empty(shape, c.tensor().dtype, t.device);
  if (out.numel() == 0) return out;
  const int64_t keep = std::min(t.shape[axis], n);
  if (keep < n) FillZero(out);
  if (keep > 0) {
    std::vector<int64_t> kshape = shape;
    kshape[axis] = keep;
    const std::vector<int64_t> src_st = CompactStrides(t.shape, t.ndim);
    const std::vector<int64_t> dst_st = CompactStrides(shape.data(), t.ndim);
    const NDArray src = NDArray::View(c, kshape.data(), src_st.data(), t.ndim, 0);
    const NDArray dst = NDArray::View(out, kshape.data(), dst_st.data(), t.ndim, 0);
    NDArray::CopyFromTo(src.tensor(), dst.tensor());
  }
  return out;
}

void Transform(const NDArray& c, int axis, bool inverse, double scale) {
  if (!OnCuda(c)) return fft::Transform(c, axis, inverse, scale);
  const int64_t n = c.tensor().shape[axis];
  if (c.numel() == 0) return;
  if (!Usable(c, axis, n)) {
    const NDArray host = ToHost(c);
    fft::Transform(host, axis, inverse, scale);
    NDArray::CopyFromTo(host.tensor(), c.tensor());
    return;
  }
  const bool dbl = IsDouble(c.tensor().dtype);
  Session s(c.tensor().device);
  const bool last = axis == c.tensor().ndim - 1;
  NDArray lines = last ? c : MoveLast(c, axis, n);
  cuda::FftExec(cuda::FftType::kC2C, dbl, n, lines.numel() / n, lines.data(), lines.data(), inverse,
                s.device, s.stream, "np.fft");
  lines = Scaled(lines, scale);
  if (last && lines.same_as(c)) return;
  NDArray::CopyFromTo((last ? lines : BackView(lines, axis)).tensor(), c.tensor());
}

NDArray ComplexTransform(const NDArray& a, int axis, int64_t n, bool inverse, double scale) {
  if (!OnCuda(a)) return fft::ComplexTransform(a, axis, n, inverse, scale);
  if (!cuda::FftAvailable()) return fft::ComplexTransform(ToHost(a), axis, n, inverse, scale);
  NDArray c = ToComplex(a, axis, n);  // a new array of this call's own
  Transform(c, axis, inverse, scale);
  return c;
}

NDArray RealForward(const NDArray& a, int axis, int64_t n, double scale) {
  if (!OnCuda(a)) return fft::RealForward(a, axis, n, scale);
  if (!Usable(a, axis, n)) return fft::RealForward(ToHost(a), axis, n, scale);
  const bool dbl = IsDouble(a.tensor().dtype);
  Session s(a.tensor().device);
  const NDArray lines = MoveLast(a, axis, n);
  std::vector<int64_t> shape(lines.tensor().shape, lines.tensor().shape + lines.tensor().ndim);
  shape.back() = n / 2 + 1;
  NDArray spec = NDArray::Empty(shape, ComplexOf(dbl), s.device);
  cuda::FftExec(cuda::FftType::kR2C, dbl, n, lines.numel() / n, lines.data(), spec.data(), false,
                s.device, s.stream, "np.fft");
  return MoveBack(Scaled(spec, scale), axis);
}

NDArray RealInverse(const NDArray& c, int axis, int64_t n, double scale) {
  if (!OnCuda(c)) return fft::RealInverse(c, axis, n, scale);
  if (!Usable(c, axis, n)) return fft::RealInverse(ToHost(c), axis, n, scale);
  if (c.tensor().dtype.code != kDLComplex) {  // real input: its zero imaginary parts first
    return RealInverse(ToComplex(c, axis, c.tensor().shape[axis]), axis, n, scale);
  }
  const bool dbl = IsDouble(c.tensor().dtype);
  const int64_t half = n / 2 + 1;
  Session s(c.tensor().device);
  // A new copy (cuFFT's complex-to-real overwrites its input) of the first half terms, whose
  // zero and (for an even n) Nyquist terms lose their imaginary parts, as numpy ignores them.
  const NDArray lines = MoveLast(c, axis, half);
  DropImag(lines, 0);
  if (n % 2 == 0) DropImag(lines, n / 2);
  std::vector<int64_t> shape(lines.tensor().shape, lines.tensor().shape + lines.tensor().ndim);
  shape.back() = n;
  NDArray real = NDArray::Empty(shape, RealOf(dbl), s.device);
  cuda::FftExec(cuda::FftType::kC2R, dbl, n, real.numel() / n, lines.data(), real.data(), true,
                s.device, s.stream, "np.fft");
  return MoveBack(Scaled(real, scale), axis);
}

NDArray Conj(const NDArray& c) { return ArrayOp("_npi_conjugate", {c}); }

}  // namespace dispatch
}  // namespace fft
}  // namespace op
}  // namespace mxffi
