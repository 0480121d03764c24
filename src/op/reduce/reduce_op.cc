/*!
 * \file reduce_op.cc
 * \brief _sum, _mean, _prod, _max, _min, _all, _any and _count_nonzero over any set of axes, on
 *  strided inputs.
 *
 * The input's axes are split into kept ones (in output order) and reduced ones; extent-1 axes
 * are dropped and neighbours whose strides allow it are merged, so a C-contiguous input reduced
 * over trailing (or leading) axes becomes one contiguous row per output element (or one
 * contiguous run of outputs per reduced index). Three loops cover every layout:
 *   - full reduction: the reduced elements are cut into fixed chunks (independent of the thread
 *     count), reduced in parallel and combined as a binary tree in chunk order, so the result
 *     is deterministic and a float sum stays pairwise;
 *   - innermost axis reduced: one output element per task, its elements reduced as rows (float
 *     sums pairwise, as numpy's; contiguous float32/float64 rows by the vectorized kernels of
 *     simd/simd.h);
 *   - innermost axis kept: blocks of consecutive output elements accumulated together, one
 *     reduced index at a time, so the inner loop runs along memory.
 * Complex inputs (complex64, complex128) reduce in their own dtype: sums pairwise, products with
 * numpy's schoolbook multiplication, max and min lexicographically (reducers.h).
 * A dtype other than the natural ones (sum/mean/prod's dtype=) casts the input first (_cast), as
 * numpy casts before it accumulates.
 */
#include "reduce_op.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "../complex.h"
#include "../dtype.h"
#include "../init/init_op.h"
#include "../parallel.h"
#include "../promote.h"
#include "../simd/simd.h"
#include "reducers.h"

namespace mxffi {
namespace op {

uint64_t ReduceAxesMask(const dmlc::optional<TShape>& axis, int ndim, const char* fname) {
  if (!axis.has_value()) return ndim >= 64 ? ~uint64_t{0} : (uint64_t{1} << ndim) - 1;
  uint64_t mask = 0;
  const TShape& axes = axis.value();
  for (int i = 0; i < axes.ndim(); ++i) {
    int64_t a = axes[i];
    if (a < -ndim || a >= ndim) {
      MXFFI_THROW(AxisError) << fname << ": axis " << a
                             << " is out of bounds for array of dimension " << ndim;
    }
    if (a < 0) a += ndim;
    MXFFI_CHECK(!(mask >> a & 1), ValueError)
        << fname << ": duplicate value in 'axis'; got " << axes.ToString();
    mask |= uint64_t{1} << a;
  }
  return mask;
}

TShape ReduceOutShape(const TShape& in, uint64_t mask, bool keepdims) {
  TShape out;
  for (int i = 0; i < in.ndim(); ++i) {
    if (!(mask >> i & 1)) {
      out.push_back(in[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

DLDataType SumType(DLDataType in, const DTypeParam& dtype) {
  if (!dtype.is_none) return dtype.dtype;
  if (in.code == kDLBool || (in.code == kDLInt && in.bits < 64)) return DLDataType{kDLInt, 64, 1};
  if (in.code == kDLUInt && in.bits < 64) return DLDataType{kDLUInt, 64, 1};
  return in;
}

DLDataType MeanType(DLDataType in, const DTypeParam& dtype) {
  if (!dtype.is_none) return dtype.dtype;
  if (in.code == kDLBool || IsIntegral(in)) return DLDataType{kDLFloat, 64, 1};
  return in;
}

namespace {

/*! \brief Merge neighbours b into a where a's stride steps over all of b. */
int MergeDims(ReduceDim* dims, int n) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && dims[m - 1].stride == dims[i].stride * dims[i].size) {
      dims[m - 1].size *= dims[i].size;
      dims[m - 1].stride = dims[i].stride;
    } else {
      dims[m++] = dims[i];
    }
  }
  return m;
}

}  // namespace

ReducePlan MakeReducePlan(const DLTensor& t, uint64_t mask, bool keep_order) {
  ReducePlan p;
  if (std::any_of(t.shape, t.shape + t.ndim, [](int64_t d) { return d == 0; })) {
    // An empty input: every output element reduces nothing. Its other extents may multiply past
    // int64 (shape (2**40, 2**40, 0)), so no stride or size of it is computed.
    p.red_size = 0;
    p.red[p.nr++] = ReduceDim{0, 1};
    for (int i = 0; i < t.ndim; ++i) {
      if (mask >> i & 1) continue;
      p.out_size *= t.shape[i];
      if (t.shape[i] != 1) p.kept[p.nk++] = ReduceDim{t.shape[i], 0};
    }
    return p;
  }
  int64_t stride = 1;
  int64_t compact[kMaxNDim];
  for (int i = t.ndim - 1; i >= 0; --i) {
    compact[i] = stride;
    stride *= t.shape[i];
  }
  for (int i = 0; i < t.ndim; ++i) {
    ReduceDim d{t.shape[i], t.strides ? t.strides[i] : compact[i]};
    if (mask >> i & 1) {
      p.red_size *= d.size;
      if (d.size != 1) p.red[p.nr++] = d;
    } else {
      p.out_size *= d.size;
      if (d.size != 1) p.kept[p.nk++] = d;
    }
  }
  // The order of the reduced axes only changes the order of accumulation: put the smallest
  // stride innermost so rows run along memory.
  if (!keep_order) {
    std::stable_sort(p.red, p.red + p.nr, [](const ReduceDim& a, const ReduceDim& b) {
      return std::llabs(a.stride) > std::llabs(b.stride);
    });
  }
  p.nk = MergeDims(p.kept, p.nk);
  p.nr = MergeDims(p.red, p.nr);
  if (p.nr == 0) p.red[p.nr++] = ReduceDim{1, 1};
  return p;
}

namespace {

// ---- reducers: reducers.h, shared with the CUDA kernels --------------------------------------

using reduce::AllOp;
using reduce::AnyOp;
using reduce::CountOp;
using reduce::Finish;
using reduce::Load;
using reduce::MaxOp;
using reduce::MinOp;
using reduce::ProdOp;
using reduce::RedAcc;
using reduce::SumOp;

/*! \brief numpy's pairwise summation (8 accumulators, halves split on multiples of 8). */
template <typename Acc, typename Out, typename In>
Acc PairwiseSum(const In* p, int64_t n, int64_t s) {
  if (n < 8) {
    Acc r = Acc(0);
    for (int64_t i = 0; i < n; ++i) r += Load<SumOp, Acc, Out>(p[i * s]);
    return r;
  }
  if (n <= 128) {
    Acc r[8];
    for (int j = 0; j < 8; ++j) r[j] = Load<SumOp, Acc, Out>(p[j * s]);
    int64_t i = 8;
    if (s == 1) {
      for (; i < n - n % 8; i += 8) {
        for (int j = 0; j < 8; ++j) r[j] += Load<SumOp, Acc, Out>(p[i + j]);
      }
    } else {
      for (; i < n - n % 8; i += 8) {
        for (int j = 0; j < 8; ++j) r[j] += Load<SumOp, Acc, Out>(p[(i + j) * s]);
      }
    }
    Acc res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += Load<SumOp, Acc, Out>(p[i * s]);
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum<Acc, Out>(p, n2, s) + PairwiseSum<Acc, Out>(p + n2 * s, n - n2, s);
}

/*!
 * \brief Max or min of n contiguous floats or doubles in 16-byte vectors (GCC vector
 *  extensions): the compiler does not vectorise a NaN-propagating max on its own, since
 *  maxps is not symmetric in NaN. NaN is tracked apart from the running extremum.
 */
template <typename R, typename T>
T ExtremumContiguous(const T* p, int64_t n) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  typedef T V __attribute__((vector_size(16)));
  typedef I VI __attribute__((vector_size(16)));
  constexpr int kW = 16 / sizeof(T), kU = 4;
  V m[kU];
  VI nan[kU];
  for (int u = 0; u < kU; ++u) {
    for (int l = 0; l < kW; ++l) m[u][l] = R::template Identity<T>();
    nan[u] = VI{};
  }
  int64_t i = 0;
  for (; i + kU * kW <= n; i += kU * kW) {
    for (int u = 0; u < kU; ++u) {
      V v;
      std::memcpy(&v, p + i + u * kW, sizeof(V));
      m[u] = R::Better(v, m[u]) ? v : m[u];
      nan[u] |= v != v;
    }
  }
  T r = R::template Identity<T>();
  bool any_nan = false;
  for (int u = 0; u < kU; ++u) {
    for (int l = 0; l < kW; ++l) {
      r = R::Combine(r, m[u][l]);
      any_nan |= nan[u][l] != 0;
    }
  }
  for (; i < n; ++i) r = R::Combine(r, p[i]);
  return any_nan ? std::numeric_limits<T>::quiet_NaN() : r;
}

/*! \brief Whether R is the sum, max or min (the reducers simd.h has kernels of). */
template <typename R>
constexpr bool kArith =
    std::is_same_v<R, SumOp> || std::is_same_v<R, MaxOp> || std::is_same_v<R, MinOp>;

/*! \brief Whether R over contiguous T has a vectorized kernel in simd.h: sum, max or min of
 *  float32 or float64 read, accumulated and returned as itself. */
template <typename R, typename T, typename Acc, typename Out>
constexpr bool kSimdReduce = kArith<R> && (std::is_same_v<T, float> || std::is_same_v<T, double>) &&
                             std::is_same_v<T, Acc> && std::is_same_v<T, Out>;

/*! \brief R (sum, max, min) of n contiguous floats or doubles, vectorized. */
template <typename R, typename T>
inline T SimdReduce(const T* p, int64_t n) {
  if constexpr (std::is_same_v<R, SumOp>) {
    return simd::Sum(p, n);
  } else if constexpr (std::is_same_v<R, MaxOp>) {
    return simd::Max(p, n);
  } else {
    return simd::Min(p, n);
  }
}

/*! \brief acc[j] = R::Combine(acc[j], p[j]) for j < n, vectorized (simd.h's maximum and
 *  minimum are MaxOp's and MinOp's Combine, lane by lane). */
template <typename R, typename T>
inline void SimdCombineInto(T* acc, const T* p, int64_t n) {
  if constexpr (std::is_same_v<R, SumOp>) {
    simd::Add(acc, p, acc, n);
  } else if constexpr (std::is_same_v<R, MaxOp>) {
    simd::Maximum(acc, p, acc, n);
  } else {
    simd::Minimum(acc, p, acc, n);
  }
}

/*!
 * \brief Reduce n elements p[0], p[s], ... into one accumulator. Eight independent
 *  accumulators, combined at the end, break the dependency chain so the loop vectorises.
 */
template <typename R, typename Acc, typename Out, typename In>
inline Acc ReduceRow(const In* p, int64_t n, int64_t s) {
  if constexpr (kSimdReduce<R, In, Acc, Out>) {
    if (s == 1 && n >= simd::kMinRun) return SimdReduce<R>(p, n);
  }
  if constexpr (std::is_same_v<R, SumOp> && (std::is_floating_point_v<Acc> || kIsComplex<Acc>)) {
    return PairwiseSum<Acc, Out>(p, n, s);
  } else if constexpr (kIsComplex<Acc>) {
    // Complex products, max and min one element after another from the identity, as numpy's
    // loop: where a part is infinite, the NaNs of a product (0 * inf) depend on the order, and
    // the first element with a NaN part is the one max and min propagate.
    Acc acc = R::template Identity<Acc>();
    for (int64_t i = 0; i < n; ++i) acc = R::Combine(acc, Load<R, Acc, Out>(p[i * s]));
    return acc;
  } else {
    if constexpr ((std::is_same_v<R, MaxOp> || std::is_same_v<R, MinOp>) &&
                  std::is_floating_point_v<In> && std::is_same_v<In, Acc>) {
      if (s == 1) return ExtremumContiguous<R>(p, n);
    }
    Acc acc[8];
    for (int j = 0; j < 8; ++j) acc[j] = R::template Identity<Acc>();
    int64_t i = 0;
    if (s == 1) {
      for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j) acc[j] = R::Combine(acc[j], Load<R, Acc, Out>(p[i + j]));
      }
    } else {
      for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j) acc[j] = R::Combine(acc[j], Load<R, Acc, Out>(p[(i + j) * s]));
      }
    }
    for (; i < n; ++i) acc[0] = R::Combine(acc[0], Load<R, Acc, Out>(p[i * s]));
    return R::Combine(R::Combine(R::Combine(acc[0], acc[1]), R::Combine(acc[2], acc[3])),
                      R::Combine(R::Combine(acc[4], acc[5]), R::Combine(acc[6], acc[7])));
  }
}

// ---- layout ---------------------------------------------------------------------------------

using Dim = ReduceDim;

/*!
 * \brief Reduce the elements at base + red-offsets, red[0] restricted to [begin, end); the
 *  innermost reduced axis is walked as rows.
 */
template <typename R, typename Acc, typename Out, typename In>
Acc ReduceBlock(const In* base, const Dim* red, int nr, int64_t begin, int64_t end) {
  const Dim& inner = red[nr - 1];
  if (nr == 1) {
    return ReduceRow<R, Acc, Out>(base + begin * inner.stride, end - begin, inner.stride);
  }
  int64_t outer_per_first = 1;
  for (int i = 1; i < nr - 1; ++i) outer_per_first *= red[i].size;
  Odometer od(red, nr - 1, begin * outer_per_first);
  const int64_t rows = (end - begin) * outer_per_first;
  Acc acc = R::template Identity<Acc>();
  for (int64_t r = 0; r < rows; ++r, od.Next()) {
    acc = R::Combine(acc, ReduceRow<R, Acc, Out>(base + od.offset, inner.size, inner.stride));
  }
  return acc;
}

/*! \brief Elements per chunk of a full reduction: fixed, so results do not depend on threads. */
constexpr int64_t kChunkElems = int64_t{1} << 16;
/*!
 * \brief Output elements accumulated together when the innermost axis is kept: long enough
 *  that each reduced index reads a long run of memory, short enough for the accumulators to
 *  stay in L1/L2 (32 KiB of doubles).
 */
constexpr int64_t kBlock = 4096;

/*! \brief p[0] + ... + p[n-1] (R's Combine) as a binary tree, in order: a sum of chunk sums
 *  then keeps the pairwise error bound of the chunks. */
template <typename R, typename Acc>
Acc CombinePairwise(const Acc* p, int64_t n) {
  if (n == 1) return p[0];
  const int64_t half = n / 2;
  return R::Combine(CombinePairwise<R>(p, half), CombinePairwise<R>(p + half, n - half));
}

template <typename R, bool kMean, typename In, typename Out>
void ReduceKernel(const ReducePlan& p, const In* in, Out* out) {
  using Acc = RedAcc<R, Out>;
  const int64_t count = p.red_size;
  const Dim* red = p.red;
  const int nr = p.nr;
  if (p.red_size == 0) {  // sum and mean of nothing (max and min refuse it earlier)
    Out v = Finish<kMean, Out>(R::template Identity<Acc>(), count);
    for (int64_t o = 0; o < p.out_size; ++o) out[o] = v;
    return;
  }
  if (p.nk == 0) {
    const int64_t inner = p.red_size / red[0].size;
    const int64_t len = std::max<int64_t>(1, kChunkElems / inner);
    const int64_t chunks = (red[0].size + len - 1) / len;
    if (chunks == 1) {
      out[0] = Finish<kMean, Out>(ReduceBlock<R, Acc, Out>(in, red, nr, 0, red[0].size), count);
      return;
    }
    // Not std::vector: vector<bool> packs bits, which threads cannot write independently.
    std::unique_ptr<Acc[]> partial(new Acc[chunks]);
    ParallelFor(chunks, len * inner, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        partial[c] =
            ReduceBlock<R, Acc, Out>(in, red, nr, c * len, std::min(red[0].size, (c + 1) * len));
      }
    });
    out[0] = Finish<kMean, Out>(CombinePairwise<R>(partial.get(), chunks), count);
    return;
  }
  const Dim& kin = p.kept[p.nk - 1];
  if (std::llabs(red[nr - 1].stride) <= std::llabs(kin.stride) || p.red_size == 1) {
    // The innermost axis is reduced: a row per output element.
    ParallelFor(p.out_size, p.red_size, [&](int64_t b, int64_t e) {
      Odometer ko(p.kept, p.nk, b);
      for (int64_t o = b; o < e; ++o, ko.Next()) {
        out[o] = Finish<kMean, Out>(
            ReduceBlock<R, Acc, Out>(in + ko.offset, red, nr, 0, red[0].size), count);
      }
    });
    return;
  }
  // The innermost axis is kept: accumulate blocks of outputs along it.
  const int64_t n_in = kin.size, s_in = kin.stride;
  ParallelFor(p.out_size, p.red_size, [&](int64_t b, int64_t e) {
    std::unique_ptr<Acc[]> acc_buf(new Acc[std::min(kBlock, e - b)]);
    Acc* acc = acc_buf.get();
    for (int64_t o = b; o < e;) {
      int64_t row = o / n_in, j0 = o % n_in;
      int64_t len = std::min({n_in - j0, e - o, kBlock});
      Odometer ko(p.kept, p.nk - 1, row);
      const In* base = in + ko.offset + j0 * s_in;
      for (int64_t j = 0; j < len; ++j) acc[j] = R::template Identity<Acc>();
      Odometer ro(red, nr, 0);
      for (int64_t r = 0; r < p.red_size; ++r, ro.Next()) {
        const In* q = base + ro.offset;
        if constexpr (kSimdReduce<R, In, Acc, Out>) {
          if (s_in == 1 && len >= simd::kMinRun) {
            SimdCombineInto<R>(acc, q, len);
            continue;
          }
        }
        if (s_in == 1) {
          for (int64_t j = 0; j < len; ++j) acc[j] = R::Combine(acc[j], Load<R, Acc, Out>(q[j]));
        } else {
          for (int64_t j = 0; j < len; ++j) {
            acc[j] = R::Combine(acc[j], Load<R, Acc, Out>(q[j * s_in]));
          }
        }
      }
      for (int64_t j = 0; j < len; ++j) out[o + j] = Finish<kMean, Out>(acc[j], count);
      o += len;
    }
  });
}

// ---- ops ------------------------------------------------------------------------------------

void CheckSupported(DLDataType t, const char* fname) {
  MXFFI_CHECK(DTypeRuleIndex(t) >= 0, TypeError)
      << fname << ": unsupported dtype " << DataTypeToString(t);
}

FInferShape MakeShape(const char* fname, bool needs_identity) {
  return [fname, needs_identity](const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
    const ReduceParam& p = attrs.get<ReduceParam>();
    uint64_t mask = ReduceAxesMask(p.axis, in[0].ndim(), fname);
    if (needs_identity) {
      for (int i = 0; i < in[0].ndim(); ++i) {
        MXFFI_CHECK(!((mask >> i & 1) && in[0][i] == 0), ValueError)
            << fname << ": zero-size array to reduction operation "
            << (std::string(fname) == "np.max" ? "maximum" : "minimum")
            << " which has no identity; got shape " << in[0].ToString();
      }
    }
    out[0] = ReduceOutShape(in[0], mask, p.keepdims);
  };
}

template <DLDataType (*Rule)(DLDataType, const DTypeParam&)>
FInferType MakeType(const char* fname) {
  return [fname](const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
    CheckSupported(in[0], fname);
    out[0] = Rule(in[0], attrs.get<ReduceParam>().dtype);
    CheckSupported(out[0], fname);
  };
}

FInferType MakeSameType(const char* fname) {
  return [fname](const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
    CheckSupported(in[0], fname);
    MXFFI_CHECK(attrs.get<ReduceParam>().dtype.is_none, TypeError)
        << fname << ": takes no dtype; got " << attrs.get<ReduceParam>().dtype;
    out[0] = in[0];
  };
}

/*! \brief all, any (bool), count_nonzero (int64): any supported input dtype, a result of one
 *  dtype, no dtype=. */
FInferType MakeFixedType(const char* fname, DLDataType result) {
  return [fname, result](const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
    CheckSupported(in[0], fname);
    MXFFI_CHECK(attrs.get<ReduceParam>().dtype.is_none, TypeError)
        << fname << ": takes no dtype; got " << attrs.get<ReduceParam>().dtype;
    out[0] = result;
  };
}

template <typename R, bool kMean, typename In, typename Out>
void RunTyped(const ReducePlan& p, const DLTensor& x, const DLTensor& y) {
  ReduceKernel<R, kMean>(p, DataPtr<const In>(x), DataPtr<Out>(y));
}

/*!
 * \brief Dispatch on the input and result dtypes. The result dtypes numpy picks by default
 *  (the input's own, or sum/prod/mean's natural one: NaturalOut) run directly; any other (an
 *  explicit dtype=) reduces a cast copy of the input, which is what numpy computes, so only
 *  these pairs are instantiated.
 */
template <typename R, bool kMean>
void Dispatch(const ReducePlan& p, const DLTensor& x, const DLTensor& y, const char* fname) {
  const DLDataType out_t = y.dtype;
  const DLDataType natural =
      kMean ? MeanType(x.dtype, DTypeParam()) : SumType(x.dtype, DTypeParam());
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, In, {
    if constexpr (R::kTruth) {
      // all, any: bool; count_nonzero: int64 (MakeFixedType), whatever the input.
      RunTyped<R, kMean, In, typename R::TruthResult>(p, x, y);
    } else if (SameDType(x.dtype, out_t)) {
      RunTyped<R, kMean, In, In>(p, x, y);
    } else if constexpr ((std::is_same_v<R, SumOp> || std::is_same_v<R, ProdOp>) &&
                         !std::is_same_v<reduce::NaturalOut<kMean, In>, In>) {
      // max and min give the input's dtype; sum, mean and prod also their natural one.
      MXFFI_CHECK(SameDType(out_t, natural), RuntimeError)
          << fname << ": no kernel from " << DataTypeToString(x.dtype) << " to "
          << DataTypeToString(out_t);
      RunTyped<R, kMean, In, reduce::NaturalOut<kMean, In>>(p, x, y);
    } else {
      MXFFI_THROW(RuntimeError) << fname << ": no kernel from " << DataTypeToString(x.dtype)
                                << " to " << DataTypeToString(out_t);
    }
  });
}

template <typename R, bool kMean>
FCompute MakeCompute(const char* fname) {
  return [fname](const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
    const DLTensor& x = in[0];
    const DLTensor& y = out[0];
    const ReduceParam& param = attrs.get<ReduceParam>();
    const uint64_t mask = ReduceAxesMask(param.axis, x.ndim, fname);
    if (NumElements(y) == 0) return;
    std::optional<ScopedGILRelease> gil;
    // NumElements of an empty x may overflow in its other extents: count it as empty first.
    bool x_empty = std::any_of(x.shape, x.shape + x.ndim, [](int64_t d) { return d == 0; });
    if (!x_empty && NumElements(x) > kReleaseGILThreshold) gil.emplace();
    const DLDataType out_t = y.dtype;
    const DLDataType natural =
        kMean ? MeanType(x.dtype, DTypeParam()) : SumType(x.dtype, DTypeParam());
    constexpr bool kTakesDType = std::is_same_v<R, SumOp> || std::is_same_v<R, ProdOp>;
    const bool direct = SameDType(x.dtype, out_t) || SameDType(natural, out_t) || !kTakesDType;
    if (direct) {
      Dispatch<R, kMean>(MakeReducePlan(x, mask), x, y, fname);
      return;
    }
    // dtype=: cast first (numpy casts each element to dtype before it adds).
    static const Op* cast = Op::Get("_cast");
    CastParam cp;
    cp.dtype = DTypeParam(out_t);
    OpAttrs cast_attrs;
    cast_attrs.op = cast;
    cast_attrs.param = &cp;
    NDArray src = NDArray::FromBorrowed(x);
    NDArray converted = Invoke(cast_attrs, Span<const NDArray>(&src, 1));
    const DLTensor& c = converted.tensor();
    Dispatch<R, kMean>(MakeReducePlan(c, mask), c, y, fname);
  };
}

}  // namespace

MXFFI_REGISTER_OP(_sum)
    .describe("Sum over axes, as numpy.sum (small integers sum as int64/uint64).")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.sum", false))
    .set_attr<FInferType>("FInferType", MakeType<SumType>("np.sum"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<SumOp, false>("np.sum"));

MXFFI_REGISTER_OP(_mean)
    .describe("Arithmetic mean over axes, as numpy.mean (integers average as float64).")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.mean", false))
    .set_attr<FInferType>("FInferType", MakeType<MeanType>("np.mean"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<SumOp, true>("np.mean"));

MXFFI_REGISTER_OP(_prod)
    .describe("Product over axes, as numpy.prod (small integers multiply as int64/uint64).")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.prod", false))
    .set_attr<FInferType>("FInferType", MakeType<SumType>("np.prod"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<ProdOp, false>("np.prod"));

MXFFI_REGISTER_OP(_max)
    .describe("Maximum over axes, as numpy.max (NaN propagates).")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.max", true))
    .set_attr<FInferType>("FInferType", MakeSameType("np.max"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<MaxOp, false>("np.max"));

MXFFI_REGISTER_OP(_min)
    .describe("Minimum over axes, as numpy.min (NaN propagates).")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.min", true))
    .set_attr<FInferType>("FInferType", MakeSameType("np.min"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<MinOp, false>("np.min"));

MXFFI_REGISTER_OP(_all)
    .describe("Whether every element over axes is nonzero (NaN is), as numpy.all; a bool result.")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.all", false))
    .set_attr<FInferType>("FInferType", MakeFixedType("np.all", DLDataType{kDLBool, 8, 1}))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<AllOp, false>("np.all"));

MXFFI_REGISTER_OP(_any)
    .describe("Whether any element over axes is nonzero (NaN is), as numpy.any; a bool result.")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.any", false))
    .set_attr<FInferType>("FInferType", MakeFixedType("np.any", DLDataType{kDLBool, 8, 1}))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<AnyOp, false>("np.any"));

MXFFI_REGISTER_OP(_count_nonzero)
    .describe("The number of nonzero elements over axes (NaN counts), as numpy.count_nonzero.")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeShape("np.count_nonzero", false))
    .set_attr<FInferType>("FInferType",
                          MakeFixedType("np.count_nonzero", DLDataType{kDLInt, 64, 1}))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeCompute<CountOp, false>("np.count_nonzero"));

}  // namespace op
}  // namespace mxffi
