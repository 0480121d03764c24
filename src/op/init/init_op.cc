/*!
 * \file init_op.cc
 * \brief _zeros, _ones, _full, _arange (arrays from nothing), _copy and _cast.
 */
#include "init_op.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../complex.h"
#include "../dtype.h"
#include "../infer.h"
#include "../parallel.h"
#include "../simd/copy.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(InitParam);
DMLC_REGISTER_PARAMETER(ArangeParam);
DMLC_REGISTER_PARAMETER(CastParam);

namespace {

void CheckShape(const char* name, const TShape& shape) {
  for (int i = 0; i < shape.ndim(); ++i) {
    MXFFI_CHECK(shape[i] >= 0, ValueError)
        << name << ": negative dimensions are not allowed; got shape " << shape.ToString();
  }
}

void InitShape(const OpAttrs& attrs, Span<const TShape>, Span<TShape> out) {
  const InitParam& p = attrs.get<InitParam>();
  CheckShape(attrs.op->name.c_str(), p.shape);
  out[0] = p.shape;
}

void InitType(const OpAttrs& attrs, Span<const DLDataType>, Span<DLDataType> out) {
  const InitParam& p = attrs.get<InitParam>();
  out[0] = p.dtype.is_none ? DLDataType{kDLFloat, 64, 1} : p.dtype.dtype;
  // The fill is converted to the dtype by the kernel: it must fit (NaN or 1e300 into int32
  // would be undefined behaviour there).
  CheckFloatFitsInt(p.value, out[0], attrs.op->name.c_str());
}

}  // namespace

void CheckFloatFitsInt(double v, DLDataType dtype, const char* fname) {
  if ((dtype.code != kDLInt && dtype.code != kDLUInt) || dtype.bits < 1 || dtype.bits > 64) return;
  MXFFI_CHECK(!std::isnan(v), ValueError)
      << fname << ": cannot convert float NaN to integer (" << DataTypeToString(dtype) << ")";
  MXFFI_CHECK(!std::isinf(v), OverflowError)
      << fname << ": cannot convert float infinity to integer (" << DataTypeToString(dtype) << ")";
  const double t = std::trunc(v);
  // The bounds as doubles: -2^(bits-1) and 2^bits are exact, so the comparisons are too.
  const double lo = dtype.code == kDLInt ? -std::ldexp(1.0, dtype.bits - 1) : 0.0;
  const double hi = std::ldexp(1.0, dtype.code == kDLInt ? dtype.bits - 1 : dtype.bits);
  if (t >= lo && t < hi) return;
  if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) {
    MXFFI_THROW(OverflowError) << fname << ": Python integer " << static_cast<int64_t>(t)
                               << " out of bounds for " << DataTypeToString(dtype);
  }
  MXFFI_THROW(OverflowError) << fname << ": " << v << " is out of bounds for "
                             << DataTypeToString(dtype);
}

int64_t ArangeLength(const ArangeParam& p, const char* name) {
  MXFFI_CHECK(p.step != 0, ValueError) << name << ": step must not be zero";
  MXFFI_CHECK(std::isfinite(p.start) && std::isfinite(p.stop) && std::isfinite(p.step), ValueError)
      << name << ": arguments must be finite, got start=" << p.start << ", stop=" << p.stop
      << ", step=" << p.step;
  const double len = std::ceil((p.stop - p.start) / p.step);
  if (!(len > 0)) return 0;  // also a NaN length: (inf - inf) cannot occur past the check above
  // 2^63 is exact in double: a length below it converts to int64 exactly enough.
  MXFFI_CHECK(len < 9223372036854775808.0, ValueError)
      << name << ": Maximum allowed size exceeded; start=" << p.start << ", stop=" << p.stop
      << ", step=" << p.step << " make " << len << " values";
  const int64_t n = static_cast<int64_t>(len);
  if (p.dtype.is_none) return n;
  const DLDataType dt = p.dtype.dtype;
  MXFFI_CHECK(dt.code != kDLBool || n <= 2, TypeError)
      << name << ": arange() is only supported for booleans when the result has at most length "
      << "2; got length " << n;
  // The values are start + i * step (the kernel's own float64 arithmetic), monotonic in i: the
  // first and the last fit the dtype only if every one does.
  CheckFloatFitsInt(p.start, dt, name);
  CheckFloatFitsInt(p.start + static_cast<double>(n - 1) * p.step, dt, name);
  return n;
}

namespace {

void ArangeShape(const OpAttrs& attrs, Span<const TShape>, Span<TShape> out) {
  out[0] = TShape{ArangeLength(attrs.get<ArangeParam>(), "arange")};
}
void ArangeType(const OpAttrs& attrs, Span<const DLDataType>, Span<DLDataType> out) {
  const ArangeParam& p = attrs.get<ArangeParam>();
  out[0] = p.dtype.is_none ? DLDataType{kDLFloat, 64, 1} : p.dtype.dtype;
}
void CastType(const OpAttrs& attrs, Span<const DLDataType>, Span<DLDataType> out) {
  out[0] = attrs.get<CastParam>().dtype.dtype;
}

}  // namespace

void Fill(cpu, const OpContext&, const DLTensor& t, double value, const char* fname) {
  int64_t n = NumElements(t);
  if (value == 0.0 && !std::signbit(value)) {
    std::memset(DataPtr<char>(t), 0, n * DataTypeBytes(t.dtype));
    return;
  }
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    DType v = static_cast<DType>(value);
    DType* out = DataPtr<DType>(t);
    ParallelFor(n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = v;
    });
  });
}

void Arange(cpu, const OpContext&, const DLTensor& out, double start, double step,
            const char* fname) {
  MXFFI_TYPE_SWITCH(out.dtype, fname, DType, {
    DType* o = DataPtr<DType>(out);
    int64_t n = NumElements(out);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<DType>(start + i * step);
  });
}

void Copy(cpu, const OpContext&, const DLTensor& x, const DLTensor& out, const char*) {
  if (simd::TiledCopy(x, out)) return;  // a transposed input, in cache-sized tiles
  NDArray::CopyFromTo(x, out);
}

void Cast(cpu, const OpContext&, const DLTensor& x, const DLTensor& out, const char* fname) {
  int64_t n = NumElements(x);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, SrcType, {
    MXFFI_TYPE_SWITCH_WITH_COMPLEX(out.dtype, fname, DstType, {
      const SrcType* src = DataPtr<SrcType>(x);
      DstType* dst = DataPtr<DstType>(out);
      ParallelFor(n, 2, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[i] = CastOne<DstType, SrcType>(src[i]);
      });
    });
  });
}

MXFFI_REGISTER_OP(_zeros)
    .describe("An array of zeros.")
    .set_num_inputs(0)
    .set_param<InitParam>()
    .set_attr<FInferShape>("FInferShape", InitShape)
    .set_attr<FInferType>("FInferType", InitType)
    .set_attr<FCompute>("FCompute<cpu>", FillCompute<cpu, 0>);

MXFFI_REGISTER_OP(_ones)
    .describe("An array of ones.")
    .set_num_inputs(0)
    .set_param<InitParam>()
    .set_attr<FInferShape>("FInferShape", InitShape)
    .set_attr<FInferType>("FInferType", InitType)
    .set_attr<FCompute>("FCompute<cpu>", FillCompute<cpu, 1>);

MXFFI_REGISTER_OP(_full)
    .describe("An array filled with value.")
    .set_num_inputs(0)
    .set_param<InitParam>()
    .set_attr<FInferShape>("FInferShape", InitShape)
    .set_attr<FInferType>("FInferType", InitType)
    .set_attr<FCompute>("FCompute<cpu>", FullCompute<cpu>);

MXFFI_REGISTER_OP(_arange)
    .describe("Evenly spaced values in [start, stop).")
    .set_num_inputs(0)
    .set_param<ArangeParam>()
    .set_attr<FInferShape>("FInferShape", ArangeShape)
    .set_attr<FInferType>("FInferType", ArangeType)
    .set_attr<FCompute>("FCompute<cpu>", ArangeCompute<cpu>);

MXFFI_REGISTER_OP(_copy)
    .describe("A C-contiguous copy of the input.")
    .add_argument("data", "NDArray", "the input")
    .set_attr<FInferShape>("FInferShape", UnaryShape)
    .set_attr<FInferType>("FInferType", UnaryType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute<cpu>);

MXFFI_REGISTER_OP(_cast)
    .describe("The input converted to dtype, elementwise (numpy's unsafe casting).")
    .add_argument("data", "NDArray", "the input")
    .set_param<CastParam>()
    .set_attr<FInferShape>("FInferShape", UnaryShape)
    .set_attr<FInferType>("FInferType", CastType)
    .set_attr<FCompute>("FCompute<cpu>", CastCompute<cpu>);

}  // namespace op
}  // namespace mxffi
