/*!
 * \file plan.cc
 * \brief The plan caches of plan.h: a short list per precision, newest first, behind a mutex;
 *  an entry in use stays alive through its shared_ptr after the cache drops it.
 */
#include "plan.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

namespace mxffi {
namespace op {
namespace fft {
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
bool OnlySmallRadices(int64_t n) {
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

template <typename T>
Plan<T>::Plan(int64_t n, bool inverse)
    : engine(static_cast<size_t>(n), inverse), n(n), shared(OnlySmallRadices(n)) {}

template <typename T>
std::shared_ptr<const Plan<T>> GetPlan(int64_t n, bool inverse) {
  static Cache<Plan<T>> cache;
  return cache.Get(n, inverse, [&] { return std::make_shared<const Plan<T>>(n, inverse); });
}

int64_t FourStepFactor(int64_t n) {
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

template struct Plan<float>;
template struct Plan<double>;
template struct FourStep<float>;
template struct FourStep<double>;
template std::shared_ptr<const Plan<float>> GetPlan(int64_t, bool);
template std::shared_ptr<const Plan<double>> GetPlan(int64_t, bool);
template std::shared_ptr<const FourStep<float>> GetFourStep(int64_t, bool);
template std::shared_ptr<const FourStep<double>> GetFourStep(int64_t, bool);
template struct RealSplit<float>;
template struct RealSplit<double>;
template std::shared_ptr<const RealSplit<float>> GetRealSplit(int64_t);
template std::shared_ptr<const RealSplit<double>> GetRealSplit(int64_t);

}  // namespace fft
}  // namespace op
}  // namespace mxffi
