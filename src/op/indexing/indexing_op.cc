/*!
 * \file indexing_op.cc
 * \brief _npi_advanced_gather, _npi_advanced_scatter, _npi_count_nonzero and _npi_nonzero:
 *  inference, registration and the CPU kernels.
 */
#include "indexing_op.h"

#include <mxffi/op/op.h>

#include <algorithm>
#include <string>

#include "../init/init_op.h"
#include "../parallel.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(AdvancedIndexParam);
DMLC_REGISTER_PARAMETER(NonzeroParam);

using indexing::IndexLayout;

namespace {

/*! \brief The element strides of t (C-contiguous ones for NULL strides). */
void StridesOf(const DLTensor& t, int64_t* out) {
  if (t.strides != nullptr) {
    std::copy(t.strides, t.strides + t.ndim, out);
  } else {
    NDArray::CompactStrides(t, out);
  }
}

/*!
 * \brief f(offset, m) for each element of t in C order: offset in elements from the first, m
 *  its coordinates. Runs along the last dimension, the odometer stepping once per run.
 */
template <typename F>
void ForEachOffset(const DLTensor& t, F&& f) {
  const int64_t n = NumElements(t);
  if (n == 0) return;
  if (t.ndim == 0) {
    f(int64_t{0}, static_cast<const int64_t*>(nullptr));
    return;
  }
  int64_t strides[kMaxNDim], m[kMaxNDim] = {};
  StridesOf(t, strides);
  const int last = t.ndim - 1;
  const int64_t inner = t.shape[last], step = strides[last];
  int64_t off = 0;
  for (int64_t done = 0; done < n; done += inner) {
    for (int64_t j = 0; j < inner; ++j) {
      m[last] = j;
      f(off + j * step, static_cast<const int64_t*>(m));
    }
    for (int d = last - 1; d >= 0; --d) {
      off += strides[d];
      if (++m[d] < t.shape[d]) break;
      off -= strides[d] * t.shape[d];
      m[d] = 0;
    }
  }
}

bool IsIntegerDType(DLDataType t) {
  return (t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1;
}

/*! \brief Index arrays in[first..] are integer arrays of one shape, which *b receives. */
void IndexArraysShape(const OpAttrs& attrs, Span<const TShape> in, size_t first, TShape* b) {
  *b = in[first];
  for (size_t i = first + 1; i < in.size(); ++i) {
    MXFFI_CHECK(in[i] == *b, ValueError)
        << attrs.op->name << ": the index arrays must have one shape (broadcast them first); "
        << "index array 0 has shape " << b->ToString() << " but index array " << i - first
        << " has shape " << in[i].ToString();
  }
}

/*! \brief x.shape[:axis] + B + x.shape[axis+k:]. */
TShape IndexedShape(const TShape& x, int axis, int k, const TShape& b) {
  TShape out;
  for (int d = 0; d < axis; ++d) out.push_back(x[d]);
  for (int64_t e : b) out.push_back(e);
  for (int d = axis + k; d < x.ndim(); ++d) out.push_back(x[d]);
  return out;
}

void GatherShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  const AdvancedIndexParam& p = attrs.get<AdvancedIndexParam>();
  const int k = p.num_args - 1;
  const int axis = IndexAxis(p.axis, in[0].ndim(), k, attrs.op->name.c_str());
  TShape b;
  IndexArraysShape(attrs, in, 1, &b);
  out[0] = IndexedShape(in[0], axis, k, b);
}

void ScatterShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  const AdvancedIndexParam& p = attrs.get<AdvancedIndexParam>();
  const char* fname = attrs.op->name.c_str();
  MXFFI_CHECK(p.num_args >= 3, ValueError)
      << fname << ": num_args=" << p.num_args
      << " leaves no index array; expected x, values and at least one index array";
  const int k = p.num_args - 2;
  const int axis = IndexAxis(p.axis, in[0].ndim(), k, fname);
  TShape b;
  IndexArraysShape(attrs, in, 2, &b);
  const TShape target = IndexedShape(in[0], axis, k, b);
  const TShape& v = in[1];
  // Trailing extents match or are 1; extents beyond the target's dimensions must be 1.
  bool fits = true;
  for (int i = 0; fits && i < v.ndim(); ++i) {
    const int64_t e = v[v.ndim() - 1 - i];
    fits = e == 1 || (i < target.ndim() && e == target[target.ndim() - 1 - i]);
  }
  MXFFI_CHECK(fits, ValueError) << fname << ": shape mismatch: value array of shape "
                                << v.ToString() << " could not be broadcast to indexing result of "
                                << "shape " << target.ToString();
  out[0] = in[0];
}

void CheckIndexTypes(const OpAttrs& attrs, Span<const DLDataType> in, size_t first) {
  for (size_t i = first; i < in.size(); ++i) {
    MXFFI_CHECK(IsIntegerDType(in[i]), IndexError)
        << attrs.op->name << ": index array " << i - first << " has dtype "
        << DataTypeToString(in[i])
        << "; arrays used as indices must be of integer type (a boolean mask goes through "
        << "nonzero first)";
  }
}

void GatherType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  CheckIndexTypes(attrs, in, 1);
  out[0] = in[0];
}

void ScatterType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  CheckIndexTypes(attrs, in, 2);
  out[0] = in[0];
}

uint32_t IndexNumInputs(const OpAttrs& attrs) {
  MXFFI_CHECK(attrs.param != nullptr, ValueError)
      << attrs.op->name << ": no parameters given; num_args (the number of inputs) is required";
  return static_cast<uint32_t>(attrs.get<AdvancedIndexParam>().num_args);
}

void CountShape(const OpAttrs&, Span<const TShape>, Span<TShape> out) { out[0] = TShape(); }

void Int64Type(const OpAttrs&, Span<const DLDataType>, Span<DLDataType> out) {
  out[0] = DLDataType{kDLInt, 64, 1};
}

void NonzeroShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  MXFFI_CHECK(in[0].ndim() > 0, ValueError)
      << attrs.op->name << ": Calling nonzero on 0d arrays is not allowed. Use "
      << "np.atleast_1d(scalar).nonzero() instead.";
  out[0] = TShape{in[0].ndim(), attrs.get<NonzeroParam>().count};
}

/*! \brief f(U{}) for the unsigned type of t's element size (1, 2, 4, 8 or 16 bytes). */
template <typename F>
void BytesSwitch(DLDataType t, const char* fname, F&& f) {
  switch (DataTypeBytes(t)) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    case 16:
      return f(indexing::Bytes16{});
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported dtype " << DataTypeToString(t);
  }
}

}  // namespace

int IndexAxis(int axis, int ndim, int k, const char* fname) {
  const int a = axis < 0 ? axis + ndim : axis;
  MXFFI_CHECK(a >= 0 && a <= ndim, AxisError)
      << fname << ": axis " << axis << " is out of bounds for array of dimension " << ndim;
  MXFFI_CHECK(a + k <= ndim, IndexError)
      << fname << ": too many indices for array: array is " << ndim << "-dimensional, but " << a + k
      << " were indexed";
  return a;
}

NDArray IndexAsInt64(const DLTensor& idx) {
  if (idx.dtype.code == kDLInt && idx.dtype.bits == 64 && idx.dtype.lanes == 1) {
    return NDArray::FromBorrowed(idx);
  }
  return CastValues(NDArray::FromBorrowed(idx), DLDataType{kDLInt, 64, 1});
}

NDArray CastValues(const NDArray& values, DLDataType dtype) {
  static const Op* cast = Op::Get("_cast");
  CastParam p;
  p.dtype = dtype;
  OpAttrs attrs;
  attrs.op = cast;
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(&values, 1));
}

void MakeLayout(const DLTensor& x, const std::vector<NDArray>& idx, int axis,
                const DLTensor* values, IndexLayout* layout) {
  IndexLayout& l = *layout;
  const int k = static_cast<int>(idx.size());
  const DLTensor& b = idx[0].tensor();
  int64_t xs[kMaxNDim];
  StridesOf(x, xs);
  l.k = k;
  l.bfirst = axis;
  l.bdim = b.ndim;
  l.ndim = 0;
  for (int d = 0; d < axis; ++d) {
    l.shape[l.ndim] = x.shape[d];
    l.x_stride[l.ndim++] = xs[d];
  }
  for (int j = 0; j < b.ndim; ++j) {
    l.shape[l.ndim] = b.shape[j];
    l.x_stride[l.ndim++] = 0;
  }
  for (int d = axis + k; d < x.ndim; ++d) {
    l.shape[l.ndim] = x.shape[d];
    l.x_stride[l.ndim++] = xs[d];
  }
  l.size = 1;
  for (int d = 0; d < l.ndim; ++d) l.size *= l.shape[d];
  for (int i = 0; i < k; ++i) {
    const DLTensor& t = idx[i].tensor();
    int64_t ts[kMaxNDim];
    StridesOf(t, ts);
    for (int j = 0; j < b.ndim; ++j) l.idx_stride[i][j] = t.shape[j] == 1 ? 0 : ts[j];
    l.idx[i] = DataPtr<const int64_t>(t);
    l.axis_stride[i] = xs[axis + i];
    l.axis_size[i] = x.shape[axis + i];
  }
  for (int d = 0; d < l.ndim; ++d) l.v_stride[d] = 0;
  if (values != nullptr) {
    int64_t vs[kMaxNDim];
    StridesOf(*values, vs);
    const int lead = l.ndim - values->ndim;
    for (int j = std::max(0, -lead); j < values->ndim; ++j) {
      l.v_stride[lead + j] = values->shape[j] == 1 ? 0 : vs[j];
    }
  }
}

void ThrowNonzeroCount(int64_t found, int64_t count, const char* fname) {
  MXFFI_THROW(ValueError) << fname << ": count=" << count << " but x has " << found
                          << " nonzero elements";
  __builtin_unreachable();
}

void CheckIndexRange(cpu, const OpContext&, const DLTensor& idx, int64_t size, int axis,
                     const char*) {
  const int64_t* p = DataPtr<const int64_t>(idx);
  if (NDArray::IsContiguous(idx)) {
    // The common case in one pass the compiler vectorises: the range of the values.
    const int64_t n = NumElements(idx);
    int64_t lo = 0, hi = 0;
    for (int64_t i = 0; i < n; ++i) {
      lo = std::min(lo, p[i]);
      hi = std::max(hi, p[i]);
    }
    if (lo >= -size && hi < size) return;
  }
  ForEachOffset(idx, [&](int64_t off, const int64_t*) {
    const int64_t v = p[off];
    MXFFI_CHECK(v >= -size && v < size, IndexError)
        << "index " << v << " is out of bounds for axis " << axis << " with size " << size;
  });
}

namespace {

/*!
 * \brief The CPU loop of the gather (kScatter false: dst, C-contiguous, = src through the
 *  layout) and the scatter (dst through the layout = src, values): the runs [begin, end) of
 *  the index space's last dimension, in order. Along a run x moves by one stride, or, when the
 *  last dimension is one of the index arrays', by one index per element.
 */
template <bool kScatter, typename U>
void IndexRuns(const IndexLayout& l, const U* src, U* dst, int64_t begin, int64_t end) {
  const int last = l.ndim - 1;
  const int64_t inner = l.ndim > 0 ? l.shape[last] : 1;
  const bool index_inner = l.bdim > 0 && last == l.bfirst + l.bdim - 1;
  const int64_t xs = l.ndim > 0 ? l.x_stride[last] : 0;
  const int64_t vs = l.ndim > 0 ? l.v_stride[last] : 0;
  int64_t m[indexing::kIndexMaxDims], p[indexing::kIndexMaxDims];
  l.Unravel(begin * inner, m);
  for (int64_t r = begin; r < end; ++r) {
    int64_t xo, vo;
    l.Base(m, &xo, &vo, p);
    U* out = kScatter ? dst : dst + r * inner;
    if (!index_inner) {
      for (int i = 0; i < l.k; ++i) xo += l.IndexTerm(i, p[i]);
      for (int64_t j = 0; j < inner; ++j) {
        if (kScatter) {
          out[xo + j * xs] = src[vo + j * vs];
        } else {
          out[j] = src[xo + j * xs];
        }
      }
    } else if (l.k == 1) {
      // One index array (x[idx], x[:, idx]): its run, read through locals, which the stores
      // through out (a uint64_t may alias the layout's int64_t fields) cannot change.
      const int64_t* q = l.idx[0] + p[0];
      const int64_t qs = l.idx_stride[0][l.bdim - 1], size = l.axis_size[0];
      const int64_t as = l.axis_stride[0];
      for (int64_t j = 0; j < inner; ++j) {
        int64_t v = q[j * qs];
        v += v < 0 ? size : 0;
        if (kScatter) {
          out[xo + v * as] = src[vo + j * vs];
        } else {
          out[j] = src[xo + v * as];
        }
      }
    } else {
      for (int64_t j = 0; j < inner; ++j) {
        int64_t x = xo;
        for (int i = 0; i < l.k; ++i) x += l.IndexTerm(i, p[i] + j * l.idx_stride[i][l.bdim - 1]);
        if (kScatter) {
          out[x] = src[vo + j * vs];
        } else {
          out[j] = src[x];
        }
      }
    }
    if (l.ndim > 0) {
      m[last] = inner - 1;
      l.Next(m);
    }
  }
}

}  // namespace

void Gather(cpu, const OpContext&, const IndexLayout& l, const DLTensor& x, const DLTensor& out,
            const char* fname) {
  const int64_t inner = l.ndim > 0 ? l.shape[l.ndim - 1] : 1;
  BytesSwitch(x.dtype, fname, [&](auto u) {
    using U = decltype(u);
    const U* src = DataPtr<const U>(x);
    U* dst = DataPtr<U>(out);
    ParallelFor(l.size / inner, inner,
                [&](int64_t begin, int64_t end) { IndexRuns<false>(l, src, dst, begin, end); });
  });
}

void Scatter(cpu, const OpContext&, const IndexLayout& l, const DLTensor& values,
             const DLTensor& out, const char* fname) {
  // In order, on one thread: where positions repeat, the last write wins, as in numpy.
  const int64_t inner = l.ndim > 0 ? l.shape[l.ndim - 1] : 1;
  BytesSwitch(out.dtype, fname, [&](auto u) {
    using U = decltype(u);
    IndexRuns<true>(l, DataPtr<const U>(values), DataPtr<U>(out), 0, l.size / inner);
  });
}

void CountNonzero(cpu, const OpContext&, const DLTensor& x, const DLTensor& out,
                  const char* fname) {
  int64_t n = 0;
  indexing::NonzeroSwitch(x.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    const T* p = DataPtr<const T>(x);
    ForEachOffset(x, [&](int64_t off, const int64_t*) { n += indexing::IsNonzero(p[off]); });
  });
  *DataPtr<int64_t>(out) = n;
}

void Nonzero(cpu, const OpContext&, const DLTensor& x, const DLTensor& out, int64_t count,
             const char* fname) {
  int64_t found = 0;
  int64_t* o = DataPtr<int64_t>(out);
  const int nd = x.ndim;
  indexing::NonzeroSwitch(x.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    const T* p = DataPtr<const T>(x);
    ForEachOffset(x, [&](int64_t off, const int64_t* m) {
      if (!indexing::IsNonzero(p[off])) return;
      if (found < count) {
        for (int d = 0; d < nd; ++d) o[d * count + found] = m[d];
      }
      ++found;
    });
  });
  if (found != count) ThrowNonzeroCount(found, count, fname);
}

MXFFI_REGISTER_OP(_npi_advanced_gather)
    .describe(
        "x[..., i_0, ..., i_{k-1}, ...]: the k index arrays (integers, one shape B) index the "
        "axes axis..axis+k-1 of x; the result has shape x.shape[:axis] + B + "
        "x.shape[axis+k:]. Negative indices count from the end; one out of range is an "
        "IndexError.")
    .set_num_inputs(IndexNumInputs)
    .set_key_var_num_args("num_args")
    .add_argument("x", "NDArray", "the array read (any strides)")
    .add_argument("indices", "NDArray[]", "the index arrays, num_args - 1 of them")
    .set_param<AdvancedIndexParam>()
    .set_attr<FInferShape>("FInferShape", GatherShape)
    .set_attr<FInferType>("FInferType", GatherType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", AdvancedGatherCompute<cpu>);

MXFFI_REGISTER_OP(_npi_advanced_scatter)
    .describe(
        "x with x[..., i_0, ..., i_{k-1}, ...] = values (broadcast to the gather's result "
        "shape, converted to x's dtype as numpy's assignment converts); where positions repeat "
        "the last one wins. Pass x as out= to write into x itself.")
    .set_num_inputs(IndexNumInputs)
    .set_key_var_num_args("num_args")
    .add_argument("x", "NDArray", "the array written (any strides)")
    .add_argument("values", "NDArray", "the values written")
    .add_argument("indices", "NDArray[]", "the index arrays, num_args - 2 of them")
    .set_param<AdvancedIndexParam>()
    .set_attr<FInferShape>("FInferShape", ScatterShape)
    .set_attr<FInferType>("FInferType", ScatterType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<bool>("TStridedOutputs", true)
    .set_attr<bool>("TWriteInplace", true)
    .set_attr<FCompute>("FCompute<cpu>", AdvancedScatterCompute<cpu>);

MXFFI_REGISTER_OP(_npi_count_nonzero)
    .describe(
        "The number of nonzero elements of x (NaN counts; -0.0 does not; complex: either part), "
        "as 0-d int64.")
    .set_num_inputs(1)
    .add_argument("x", "NDArray", "the array (any strides)")
    .set_attr<FInferShape>("FInferShape", CountShape)
    .set_attr<FInferType>("FInferType", Int64Type)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", CountNonzeroCompute<cpu>);

MXFFI_REGISTER_OP(_npi_nonzero)
    .describe(
        "The coordinates of the nonzero elements of x in C order, as an (x.ndim, count) int64 "
        "array (row d: the d-th coordinates); count is _npi_count_nonzero's result.")
    .set_num_inputs(1)
    .add_argument("x", "NDArray", "the array (any strides, at least 1-d)")
    .set_param<NonzeroParam>()
    .set_attr<FInferShape>("FInferShape", NonzeroShape)
    .set_attr<FInferType>("FInferType", Int64Type)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", NonzeroCompute<cpu>);

}  // namespace op
}  // namespace mxffi
