/*!
 * \file init_op.h
 * \brief Parameters of the ops that make arrays from nothing (zeros, full, arange) and of cast.
 */
#ifndef MXFFI_SRC_OP_INIT_INIT_OP_H_
#define MXFFI_SRC_OP_INIT_INIT_OP_H_

#include <mxffi/env.h>
#include <mxffi/op/param.h>

#include "../xpu.h"

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

/*!
 * \return the number of values _arange makes. ValueError for a zero step, a non-finite bound or
 *  a length past int64; TypeError for a bool result longer than 2 and OverflowError for a value
 *  an integer dtype cannot hold, as numpy 2 refuses them.
 */
int64_t ArangeLength(const ArangeParam& p, const char* name);

/*!
 * \brief Refuse a float64 value that an integer dtype cannot hold once truncated toward zero, as
 *  numpy converts a Python float into an integer array: ValueError for NaN, OverflowError for an
 *  infinity or a value out of the dtype's range. Other dtypes take any value (a float dtype
 *  rounds, overflowing to infinity; bool tests for nonzero).
 */
void CheckFloatFitsInt(double v, DLDataType dtype, const char* fname);

// ---- kernels, written once for both devices (MXNet's FillCompute<xpu>) ----------------------
// Each device gives the pieces (init_op.cc for the CPU, init_gpu.cc for a CUDA device, in the
// context's stream); the FCompute templates below are registered with cpu and gpu.

/*!
 * \brief Every element of the C-contiguous t set to value, converted as numpy's assignment
 *  converts it (+0.0: all-zero bits).
 */
void Fill(cpu, const OpContext& ctx, const DLTensor& t, double value, const char* fname);
void Fill(gpu, const OpContext& ctx, const DLTensor& t, double value, const char* fname);

/*! \brief out[i] = start + i * step, computed in float64 and converted to out's dtype. */
void Arange(cpu, const OpContext& ctx, const DLTensor& out, double start, double step,
            const char* fname);
void Arange(gpu, const OpContext& ctx, const DLTensor& out, double start, double step,
            const char* fname);

/*! \brief out (C-contiguous) = x (the same shape and dtype, any strides). */
void Copy(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, const char* fname);
void Copy(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, const char* fname);

/*! \brief out = x converted to out's dtype, another than x's, as numpy's astype (CastOne). */
void Cast(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, const char* fname);
void Cast(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, const char* fname);

/*! \brief _zeros (kValue 0) and _ones (kValue 1). */
template <typename xpu, int kValue>
void FillCompute(const OpAttrs&, const OpContext& ctx, Span<const DLTensor>, Span<const OpReqType>,
                 Span<const DLTensor> out) {
  Fill(xpu{}, ctx, out[0], kValue, kValue == 0 ? "zeros" : "ones");
}

/*! \brief _full: the parameter's value. */
template <typename xpu>
void FullCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor>,
                 Span<const OpReqType>, Span<const DLTensor> out) {
  Fill(xpu{}, ctx, out[0], attrs.get<InitParam>().value, "full");
}

/*! \brief _arange. */
template <typename xpu>
void ArangeCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor>,
                   Span<const OpReqType>, Span<const DLTensor> out) {
  const ArangeParam& p = attrs.get<ArangeParam>();
  Arange(xpu{}, ctx, out[0], p.start, p.step, "arange");
}

/*! \brief _copy. */
template <typename xpu>
void CopyCompute(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
  Copy(xpu{}, ctx, in[0], out[0], "copy");
}

/*!
 * \brief _cast: a copy to the same dtype, a conversion to another. complex to a real dtype
 *  other than bool keeps the real part and issues a ComplexWarning first, as numpy's astype.
 */
template <typename xpu>
void CastCompute(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
  const DLDataType a = in[0].dtype, b = out[0].dtype;
  if (a.code == kDLComplex && b.code != kDLComplex && b.code != kDLBool) {
    Warn("ComplexWarning", "astype: casting complex values to real discards the imaginary part");
  }
  if (a.code == b.code && a.bits == b.bits && a.lanes == b.lanes) {
    Copy(xpu{}, ctx, in[0], out[0], "astype");
  } else {
    Cast(xpu{}, ctx, in[0], out[0], "astype");
  }
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_INIT_INIT_OP_H_
