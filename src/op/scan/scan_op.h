/*!
 * \file scan_op.h
 * \brief _npi_cumsum and _npi_cumprod: the running sum or product of x along one axis, in the
 *  result dtype (numpy's add.accumulate and multiply.accumulate), optionally with the identity
 *  first (the array API's include_initial). The kernels read a C-contiguous x (Invoke copies a
 *  strided one) as (outer, len, inner) and write the C-contiguous result.
 */
#ifndef MXFFI_SRC_OP_SCAN_SCAN_OP_H_
#define MXFFI_SRC_OP_SCAN_SCAN_OP_H_

#include <mxffi/op/param.h>

#include "../xpu.h"
#include "scan_functors.h"

namespace mxffi {
namespace op {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

/*! \brief _npi_cumsum, _npi_cumprod: the axis, the result dtype, the leading identity. */
struct ScanParam : public dmlc::Parameter<ScanParam> {
  int64_t axis;
  DTypeParam dtype;
  bool include_initial;
  DMLC_DECLARE_PARAMETER(ScanParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The axis to scan along (negative counts from the end).");
    DMLC_DECLARE_FIELD(dtype)
        .set_default(DTypeParam())
        .describe(
            "The result dtype, which the scan computes in; None: int64 for bool and the "
            "narrower signed integers, uint64 for the narrower unsigned ones, else x's.");
    DMLC_DECLARE_FIELD(include_initial)
        .set_default(false)
        .describe("Start each line with the identity (0 or 1): the result is one longer.");
  }
};

#pragma GCC diagnostic pop

/*! \brief The extents of a scan: lines of len elements, inner apart, in outer blocks. */
struct ScanShape {
  int64_t outer;
  int64_t len;
  int64_t inner;
};

/*! \return x's shape seen from axis (already normalised). */
inline ScanShape ScanShapeOf(const DLTensor& x, int axis) {
  ScanShape s{1, x.shape[axis], 1};
  for (int d = 0; d < axis; ++d) s.outer *= x.shape[d];
  for (int d = axis + 1; d < x.ndim; ++d) s.inner *= x.shape[d];
  return s;
}

/*!
 * \brief out (C-contiguous, the result dtype) = the scan kKind of x (C-contiguous, a dtype
 *  ScanPairSupported pairs with out's) along the lines of s.
 */
template <int kKind>
void Scan(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, ScanShape s,
          bool include_initial, const char* fname);
template <int kKind>
void Scan(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, ScanShape s,
          bool include_initial, const char* fname);

/*! \return axis normalised for x's ndim (the op checked it). */
inline int ScanAxis(int64_t axis, int ndim) {
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

/*! \brief _npi_cumsum (kSum) and _npi_cumprod. */
template <typename xpu, int kKind>
void ScanCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
  const ScanParam& p = attrs.get<ScanParam>();
  Scan<kKind>(xpu{}, ctx, in[0], out[0], ScanShapeOf(in[0], ScanAxis(p.axis, in[0].ndim)),
              p.include_initial, kKind == scan::kSum ? "cumsum" : "cumprod");
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SCAN_SCAN_OP_H_
