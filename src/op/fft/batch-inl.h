/*!
 * \file batch-inl.h
 * \brief How fft.cc runs many transforms of one plan over an array, every library call on
 *  contiguous data: lines along an axis gathered a block of columns at a time (a blocked
 *  transpose) and scattered back, the four-step split of a long line, and the split of a real
 *  line's transform out of the complex transform of half its length.
 *
 * Included by fft.cc only, once per instruction set (Highway's "-inl.h" guard below), after
 * the standard headers it uses.
 */
#if defined(MXFFI_SRC_OP_FFT_BATCH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MXFFI_SRC_OP_FFT_BATCH_INL_H_
#undef MXFFI_SRC_OP_FFT_BATCH_INL_H_
#else
#define MXFFI_SRC_OP_FFT_BATCH_INL_H_
#endif

#include "plan-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace fft {
namespace HWY_NAMESPACE {

/*! \brief An array seen around one axis: outer blocks, the axis' length, the inner stride. */
struct Lines {
  int64_t outer = 1, n = 0, inner = 1;
};

/*! \return how many columns a block gathers for lines of length n: a few KB of every row. */
inline int64_t BlockColumns(int64_t n, int64_t inner) {
  return std::min(inner, std::clamp<int64_t>(8192 / std::max<int64_t>(n, 1), 8, 256));
}

/*!
 * \return how many columns (or rows) a pass of the four-step split takes at a time, for
 *  transforms of length n: 64 (512 KB to 1 MB of complex128 for lengths up to 1024, in the
 *  per-core cache; every row of the strided side then gives a whole kilobyte), fewer for longer
 *  lines. Smaller blocks, as BlockColumns takes, cost rfft of 2^20 about 7%.
 */
inline int64_t FourStepBlock(int64_t n, int64_t count) {
  return std::min(count, std::clamp<int64_t>((int64_t{1} << 16) / std::max<int64_t>(n, 1), 8, 64));
}

/*!
 * \brief The columns [c0, c0 + width) of the rows x cols row-major matrix src, each a line of
 *  length rows: copied into buf (one contiguous line per column, zero-padded to len when
 *  rows < len, cropped when more), as the library's transforms read them.
 */
template <typename S>
void GatherColumns(const S* src, int64_t rows, int64_t cols, int64_t c0, int64_t width, int64_t len,
                   S* buf) {
  const int64_t keep = std::min(rows, len);
  for (int64_t r = 0; r < keep; ++r) {
    const S* p = src + r * cols + c0;
    for (int64_t b = 0; b < width; ++b) buf[b * len + r] = p[b];
  }
  for (int64_t b = 0; b < width; ++b) std::fill(buf + b * len + keep, buf + (b + 1) * len, S(0));
}

/*! \brief The inverse of GatherColumns (no padding): buf's lines into columns of dst. */
template <typename D>
void ScatterColumns(const D* buf, int64_t rows, int64_t cols, int64_t c0, int64_t width, D* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    D* p = dst + r * cols + c0;
    for (int64_t b = 0; b < width; ++b) p[b] = buf[b * rows + r];
  }
}

/*!
 * \brief The four-step transform of the contiguous line src (length fs.n) into dst, times
 *  scale; dst may be src. scratch holds fs.n elements. Each pass is split across the pool.
 */
template <typename T>
void FourStepLine(const FourStep<T>& fs, const std::complex<T>* src, std::complex<T>* dst,
                  std::complex<T>* scratch, T scale) {
  using C = std::complex<T>;
  const int64_t n1 = fs.n1, n2 = fs.n2;
  // Columns: n2 transforms of length n1, twiddled, into scratch at the same places.
  const int64_t bc = FourStepBlock(n1, n2);
  ParallelFor((n2 + bc - 1) / bc, bc * n1 * 8, [&](int64_t begin, int64_t end) {
    Engine<T> engine(*fs.first);
    std::vector<C> in(static_cast<size_t>(bc * n1)), out(static_cast<size_t>(bc * n1));
    for (int64_t blk = begin; blk < end; ++blk) {
      const int64_t c0 = blk * bc, width = std::min(bc, n2 - c0);
      GatherColumns(src, n1, n2, c0, width, n1, in.data());
      for (int64_t b = 0; b < width; ++b) {
        C* line = out.data() + b * n1;
        engine.Run(in.data() + b * n1, line);
        // w^(row * column), row * column = hi * n1 + lo, stepped by column per row.
        const int64_t col = c0 + b, step_hi = col / n1, step_lo = col % n1;
        int64_t hi = 0, lo = 0;
        for (int64_t r = 1; r < n1; ++r) {
          hi += step_hi;
          lo += step_lo;
          if (lo >= n1) {
            lo -= n1;
            ++hi;
          }
          line[r] *= fs.hi[hi] * fs.lo[lo];
        }
      }
      ScatterColumns(out.data(), n1, n2, c0, width, scratch);
    }
  });
  // Rows: n1 transforms of length n2, each row's result a column of dst (n2 x n1).
  const int64_t br = FourStepBlock(n2, n1);
  ParallelFor((n1 + br - 1) / br, br * n2 * 8, [&](int64_t begin, int64_t end) {
    Engine<T> engine(*fs.second);
    std::vector<C> out(static_cast<size_t>(br * n2));
    for (int64_t blk = begin; blk < end; ++blk) {
      const int64_t r0 = blk * br, width = std::min(br, n1 - r0);
      for (int64_t b = 0; b < width; ++b) {
        C* line = out.data() + b * n2;
        engine.Run(scratch + (r0 + b) * n2, line);
        if (scale != T(1)) {
          for (int64_t k = 0; k < n2; ++k) line[k] *= scale;
        }
      }
      ScatterColumns(out.data(), n2, n1, r0, width, dst);
    }
  });
}

/*!
 * \brief One thread's transform of contiguous complex lines of one length: the library's plan,
 *  or the four-step split for a long line (whose passes then split across the pool themselves).
 */
template <typename T>
class ComplexLine {
 public:
  using C = std::complex<T>;
  /*! \brief scratch: fs's length, when fs is set. */
  ComplexLine(const Plan<T>* plan, const FourStep<T>* fs, C* scratch, T scale)
      : fs_(fs), scratch_(scratch), scale_(scale) {
    if (fs == nullptr) engine_ = std::make_unique<Engine<T>>(*plan);
  }
  /*! \brief Whether out may be in (the four-step split reads in once, into scratch). */
  bool in_place() const { return fs_ != nullptr; }
  void operator()(const C* in, C* out) const {
    if (fs_ != nullptr) return FourStepLine(*fs_, in, out, scratch_, scale_);
    engine_->Run(in, out);
    if (scale_ != T(1)) {
      for (int64_t k = 0, n = engine_->size(); k < n; ++k) out[k] *= scale_;
    }
  }

 private:
  const FourStep<T>* fs_;
  C* scratch_;
  T scale_;
  std::unique_ptr<Engine<T>> engine_;
};

/*!
 * \brief For every line of src (lines l, each of length l.n at stride l.inner, elements S),
 *  line(in, out) from the line cropped or zero-padded to n_in (contiguous) to a contiguous
 *  buffer of n_out elements D, stored as the matching line of dst (outer, n_out, inner).
 *  make() gives each thread its own line functor. Lines are read in place when contiguous and
 *  not padded, unless they would be written over before being read (src == dst without
 *  line.in_place()); others go through blocks of columns. serial: the functor splits its own
 *  work across the pool (a long line), so lines run one after another.
 */
template <typename S, typename D, typename Make>
void ForEachLine(const S* src, const Lines& l, int64_t n_in, D* dst, int64_t n_out, bool serial,
                 Make make) {
  const bool alias = static_cast<const void*>(src) == static_cast<const void*>(dst);
  if (l.inner == 1) {
    const int64_t count = l.outer;
    auto run = [&](int64_t begin, int64_t end) {
      const auto line = make();
      const bool direct = l.n >= n_in && (!alias || line.in_place());
      std::vector<S> in(direct ? 0 : static_cast<size_t>(n_in));
      for (int64_t o = begin; o < end; ++o) {
        const S* p = src + o * l.n;
        if (!direct) {
          const int64_t keep = std::min(l.n, n_in);
          std::copy(p, p + keep, in.data());
          std::fill(in.data() + keep, in.data() + n_in, S(0));
          p = in.data();
        }
        line(p, dst + o * n_out);
      }
    };
    if (serial) {
      run(0, count);
    } else {
      ParallelFor(count, std::max(n_in, n_out) * 8, run);
    }
    return;
  }
  const int64_t width = serial ? 1 : BlockColumns(std::max(n_in, n_out), l.inner);
  const int64_t blocks = (l.inner + width - 1) / width;
  auto run = [&](int64_t begin, int64_t end) {
    const auto line = make();
    std::vector<S> in(static_cast<size_t>(width * n_in));
    std::vector<D> out(static_cast<size_t>(width * n_out));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t o = task / blocks, c0 = (task % blocks) * width;
      const int64_t w = std::min(width, l.inner - c0);
      GatherColumns(src + o * l.n * l.inner, l.n, l.inner, c0, w, n_in, in.data());
      for (int64_t b = 0; b < w; ++b) line(in.data() + b * n_in, out.data() + b * n_out);
      ScatterColumns(out.data(), n_out, l.inner, c0, w, dst + o * n_out * l.inner);
    }
  };
  if (serial) {
    run(0, l.outer * blocks);
  } else {
    ParallelFor(l.outer * blocks, width * std::max(n_in, n_out) * 8, run);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fft
}  // namespace op
}  // namespace mxffi
HWY_AFTER_NAMESPACE();

#endif  // MXFFI_SRC_OP_FFT_BATCH_INL_H_
