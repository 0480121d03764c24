/*!
 * \file index_layout.h
 * \brief The element arithmetic of the indexing kernels, written once for both devices:
 *  where an element of an advanced-index gather (or scatter) reads (or writes) x, and which
 *  elements are nonzero. Compiled by g++ and nvcc; needs only DLPack and the dtype switch.
 *
 * A gather of x by k index arrays i_0..i_{k-1} (one shape B) over the axes axis..axis+k-1
 * produces out of shape x.shape[:axis] + B + x.shape[axis+k:]. The layout describes the index
 * space of out: its extents, x's element stride along each of its dimensions (0 along B's,
 * which x does not have), each index array's strides along B's dimensions, and the stride and
 * extent of the axis of x each index array indexes. A scatter walks the same index space, with
 * values' strides (0 where values broadcast).
 */
#ifndef MXFFI_SRC_OP_INDEXING_INDEX_LAYOUT_H_
#define MXFFI_SRC_OP_INDEXING_INDEX_LAYOUT_H_

#include <mxffi/ndarray/dlpack_compat.h>  // kDLBool and kDLComplex with DLPack 0.6's header

#include <cstdint>
#include <type_traits>

#include "../type_switch.h"
#include "../xinline.h"

namespace mxffi {
namespace op {
namespace indexing {

/*! \brief The most dimensions of an index space, and the most index arrays (kMaxNDim). */
constexpr int kIndexMaxDims = 32;

/*! \brief An element of 16 bytes (complex128), moved as its bits. */
struct Bytes16 {
  uint64_t lo, hi;
};

/*! \brief The index space of a gather or scatter; see the file comment. */
struct IndexLayout {
  int ndim = 0;      // dimensions of the index space (out's)
  int bfirst = 0;    // the first of B's dimensions among them
  int bdim = 0;      // the number of B's dimensions
  int k = 0;         // the number of index arrays
  int64_t size = 0;  // elements of the index space
  int64_t shape[kIndexMaxDims];
  int64_t x_stride[kIndexMaxDims];     // x's element stride per dimension; 0 on B's dimensions
  int64_t v_stride[kIndexMaxDims];     // values' element stride per dimension (scatter)
  int64_t axis_stride[kIndexMaxDims];  // x's stride along the axis index array i indexes
  int64_t axis_size[kIndexMaxDims];    // x's extent there
  int64_t idx_stride[kIndexMaxDims][kIndexMaxDims];  // index array i's strides along B
  const int64_t* idx[kIndexMaxDims];                 // index array i's first element

  /*!
   * \brief The element offsets into x and into values of the index-space position m (one
   *  coordinate per dimension). Indices were checked to be in range; a negative one counts
   *  from the end.
   */
  MXFFI_XINLINE void Offsets(const int64_t* m, int64_t* xoff, int64_t* voff) const {
    int64_t p[kIndexMaxDims];
    Base(m, xoff, voff, p);
    for (int i = 0; i < k; ++i) *xoff += IndexTerm(i, p[i]);
  }

  /*!
   * \brief The parts of Offsets that are not indices: x's offset from the dimensions x has,
   *  values' offset, and each index array's element position p[i].
   */
  MXFFI_XINLINE void Base(const int64_t* m, int64_t* xoff, int64_t* voff, int64_t* p) const {
    int64_t xo = 0, vo = 0;
    for (int d = 0; d < ndim; ++d) {
      xo += m[d] * x_stride[d];
      vo += m[d] * v_stride[d];
    }
    for (int i = 0; i < k; ++i) {
      int64_t q = 0;
      for (int j = 0; j < bdim; ++j) q += m[bfirst + j] * idx_stride[i][j];
      p[i] = q;
    }
    *xoff = xo;
    *voff = vo;
  }

  /*! \return x's offset along the axis of index array i for its element at position p. */
  MXFFI_XINLINE int64_t IndexTerm(int i, int64_t p) const {
    int64_t v = idx[i][p];
    if (v < 0) v += axis_size[i];
    return v * axis_stride[i];
  }

  /*! \brief m = the coordinates of flat position i (C order). */
  MXFFI_XINLINE void Unravel(int64_t i, int64_t* m) const {
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t q = i / shape[d];
      m[d] = i - q * shape[d];
      i = q;
    }
  }

  /*! \brief Step m to the next position in C order. */
  MXFFI_XINLINE void Next(int64_t* m) const {
    for (int d = ndim - 1; d >= 0; --d) {
      if (++m[d] < shape[d]) return;
      m[d] = 0;
    }
  }
};

/*! \brief A complex element (complex64, complex128): its two parts. */
template <typename T>
struct Complex {
  T re, im;
};

/*! \return whether v is nonzero as numpy's nonzero reads it (NaN is; -0.0 is not). */
template <typename T>
MXFFI_XINLINE bool IsNonzero(T v) {
  if constexpr (std::is_arithmetic_v<T>) {
    return v != T(0);
  } else {
    return static_cast<float>(v) != 0.0f;  // half_t, bf16_t
  }
}

/*! \return whether a complex v is nonzero: either part is. */
template <typename T>
MXFFI_XINLINE bool IsNonzero(Complex<T> v) {
  return v.re != T(0) || v.im != T(0);
}

/*!
 * \brief f(T{}) for the element type of t among the dtypes nonzero reads: every dtype of
 *  MXFFI_TYPE_SWITCH, and complex64 and complex128 as Complex<float> and Complex<double>.
 */
template <typename F>
inline void NonzeroSwitch(DLDataType t, const char* fname, F&& f) {
  if (t.code == kDLComplex && t.lanes == 1 && (t.bits == 64 || t.bits == 128)) {
    if (t.bits == 64) {
      f(Complex<float>{});
    } else {
      f(Complex<double>{});
    }
    return;
  }
  MXFFI_TYPE_SWITCH(t, fname, T, { f(T{}); });
}

}  // namespace indexing
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_INDEXING_INDEX_LAYOUT_H_
