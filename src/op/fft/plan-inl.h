/*!
 * \file plan-inl.h
 * \brief KissFFT plans (kissfft.hh, Debian's libkissfft-dev) made once per (length, direction,
 *  precision) and shared, and the four-step split of a long length into two short ones.
 *
 * A kissfft object holds its twiddles and the radices of its stages; its transform is const,
 * except that a stage of a radix other than 2, 3, 4 and 5 (a prime factor above 5, or a length
 * of 1) keeps its scratch space inside the object. Such a plan is copied for each thread that
 * runs it (Engine), every other one is run by all threads at once.
 *
 * The caches: a short list per precision, newest first, behind a mutex; an entry in use stays
 * alive through its shared_ptr after the cache drops it.
 *
 * Included by fft.cc only, once per instruction set (Highway's "-inl.h" guard below), after the
 * standard headers it uses: KissFFT's template is included inside each target's namespace, so
 * every target has a kissfft of its own, compiled for that target's instructions.
 */
#if defined(MXFFI_SRC_OP_FFT_PLAN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MXFFI_SRC_OP_FFT_PLAN_INL_H_
#undef MXFFI_SRC_OP_FFT_PLAN_INL_H_
#else
#define MXFFI_SRC_OP_FFT_PLAN_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace fft {
namespace HWY_NAMESPACE {

// KissFFT's own guard is reset, so that each target's namespace gets the template (its
// <complex>, <utility> and <vector> are included above every namespace, by fft.cc).
#undef KISSFFT_CLASS_HH
#include <kissfft/kissfft.hh>  // NOLINT(build/include_order)

/*! \brief Lengths from which one line no longer fits the per-core caches with its output. */
constexpr int64_t kFourStepMin = int64_t{1} << 14;
/*! \brief The shortest factor a four-step split takes (a shorter one leaves long lines). */
constexpr int64_t kFourStepMinFactor = 16;

/*!
 * \brief One cached kissfft plan of length n in one direction.
 *
 * A length 2 * 4^j (32, 128, 512, ...) is run as the two transforms of length 4^j of its even
 * and its odd samples (KissFFT reads them at stride 2), joined with the twiddles w^k: KissFFT
 * itself ends such a line with a radix-2 stage of one-element transforms, a third slower than
 * a length 4^j's radix-4 stages.
 */
template <typename T>
struct Plan {
  Plan(int64_t n, bool inverse);
  int64_t n;
  /*! \brief Whether the line is run as two halves (engine of length n / 2, and twiddles). */
  bool halves;
  kissfft<T> engine;
  /*! \brief Whether engine.transform may run on several threads at once (no generic stage). */
  bool shared;
  /*! \brief w^k, k < n / 2, when halves. */
  std::vector<std::complex<T>> twiddles;
};

/*! \return the plan of length n (>= 1) in that direction, made on first use (thread-safe). */
template <typename T>
std::shared_ptr<const Plan<T>> GetPlan(int64_t n, bool inverse);

/*! \brief A plan as one thread runs it: the shared one, or a private copy of it. */
template <typename T>
class Engine {
 public:
  explicit Engine(const Plan<T>& plan) : plan_(plan) {
    if (!plan.shared) own_.emplace(plan.engine);
  }
  /*! \brief dst[0, n) = the transform of src[0, n); dst and src must not overlap. */
  void Run(const std::complex<T>* src, std::complex<T>* dst) const {
    const kissfft<T>& engine = own_ ? *own_ : plan_.engine;
    if (!plan_.halves) return engine.transform(src, dst);
    const int64_t h = plan_.n / 2;
    engine.transform(src, dst, 0, 1, 2);          // the even samples' transform
    engine.transform(src + 1, dst + h, 0, 1, 2);  // the odd samples'
    const std::complex<T>* w = plan_.twiddles.data();
    for (int64_t k = 0; k < h; ++k) {
      const std::complex<T> a = dst[k], b = dst[h + k] * w[k];
      dst[k] = a + b;
      dst[h + k] = a - b;
    }
  }
  int64_t size() const { return plan_.n; }

 private:
  const Plan<T>& plan_;
  std::optional<kissfft<T>> own_;
};

/*!
 * \brief The four-step (Bailey) split of a length n = n1 * n2: n2 transforms of length n1 down
 *  the columns of the n1 x n2 row-major matrix, a twiddle factor w^(row * column) (w the n-th
 *  root of unity of the direction), then n1 transforms of length n2 along its rows, the result
 *  read down the columns. The twiddles come from two short tables, w^m = hi[m / lo_size] *
 *  lo[m % lo_size], each entry computed in long double.
 */
template <typename T>
struct FourStep {
  FourStep(int64_t n, int64_t n1, bool inverse);
  int64_t n, n1, n2;
  std::shared_ptr<const Plan<T>> first, second;  // lengths n1 and n2
  int64_t lo_size;
  std::vector<std::complex<T>> lo, hi;
};

/*!
 * \return the four-step split of n in that direction (made on first use), or null when n takes
 *  the library's own transform: shorter than kFourStepMin, or without a divisor between
 *  kFourStepMinFactor and sqrt(n) (a prime, twice a prime, ...).
 */
template <typename T>
std::shared_ptr<const FourStep<T>> GetFourStep(int64_t n, bool inverse);

/*!
 * \brief The twiddles w^k, k in [0, n / 4], that split the transform of a real line of even
 *  length n out of the complex transform of its n / 2 pairs (w = exp(-2 pi i / n)): two
 *  tables as FourStep's, w^k = hi[k / lo_size] * lo[k % lo_size].
 */
template <typename T>
struct RealSplit {
  explicit RealSplit(int64_t n);
  int64_t n, lo_size;
  std::vector<std::complex<T>> lo, hi;
};

/*! \return the real split of the even length n (made on first use). */
template <typename T>
std::shared_ptr<const RealSplit<T>> GetRealSplit(int64_t n);

// ---- definitions ----

namespace {

/*! \brief Entries a cache keeps: the lengths a program alternates between, not every one. */
constexpr size_t kCacheEntries = 32;

/*! \brief A most-recently-used list of V keyed by (length, direction). */
template <typename V>
class Cache {
 public:
  template <typename Make>
  std::shared_ptr<const V> Get(int64_t n, bool inverse, Make make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 0; i < entries_.size(); ++i) {
        if (entries_[i].n == n && entries_[i].inverse == inverse) {
          std::rotate(entries_.begin(), entries_.begin() + i, entries_.begin() + i + 1);
          return entries_.front().value;
        }
      }
    }
    // Made outside the lock (a long plan takes a while); two threads may both make it.
    std::shared_ptr<const V> value = make();
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.insert(entries_.begin(), Entry{n, inverse, value});
    if (entries_.size() > kCacheEntries) entries_.pop_back();
    return value;
  }

 private:
  struct Entry {
    int64_t n;
    bool inverse;
    std::shared_ptr<const V> value;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

/*!
 * \return whether kissfft's plan of length n has only stages of radix 2, 3, 4 and 5: its own
 *  factorization (4s first, then 2, 3, 5, 7, ...; the rest once p * p > n) gives another radix
 *  exactly when n has a prime factor above 5, or is 1.
 */
inline bool OnlySmallRadices(int64_t n) {
  if (n <= 1) return false;
  for (int64_t p : {2, 3, 5}) {
    while (n % p == 0) n /= p;
  }
  return n == 1;
}

/*! \return exp(sign 2 pi i m / n), rounded once from long double. */
template <typename T>
std::complex<T> Root(int64_t m, int64_t n, bool inverse) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const long double angle = (inverse ? 2 : -2) * pi * static_cast<long double>(m) / n;
  return std::complex<T>(static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle)));
}

}  // namespace

/*! \return whether n is 2 * 4^j with j >= 2, the lengths Plan runs as two halves. */
inline bool TwiceAPowerOfFour(int64_t n) {
  if (n < 32 || (n & (n - 1)) != 0) return false;
  return __builtin_ctzll(static_cast<uint64_t>(n)) % 2 == 1;
}

template <typename T>
Plan<T>::Plan(int64_t n, bool inverse)
    : n(n),
      halves(TwiceAPowerOfFour(n)),
      engine(static_cast<size_t>(halves ? n / 2 : n), inverse),
      shared(OnlySmallRadices(n)) {
  if (!halves) return;
  twiddles.resize(static_cast<size_t>(n / 2));
  for (int64_t k = 0; k < n / 2; ++k) twiddles[k] = Root<T>(k, n, inverse);
}

template <typename T>
std::shared_ptr<const Plan<T>> GetPlan(int64_t n, bool inverse) {
  static Cache<Plan<T>> cache;
  return cache.Get(n, inverse, [&] { return std::make_shared<const Plan<T>>(n, inverse); });
}

/*! \return the divisor n1 of n that a four-step split takes (the largest <= sqrt(n)), or 0. */
inline int64_t FourStepFactor(int64_t n) {
  if (n < kFourStepMin) return 0;
  for (int64_t d = static_cast<int64_t>(std::sqrt(static_cast<double>(n))) + 1; d >= 2; --d) {
    if (d * d > n || n % d != 0) continue;
    return d >= kFourStepMinFactor ? d : 0;
  }
  return 0;
}

template <typename T>
FourStep<T>::FourStep(int64_t n, int64_t n1, bool inverse)
    : n(n),
      n1(n1),
      n2(n / n1),
      first(GetPlan<T>(n1, inverse)),
      second(GetPlan<T>(n / n1, inverse)),
      lo_size(n1) {
  // row * column < n1 * n2 = n: m / lo_size < n2.
  lo.resize(static_cast<size_t>(lo_size));
  hi.resize(static_cast<size_t>(n2));
  for (int64_t i = 0; i < lo_size; ++i) lo[i] = Root<T>(i, n, inverse);
  for (int64_t i = 0; i < n2; ++i) hi[i] = Root<T>(i * lo_size, n, inverse);
}

template <typename T>
std::shared_ptr<const FourStep<T>> GetFourStep(int64_t n, bool inverse) {
  const int64_t n1 = FourStepFactor(n);
  if (n1 == 0) return nullptr;
  static Cache<FourStep<T>> cache;
  return cache.Get(n, inverse, [&] { return std::make_shared<const FourStep<T>>(n, n1, inverse); });
}

template <typename T>
RealSplit<T>::RealSplit(int64_t n)
    : n(n), lo_size(static_cast<int64_t>(std::sqrt(static_cast<double>(n / 4 + 1))) + 1) {
  const int64_t count = n / 4 + 1;
  lo.resize(static_cast<size_t>(lo_size));
  hi.resize(static_cast<size_t>((count + lo_size - 1) / lo_size));
  for (int64_t i = 0; i < lo_size; ++i) lo[i] = Root<T>(i, n, false);
  for (int64_t i = 0; i < static_cast<int64_t>(hi.size()); ++i) {
    hi[i] = Root<T>(i * lo_size, n, false);
  }
}

template <typename T>
std::shared_ptr<const RealSplit<T>> GetRealSplit(int64_t n) {
  static Cache<RealSplit<T>> cache;
  return cache.Get(n, false, [&] { return std::make_shared<const RealSplit<T>>(n); });
}

}  // namespace HWY_NAMESPACE
}  // namespace fft
}  // namespace op
}  // namespace mxffi
HWY_AFTER_NAMESPACE();

#endif  // MXFFI_SRC_OP_FFT_PLAN_INL_H_
