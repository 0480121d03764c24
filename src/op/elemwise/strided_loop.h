/*!
 * \file strided_loop.h
 * \brief The layout of an elementwise loop (StridedLoop): the output's elements in C order, each
 *  input read through its own strides (0 along broadcast dimensions), dimensions merged where
 *  every operand allows. The CPU kernels walk it in runs (ForEachRun); the CUDA
 *  launchers (elemwise_cuda.h) hand its extents and strides to their kernels. Compiled by g++
 *  and nvcc; needs only DLPack.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_STRIDED_LOOP_H_
#define MXFFI_SRC_OP_ELEMWISE_STRIDED_LOOP_H_

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstdint>

namespace mxffi {
namespace op {
namespace elemwise {

/*! \brief The most dimensions of a loop: an array's (kMaxNDim, checked in broadcast.h). */
constexpr int kLoopMaxDims = 32;

/*!
 * \brief A loop over the output's elements for N operands (operand 0 the output, then the
 *  inputs): the merged shape and each operand's element strides along it.
 */
template <int N>
struct StridedLoop {
  int ndim = 1;
  int64_t shape[kLoopMaxDims];
  int64_t stride[N][kLoopMaxDims];

  /*!
   * \brief Lay out the loop for out (C-contiguous) and N-1 inputs broadcast to its shape.
   * \note Dimensions of extent 1 are dropped and neighbours merged where, for every operand,
   *  stride[d-1] == stride[d] * shape[d]: a contiguous array becomes one dimension, and a row
   *  broadcast against a matrix two.
   */
  StridedLoop(const DLTensor& out, const DLTensor* const* in) {
    const int nd = out.ndim;
    int64_t full[N][kLoopMaxDims];
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; --d) {
      full[0][d] = s;
      s *= out.shape[d];
    }
    for (int k = 1; k < N; ++k) {
      const DLTensor& t = *in[k - 1];
      const int lead = nd - t.ndim;
      int64_t compact = 1;
      for (int d = nd - 1; d >= 0; --d) {
        if (d < lead) {
          full[k][d] = 0;
          continue;
        }
        const int64_t extent = t.shape[d - lead];
        const int64_t st = t.strides != nullptr ? t.strides[d - lead] : compact;
        compact *= extent;
        full[k][d] = extent == 1 ? 0 : st;
      }
    }
    ndim = 0;
    for (int d = 0; d < nd; ++d) {
      if (out.shape[d] == 1) continue;
      bool merge = ndim > 0;
      for (int k = 0; merge && k < N; ++k) {
        merge = stride[k][ndim - 1] == full[k][d] * out.shape[d];
      }
      if (merge) {
        shape[ndim - 1] *= out.shape[d];
        for (int k = 0; k < N; ++k) stride[k][ndim - 1] = full[k][d];
      } else {
        shape[ndim] = out.shape[d];
        for (int k = 0; k < N; ++k) stride[k][ndim] = full[k][d];
        ++ndim;
      }
    }
    if (ndim == 0) {  // one element (or a 0-d output)
      ndim = 1;
      shape[0] = 1;
      for (int k = 0; k < N; ++k) stride[k][0] = 0;
    }
  }

  /*!
   * \brief Call f(off, len) for each run of the innermost dimension within the output elements
   *  [begin, end): off[k] is operand k's element offset at the run's start; along the run
   *  operand k moves by stride[k][ndim - 1].
   */
  template <typename F>
  void ForEachRun(int64_t begin, int64_t end, F&& f) const {
    const int last = ndim - 1;
    int64_t idx[kLoopMaxDims];
    int64_t off[N] = {};
    int64_t rem = begin;
    for (int d = last; d >= 0; --d) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
      for (int k = 0; k < N; ++k) off[k] += idx[d] * stride[k][d];
    }
    for (int64_t pos = begin; pos < end;) {
      const int64_t len = std::min(shape[last] - idx[last], end - pos);
      f(static_cast<const int64_t*>(off), len);
      pos += len;
      idx[last] += len;
      for (int k = 0; k < N; ++k) off[k] += len * stride[k][last];
      for (int d = last; d > 0 && idx[d] == shape[d]; --d) {
        for (int k = 0; k < N; ++k) off[k] += stride[k][d - 1] - idx[d] * stride[k][d];
        idx[d] = 0;
        ++idx[d - 1];
      }
    }
  }
};

}  // namespace elemwise
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_STRIDED_LOOP_H_
