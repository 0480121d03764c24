/*!
 * \file shape_check.cc
 * \brief The checks every array shape passes (CheckedShapeSize) and every imported tensor
 *  passes before anything reads its memory (CheckImported).
 */
#include "shape_check.h"

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <algorithm>
#include <sstream>
#include <string>

namespace mxffi {
namespace details {

std::string ShapeString(const int64_t* shape, int32_t ndim) {
  std::ostringstream os;
  os << "(";
  for (int32_t i = 0; i < ndim; ++i) os << (i ? ", " : "") << shape[i];
  os << (ndim == 1 ? ",)" : ")");
  return os.str();
}

int64_t CheckedShapeSize(const int64_t* shape, int32_t ndim, DLDataType dtype, const char* fname) {
  int64_t nonzero = 1;
  bool empty = false;
  for (int32_t i = 0; i < ndim; ++i) {
    MXFFI_CHECK(shape[i] >= 0, ValueError)
        << fname << ": negative dimensions are not allowed; got shape " << ShapeString(shape, ndim);
    if (shape[i] == 0) {
      empty = true;
      continue;
    }
    MXFFI_CHECK(!__builtin_mul_overflow(nonzero, shape[i], &nonzero), ValueError)
        << fname << ": array is too big; shape " << ShapeString(shape, ndim)
        << " has more elements than int64 holds";
  }
  int64_t nbytes;
  MXFFI_CHECK(!__builtin_mul_overflow(nonzero, DataTypeBytes(dtype), &nbytes), ValueError)
      << fname << ": array is too big; shape " << ShapeString(shape, ndim) << " of "
      << DataTypeToString(dtype) << " needs more bytes than int64 holds";
  return empty ? 0 : nonzero;
}

/*! \brief The most dimensions an array may have (numpy's NPY_MAXDIMS; ndarray.view's bound). */
constexpr int32_t kMaxArrayDims = 64;

/*!
 * \brief Refuse a tensor that cannot describe memory. DLPack does not say how large the memory
 *  is, so an extent inside the address space is taken as given; what is checked is that every
 *  address the tensor describes is computed without overflow: at most kMaxArrayDims
 *  dimensions, no negative extent, element and byte counts (zero extents aside) within int64,
 *  strides whose reach fits int64 bytes, a byte_offset below 2^63, and first and last elements
 *  that do not wrap around the address space.
 */
void CheckImported(const DLTensor& t, const char* fname) {
  MXFFI_CHECK(t.ndim >= 0, ValueError) << fname << ": ndim must be >= 0, got " << t.ndim;
  MXFFI_CHECK(t.ndim <= kMaxArrayDims, ValueError)
      << fname << ": the tensor has " << t.ndim << " dimensions; at most " << kMaxArrayDims
      << " are supported";
  MXFFI_CHECK(t.ndim == 0 || t.shape != nullptr, ValueError)
      << fname << ": the tensor has ndim=" << t.ndim << " but no shape";
  for (int32_t i = 0; i < t.ndim; ++i) {
    MXFFI_CHECK(t.shape[i] >= 0, ValueError)
        << fname << ": shape[" << i << "]=" << t.shape[i] << " is negative";
  }
  MXFFI_CHECK(t.dtype.lanes >= 1, ValueError)
      << fname << ": dtype lanes must be >= 1, got " << t.dtype.lanes;
  // No memory holds more bytes than int64 counts; past this check element counts, strides and
  // byte sizes of the tensor are computed without overflow.
  bool empty = std::any_of(t.shape, t.shape + t.ndim, [](int64_t d) { return d == 0; });
  MXFFI_CHECK(empty || t.data != nullptr, ValueError)
      << fname << ": the tensor of shape " << ShapeString(t.shape, t.ndim)
      << " has elements but its data pointer is NULL";
  const int64_t elem = std::max<int64_t>(DataTypeBytes(t.dtype), 1);
  int64_t bytes = elem;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) continue;  // numpy's rule: a zero extent hides no overflow
    MXFFI_CHECK(!__builtin_mul_overflow(bytes, t.shape[i], &bytes), ValueError)
        << fname << ": shape " << ShapeString(t.shape, t.ndim) << " of "
        << DataTypeToString(t.dtype) << " describes more bytes than int64 holds";
  }
  MXFFI_CHECK(t.byte_offset <= static_cast<uint64_t>(INT64_MAX), ValueError)
      << fname << ": byte_offset " << t.byte_offset << " is past int64";
  if (empty) return;
  // The lowest and highest byte the elements reach, from the first element: strides in
  // elements, each extent's reach (extent - 1) * stride * element size, summed by sign.
  int64_t lo = 0, hi = 0;
  if (t.strides == nullptr) {
    hi = bytes - elem;
  } else {
    for (int32_t i = 0; i < t.ndim; ++i) {
      int64_t reach;
      bool overflow = __builtin_mul_overflow(t.shape[i] - 1, t.strides[i], &reach) ||
                      __builtin_mul_overflow(reach, elem, &reach) ||
                      __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi);
      MXFFI_CHECK(!overflow, ValueError)
          << fname << ": shape " << ShapeString(t.shape, t.ndim) << " with strides "
          << ShapeString(t.strides, t.ndim) << " reach more bytes than int64 holds";
    }
  }
  // Kernels add element offsets to data + byte_offset in int64 bytes: the byte past the last
  // element must be an int64 offset too.
  int64_t span, last;
  MXFFI_CHECK(!__builtin_add_overflow(hi, elem, &span) &&
                  !__builtin_add_overflow(static_cast<int64_t>(t.byte_offset), span, &last),
              ValueError)
      << fname << ": byte_offset " << t.byte_offset << " and the elements' reach of " << hi << " + "
      << elem << " bytes put the last byte past int64";
  // The first element's address and the span lo .. hi + elem around it, in unsigned arithmetic:
  // none of it may wrap past 0 or past the top of the address space.
  const uintptr_t below = uintptr_t{0} - static_cast<uintptr_t>(lo);  // |lo|, lo <= 0
  uintptr_t start, end;
  const bool wraps = __builtin_add_overflow(reinterpret_cast<uintptr_t>(t.data),
                                            static_cast<uintptr_t>(t.byte_offset), &start) ||
                     below > start ||
                     __builtin_add_overflow(start, static_cast<uintptr_t>(span), &end);
  MXFFI_CHECK(!wraps, ValueError) << fname << ": the tensor of shape "
                                  << ShapeString(t.shape, t.ndim)
                                  << (t.strides ? " with strides " + ShapeString(t.strides, t.ndim)
                                                : std::string())
                                  << " at data " << t.data << " + byte_offset " << t.byte_offset
                                  << " wraps around the address space";
}

}  // namespace details
}  // namespace mxffi
