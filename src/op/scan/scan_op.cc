/*!
 * \file scan_op.cc
 * \brief _npi_cumsum and _npi_cumprod (np.cumulative_sum, np.cumulative_prod, np.cumsum,
 *  np.cumprod): inference and the CPU kernel.
 *
 * A line along the last axis (inner == 1) is scanned in one pass; along another axis the scan
 * goes row by row, each row of the result the previous one combined with the next row of x, so
 * both read memory in order. Lines, or blocks of a row, are split across the thread pool above
 * ParallelFor's threshold; each is computed by one thread in order, so the result does not
 * depend on the thread count.
 */
#include "scan_op.h"

#include <mxffi/ndarray/ndarray.h>

#include <algorithm>
#include <optional>

#include "../complex.h"
#include "../dtype.h"
#include "../parallel.h"
#include "../promote.h"
#include "../reduce/reduce_op.h"
#include "../type_switch.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief At least 1-d x, axis in range; the result has x's shape, one longer along axis with
 *  include_initial. */
void ScanShapeInfer(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  const ScanParam& p = attrs.get<ScanParam>();
  const int ndim = static_cast<int>(in[0].ndim());
  MXFFI_CHECK(ndim >= 1, ValueError)
      << attrs.op->name << ": the input must have at least one dimension, got a 0-d array";
  if (p.axis < -ndim || p.axis >= ndim) {
    MXFFI_THROW(AxisError) << attrs.op->name << ": axis " << p.axis
                           << " is out of bounds for array of dimension " << ndim;
  }
  out[0] = in[0];
  if (p.include_initial) out[0][ScanAxis(p.axis, ndim)] += 1;
}

/*! \brief The result dtype (SumType's rule for None), which the kernels must pair with x's. */
void ScanTypeInfer(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const DLDataType t = SumType(in[0], attrs.get<ScanParam>().dtype);
  MXFFI_CHECK(DTypeRuleIndex(in[0]) >= 0, TypeError)
      << attrs.op->name << ": unsupported dtype " << DataTypeToString(in[0]);
  MXFFI_CHECK(DTypeRuleIndex(t) >= 0, TypeError)
      << attrs.op->name << ": unsupported dtype " << DataTypeToString(t);
  MXFFI_CHECK(scan::ScanPairSupported(in[0], t), TypeError)
      << attrs.op->name << ": no kernel scans " << DataTypeToString(in[0]) << " into "
      << DataTypeToString(t) << "; convert the input to " << DataTypeToString(t) << " first";
  out[0] = t;
}

template <int kKind, typename O, typename I>
void ScanKernel(const I* x, O* out, ScanShape s, bool init) {
  const int64_t olen = s.len + (init ? 1 : 0);
  if (s.inner == 1) {
    ParallelFor(s.outer, s.len, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        scan::ScanLine<kKind, O, I>(x + o * s.len, out + o * olen, s.len, 1, init);
      }
    });
    return;
  }
  // Row by row, in blocks of a row so that a few outer blocks still spread over the pool.
  constexpr int64_t kBlock = 1024;
  const int64_t blocks = (s.inner + kBlock - 1) / kBlock;
  ParallelFor(s.outer * blocks, olen * std::min(kBlock, s.inner), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t o = item / blocks, i0 = (item % blocks) * kBlock;
      const int64_t i1 = std::min(s.inner, i0 + kBlock);
      const I* xs = x + o * s.len * s.inner;
      O* os = out + o * olen * s.inner;
      const O one = scan::Identity<kKind, O>();
      if (init) {
        for (int64_t i = i0; i < i1; ++i) os[i] = one;
      }
      for (int64_t k = 0; k < s.len; ++k) {
        const I* xr = xs + k * s.inner;
        O* orow = os + (k + (init ? 1 : 0)) * s.inner;
        if (k == 0) {
          for (int64_t i = i0; i < i1; ++i) orow[i] = CastOne<O, I>(xr[i]);  // x[0] itself
          continue;
        }
        const O* prev = orow - s.inner;
        for (int64_t i = i0; i < i1; ++i) {
          orow[i] = scan::Combine<kKind, O>(prev[i], CastOne<O, I>(xr[i]));
        }
      }
    }
  });
}

}  // namespace

template <int kKind>
void Scan(cpu, const OpContext&, const DLTensor& x, const DLTensor& out, ScanShape s,
          bool include_initial, const char* fname) {
  if (NumElements(out) == 0) return;
  std::optional<ScopedGILRelease> unlocked;
  if (NumElements(out) >= kReleaseGILThreshold) unlocked.emplace();
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(out.dtype, fname, O, {
    const auto run = [&](auto i_tag, auto) {
      using I = decltype(i_tag);
      ScanKernel<kKind, O, I>(DataPtr<const I>(x), DataPtr<O>(out), s, include_initial);
    };
    if (SameDType(x.dtype, out.dtype)) {
      run(O{}, O{});
    } else if (!scan::ScanInputSwitch<O>(x.dtype, run)) {
      ThrowNoKernel(fname, x.dtype);
    }
  });
}

template void Scan<scan::kSum>(cpu, const OpContext&, const DLTensor&, const DLTensor&, ScanShape,
                               bool, const char*);
template void Scan<scan::kProd>(cpu, const OpContext&, const DLTensor&, const DLTensor&, ScanShape,
                                bool, const char*);

DMLC_REGISTER_PARAMETER(ScanParam);

MXFFI_REGISTER_OP(_npi_cumsum)
    .describe("The running sum of x along axis, in the result dtype (numpy's add.accumulate).")
    .add_argument("x", "NDArray", "the input, at least 1-d")
    .set_param<ScanParam>()
    .set_attr<FInferShape>("FInferShape", ScanShapeInfer)
    .set_attr<FInferType>("FInferType", ScanTypeInfer)
    .set_attr<FCompute>("FCompute<cpu>", ScanCompute<cpu, scan::kSum>);

MXFFI_REGISTER_OP(_npi_cumprod)
    .describe(
        "The running product of x along axis, in the result dtype (numpy's "
        "multiply.accumulate).")
    .add_argument("x", "NDArray", "the input, at least 1-d")
    .set_param<ScanParam>()
    .set_attr<FInferShape>("FInferShape", ScanShapeInfer)
    .set_attr<FInferType>("FInferType", ScanTypeInfer)
    .set_attr<FCompute>("FCompute<cpu>", ScanCompute<cpu, scan::kProd>);

}  // namespace op
}  // namespace mxffi
