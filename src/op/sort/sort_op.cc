/*!
 * \file sort_op.cc
 * \brief The CPU pieces of the sorting, searching and set ops (sort_op.h) and their
 *  registration: shape and dtype inference, and FCompute<cpu>.
 *
 * A sort copies each line into a buffer of its accumulation type (float for the 16-bit floats),
 * moves any NaNs to the end (they compare unordered, so a comparison sort cannot place them),
 * sorts the rest and writes the line back. Lines are sorted in parallel when there are several.
 * The values of lines of at least 32 elements of the 16-, 32- and 64-bit integers, float and
 * double sort by Highway's vectorized quicksort (vq_sort.h; its output is the stable sort's,
 * bit for bit), except 16-bit lines of 2^17 elements and more, which are counted, as are the
 * values of long 8-bit lines (and long 32- and 64-bit lines of a narrow range, vq_sort.cc).
 * Other lines of at least 256 elements sort by a stable radix sort (radix_sort.h): positions
 * (argsort) of every dtype and values of the 16-bit floats. Shorter lines: integers and bool sort
 * their values with std::sort (equal values are indistinguishable, so stability is moot); floats
 * use std::stable_sort, so -0.0 and 0.0 keep their order, and positions (argsort) always sort
 * stably. Complex lines sort by complex_sort.cc; searchsorted and unique take complex values in the
 * same order.
 */
#include "sort_op.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../complex.h"
#include "../parallel.h"
#include "../promote.h"
#include "../type_switch.h"
#include "radix_sort.h"
#include "sort_functors.h"
#include "vq_sort.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(SortParam);
DMLC_REGISTER_PARAMETER(SearchSortedParam);
DMLC_REGISTER_PARAMETER(UniqueParam);

using sort::Before;
using sort::IsNaN;
using sort::NewGroup;

int SortAxis(int axis, int ndim, const char* fname) {
  MXFFI_CHECK(axis >= -ndim && axis < ndim, AxisError)
      << fname << ": axis " << axis << " is out of bounds for array of dimension " << ndim;
  return axis < 0 ? axis + ndim : axis;
}

void ThrowUniqueCount(int64_t found, int64_t count, const char* fname) {
  MXFFI_THROW(ValueError) << fname << ": the array has " << found
                          << " distinct values, but count=" << count << " was given";
}

void ThrowBadPermutation(int64_t n, const char* fname) {
  MXFFI_THROW(ValueError) << fname << ": the permutation holds a position outside [0, " << n << ")";
}

namespace {

constexpr DLDataType kInt64Type{kDLInt, 64, 1};

/*!
 * \brief Sort the keys [0, n) in place, NaNs last (stably for floats).
 *  Values only: equal integers are indistinguishable, so they may sort unstably.
 */
template <bool kDesc, typename A>
void SortKeys(A* k, int64_t n) {
  if constexpr (std::is_floating_point_v<A>) {
    const int64_t m = std::stable_partition(k, k + n, [](A v) { return !IsNaN(v); }) - k;
    auto cmp = [](A a, A b) { return kDesc ? a > b : a < b; };
    std::stable_sort(k, k + m, cmp);
  } else if constexpr (sizeof(A) <= 2 && !std::is_same_v<A, bool>) {
    // Counting sort for a line long enough to pay for the table: one pass to count each
    // value, one to write them in order.
    using U = std::make_unsigned_t<A>;
    constexpr int kValues = 1 << (8 * sizeof(A));
    if (n < kValues / 8) {
      if constexpr (kDesc) {
        std::sort(k, k + n, [](A a, A b) { return a > b; });
      } else {
        std::sort(k, k + n);
      }
      return;
    }
    constexpr U kFlip = std::is_signed_v<A> ? U(U(1) << (8 * sizeof(A) - 1)) : U(0);
    std::vector<int64_t> count(kValues, 0);
    for (int64_t i = 0; i < n; ++i) ++count[static_cast<U>(static_cast<U>(k[i]) ^ kFlip)];
    int64_t o = 0;
    for (int b = 0; b < kValues; ++b) {
      const int c = kDesc ? kValues - 1 - b : b;
      const A v = static_cast<A>(static_cast<U>(static_cast<U>(c) ^ kFlip));
      for (int64_t j = count[c]; j > 0; --j) k[o++] = v;
    }
  } else {
    if constexpr (kDesc) {
      std::sort(k, k + n, [](A a, A b) { return a > b; });
    } else {
      std::sort(k, k + n);
    }
  }
}

/*! \brief Sort (key, position) pairs stably by key, NaNs last. */
template <bool kDesc, typename A>
void SortPairs(std::pair<A, int64_t>* p, int64_t n) {
  using P = std::pair<A, int64_t>;
  int64_t m = n;
  if constexpr (std::is_floating_point_v<A>) {
    m = std::stable_partition(p, p + n, [](const P& v) { return !IsNaN(v.first); }) - p;
  }
  std::stable_sort(p, p + m, [](const P& a, const P& b) {
    return kDesc ? a.first > b.first : a.first < b.first;
  });
}

/*! \brief One line of values by the radix sort, the values moving (buf: 2 * n of T). */
template <bool kDesc, typename T>
void SortLineValues(const T* x, T* y, int64_t n, int64_t inner, T* buf) {
  const auto key = [](T v) { return sort::RadixKey<kDesc>(ToAcc(v)); };
  for (int64_t j = 0; j < n; ++j) buf[j] = x[j * inner];
  const T* s = sort::RadixSortValues(buf, buf + n, n, key);
  if (inner == 1) {
    std::memcpy(y, s, n * sizeof(T));
  } else {
    for (int64_t j = 0; j < n; ++j) y[j * inner] = s[j];
  }
}

/*!
 * \brief Lines [b, e) of n elements (inner apart) by the radix sort: out gets the values (T)
 *  or, with arg, the positions (int64).
 */
template <bool kDesc, typename T>
void RadixLines(const T* x, void* out, int64_t b, int64_t e, int64_t n, int64_t inner, bool arg) {
  using A = AccT<T>;
  using U = sort::RadixKeyT<A>;
  if (arg) {
    sort::RadixBuffers<U, int64_t> buf(n);
    int64_t* y = static_cast<int64_t*>(out);
    for (int64_t l = b; l < e; ++l) {
      const int64_t base = (l / inner) * n * inner + l % inner;
      for (int64_t j = 0; j < n; ++j) {
        buf.key[j] = sort::RadixKey<kDesc>(ToAcc(x[base + j * inner]));
        buf.pay[j] = j;
      }
      const int64_t* s = buf.Sort();
      for (int64_t j = 0; j < n; ++j) y[base + j * inner] = s[j];
    }
    return;
  }
  T* y = static_cast<T*>(out);
  // Values: their keys sorted alone and turned back into values, unless the line holds a
  // -0.0 or a NaN, whose keys do not tell them (then the values move with recomputed keys).
  std::vector<U> keys(2 * n);
  const auto same = [](U k) { return k; };
  std::vector<T> buf;
  for (int64_t l = b; l < e; ++l) {
    const int64_t base = (l / inner) * n * inner + l % inner;
    int exact = 1;  // an int and &=: no branch in the loop
    for (int64_t j = 0; j < n; ++j) {
      const A v = ToAcc(x[base + j * inner]);
      exact &= static_cast<int>(sort::RadixExact(v));
      keys[j] = sort::RadixKey<kDesc>(v);
    }
    if (!exact) {
      if (buf.empty()) buf.resize(2 * n);
      SortLineValues<kDesc>(x + base, y + base, n, inner, buf.data());
      continue;
    }
    const U* s = sort::RadixSortValues(keys.data(), keys.data() + n, n, same);
    for (int64_t j = 0; j < n; ++j) {
      y[base + j * inner] = FromAcc<T>(sort::FromRadixKey<kDesc, A>(s[j]));
    }
  }
}

template <bool kDesc, typename T>
void SortLinesT(const T* x, void* out, int64_t outer, int64_t n, int64_t inner, bool arg) {
  using A = AccT<T>;
  const int64_t lines = outer * inner;
  // About n log2 n comparisons per line.
  int64_t cost = n;
  for (int64_t m = n; m > 1; m >>= 1) cost += n;
  ParallelFor(lines, cost, [&](int64_t b, int64_t e) {
    if constexpr (sort::kVQSortable<T>) {
      if (!arg && n >= sort::kVQSortMinLength &&
          (sizeof(T) > 2 || n < sort::kCountSort16MinLength)) {
        sort::VQSortLines<kDesc>(x, static_cast<T*>(out), b, e, n, inner);
        return;
      }
    }
    if constexpr (!std::is_same_v<A, bool>) {
      // Long lines: the radix sort, except values of the small integers (counted below).
      if (n >= sort::kRadixMinLength && (arg || sizeof(A) >= 4)) {
        RadixLines<kDesc>(x, out, b, e, n, inner, arg);
        return;
      }
    }
    if (arg) {
      std::vector<std::pair<A, int64_t>> buf(n);
      int64_t* y = static_cast<int64_t*>(out);
      for (int64_t l = b; l < e; ++l) {
        const int64_t base = (l / inner) * n * inner + l % inner;
        for (int64_t j = 0; j < n; ++j) buf[j] = {ToAcc(x[base + j * inner]), j};
        SortPairs<kDesc>(buf.data(), n);
        for (int64_t j = 0; j < n; ++j) y[base + j * inner] = buf[j].second;
      }
      return;
    }
    T* y = static_cast<T*>(out);
    if constexpr (std::is_same_v<A, T>) {
      if (inner == 1) {  // sorted in place in the output
        for (int64_t l = b; l < e; ++l) {
          std::memcpy(y + l * n, x + l * n, n * sizeof(T));
          SortKeys<kDesc>(y + l * n, n);
        }
        return;
      }
    }
    std::unique_ptr<A[]> buf(new A[n]);  // not std::vector: vector<bool> has no data()
    for (int64_t l = b; l < e; ++l) {
      const int64_t base = (l / inner) * n * inner + l % inner;
      for (int64_t j = 0; j < n; ++j) buf[j] = ToAcc(x[base + j * inner]);
      SortKeys<kDesc>(buf.get(), n);
      for (int64_t j = 0; j < n; ++j) y[base + j * inner] = FromAcc<T>(buf[j]);
    }
  });
}

void SortShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  SortAxis(attrs.get<SortParam>().axis, in[0].ndim(), SortFName(attrs));
  out[0] = in[0];
}

/*! \return TypeError naming fname unless t is a real or complex dtype the kernels take. */
void CheckRealDType(DLDataType t, const char* fname, const char* what) {
  const bool cplx = t.code == kDLComplex && t.lanes == 1 && (t.bits == 64 || t.bits == 128);
  MXFFI_CHECK(cplx || DTypeIndex(t) >= 0, TypeError)
      << fname << ": " << what << " has unsupported dtype " << DataTypeToString(t)
      << "; expected a bool, integer, floating-point or complex dtype";
}

void SortType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  CheckRealDType(in[0], SortFName(attrs), "x");
  out[0] = in[0];
}

void ArgSortType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  CheckRealDType(in[0], SortFName(attrs), "x");
  out[0] = kInt64Type;
}

void SearchSortedShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  MXFFI_CHECK(in[0].ndim() == 1, ValueError)
      << SortFName(attrs) << ": a must be 1-dimensional; got shape " << in[0].ToString();
  out[0] = in[1];
}

void SearchSortedType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const char* fname = SortFName(attrs);
  CheckRealDType(in[0], fname, "a");
  MXFFI_CHECK(SameDType(in[0], in[1]), TypeError)
      << fname << ": a and v must have one dtype; got " << DataTypeToString(in[0]) << " and "
      << DataTypeToString(in[1]);
  out[0] = kInt64Type;
}

/*! \brief x and perm: 1-d, one length, perm int64. */
void CheckUniqueInputs(const OpAttrs& attrs, Span<const TShape> in) {
  MXFFI_CHECK(in[0].ndim() == 1 && in[1].ndim() == 1 && in[0][0] == in[1][0], ValueError)
      << SortFName(attrs) << ": x and perm must be 1-d arrays of one length; got shapes "
      << in[0].ToString() << " and " << in[1].ToString();
}

void UniqueCountShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  CheckUniqueInputs(attrs, in);
  out[0] = TShape();
}

void UniqueShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  CheckUniqueInputs(attrs, in);
  const int64_t count = attrs.get<UniqueParam>().count;
  MXFFI_CHECK(count >= 0 && count <= in[0][0] && (count > 0 || in[0][0] == 0), ValueError)
      << SortFName(attrs) << ": count=" << count << " cannot be the number of distinct values of "
      << in[0][0] << " elements";
  out[0] = TShape{count};
  out[1] = TShape{count};
  out[2] = in[0];
  out[3] = TShape{count};
}

void UniqueCountType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const char* fname = SortFName(attrs);
  CheckRealDType(in[0], fname, "x");
  MXFFI_CHECK(SameDType(in[1], kInt64Type), TypeError)
      << fname << ": perm must be int64; got " << DataTypeToString(in[1]);
  out[0] = kInt64Type;
}

void UniqueType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  UniqueCountType(attrs, in, out);
  out[0] = in[0];
  out[1] = out[2] = out[3] = kInt64Type;
}

}  // namespace

void SortLines(cpu, const OpContext&, const DLTensor& x, const DLTensor& out, int axis,
               bool descending, bool arg, const char* fname) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int d = axis + 1; d < x.ndim; ++d) inner *= x.shape[d];
  const int64_t n = x.shape[axis];
  std::optional<ScopedGILRelease> gil;
  if (NumElements(x) > kReleaseGILThreshold) gil.emplace();
  void* y = static_cast<char*>(out.data) + out.byte_offset;
  if (x.dtype.code == kDLComplex) {
    SortComplexLines(x, y, outer, n, inner, descending, arg, fname);
    return;
  }
  MXFFI_TYPE_SWITCH(x.dtype, fname, T, {
    const T* px = DataPtr<const T>(x);
    if (descending) {
      SortLinesT<true>(px, y, outer, n, inner, arg);
    } else {
      SortLinesT<false>(px, y, outer, n, inner, arg);
    }
  });
}

void SearchSorted(cpu, const OpContext&, const DLTensor& a, const DLTensor& v, const DLTensor& out,
                  bool right, const char* fname) {
  const int64_t n = a.shape[0], m = NumElements(v);
  int64_t* y = DataPtr<int64_t>(out);
  int64_t cost = 1;
  for (int64_t k = n; k > 1; k >>= 1) ++cost;
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(a.dtype, fname, T, {
    const T* pa = DataPtr<const T>(a);
    const T* pv = DataPtr<const T>(v);
    ParallelFor(m, cost, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = sort::SearchSorted(pa, 1, n, ToAcc(pv[i]), right);
    });
  });
}

namespace {

/*! \return the distinct values of x in perm's order; ValueError for a position outside x. */
template <typename T>
int64_t CountGroups(const T* x, const int64_t* perm, int64_t n, bool equal_nan, const char* fname) {
  int64_t groups = 0;
  AccT<T> prev{};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = perm[i];
    if (j < 0 || j >= n) ThrowBadPermutation(n, fname);
    const AccT<T> v = ToAcc(x[j]);
    if (i == 0 || NewGroup(prev, v, equal_nan)) ++groups;
    prev = v;
  }
  return groups;
}

}  // namespace

void UniqueCount(cpu, const OpContext&, const DLTensor& x, const DLTensor& perm,
                 const DLTensor& out, bool equal_nan, const char* fname) {
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, T, {
    *DataPtr<int64_t>(out) = CountGroups(DataPtr<const T>(x), DataPtr<const int64_t>(perm),
                                         x.shape[0], equal_nan, fname);
  });
}

void Unique(cpu, const OpContext&, const DLTensor& x, const DLTensor& perm,
            Span<const DLTensor> out, int64_t count, bool equal_nan, const char* fname) {
  const int64_t n = x.shape[0];
  const int64_t* p = DataPtr<const int64_t>(perm);
  int64_t* first = DataPtr<int64_t>(out[1]);
  int64_t* inverse = DataPtr<int64_t>(out[2]);
  int64_t* counts = DataPtr<int64_t>(out[3]);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(x.dtype, fname, T, {
    const T* px = DataPtr<const T>(x);
    // Checked first, so that the writes below stay inside the outputs.
    const int64_t found = CountGroups(px, p, n, equal_nan, fname);
    if (found != count) ThrowUniqueCount(found, count, fname);
    T* values = DataPtr<T>(out[0]);
    int64_t g = -1;
    AccT<T> prev{};
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = p[i];
      const AccT<T> v = ToAcc(px[j]);
      if (i == 0 || NewGroup(prev, v, equal_nan)) {
        ++g;
        values[g] = px[j];
        first[g] = j;
        counts[g] = 0;
      }
      ++counts[g];
      inverse[j] = g;
      prev = v;
    }
  });
}

MXFFI_REGISTER_OP(_npi_sort)
    .describe(
        "x with every line along axis sorted stably, NaNs last (ascending or descending); the "
        "dtype is x's.")
    .add_argument("x", "NDArray", "the array (at least 1-d)")
    .set_param<SortParam>()
    .set_attr<FInferShape>("FInferShape", SortShape)
    .set_attr<FInferType>("FInferType", SortType)
    .set_attr<FCompute>("FCompute<cpu>", SortCompute<cpu, false>);

MXFFI_REGISTER_OP(_npi_argsort)
    .describe(
        "The int64 positions that sort every line of x along axis stably, NaNs last (ascending "
        "or descending).")
    .add_argument("x", "NDArray", "the array (at least 1-d)")
    .set_param<SortParam>()
    .set_attr<FInferShape>("FInferShape", SortShape)
    .set_attr<FInferType>("FInferType", ArgSortType)
    .set_attr<FCompute>("FCompute<cpu>", SortCompute<cpu, true>);

MXFFI_REGISTER_OP(_npi_searchsorted)
    .describe(
        "For each element of v, its int64 insertion point into the sorted 1-d a (NaNs last): "
        "before equal elements, or after them with right.")
    .set_num_inputs(2)
    .add_argument("a", "NDArray", "the sorted 1-d array")
    .add_argument("v", "NDArray", "the values to insert, of a's dtype")
    .set_param<SearchSortedParam>()
    .set_attr<FInferShape>("FInferShape", SearchSortedShape)
    .set_attr<FInferType>("FInferType", SearchSortedType)
    .set_attr<FCompute>("FCompute<cpu>", SearchSortedCompute<cpu>);

MXFFI_REGISTER_OP(_npi_unique_count)
    .describe(
        "The number of distinct values of the 1-d x, read in the order of perm (the int64 "
        "permutation sorting x), as 0-d int64.")
    .set_num_inputs(2)
    .add_argument("x", "NDArray", "the 1-d array")
    .add_argument("perm", "NDArray", "the int64 permutation that sorts x stably")
    .set_param<UniqueParam>()
    .set_attr<FInferShape>("FInferShape", UniqueCountShape)
    .set_attr<FInferType>("FInferType", UniqueCountType)
    .set_attr<FCompute>("FCompute<cpu>", UniqueCountCompute<cpu>);

MXFFI_REGISTER_OP(_npi_unique)
    .describe(
        "The distinct values of the 1-d x in perm's order (perm: the int64 permutation sorting "
        "x stably), the position of each one's first occurrence, each element's group and each "
        "group's size; count is _npi_unique_count's result.")
    .set_num_inputs(2)
    .set_num_outputs(4)
    .add_argument("x", "NDArray", "the 1-d array")
    .add_argument("perm", "NDArray", "the int64 permutation that sorts x stably")
    .set_param<UniqueParam>()
    .set_attr<FInferShape>("FInferShape", UniqueShape)
    .set_attr<FInferType>("FInferType", UniqueType)
    .set_attr<FCompute>("FCompute<cpu>", UniqueCompute<cpu>);

}  // namespace op
}  // namespace mxffi
