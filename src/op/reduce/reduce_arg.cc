/*!
 * \file reduce_arg.cc
 * \brief _argmax and _argmin over one axis or all of them (then the C-order flat index), on
 *  strided inputs: the index of the first extremum, or of the first NaN where there is one, as
 *  numpy (complex numbers compare lexicographically, real part first, a NaN in either part
 *  counting as NaN). The plan keeps the reduced axes in C order (MakeReducePlan's keep_order), so a
 *  position among the reduced elements is the index numpy returns. Three loops, as the other
 *  reductions have (reduce_op.cc):
 *   - full reduction: fixed chunks (independent of the thread count) reduced in parallel, their
 *     winners combined in chunk order;
 *   - the reduced axis innermost (or nothing kept): a row per output element;
 *   - a kept axis innermost: blocks of consecutive output elements advanced together, one
 *     reduced index at a time, so the inner loop runs along memory.
 */
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "../complex.h"
#include "../dtype.h"
#include "../parallel.h"
#include "../promote.h"
#include "../simd/simd.h"
#include "reduce_op.h"
#include "reducers.h"

namespace mxffi {
namespace op {
namespace {

using reduce::ArgTakes;

/*! \brief Elements per chunk of a full reduction: fixed, so results do not depend on threads. */
constexpr int64_t kArgChunk = int64_t{1} << 16;
/*! \brief Output elements advanced together when a kept axis is innermost. */
constexpr int64_t kArgBlock = 2048;

/*! \brief A best value so far and its index among the reduced elements. */
template <typename A>
struct ArgBest {
  A v;
  int64_t i;
};

/*! \brief Contiguous float lines at least this long find their extremum with simd::Max/Min. */
constexpr int64_t kArgSimdMin = 256;
/*! \brief Elements per block of the vectorized search. */
constexpr int64_t kArgSimdBlock = 1024;

/*!
 * \brief The first extremum (or first NaN) of a contiguous float or double line q[0, n): the
 *  vectorized max (min) of each block, the best block kept (the first on ties), then that one
 *  block searched for the first element equal to its extremum. A block whose extremum is NaN
 *  holds the line's first NaN (no block before it had one): it is searched for it at once.
 */
template <bool kMax, typename T>
ArgBest<T> SimdArgLine(const T* q, int64_t n) {
  T best = T(0);
  int64_t best_block = -1;
  for (int64_t b = 0; b < n; b += kArgSimdBlock) {
    const int64_t len = std::min(kArgSimdBlock, n - b);
    const T m = kMax ? simd::Max(q + b, len) : simd::Min(q + b, len);
    if (m != m) {  // NOLINT(misc-redundant-expression): NaN
      for (int64_t i = b;; ++i) {
        if (q[i] != q[i]) return ArgBest<T>{q[i], i};  // NOLINT(misc-redundant-expression)
      }
    }
    if (best_block < 0 || (kMax ? m > best : m < best)) {
      best = m;
      best_block = b;
    }
  }
  // -0.0 and 0.0 compare equal: the first of them is numpy's index, as its loop keeps it.
  for (int64_t i = best_block;; ++i) {
    if (q[i] == best) return ArgBest<T>{q[i], i};
  }
}

/*!
 * \brief The best of the reduced elements [begin, begin + n) (C order over p's reduced
 *  dimensions) at base + their offsets; n >= 1.
 */
template <bool kMax, typename T>
ArgBest<AccT<T>> ArgRange(const T* base, const ReducePlan& p, int64_t begin, int64_t n) {
  using A = AccT<T>;
  if (p.nr == 1) {
    const int64_t s = p.red[0].stride;
    const T* q = base + begin * s;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (s == 1 && n >= kArgSimdMin) {
        const ArgBest<T> r = SimdArgLine<kMax>(q, n);
        return ArgBest<A>{ToAcc(r.v), begin + r.i};
      }
    }
    ArgBest<A> b{ToAcc(q[0]), 0};
    if (s == 1) {
      for (int64_t i = 1; i < n; ++i) {
        const A v = ToAcc(q[i]);
        if (ArgTakes<kMax>(v, b.v)) b = ArgBest<A>{v, i};
      }
    } else {
      for (int64_t i = 1; i < n; ++i) {
        const A v = ToAcc(q[i * s]);
        if (ArgTakes<kMax>(v, b.v)) b = ArgBest<A>{v, i};
      }
    }
    b.i += begin;
    return b;
  }
  Odometer od(p.red, p.nr, begin);
  ArgBest<A> b{ToAcc(base[od.offset]), begin};
  od.Next();
  for (int64_t i = 1; i < n; ++i, od.Next()) {
    const A v = ToAcc(base[od.offset]);
    if (ArgTakes<kMax>(v, b.v)) b = ArgBest<A>{v, begin + i};
  }
  return b;
}

template <bool kMax, typename T>
void ArgKernel(const ReducePlan& p, const T* in, int64_t* out) {
  using A = AccT<T>;
  const int64_t n = p.red_size;
  if (p.nk == 0) {
    const int64_t chunks = (n + kArgChunk - 1) / kArgChunk;
    if (chunks == 1) {
      out[0] = ArgRange<kMax>(in, p, 0, n).i;
      return;
    }
    std::unique_ptr<ArgBest<A>[]> part(new ArgBest<A>[chunks]);
    ParallelFor(chunks, kArgChunk, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t begin = c * kArgChunk;
        part[c] = ArgRange<kMax>(in, p, begin, std::min(kArgChunk, n - begin));
      }
    });
    ArgBest<A> best = part[0];
    for (int64_t c = 1; c < chunks; ++c) {
      if (ArgTakes<kMax>(part[c].v, best.v)) best = part[c];  // strictly: the first stays
    }
    out[0] = best.i;
    return;
  }
  const ReduceDim& kin = p.kept[p.nk - 1];
  if (std::llabs(p.red[p.nr - 1].stride) <= std::llabs(kin.stride) || n == 1) {
    ParallelFor(p.out_size, n, [&](int64_t b, int64_t e) {
      Odometer ko(p.kept, p.nk, b);
      for (int64_t o = b; o < e; ++o, ko.Next()) out[o] = ArgRange<kMax>(in + ko.offset, p, 0, n).i;
    });
    return;
  }
  const int64_t n_in = kin.size, s_in = kin.stride;
  ParallelFor(p.out_size, n, [&](int64_t b, int64_t e) {
    const int64_t cap = std::min(kArgBlock, e - b);
    std::unique_ptr<A[]> best_buf(new A[cap]);
    A* best = best_buf.get();
    for (int64_t o = b; o < e;) {
      const int64_t row = o / n_in, j0 = o % n_in;
      const int64_t len = std::min({n_in - j0, e - o, kArgBlock});
      Odometer ko(p.kept, p.nk - 1, row);
      const T* base = in + ko.offset + j0 * s_in;
      int64_t* idx = out + o;
      for (int64_t j = 0; j < len; ++j) {
        best[j] = ToAcc(base[j * s_in]);
        idx[j] = 0;
      }
      Odometer ro(p.red, p.nr, 1);
      for (int64_t r = 1; r < n; ++r, ro.Next()) {
        const T* q = base + ro.offset;
        for (int64_t j = 0; j < len; ++j) {
          const A v = ToAcc(q[j * s_in]);
          if (ArgTakes<kMax>(v, best[j])) {
            best[j] = v;
            idx[j] = r;
          }
        }
      }
      o += len;
    }
  });
}

FInferShape MakeArgShape(const char* fname, const char* what) {
  return [fname, what](const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
    const ReduceParam& p = attrs.get<ReduceParam>();
    const int ndim = in[0].ndim();
    MXFFI_CHECK(!p.axis.has_value() || p.axis.value().ndim() <= 1 || ndim == 0, TypeError)
        << fname << ": takes one axis or None; got " << p.axis.value().ToString();
    const uint64_t mask = ReduceAxesMask(p.axis, ndim, fname);
    for (int i = 0; i < ndim; ++i) {
      MXFFI_CHECK(!((mask >> i & 1) && in[0][i] == 0), ValueError)
          << fname << ": attempt to get " << what << " of an empty sequence; got shape "
          << in[0].ToString() << (p.axis.has_value() ? " reduced over axis " : "")
          << (p.axis.has_value() ? std::to_string(p.axis.value()[0]) : std::string());
    }
    out[0] = ReduceOutShape(in[0], mask, p.keepdims);
  };
}

FInferType MakeArgType(const char* fname) {
  return [fname](const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
    MXFFI_CHECK(DTypeRuleIndex(in[0]) >= 0, TypeError)
        << fname << ": unsupported dtype " << DataTypeToString(in[0]);
    MXFFI_CHECK(attrs.get<ReduceParam>().dtype.is_none, TypeError)
        << fname << ": takes no dtype; got " << attrs.get<ReduceParam>().dtype;
    out[0] = DLDataType{kDLInt, 64, 1};
  };
}

template <bool kMax>
FCompute MakeArgCompute(const char* fname) {
  return [fname](const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
    const DLTensor& x = in[0];
    const DLTensor& y = out[0];
    const uint64_t mask = ReduceAxesMask(attrs.get<ReduceParam>().axis, x.ndim, fname);
    if (NumElements(y) == 0) return;
    std::optional<ScopedGILRelease> gil;
    if (NumElements(x) > kReleaseGILThreshold) gil.emplace();  // not empty: shape inference
    const ReducePlan plan = MakeReducePlan(x, mask, /*keep_order=*/true);
    MXFFI_TYPE_SWITCH_WITH_COMPLEX(
        x.dtype, fname, T, { ArgKernel<kMax>(plan, DataPtr<const T>(x), DataPtr<int64_t>(y)); });
  };
}

}  // namespace

MXFFI_REGISTER_OP(_argmax)
    .describe(
        "Index of the largest element over one axis (None: the flat C-order index), as "
        "numpy.argmax: the first occurrence, the first NaN where there is one.")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeArgShape("np.argmax", "argmax"))
    .set_attr<FInferType>("FInferType", MakeArgType("np.argmax"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeArgCompute<true>("np.argmax"));

MXFFI_REGISTER_OP(_argmin)
    .describe(
        "Index of the smallest element over one axis (None: the flat C-order index), as "
        "numpy.argmin: the first occurrence, the first NaN where there is one.")
    .add_argument("a", "NDArray", "the input")
    .set_param<ReduceParam>()
    .set_attr<FInferShape>("FInferShape", MakeArgShape("np.argmin", "argmin"))
    .set_attr<FInferType>("FInferType", MakeArgType("np.argmin"))
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeArgCompute<false>("np.argmin"));

}  // namespace op
}  // namespace mxffi
