/*!
 * \file np_fft.cc
 * \brief np.fft.*: numpy's and the array API's discrete Fourier transforms, on KissFFT
 *  (op/fft/fft.h) on the host: bool, integers and float64 transform as complex128; float16,
 *  bfloat16 and float32 as complex64, as numpy 2. An array on a CUDA device transforms on cuFFT
 *  where it loads (op/fft/dispatch.h), else it is copied to the host and the result copied
 *  back. norm= is numpy's: "backward" (None), "ortho", "forward".
 */
#include <mxffi/registry.h>

#include <cmath>
#include <string>
#include <vector>

#include "../op/dot/dot_op.h"
#include "../op/fft/dispatch.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

namespace ft = op::fft::dispatch;
using op::NumpyShape;

enum class Norm { kBackward, kOrtho, kForward };

Norm ParseNorm(const Optional<String>& norm, const char* fname) {
  if (!norm.has_value()) return Norm::kBackward;
  const std::string n = *norm;
  if (n == "backward") return Norm::kBackward;
  if (n == "ortho") return Norm::kOrtho;
  if (n == "forward") return Norm::kForward;
  MXFFI_THROW(ValueError) << fname << ": Invalid norm value " << n
                          << "; should be \"backward\", \"ortho\" or \"forward\"";
}

/*! \return the factor a transform of length n carries under norm (numpy's). */
double Scale(Norm norm, int64_t n, bool inverse) {
  const double dn = static_cast<double>(n);
  switch (norm) {
    case Norm::kOrtho:
      return 1.0 / std::sqrt(dn);
    case Norm::kForward:
      return inverse ? 1.0 : 1.0 / dn;
    default:
      return inverse ? 1.0 / dn : 1.0;
  }
}

/*! \return the norm that makes a Hermitian transform from the real one it is built on. */
Norm Swapped(Norm norm) {
  if (norm == Norm::kBackward) return Norm::kForward;
  if (norm == Norm::kForward) return Norm::kBackward;
  return norm;
}

int64_t CheckPoints(int64_t n, const char* fname) {
  MXFFI_CHECK(n >= 1, ValueError) << fname << ": Invalid number of FFT data points (" << n
                                  << ") specified.";
  return n;
}

/*!
 * \brief Whether x is float16: numpy's irfft of a real float16 array (a real input taken as
 *  complex) gives float16, where every other route gives float32.
 */
bool IsHalf(const NDArray& x) {
  const DLDataType t = x.tensor().dtype;
  return t.code == kDLFloat && t.bits == 16;
}

/*!
 * \return x as the transforms take it, C-contiguous on the device they run on
 *  (ft::ComputeDevice): complex as it is (complex only when complex_ok), bool and integers as
 *  float64, the narrow floats as float32.
 */
NDArray FftInput(const NDArray& x, bool complex_ok, const char* fname) {
  const DLDataType t = x.tensor().dtype;
  DLDataType to = t;
  if (t.code == kDLComplex) {
    MXFFI_CHECK(complex_ok, TypeError)
        << fname << ": x must be real-valued, got " << DataTypeToString(t);
  } else if (t.code == kDLFloat || t.code == kDLBfloat) {
    to = DLDataType{kDLFloat, static_cast<uint8_t>(t.bits == 64 ? 64 : 32), 1};
  } else if (t.code == kDLBool || t.code == kDLInt || t.code == kDLUInt) {
    to = DLDataType{kDLFloat, 64, 1};
  } else {
    MXFFI_THROW(TypeError) << fname << ": unsupported dtype " << DataTypeToString(t);
  }
  return OnDevice(CastTo(x, to), ft::ComputeDevice(x.tensor().device)).Contiguous();
}

/*! \brief The axes and lengths of an n-dimensional transform (numpy's s= and axes= rules). */
struct Plan {
  std::vector<int> axes;
  std::vector<int64_t> sizes;  // -1: the axis' own length (or 2 (m - 1) for the last of irfftn)
};

Plan MakePlan(const NDArray& x, const Optional<IntTupleLike>& s, const AxisLike& axes,
              const char* fname) {
  const int nd = x.tensor().ndim;
  Plan p;
  if (!axes.is_none()) {
    for (int64_t a : axes.axes()) p.axes.push_back(NormalizeAxis(a, nd, fname));
  } else {
    const int count = s.has_value() ? static_cast<int>(s->ndim()) : nd;
    MXFFI_CHECK(count <= nd, ValueError)
        << fname << ": s has " << count << " entries but x has only " << nd << " dimensions";
    for (int i = nd - count; i < nd; ++i) p.axes.push_back(i);
  }
  if (s.has_value()) {
    MXFFI_CHECK(s->ndim() == p.axes.size(), ValueError)
        << fname << ": Shape and axes have different lengths: s " << s->ToString()
        << " and axes of " << p.axes.size();
    for (int64_t n : *s) p.sizes.push_back(n == -1 ? -1 : CheckPoints(n, fname));
  } else {
    p.sizes.assign(p.axes.size(), -1);
  }
  return p;
}

/*!
 * \return fft or ifft of x along axis with n points (n < 0: x's own length). owned: host is a
 *  complex array of this call's own, transformed in place when its length stays.
 */
NDArray ComplexFft(const NDArray& host, int axis, int64_t n, Norm norm, bool inverse,
                   const char* fname, bool owned = false) {
  const int64_t len = n < 0 ? host.tensor().shape[axis] : n;
  CheckPoints(len, fname);
  const double scale = Scale(norm, len, inverse);
  if (owned && host.tensor().dtype.code == kDLComplex && len == host.tensor().shape[axis]) {
    ft::Transform(host, axis, inverse, scale);
    return host;
  }
  return ft::ComplexTransform(host, axis, len, inverse, scale);
}

/*! \return the real inverse (irfft) of host (complex, or real taken as complex) along axis;
 *  n < 0: 2 (m - 1). */
NDArray RealIfft(const NDArray& host, int axis, int64_t n, Norm norm, const char* fname) {
  const int64_t len = n < 0 ? 2 * (host.tensor().shape[axis] - 1) : n;
  CheckPoints(len, fname);
  return ft::RealInverse(host, axis, len, Scale(norm, len, true));
}

/*! \return the array conj(a) (a new array on a's device). */
NDArray Conj(const NDArray& a) {
  if (a.tensor().device.device_type != kDLCPU) return ft::Conj(a);
  NDArray c = NDArray::Copy(a.tensor());
  const int64_t count = c.numel();
  if (a.tensor().dtype.bits == 64) {
    auto* p = static_cast<float*>(c.data());
    for (int64_t i = 0; i < count; ++i) p[2 * i + 1] = -p[2 * i + 1];
  } else {
    auto* p = static_cast<double*>(c.data());
    for (int64_t i = 0; i < count; ++i) p[2 * i + 1] = -p[2 * i + 1];
  }
  return c;
}

enum class Kind { kFft, kIfft, kRfft, kIrfft, kHfft, kIhfft };

NDArray Fft1(const NDArrayLike& x_arg, Optional<int64_t> n_arg, int64_t axis_arg,
             const Optional<String>& norm_arg, Kind kind, const char* fname) {
  const NDArray x = DenseArray(x_arg, fname);
  MXFFI_CHECK(x.tensor().ndim >= 1, ValueError)
      << fname << ": x must have at least one dimension, got a 0-d array";
  const int axis = NormalizeAxis(axis_arg, x.tensor().ndim, fname);
  const Norm norm = ParseNorm(norm_arg, fname);
  const int64_t n = n_arg.has_value() ? CheckPoints(*n_arg, fname) : -1;
  const bool real_in = kind == Kind::kRfft || kind == Kind::kIhfft;
  const NDArray host = FftInput(x, !real_in, fname);
  NDArray r;
  switch (kind) {
    case Kind::kFft:
    case Kind::kIfft:
      r = ComplexFft(host, axis, n, norm, kind == Kind::kIfft, fname);
      break;
    case Kind::kRfft: {
      const int64_t len = n < 0 ? CheckPoints(host.tensor().shape[axis], fname) : n;
      r = ft::RealForward(host, axis, len, Scale(norm, len, false));
      break;
    }
    case Kind::kIrfft:
      r = RealIfft(host, axis, n, norm, fname);
      break;
    case Kind::kHfft:
      // The real spectrum of a Hermitian signal: irfft of its conjugate, norms swapped.
      r = RealIfft(Conj(ft::ToComplex(host, axis, host.tensor().shape[axis])), axis, n,
                   Swapped(norm), fname);
      break;
    case Kind::kIhfft: {
      const int64_t len = n < 0 ? CheckPoints(host.tensor().shape[axis], fname) : n;
      r = Conj(ft::RealForward(host, axis, len, Scale(Swapped(norm), len, false)));
      break;
    }
  }
  if ((kind == Kind::kIrfft || kind == Kind::kHfft) && IsHalf(x)) r = CastTo(r, x.tensor().dtype);
  return OnDevice(r, x.tensor().device);
}

NDArray FftN(const NDArrayLike& x_arg, const Optional<IntTupleLike>& s, const AxisLike& axes,
             const Optional<String>& norm_arg, Kind kind, const char* fname) {
  const NDArray x = DenseArray(x_arg, fname);
  const Norm norm = ParseNorm(norm_arg, fname);
  const Plan p = MakePlan(x, s, axes, fname);
  const bool real = kind == Kind::kRfft || kind == Kind::kIrfft;
  MXFFI_CHECK(!real || !p.axes.empty(), ValueError) << fname << ": at least one axis is needed";
  NDArray host = FftInput(x, kind != Kind::kRfft, fname);
  const size_t last = p.axes.size() - 1;
  if (kind == Kind::kRfft) {
    // The real transform over the last axis, then complex ones over the others.
    const int a = p.axes[last];
    const int64_t len =
        p.sizes[last] < 0 ? CheckPoints(host.tensor().shape[a], fname) : p.sizes[last];
    host = ft::RealForward(host, a, len, Scale(norm, len, false));
    for (size_t i = 0; i < last; ++i) {
      host = ComplexFft(host, p.axes[i], p.sizes[i], norm, false, fname, true);
    }
  } else if (kind == Kind::kIrfft) {
    for (size_t i = 0; i < last; ++i) {
      host = ComplexFft(host, p.axes[i], p.sizes[i], norm, true, fname, i > 0);
    }
    const int a = p.axes[last];
    host = RealIfft(host, a, p.sizes[last], norm, fname);
    if (last == 0 && IsHalf(x)) host = CastTo(host, x.tensor().dtype);
  } else {
    // The first transform makes a new array; the others may then work in it in place.
    for (size_t i = p.axes.size(); i-- > 0;) {
      host = ComplexFft(host, p.axes[i], p.sizes[i], norm, kind == Kind::kIfft, fname,
                        i + 1 < p.axes.size());
    }
    if (p.axes.empty()) {
      // No axis to transform: numpy returns x as a complex array.
      MXFFI_CHECK(host.tensor().ndim > 0, ValueError)
          << fname << ": x must have at least one dimension, got a 0-d array";
      host = ft::ToComplex(host, 0, host.tensor().shape[0]);
    }
  }
  return OnDevice(host, x.tensor().device);
}

/*! \return fftfreq's or rfftfreq's sample frequencies for window n and spacing d. */
NDArray Frequencies(int64_t n, double d, bool real, const DTypeLike& dtype,
                    const DeviceLike& device, const char* fname) {
  MXFFI_CHECK(n >= 1, ValueError) << fname << ": n must be a positive int, got " << n;
  const int64_t count = real ? n / 2 + 1 : n;
  NDArray out = NDArray::Empty(std::vector<int64_t>{count}, DLDataType{kDLFloat, 64, 1}, kCPU);
  auto* p = static_cast<double*>(out.data());
  const double step = 1.0 / (static_cast<double>(n) * d);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t k = real || i < (n + 1) / 2 ? i : i - n;
    p[i] = static_cast<double>(k) * step;
  }
  if (dtype.has_value()) {
    const DLDataType t = dtype.value();
    MXFFI_CHECK(t.code == kDLFloat && (t.bits == 32 || t.bits == 64) && t.lanes == 1, TypeError)
        << fname << ": dtype must be a real floating dtype, got " << DataTypeToString(t);
    out = CastTo(out, t);
  }
  return OnDevice(out, device.value_or(kCPU));
}

/*!
 * \return x rolled by half of each axis' length (all axes when None): (n // 2) for fftshift,
 *  -(n // 2) for ifftshift; a copy by blocks, on x's device.
 */
NDArray Shift(const NDArrayLike& x_arg, const AxisLike& axes, bool inverse, const char* fname) {
  const NDArray x = DenseArray(x_arg, fname);
  const DLTensor& t = x.tensor();
  int64_t shift[kMaxNDim] = {};
  if (axes.is_none()) {
    for (int i = 0; i < t.ndim; ++i) shift[i] = t.shape[i] / 2;
  } else {
    for (int64_t a : axes.axes()) {
      const int k = NormalizeAxis(a, t.ndim, fname);
      shift[k] += t.shape[k] / 2;  // numpy's roll sums the shifts of a repeated axis
    }
  }
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] > 0) {
      const int64_t s = (inverse ? -shift[i] : shift[i]) % t.shape[i];
      shift[i] = s < 0 ? s + t.shape[i] : s;
    }
  }
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  if (out.numel() == 0) return out;
  int64_t st_in[kMaxNDim], st_out[kMaxNDim];
  ElementStrides(t, st_in);
  ElementStrides(out.tensor(), st_out);
  const int64_t item = DataTypeBytes(t.dtype);
  // Along each axis the output is two blocks: [shift, n) <- [0, n - shift), [0, shift) <- rest.
  for (int64_t mask = 0; mask < (int64_t{1} << t.ndim); ++mask) {
    int64_t shape[kMaxNDim], off_in = 0, off_out = 0;
    bool empty = false;
    for (int i = 0; i < t.ndim; ++i) {
      const int64_t n = t.shape[i], s = shift[i];
      const bool second = (mask >> i) & 1;
      shape[i] = second ? s : n - s;
      if (shape[i] == 0) empty = true;
      off_in += (second ? n - s : 0) * st_in[i];
      off_out += (second ? 0 : s) * st_out[i];
    }
    if (empty) continue;
    const NDArray src = NDArray::View(x, shape, st_in, t.ndim, off_in * item);
    const NDArray dst = NDArray::View(out, shape, st_out, t.ndim, off_out * item);
    NDArray::CopyFromTo(src.tensor(), dst.tensor());
  }
  return out;
}

}  // namespace

#define MXFFI_NP_FFT1(Name, K, Doc)                                                      \
  MXFFI_REGISTER_API("np.fft." Name)                                                     \
      .describe(Doc                                                                      \
                " n crops or zero-pads x along axis first (the output's length for the " \
                "inverse real transforms); norm is \"backward\" (None), \"ortho\" or "   \
                "\"forward\", as numpy.")                                                \
      .arg("x")                                                                          \
      .positional_only()                                                                 \
      .arg("n", nullptr)                                                                 \
      .arg("axis", -1)                                                                   \
      .arg("norm", nullptr)                                                              \
      .set_body_typed(                                                                   \
          [](NDArrayLike x, Optional<int64_t> n, int64_t axis, Optional<String> norm) {  \
            return Fft1(x, n, axis, norm, K, "np.fft." Name);                            \
          })

MXFFI_NP_FFT1("fft", Kind::kFft, "The one-dimensional discrete Fourier transform along axis.");
MXFFI_NP_FFT1("ifft", Kind::kIfft, "The inverse of fft along axis.");
MXFFI_NP_FFT1("rfft", Kind::kRfft,
              "The n // 2 + 1 non-negative frequency terms of the transform of real x along "
              "axis.");
MXFFI_NP_FFT1("irfft", Kind::kIrfft,
              "The inverse of rfft: the real signal of length n (default 2 (m - 1)) along axis.");
MXFFI_NP_FFT1("hfft", Kind::kHfft,
              "The real transform of a Hermitian-symmetric signal given by its first half along "
              "axis (length n, default 2 (m - 1)).");
MXFFI_NP_FFT1("ihfft", Kind::kIhfft, "The inverse of hfft: the first half of real x's spectrum.");

#define MXFFI_NP_FFTN(Name, K, DefaultAxes, Doc)                                              \
  MXFFI_REGISTER_API("np.fft." Name)                                                          \
      .describe(Doc                                                                           \
                " s gives the lengths (cropped or zero-padded) along axes; norm is "          \
                "\"backward\" (None), \"ortho\" or \"forward\", as numpy.")                   \
      .arg("x")                                                                               \
      .positional_only()                                                                      \
      .arg("s", nullptr)                                                                      \
      .arg("axes", DefaultAxes)                                                               \
      .arg("norm", nullptr)                                                                   \
      .set_body_typed(                                                                        \
          [](NDArrayLike x, Optional<IntTupleLike> s, AxisLike axes, Optional<String> norm) { \
            return FftN(x, s, axes, norm, K, "np.fft." Name);                                 \
          })

MXFFI_NP_FFTN("fftn", Kind::kFft, nullptr,
              "The n-dimensional transform over axes (None: the last len(s), else all).");
MXFFI_NP_FFTN("ifftn", Kind::kIfft, nullptr, "The inverse of fftn.");
MXFFI_NP_FFTN("rfftn", Kind::kRfft, nullptr,
              "The n-dimensional transform of real x: rfft over the last of axes, fft over the "
              "others.");
MXFFI_NP_FFTN("irfftn", Kind::kIrfft, nullptr,
              "The inverse of rfftn: ifft over all but the last of axes, irfft over the last.");
MXFFI_NP_FFTN("fft2", Kind::kFft, Array<int64_t>({-2, -1}), "fftn over the last two axes.");
MXFFI_NP_FFTN("ifft2", Kind::kIfft, Array<int64_t>({-2, -1}), "ifftn over the last two axes.");
MXFFI_NP_FFTN("rfft2", Kind::kRfft, Array<int64_t>({-2, -1}), "rfftn over the last two axes.");
MXFFI_NP_FFTN("irfft2", Kind::kIrfft, Array<int64_t>({-2, -1}), "irfftn over the last two axes.");

MXFFI_REGISTER_API("np.fft.fftfreq")
    .describe(
        "The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., "
        "(n - 1) // 2, -(n // 2), ..., -1] / (d n), float64 unless dtype= names float32.")
    .arg("n")
    .arg("d", 1.0)
    .keyword_only()
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](int64_t n, double d, DTypeLike dtype, DeviceLike device) {
      return Frequencies(n, d, false, dtype, device, "np.fft.fftfreq");
    });

MXFFI_REGISTER_API("np.fft.rfftfreq")
    .describe(
        "The non-negative sample frequencies of an n-point real transform with spacing d: [0, "
        "1, ..., n // 2] / (d n).")
    .arg("n")
    .arg("d", 1.0)
    .keyword_only()
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](int64_t n, double d, DTypeLike dtype, DeviceLike device) {
      return Frequencies(n, d, true, dtype, device, "np.fft.rfftfreq");
    });

MXFFI_REGISTER_API("np.fft.fftshift")
    .describe("x with the zero frequency moved to the middle of each of axes (None: all).")
    .arg("x")
    .positional_only()
    .arg("axes", nullptr)
    .set_body_typed([](NDArrayLike x, AxisLike axes) {
      return Shift(x, axes, false, "np.fft.fftshift");
    });

MXFFI_REGISTER_API("np.fft.ifftshift")
    .describe("The inverse of fftshift.")
    .arg("x")
    .positional_only()
    .arg("axes", nullptr)
    .set_body_typed([](NDArrayLike x, AxisLike axes) {
      return Shift(x, axes, true, "np.fft.ifftshift");
    });

}  // namespace api
}  // namespace mxffi
