/*!
 * \file plan.h
 * \brief KissFFT plans (kissfft.hh, Debian's libkissfft-dev) made once per (length, direction,
 *  precision) and shared, and the four-step split of a long length into two short ones.
 *
 * A kissfft object holds its twiddles and the radices of its stages; its transform is const,
 * except that a stage of a radix other than 2, 3, 4 and 5 (a prime factor above 5, or a length
 * of 1) keeps its scratch space inside the object. Such a plan is copied for each thread that
 * runs it (Engine), every other one is run by all threads at once.
 */
#ifndef MXFFI_SRC_OP_FFT_PLAN_H_
#define MXFFI_SRC_OP_FFT_PLAN_H_

#include <complex>
#include <cstdint>
#include <kissfft/kissfft.hh>
#include <memory>
#include <optional>
#include <vector>

namespace mxffi {
namespace op {
namespace fft {

/*! \brief One cached kissfft plan of length n in one direction. */
template <typename T>
struct Plan {
  Plan(int64_t n, bool inverse);
  kissfft<T> engine;
  int64_t n;
  /*! \brief Whether engine.transform may run on several threads at once (no generic stage). */
  bool shared;
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
    (own_ ? *own_ : plan_.engine).transform(src, dst);
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

/*! \brief Lengths from which one line no longer fits the per-core caches with its output. */
constexpr int64_t kFourStepMin = int64_t{1} << 14;
/*! \brief The shortest factor a four-step split takes (a shorter one leaves long lines). */
constexpr int64_t kFourStepMinFactor = 16;

/*! \return the divisor n1 of n that a four-step split takes (the largest <= sqrt(n)), or 0. */
int64_t FourStepFactor(int64_t n);

}  // namespace fft
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_FFT_PLAN_H_
