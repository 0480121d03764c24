/*!
 * \file overlap.cc
 * \brief Memory overlap of strided arrays (overlap.h).
 */
#include "overlap.h"

#include <mxffi/op/op.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <utility>

namespace mxffi {
namespace op {
namespace {

/*! \brief The element strides of t, NULL strides read as C-contiguous. */
void StridesOf(const DLTensor& t, int64_t* out) {
  if (t.strides != nullptr) {
    std::copy(t.strides, t.strides + t.ndim, out);
  } else {
    NDArray::CompactStrides(t, out);
  }
}

bool Empty(const DLTensor& t) {
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) return true;
  }
  return false;
}

bool SameDevice(const DLTensor& a, const DLTensor& b) {
  return a.device.device_type == b.device.device_type && a.device.device_id == b.device.device_id;
}

/*! \brief The lowest byte address t touches and the byte past its highest; t is not empty. */
std::pair<int64_t, int64_t> ByteRange(const DLTensor& t) {
  int64_t strides[kMaxNDim];
  StridesOf(t, strides);
  const int64_t item = std::max<int64_t>(DataTypeBytes(t.dtype), 1);
  int64_t lo = static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.data)) + t.byte_offset;
  int64_t hi = lo;
  for (int32_t d = 0; d < t.ndim; ++d) {
    const int64_t span = strides[d] * (t.shape[d] - 1) * item;
    if (span < 0) {
      lo += span;
    } else {
      hi += span;
    }
  }
  return {lo, hi + item};
}

/*! \brief One unknown of the equation: coefficient c > 0, 0 <= z <= u. */
struct Term {
  int64_t c, u;
};

/*! \return g, x with a*x = g (mod m), g = gcd(a, m); a and m > 0. */
std::pair<int64_t, int64_t> ExtendedGcd(int64_t a, int64_t m) {
  int64_t r0 = a, r1 = m, s0 = 1, s1 = 0;
  while (r1 != 0) {
    const int64_t q = r0 / r1;
    std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
    std::tie(s0, s1) = std::make_pair(s1, s0 - q * s1);
  }
  return {r0, s0};
}

/*!
 * \brief The search: does sum_{j >= i} t[j].c z_j = b have a solution? gcd[i] is the gcd of the
 *  coefficients from i on, reach[i] the largest sum they make.
 */
class Solver {
 public:
  Solver(const Term* t, int n, int64_t max_work) : t_(t), n_(n), max_work_(max_work) {
    for (int i = n - 1; i >= 0; --i) {
      gcd_[i] = i == n - 1 ? t[i].c : std::gcd(t[i].c, gcd_[i + 1]);
      const __int128 r = static_cast<__int128>(t[i].c) * t[i].u + (i == n - 1 ? 0 : reach_[i + 1]);
      reach_[i] = r > INT64_MAX ? INT64_MAX : static_cast<int64_t>(r);
    }
  }

  /*! \return 1 solvable, 0 not, -1 out of work. */
  int Solve(int i, int64_t b) {
    if (b == 0) return 1;
    if (i == n_ || b < 0 || b > reach_[i] || b % gcd_[i] != 0) return 0;
    const Term& term = t_[i];
    if (i == n_ - 1) return b % term.c == 0 && b / term.c <= term.u ? 1 : 0;
    // c z = b (mod g) for the gcd g of the rest: z runs over one residue class mod step.
    const int64_t g = gcd_[i + 1];
    const auto [d, inv] = ExtendedGcd(term.c % g == 0 ? g : term.c % g, g);
    if (b % d != 0) return 0;
    const int64_t step = g / d;
    int64_t z0 = 0;
    if (step > 1) {
      const __int128 v = static_cast<__int128>((b / d) % step) * (inv % step);
      z0 = static_cast<int64_t>(((v % step) + step) % step);
    }
    const int64_t rest = reach_[i + 1];
    int64_t lo = b > rest ? (b - rest + term.c - 1) / term.c : 0;
    const int64_t hi = std::min(term.u, b / term.c);
    if (lo > hi) return 0;
    lo += ((z0 - lo) % step + step) % step;
    // Largest z first: it leaves the smallest remainder for the smaller coefficients.
    int64_t z = hi - ((hi - z0) % step + step) % step;
    for (; z >= lo; z -= step) {
      if (max_work_ >= 0 && ++work_ > max_work_) return -1;
      const int r = Solve(i + 1, b - term.c * z);
      if (r != 0) return r;
    }
    return 0;
  }

 private:
  const Term* t_;
  int n_;
  int64_t max_work_;
  int64_t work_ = 0;
  int64_t gcd_[2 * kMaxNDim + 1];
  int64_t reach_[2 * kMaxNDim + 1];
};

}  // namespace

bool SameElements(const DLTensor& a, const DLTensor& b) {
  if (static_cast<const char*>(a.data) + a.byte_offset !=
          static_cast<const char*>(b.data) + b.byte_offset ||
      a.ndim != b.ndim || !SameDevice(a, b) || a.dtype.code != b.dtype.code ||
      a.dtype.bits != b.dtype.bits || a.dtype.lanes != b.dtype.lanes) {
    return false;
  }
  int64_t sa[kMaxNDim], sb[kMaxNDim];
  StridesOf(a, sa);
  StridesOf(b, sb);
  for (int32_t d = 0; d < a.ndim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
    if (a.shape[d] > 1 && sa[d] != sb[d]) return false;
  }
  return true;
}

bool BoundsOverlap(const DLTensor& a, const DLTensor& b) {
  if (!SameDevice(a, b) || Empty(a) || Empty(b)) return false;
  const auto ra = ByteRange(a), rb = ByteRange(b);
  return ra.first < rb.second && rb.first < ra.second;
}

Overlap SharesMemory(const DLTensor& a, const DLTensor& b, int64_t max_work) {
  if (!BoundsOverlap(a, b)) return Overlap::kNo;
  const auto ra = ByteRange(a), rb = ByteRange(b);
  const int64_t ia = std::max<int64_t>(DataTypeBytes(a.dtype), 1);
  const int64_t ib = std::max<int64_t>(DataTypeBytes(b.dtype), 1);
  // lo_a + sum sa x + r = lo_b + sum sb y + t, rewritten with positive coefficients:
  // sum sa x + sum sb (U - y) + r + (ib - 1 - t) = lo_b - lo_a + sum sb U + ib - 1.
  Term terms[2 * kMaxNDim + 1];
  int n = 0;
  __int128 rhs = static_cast<__int128>(rb.first) - ra.first + ib - 1;
  for (int side = 0; side < 2; ++side) {
    const DLTensor& t = side == 0 ? a : b;
    const int64_t item = side == 0 ? ia : ib;
    int64_t strides[kMaxNDim];
    StridesOf(t, strides);
    for (int32_t d = 0; d < t.ndim; ++d) {
      const int64_t c = (strides[d] < 0 ? -strides[d] : strides[d]) * item;
      const int64_t u = t.shape[d] - 1;
      if (c == 0 || u == 0) continue;
      terms[n++] = Term{c, u};
      if (side == 1) rhs += static_cast<__int128>(c) * u;
    }
  }
  if (ia + ib - 2 > 0) terms[n++] = Term{1, ia + ib - 2};
  if (rhs < 0) return Overlap::kNo;
  if (rhs > INT64_MAX) return Overlap::kTooHard;
  // Terms of one coefficient are one term whose bounds add; the largest coefficients go first.
  std::sort(terms, terms + n, [](const Term& x, const Term& y) { return x.c > y.c; });
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && terms[m - 1].c == terms[i].c) {
      terms[m - 1].u += terms[i].u;
    } else {
      terms[m++] = terms[i];
    }
  }
  if (m == 0) return rhs == 0 ? Overlap::kYes : Overlap::kNo;
  Solver solver(terms, m, max_work);
  const int r = solver.Solve(0, static_cast<int64_t>(rhs));
  return r < 0 ? Overlap::kTooHard : r > 0 ? Overlap::kYes : Overlap::kNo;
}

bool MayOverlapForWrite(const DLTensor& out, const DLTensor& in) {
  constexpr int64_t kWork = 1 << 12;
  return SharesMemory(out, in, kWork) != Overlap::kNo;
}

}  // namespace op
}  // namespace mxffi
