/*!
 * \file init_op.h
 * \brief Parameters of the ops that make arrays from nothing (zeros, full, arange) and of cast.
 */
#ifndef MXFFI_SRC_OP_INIT_INIT_OP_H_
#define MXFFI_SRC_OP_INIT_INIT_OP_H_

#include <mxffi/op/param.h>

namespace mxffi {
namespace op {

/*! \brief _zeros, _ones, _full: a shape, a dtype and (for _full) the fill value. */
struct InitParam : public dmlc::Parameter<InitParam> {
  TShape shape;
  DTypeParam dtype;
  double value;
  DMLC_DECLARE_PARAMETER(InitParam) {
    DMLC_DECLARE_FIELD(shape).describe("Shape of the output, e.g. (3, 4).");
    DMLC_DECLARE_FIELD(dtype)
        .set_default(DTypeParam())
        .describe("Element type; None means float64.");
    DMLC_DECLARE_FIELD(value).set_default(0.0).describe("Fill value (_full only).");
  }
};

/*! \brief _arange: evenly spaced values in [start, stop). */
struct ArangeParam : public dmlc::Parameter<ArangeParam> {
  double start;
  double stop;
  double step;
  DTypeParam dtype;
  DMLC_DECLARE_PARAMETER(ArangeParam) {
    DMLC_DECLARE_FIELD(start).set_default(0.0).describe("First value.");
    DMLC_DECLARE_FIELD(stop).describe("End of the interval, not included.");
    DMLC_DECLARE_FIELD(step).set_default(1.0).describe("Spacing between values; not zero.");
    DMLC_DECLARE_FIELD(dtype)
        .set_default(DTypeParam())
        .describe("Element type; None means float64.");
  }
};

/*! \brief _cast: convert every element to dtype. */
struct CastParam : public dmlc::Parameter<CastParam> {
  DTypeParam dtype;
  DMLC_DECLARE_PARAMETER(CastParam) {
    DMLC_DECLARE_FIELD(dtype).describe("Element type of the output.");
  }
};

/*! \return the number of values _arange makes; ValueError for a zero step or a non-finite bound. */
int64_t ArangeLength(const ArangeParam& p, const char* name);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_INIT_INIT_OP_H_
