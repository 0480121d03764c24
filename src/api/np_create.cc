/*!
 * \file np_create.cc
 * \brief More of the array API's creation functions: np.empty_like and np.full_like, np.eye
 *  and np.linspace (made on the host and moved where asked), np.tril and np.triu (the
 *  _npi_tril / _npi_triu ops, on x's device), and np.meshgrid, copies of broadcast views on the
 *  inputs' device.
 */
#include <mxffi/container/array.h>
#include <mxffi/registry.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "../ndarray/cuda/device.h"
#include "../op/dtype.h"
#include "../op/tri/tri_op.h"
#include "../op/type_switch.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

constexpr DLDevice kHost{kDLCPU, 0};
constexpr DLDataType kDefaultFloat{kDLFloat, 64, 1};

/*! \return the device asked for (the CPU for None), checked. */
DLDevice DeviceOf(const DeviceLike& device, const char* fname) {
  const DLDevice d = device.value_or(kHost);
  if (d.device_type == kDLCUDA) cuda::CheckDevice(d, fname);
  return d;
}

/*! \return a host array moved to device (itself on the CPU). */
NDArray MoveTo(const NDArray& host, DLDevice device, const char* fname) {
  return device.device_type == kDLCPU ? host : cuda::ToDevice(host, device, fname);
}

/*! \brief ValueError for a negative count. */
void CheckCount(int64_t n, const char* what, const char* fname) {
  MXFFI_CHECK(n >= 0, ValueError) << fname << ": " << what << " must be non-negative, got " << n;
}

/*! \return np.tril (lower) or np.triu of x: the op on x's stack of matrices. */
NDArray Triangle(const NDArrayLike& x, int64_t k, bool lower) {
  static const Op* tril = Op::Get("_npi_tril");
  static const Op* triu = Op::Get("_npi_triu");
  const char* fname = lower ? "np.tril" : "np.triu";
  MXFFI_CHECK(!x->is_sparse(), TypeError)
      << fname << ": takes a dense array; got storage type " << StorageTypeName(x->stype());
  const int ndim = x->tensor().ndim;
  MXFFI_CHECK(ndim >= 2, ValueError)
      << fname << ": input array must be at least 2-dimensional, but it is " << ndim;
  op::TriParam p;
  p.k = k;
  return InvokeOp(lower ? tril : triu, p, {x.array()});
}

}  // namespace

MXFFI_REGISTER_API("np.tril")
    .describe(
        "A copy of x (a stack of matrices, at least 2-dimensional) with the elements above the "
        "k-th diagonal of each matrix zero (k 0 the main diagonal, positive above it, negative "
        "below).")
    .arg("x")
    .arg("k", 0)
    .set_body_typed([](NDArrayLike x, int64_t k) { return Triangle(x, k, true); });

MXFFI_REGISTER_API("np.triu")
    .describe(
        "A copy of x (a stack of matrices, at least 2-dimensional) with the elements below the "
        "k-th diagonal of each matrix zero (k 0 the main diagonal, positive above it, negative "
        "below).")
    .arg("x")
    .arg("k", 0)
    .set_body_typed([](NDArrayLike x, int64_t k) { return Triangle(x, k, false); });

MXFFI_REGISTER_API("np.empty_like")
    .describe(
        "A new array with the shape of x (and its dtype and device unless given), its elements "
        "not initialised.")
    .arg("x")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](NDArrayLike x, DTypeLike dtype, DeviceLike device) {
      const DLTensor& t = x->tensor();
      MXFFI_CHECK(!x->is_sparse(), TypeError)
          << "np.empty_like: takes a dense array; got storage type " << StorageTypeName(x->stype());
      const DLDevice d = device.has_value() ? DeviceOf(device, "np.empty_like") : t.device;
      return NDArray::Empty(t.shape, t.ndim, dtype.value_or(t.dtype), d);
    });

MXFFI_REGISTER_API("np.full_like")
    .describe(
        "A new array with the shape of x (and its dtype and device unless given) filled with "
        "fill_value, which must fit the dtype as np.full's must.")
    .arg("x")
    .arg("fill_value")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](NDArrayLike x, ArrayLike fill_value, DTypeLike dtype, DeviceLike device) {
      const DLTensor& t = x->tensor();
      MXFFI_CHECK(!x->is_sparse(), TypeError)
          << "np.full_like: takes a dense array; got storage type " << StorageTypeName(x->stype());
      const DLDevice d = device.has_value() ? DeviceOf(device, "np.full_like") : t.device;
      return FullOf(ShapeLike(t.shape, t.ndim), fill_value, DTypeLike(dtype.value_or(t.dtype)),
                    DeviceLike(d), "np.full_like");
    });

MXFFI_REGISTER_API("np.eye")
    .describe(
        "An n_rows x n_cols array (n_cols None: square) with ones on the k-th diagonal (0 the "
        "main one, positive above it, negative below) and zeros elsewhere.")
    .arg("n_rows")
    .arg("n_cols", nullptr)
    .arg("k", 0)
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](int64_t n_rows, Optional<int64_t> n_cols_arg, int64_t k, DTypeLike dtype,
                       DeviceLike device) {
      constexpr const char* fname = "np.eye";
      const int64_t n_cols = n_cols_arg.value_or(n_rows);
      CheckCount(n_rows, "n_rows", fname);
      CheckCount(n_cols, "n_cols", fname);
      const DLDevice d = DeviceOf(device, fname);
      const int64_t shape[2] = {n_rows, n_cols};
      const DLDataType dt = dtype.value_or(kDefaultFloat);
      // The rows of the k-th diagonal: i in [first, last), where column i + k exists. No
      // arithmetic on k may overflow (-k of INT64_MIN, n_cols - k): a k past either side
      // leaves the array zero, as numpy's.
      const int64_t first = k >= 0 ? 0 : (k <= -n_rows ? n_rows : -k);
      int64_t bound;  // the rows i with i + k < n_cols are those below n_cols - k
      if (__builtin_sub_overflow(n_cols, k, &bound)) bound = INT64_MAX;
      const int64_t last = std::max(first, std::min(n_rows, bound));
      if (dt.code == kDLComplex && dt.lanes == 1 && (dt.bits == 64 || dt.bits == 128)) {
        NDArray out = ComplexFull(shape, 2, dt, kHost, 0.0, fname);
        for (int64_t i = first; i < last; ++i) {
          if (dt.bits == 64) {
            op::DataPtr<float>(out.tensor())[2 * (i * n_cols + i + k)] = 1.0f;
          } else {
            op::DataPtr<double>(out.tensor())[2 * (i * n_cols + i + k)] = 1.0;
          }
        }
        return MoveTo(out, d, fname);
      }
      NDArray out = NDArray::Empty(shape, 2, dt, kHost);
      MXFFI_TYPE_SWITCH(dt, fname, DType, {
        DType* p = op::DataPtr<DType>(out.tensor());
        std::memset(static_cast<void*>(p), 0, sizeof(DType) * n_rows * n_cols);
        for (int64_t i = first; i < last; ++i) {  // row i holds its one at column i + k
          p[i * n_cols + i + k] = DType(1.0);
        }
      });
      return MoveTo(out, d, fname);
    });

MXFFI_REGISTER_API("np.linspace")
    .describe(
        "num evenly spaced values from start to stop (included when endpoint is True, as numpy "
        "computes them: start + i * step, the last one exactly stop), in dtype (None: float64; an "
        "integer dtype takes the values rounded toward minus infinity, as numpy 2).")
    .arg("start")
    .arg("stop")
    .arg("num")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .arg("endpoint", true)
    .set_body_typed([](double start, double stop, int64_t num, DTypeLike dtype, DeviceLike device,
                       bool endpoint) {
      constexpr const char* fname = "np.linspace";
      CheckCount(num, "num", fname);
      const DLDevice d = DeviceOf(device, fname);
      const DLDataType dt = dtype.value_or(kDefaultFloat);
      const bool integral = dt.code == kDLInt || dt.code == kDLUInt;
      const int64_t div = endpoint ? num - 1 : num;
      const double delta = stop - start;
      const double step = div > 0 ? delta / static_cast<double>(div) : 0.0;
      NDArray out = NDArray::Empty(&num, 1, dt, kHost);
      MXFFI_TYPE_SWITCH(dt, fname, DType, {
        DType* p = op::DataPtr<DType>(out.tensor());
        for (int64_t i = 0; i < num; ++i) {
          double v = (endpoint && num > 1 && i == num - 1) ? stop
                     : step == 0.0 && div > 0              ? start + (i * delta) / div
                                                           : start + static_cast<double>(i) * step;
          if (integral) v = std::floor(v);
          if constexpr (std::is_integral_v<DType> && !std::is_same_v<DType, bool>) {
            // numpy's unsafe cast of a value out of range is undefined in C++: refused here.
            MXFFI_CHECK(v >= static_cast<double>(std::numeric_limits<DType>::min()) &&
                            v <= static_cast<double>(std::numeric_limits<DType>::max()),
                        OverflowError)
                << fname << ": the value " << v << " does not fit in " << DataTypeToString(dt);
          }
          p[i] = DType(v);
        }
      });
      return MoveTo(out, d, fname);
    });

MXFFI_REGISTER_API("np.meshgrid")
    .describe(
        "Coordinate matrices from coordinate vectors (numpy.meshgrid): for arrays of lengths n1, "
        "..., nN, N new arrays of one shape, (n2, n1, n3, ..., nN) with indexing='xy' (the "
        "default) or (n1, ..., nN) with 'ij', the i-th holding arrays[i] repeated along the other "
        "axes, in its dtype, on the arrays' device (an array of another dimension is flattened, "
        "as numpy does). Returns them in a list (an empty one for no arrays), as the array API "
        "standard (2024.12) does.")
    .arg_variadic("arrays")
    .arg("indexing", "xy")
    .returns_list()
    .set_body_typed([](Array<NDArray> arrays, std::string_view indexing) {
      constexpr const char* fname = "np.meshgrid";
      MXFFI_CHECK(indexing == "xy" || indexing == "ij", ValueError)
          << fname << ": indexing must be 'xy' or 'ij', got '" << indexing << "'";
      const int64_t n = arrays.size();
      MXFFI_CHECK(n <= kMaxNDim, ValueError)
          << fname << ": " << n << " arrays make " << n << "-d results; at most " << kMaxNDim
          << " dimensions are supported";
      std::vector<NDArray> flat;
      std::vector<int64_t> shape;
      for (int64_t i = 0; i < n; ++i) {
        // A numpy array in the list arrives as a copy (a list becomes an Array that owns its
        // elements), so every element is an mxffi array.
        const NDArray a = arrays[i];
        MXFFI_CHECK(!a.is_sparse(), TypeError)
            << fname << ": arrays[" << i << "] must be a dense array, got storage type "
            << StorageTypeName(a.stype());
        const DLTensor& t = a.tensor();
        if (i > 0) {
          const DLDevice d0 = flat[0].tensor().device;
          MXFFI_CHECK(t.device.device_type == d0.device_type && t.device.device_id == d0.device_id,
                      ValueError)
              << fname << ": arrays[" << i << "] is on " << DeviceToString(t.device)
              << " but arrays[0] on " << DeviceToString(d0) << "; all must be on one device";
        }
        // Contiguous, then one axis: numpy flattens in C order.
        const NDArray c = a.Contiguous();
        int64_t len = 1;
        for (int32_t k = 0; k < t.ndim; ++k) len *= t.shape[k];
        const int64_t one = 1;
        flat.push_back(NDArray::View(c, &len, &one, 1, 0));
        shape.push_back(len);
      }
      const bool xy = indexing == "xy" && n >= 2;
      if (xy) std::swap(shape[0], shape[1]);
      Array<NDArray> out;
      std::vector<int64_t> strides(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        std::fill(strides.begin(), strides.end(), int64_t{0});
        const int64_t axis = xy && i < 2 ? 1 - i : i;
        strides[static_cast<size_t>(axis)] = 1;
        const NDArray view = NDArray::View(flat[static_cast<size_t>(i)], shape.data(),
                                           strides.data(), static_cast<int32_t>(n), 0);
        out.push_back(NDArray::Copy(view.tensor()));
      }
      return out;
    });

}  // namespace api
}  // namespace mxffi
