/*!
 * \file spgemm.cu
 * \brief The CUDA kernels of csr @ csr (see spgemm_cuda.h).
 *
 * One thread per row of a, in three steps: each row's products are written out (the count of
 * them per row, scanned, gives each row its place), sorted by column within the row (CUB's
 * segmented radix sort, stable, so one column's products keep the order of a's stored values),
 * then each row's runs of one column are summed twice: once to count the sums that are not
 * zero (scanned into the result's row starts), once to write them. The sums run in the CPU
 * kernel's order (spgemm.cc), so the result is the CPU's, part for part. Simple rather than
 * fast: the products are all held at once (at most 2**31 - 1 of them, as CUB's segmented sort
 * counts them).
 */
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/cub.cuh>

#include "op/cuda_kernel.cuh"
#include "sparse_util.cuh"
#include "spgemm_cuda.h"

namespace mxffi {
namespace cuda {
namespace {

constexpr const char* kName = "dot";

/*! \return the number of low bits that hold every value in [0, n). */
int KeyBits(int64_t n) {
  int bits = 1;
  while (bits < 62 && (int64_t{1} << bits) < n) ++bits;
  return bits;
}

/*! \brief products[i]: the number of products of row i of a with b. */
template <typename IA, typename IB>
__global__ void RowProductsKernel(int64_t m, const IA* __restrict__ a_ptr,
                                  const IA* __restrict__ a_idx, const IB* __restrict__ b_ptr,
                                  int64_t* __restrict__ products) {
  MXFFI_CUDA_LOOP(i, m) {
    int64_t f = 0;
    for (int64_t j = a_ptr[i]; j < static_cast<int64_t>(a_ptr[i + 1]); ++j) {
      const int64_t k = a_idx[j];
      f += static_cast<int64_t>(b_ptr[k + 1]) - static_cast<int64_t>(b_ptr[k]);
    }
    products[i] = f;
  }
}

/*! \brief Row i's products (column, value), from offsets[i] on, in the order of a's values. */
template <typename DType, typename IA, typename IB>
__global__ void ExpandKernel(int64_t m, const IA* __restrict__ a_ptr, const IA* __restrict__ a_idx,
                             const DType* __restrict__ a_val, const IB* __restrict__ b_ptr,
                             const IB* __restrict__ b_idx, const DType* __restrict__ b_val,
                             const int64_t* __restrict__ offsets, int64_t* __restrict__ keys,
                             DType* __restrict__ vals) {
  MXFFI_CUDA_LOOP(i, m) {
    int64_t p = offsets[i];
    for (int64_t j = a_ptr[i]; j < static_cast<int64_t>(a_ptr[i + 1]); ++j) {
      const DType v = a_val[j];
      const int64_t k = a_idx[j];
      for (int64_t q = b_ptr[k]; q < static_cast<int64_t>(b_ptr[k + 1]); ++q) {
        keys[p] = static_cast<int64_t>(b_idx[q]);
        vals[p] = v * b_val[q];
        ++p;
      }
    }
  }
}

/*!
 * \brief For each row, the sums of its runs of one column that are not zero: counted into
 *  counts[i] (out_idx null), or written from starts[i] on.
 */
template <typename DType, typename OType>
__global__ void SumRunsKernel(int64_t m, const int64_t* __restrict__ offsets,
                              const int64_t* __restrict__ keys, const DType* __restrict__ vals,
                              int64_t* __restrict__ counts, const int64_t* __restrict__ starts,
                              OType* __restrict__ out_idx, DType* __restrict__ out_val) {
  MXFFI_CUDA_LOOP(i, m) {
    const int64_t e = offsets[i + 1];
    int64_t w = out_idx == nullptr ? 0 : starts[i];
    for (int64_t t = offsets[i]; t < e;) {
      const int64_t col = keys[t];
      DType s = vals[t];
      for (++t; t < e && keys[t] == col; ++t) s += vals[t];
      if (s != DType(0)) {
        if (out_idx != nullptr) {
          out_idx[w] = static_cast<OType>(col);
          out_val[w] = s;
        }
        ++w;
      }
    }
    if (out_idx == nullptr) counts[i] = w;
  }
}

template <typename OType>
__global__ void ConvertKernel(const int64_t* __restrict__ in, int64_t n, OType* __restrict__ out) {
  MXFFI_CUDA_LOOP(i, n) { out[i] = static_cast<OType>(in[i]); }
}

}  // namespace

SpGemmPlan::SpGemmPlan(const CsrParts& a, const CsrParts& b, const ScratchAlloc& scratch,
                       void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  m_ = a.rows;
  dtype_ = a.dtype;
  const size_t row_bytes = static_cast<size_t>(m_ + 1) * sizeof(int64_t);
  int64_t* products = static_cast<int64_t*>(scratch(row_bytes));
  int64_t* offsets = static_cast<int64_t*>(scratch(row_bytes));
  int64_t* counts = static_cast<int64_t*>(scratch(row_bytes));
  starts_ = static_cast<int64_t*>(scratch(row_bytes));
  offsets_ = offsets;
  const size_t scan_bytes = std::max<size_t>(ScanTempBytes(m_, kName), 1);
  void* scan_temp = scratch(scan_bytes);
  MXFFI_REAL_SWITCH(a.dtype, kName, DType, {
    MXFFI_INDEX_SWITCH(a.itype, kName, IA, {
      MXFFI_INDEX_SWITCH(b.itype, kName, IB, {
        const IA* a_ptr = static_cast<const IA*>(a.indptr);
        const IA* a_idx = static_cast<const IA*>(a.indices);
        const IB* b_ptr = static_cast<const IB*>(b.indptr);
        if (m_ > 0) {
          RowProductsKernel<IA, IB>
              <<<Blocks(m_), kThreads, 0, s>>>(m_, a_ptr, a_idx, b_ptr, products);
          MXFFI_CUDA_CHECK_LAUNCH(kName);
        }
        ExclusiveOffsets(products, offsets, m_, scan_temp, scan_bytes, s, kName);
        const int64_t total = ReadBack(offsets + m_, s, kName);
        if (total > INT_MAX || m_ > INT_MAX) {
          MXFFI_THROW(ValueError) << kName << ": csr @ csr on a CUDA device takes at most "
                                  << INT_MAX << " products and rows; this product has " << total
                                  << " products and " << m_ << " rows";
        }
        const size_t n = static_cast<size_t>(std::max<int64_t>(total, 1));
        int64_t* keys_in = static_cast<int64_t*>(scratch(n * sizeof(int64_t)));
        int64_t* keys_out = static_cast<int64_t*>(scratch(n * sizeof(int64_t)));
        DType* vals_in = static_cast<DType*>(scratch(n * sizeof(DType)));
        DType* vals_out = static_cast<DType*>(scratch(n * sizeof(DType)));
        if (total > 0) {
          ExpandKernel<DType, IA, IB><<<Blocks(m_), kThreads, 0, s>>>(
              m_, a_ptr, a_idx, static_cast<const DType*>(a.data), b_ptr,
              static_cast<const IB*>(b.indices), static_cast<const DType*>(b.data), offsets,
              keys_in, vals_in);
          MXFFI_CUDA_CHECK_LAUNCH(kName);
          const int end_bit = KeyBits(b.cols);
          size_t bytes = 0;
          MXFFI_CUDA_CALL(kName, cub::DeviceSegmentedRadixSort::SortPairs(
                                     nullptr, bytes, keys_in, keys_out, vals_in, vals_out,
                                     static_cast<int>(total), static_cast<int>(m_), offsets,
                                     offsets + 1, 0, end_bit, s));
          void* temp = scratch(std::max<size_t>(bytes, 1));
          MXFFI_CUDA_CALL(
              kName, cub::DeviceSegmentedRadixSort::SortPairs(
                         temp, bytes, keys_in, keys_out, vals_in, vals_out, static_cast<int>(total),
                         static_cast<int>(m_), offsets, offsets + 1, 0, end_bit, s));
        }
        keys_ = keys_out;
        vals_ = vals_out;
        if (m_ > 0) {
          SumRunsKernel<DType, int64_t><<<Blocks(m_), kThreads, 0, s>>>(
              m_, offsets, keys_out, vals_out, counts, nullptr, nullptr, nullptr);
          MXFFI_CUDA_CHECK_LAUNCH(kName);
        }
        ExclusiveOffsets(counts, starts_, m_, scan_temp, scan_bytes, s, kName);
        nnz_ = ReadBack(starts_ + m_, s, kName);
      });
    });
  });
}

void SpGemmPlan::Write(void* out_ptr, void* out_idx, void* out_val, DLDataType otype,
                       void* stream) const {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  WriteIndices(starts_, m_ + 1, out_ptr, otype, stream);
  if (m_ == 0 || nnz_ == 0) return;
  MXFFI_REAL_SWITCH(dtype_, kName, DType, {
    MXFFI_INDEX_SWITCH(otype, kName, OType, {
      SumRunsKernel<DType, OType><<<Blocks(m_), kThreads, 0, s>>>(
          m_, offsets_, keys_, static_cast<const DType*>(vals_), nullptr, starts_,
          static_cast<OType*>(out_idx), static_cast<DType*>(out_val));
      MXFFI_CUDA_CHECK_LAUNCH(kName);
    });
  });
}

void WriteIndices(const int64_t* in, int64_t n, void* out, DLDataType otype, void* stream) {
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_INDEX_SWITCH(otype, kName, OType, {
    ConvertKernel<OType><<<Blocks(n), kThreads, 0, s>>>(in, n, static_cast<OType*>(out));
    MXFFI_CUDA_CHECK_LAUNCH(kName);
  });
}

}  // namespace cuda
}  // namespace mxffi
