/*!
 * \file cast_storage_cuda.h
 * \brief Launchers of the CUDA storage conversions (default, row_sparse, csr) behind the
 *  cast_storage op's GPU kernel and the dense fallback on the GPU.
 *
 * Every launcher runs asynchronously on stream (a cudaStream_t) except the two that return a
 * count, which the host needs to allocate the result: they copy it back on stream and wait
 * for that stream only. Dense arrays are C-contiguous; parts are 1-D contiguous device arrays.
 */
#ifndef MXFFI_SRC_OP_SPARSE_CAST_STORAGE_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_CAST_STORAGE_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

namespace mxffi {
namespace cuda {

/*!
 * \brief Where the scratch memory of a dense-to-sparse conversion of a rows x cols matrix lies
 *  in one device workspace of `bytes` bytes (byte offsets, each 256-aligned).
 *
 * Each row is cut into segments of up to kSegment columns, one warp each, so wide and narrow
 * matrices both spread over the whole GPU. counts: int64 per segment, the non-zeros it holds.
 * mask (csr only): one bit per value, 32-bit words, each row starting on a word, so the fill
 * pass reads the dense matrix only where a value is kept. keep (row_sparse only): int64 per
 * row, 1 where the row holds a non-zero. offsets: the inclusive prefix sums of counts (csr) or
 * keep (row_sparse) after a leading 0.
 */
struct NonZeroPlan {
  int64_t rows = 0;
  int64_t cols = 0;
  /*! \brief Segments per row (at least 1, so every row has a warp that writes its indptr). */
  int64_t segs = 1;
  /*! \brief 32-bit mask words per row (csr). */
  int64_t mask_words = 0;
  /*! \brief Whether this plans a csr result (else row_sparse). */
  bool csr = true;
  int64_t counts = 0, mask = 0, keep = 0, offsets = 0, temp = 0;
  /*! \brief Bytes of the scan's own scratch at temp. */
  size_t temp_bytes = 0;
  /*! \brief Total workspace bytes. */
  int64_t bytes = 0;
};

/*! \brief Columns per segment of the dense-to-sparse passes. */
constexpr int64_t kSegment = 4096;

/*! \return the workspace layout for converting a rows x cols dense matrix to csr or row_sparse. */
NonZeroPlan PlanNonZeros(int64_t rows, int64_t cols, bool csr);

/*!
 * \brief Count pass and scan: read dense (plan.rows x plan.cols, C-contiguous, any dtype) once,
 *  writing per-segment counts (and, for csr, the value mask) and their prefix sums into the
 *  workspace.
 * \return the number of values (csr) or of non-zero rows (row_sparse); waits for stream.
 */
int64_t CountNonZeros(const DLTensor& dense, const NonZeroPlan& plan, void* workspace,
                      void* stream);

/*!
 * \brief Fill pass of dense to csr: the non-zeros of each row in column order into data and
 *  indices (int32 or int64), and, unless indptr is null, indptr (rows + 1 entries).
 */
void FillCSR(const DLTensor& dense, const NonZeroPlan& plan, const void* workspace,
             const DLTensor& data, const DLTensor& indices, const DLTensor* indptr, void* stream);

/*!
 * \brief The indptr (rows + 1 entries) of a csr matrix whose non-empty rows are stored (sorted
 *  row ids, k of them) and whose values FillCSR laid out from a k-row plan.
 */
void ScatterIndptr(const NonZeroPlan& plan, const void* workspace, const DLTensor& stored,
                   const DLTensor& indptr, void* stream);

/*!
 * \brief Fill pass of dense to row_sparse: the kept rows' ids into indices and their values
 *  (plan.cols per row) into data.
 */
void GatherRows(const DLTensor& dense, const NonZeroPlan& plan, const void* workspace,
                const DLTensor& data, const DLTensor& indices, void* stream);

/*! \brief dense (rows x cols, zeroed here) from a csr matrix's parts. */
void CSRToDense(const DLTensor& data, const DLTensor& indices, const DLTensor& indptr,
                const DLTensor& dense, void* stream);

/*!
 * \brief The non-empty rows of a csr matrix: keep and offsets in a row_sparse plan's
 *  workspace (plan.rows rows).
 * \return their number; waits for stream.
 */
int64_t CountNonEmptyRows(const DLTensor& indptr, const NonZeroPlan& plan, void* workspace,
                          void* stream);

/*!
 * \brief csr to row_sparse after CountNonEmptyRows: the kept rows' ids into rows_out and their
 *  values, zeros included, into data ((k, cols), zeroed here).
 */
void CSRToRowSparse(const DLTensor& csr_data, const DLTensor& indices, const DLTensor& indptr,
                    const NonZeroPlan& plan, const void* workspace, const DLTensor& data,
                    const DLTensor& rows_out, void* stream);

/*!
 * \brief dense (zeroed here; rows of `width` values) from a row_sparse array's values (k rows
 *  of width) and row ids.
 */
void RowSparseToDense(const DLTensor& data, const DLTensor& indices, int64_t width,
                      const DLTensor& dense, void* stream);

/*! \brief Copy src's elements into dst: same shape and dtype, any strides, both on the device. */
void CopyStrided(const DLTensor& src, const DLTensor& dst, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CAST_STORAGE_CUDA_H_
