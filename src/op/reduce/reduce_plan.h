/*!
 * \file reduce_plan.h
 * \brief How a reduction's input is laid out for the kernels (ReducePlan, made by
 *  MakeReducePlan in reduce_op.cc): shared by the CPU kernels and the CUDA ones (reduce.cu),
 *  so both lay their loops out alike. Needs no other header.
 */
#ifndef MXFFI_SRC_OP_REDUCE_REDUCE_PLAN_H_
#define MXFFI_SRC_OP_REDUCE_REDUCE_PLAN_H_

#include <cstdint>

namespace mxffi {
namespace op {

/*! \brief The most dimensions of a reduction's input: an array's (kMaxNDim). */
constexpr int kReduceMaxDims = 32;

/*! \brief One dimension of a reduction's input: its extent and element stride. */
struct ReduceDim {
  int64_t size, stride;
};

/*!
 * \brief The input's axes split into kept ones (in output order) and reduced ones, simplified:
 *  extent-1 axes dropped, reduced axes sorted by decreasing |stride| (the order only changes
 *  the order of accumulation), neighbours merged where their strides allow. An empty input has
 *  red_size 0 and no strides computed. At least one reduced dimension (extent 1 if none).
 */
struct ReducePlan {
  int nk = 0, nr = 0;
  ReduceDim kept[kReduceMaxDims], red[kReduceMaxDims];
  int64_t out_size = 1, red_size = 1;
};

/*! \brief A multi-index over dims walked in C order, with the element offset it points at. */
struct Odometer {
  const ReduceDim* dims;
  int n;
  int64_t idx[kReduceMaxDims];
  int64_t offset;

  Odometer(const ReduceDim* d, int nd, int64_t linear) : dims(d), n(nd) { Seek(linear); }
  void Seek(int64_t linear) {
    offset = 0;
    for (int i = n - 1; i >= 0; --i) {
      idx[i] = linear % dims[i].size;
      linear /= dims[i].size;
      offset += idx[i] * dims[i].stride;
    }
  }
  void Next() {
    for (int i = n - 1; i >= 0; --i) {
      offset += dims[i].stride;
      if (++idx[i] < dims[i].size) return;
      offset -= dims[i].stride * dims[i].size;
      idx[i] = 0;
    }
  }
};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_REDUCE_REDUCE_PLAN_H_
