/*!
 * \file reduce_var.cc
 * \brief _var and _std over any set of axes, on strided inputs, as numpy computes them: two
 *  passes, the mean first (a pairwise sum divided by the count), then the pairwise sum of the
 *  squared deviations from it, divided by max(count - correction, 0) (so an empty reduction or
 *  a correction past the count gives NaN or infinity, as numpy); std is its square root.
 *  Integers and bools compute in float64, float32 and float64 in themselves, float16 and
 *  bfloat16 in float32 rounded once at the end. Complex inputs give a real result of their
 *  precision, as numpy's: the mean is complex (numpy's complex division by the count), the
 *  squared deviation is |x - mean|**2 = re**2 + im**2.
 *
 * One output element per task, its reduced elements walked as rows of the innermost reduced
 * axis (MakeReducePlan puts the smallest stride there); a full reduction is cut into fixed
 * chunks (independent of the thread count) whose sums are combined as a binary tree, so large
 * inputs use the pool and results do not depend on the thread count.
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "../complex.h"
#include "../dtype.h"
#include "../parallel.h"
#include "../promote.h"
#include "reduce_op.h"
#include "reducers.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief Elements per chunk of a full reduction. */
constexpr int64_t kVarChunk = int64_t{1} << 16;

/*!
 * \brief numpy's pairwise sum of f(p[0]), f(p[s]), ... over n elements (8 accumulators, halves
 *  split on multiples of 8), f giving an A.
 */
template <typename A, typename In, typename F>
A PairwiseSumOf(const In* p, int64_t n, int64_t s, const F& f) {
  if (n < 8) {
    A r = A(0);
    for (int64_t i = 0; i < n; ++i) r += f(p[i * s]);
    return r;
  }
  if (n <= 128) {
    A r[8];
    for (int j = 0; j < 8; ++j) r[j] = f(p[j * s]);
    int64_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += f(p[(i + j) * s]);
    }
    A res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += f(p[i * s]);
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSumOf<A>(p, n2, s, f) + PairwiseSumOf<A>(p + n2 * s, n - n2, s, f);
}

/*! \brief The sum of f over the elements at base + red-offsets, red[0] in [begin, end). */
template <typename A, typename In, typename F>
A SumBlock(const In* base, const ReduceDim* red, int nr, int64_t begin, int64_t end, const F& f) {
  const ReduceDim& inner = red[nr - 1];
  if (nr == 1) return PairwiseSumOf<A>(base + begin * inner.stride, end - begin, inner.stride, f);
  int64_t outer_per_first = 1;
  for (int i = 1; i < nr - 1; ++i) outer_per_first *= red[i].size;
  Odometer od(red, nr - 1, begin * outer_per_first);
  const int64_t rows = (end - begin) * outer_per_first;
  A acc = A(0);
  for (int64_t r = 0; r < rows; ++r, od.Next()) {
    acc += PairwiseSumOf<A>(base + od.offset, inner.size, inner.stride, f);
  }
  return acc;
}

/*! \brief p[0] + ... + p[n-1] as a binary tree, in order. */
template <typename A>
A TreeSum(const A* p, int64_t n) {
  if (n == 1) return p[0];
  const int64_t half = n / 2;
  return TreeSum(p, half) + TreeSum(p + half, n - half);
}

/*! \brief The sum of f over all reduced elements at base: chunked across the pool if parallel. */
template <typename A, typename In, typename F>
A SumAll(const In* base, const ReducePlan& p, bool parallel, const F& f) {
  const ReduceDim* red = p.red;
  const int64_t inner = p.red_size / red[0].size;
  const int64_t len = std::max<int64_t>(1, kVarChunk / inner);
  const int64_t chunks = (red[0].size + len - 1) / len;
  if (!parallel || chunks == 1) return SumBlock<A>(base, red, p.nr, 0, red[0].size, f);
  std::unique_ptr<A[]> part(new A[chunks]);
  ParallelFor(chunks, len * inner, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      part[c] = SumBlock<A>(base, red, p.nr, c * len, std::min(red[0].size, (c + 1) * len), f);
    }
  });
  return TreeSum(part.get(), chunks);
}

/*! \brief The variance (or standard deviation) of the reduced elements at base, as Out. */
template <bool kStd, typename Out, typename In>
Out VarOne(const In* base, const ReducePlan& p, double correction, bool parallel) {
  using A = AccT<Out>;
  const int64_t n = p.red_size;
  if (n == 0) return FromAcc<Out>(std::numeric_limits<A>::quiet_NaN());
  // The mean and the squared deviations as the CUDA kernel computes them (reducers.h).
  using S = reduce::VarSumT<In, A>;
  const auto load = [](In v) { return static_cast<S>(ToAcc(v)); };
  const S mean = reduce::VarMean(SumAll<S>(base, p, parallel, load), n);
  const A ss = SumAll<A>(base, p, parallel, [mean](In v) {
    return reduce::SquaredDeviation<A>(static_cast<S>(ToAcc(v)), mean);
  });
  const A v = ss / static_cast<A>(std::max(static_cast<double>(n) - correction, 0.0));
  return FromAcc<Out>(kStd ? std::sqrt(v) : v);
}

template <bool kStd, typename Out, typename In>
void VarKernel(const ReducePlan& p, const In* in, Out* out, double correction) {
  if (p.nk == 0) {
    out[0] = VarOne<kStd, Out>(in, p, correction, true);
    return;
  }
  ParallelFor(p.out_size, 2 * p.red_size, [&](int64_t b, int64_t e) {
    Odometer ko(p.kept, p.nk, b);
    for (int64_t o = b; o < e; ++o, ko.Next()) {
      out[o] = VarOne<kStd, Out>(in + ko.offset, p, correction, false);
    }
  });
}

FInferShape MakeVarShape(const char* fname) {
  return [fname](const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
    const VarParam& p = attrs.get<VarParam>();
    out[0] = ReduceOutShape(in[0], ReduceAxesMask(p.axis, in[0].ndim(), fname), p.keepdims);
  };
}

FInferType MakeVarType(const char* fname) {
  return [fname](const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
    MXFFI_CHECK(DTypeRuleIndex(in[0]) >= 0, TypeError)
        << fname << ": unsupported dtype " << DataTypeToString(in[0]);
    // A complex input's variance is real, of the input's precision.
    out[0] = in[0].code == kDLComplex
                 ? DLDataType{kDLFloat, static_cast<uint8_t>(in[0].bits / 2), 1}
                 : MeanType(in[0], DTypeParam());
  };
}

template <bool kStd>
FCompute MakeVarCompute(const char* fname) {
  return [fname](const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
    const DLTensor& x = in[0];
    const DLTensor& y = out[0];
    const VarParam& param = attrs.get<VarParam>();
    const uint64_t mask = ReduceAxesMask(param.axis, x.ndim, fname);
    if (NumElements(y) == 0) return;
    std::optional<ScopedGILRelease> gil;
    const bool x_empty = std::any_of(x.shape, x.shape + x.ndim, [](int64_t d) { return d == 0; });
    if (!x_empty && NumElements(x) > kReleaseGILThreshold) gil.emplace();
    const ReducePlan plan = MakeReducePlan(x, mask);
    MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, In, {
      if constexpr (std::is_integral_v<In>) {
        VarKernel<kStd>(plan, DataPtr<const In>(x), DataPtr<double>(y), param.correction);
      } else if constexpr (kIsComplex<In>) {
        VarKernel<kStd>(plan, DataPtr<const In>(x), DataPtr<RealT<In>>(y), param.correction);
      } else {
        VarKernel<kStd>(plan, DataPtr<const In>(x), DataPtr<In>(y), param.correction);
      }
    });
  };
}

}  // namespace

MXFFI_REGISTER_OP(_var)
    .describe(
        "Variance over axes, as numpy.var: the mean of the squared deviations from the mean, "
        "the count less correction (ddof) dividing.")
    .add_argument("a", "NDArray", "the input")
    .set_param<VarParam>()
    .set_attr<FInferShape>("FInferShape", MakeVarShape("np.var"))
    .set_attr<FInferType>("FInferType", MakeVarType("np.var"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeVarCompute<false>("np.var"));

MXFFI_REGISTER_OP(_std)
    .describe("Standard deviation over axes, as numpy.std: the square root of _var.")
    .add_argument("a", "NDArray", "the input")
    .set_param<VarParam>()
    .set_attr<FInferShape>("FInferShape", MakeVarShape("np.std"))
    .set_attr<FInferType>("FInferType", MakeVarType("np.std"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeVarCompute<true>("np.std"));

}  // namespace op
}  // namespace mxffi
