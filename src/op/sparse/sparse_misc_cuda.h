/*!
 * \file sparse_misc_cuda.h
 * \brief Launchers of the CUDA kernels of the smaller sparse ops: csr sum and mean, the csr
 *  values of `quadratic`, dtype conversion of stored values, slice_rows and sparse_retain.
 *
 * Every launcher runs asynchronously on stream (a cudaStream_t) except those documented to
 * return a value the host needs, which copy it back on stream and wait for that stream only.
 * Parts and dense arrays are C-contiguous device arrays.
 */
#ifndef MXFFI_SRC_OP_SPARSE_SPARSE_MISC_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_SPARSE_MISC_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \brief out = in converted element by element as numpy's astype does (same length). */
void ConvertValues(const DLTensor& in, const DLTensor& out, void* stream);

/*!
 * \brief _sum (mean false) or _mean of a rows x cols csr matrix whose values are already of the
 *  result's dtype: axes 1 (axis 0: column sums, cols results), 2 (axis 1: row sums, rows
 *  results) or 3 (both: one result) into out. Floats accumulate in double, integers in uint64
 *  with wrap-around; a mean divides by the number of elements reduced (the CPU kernel's rules).
 * \param scratch CSRReduceScratchBytes(cols) bytes of device memory.
 */
void CSRReduce(const DLTensor& data, const DLTensor& indices, const DLTensor& indptr, int64_t rows,
               int64_t cols, uint64_t axes, bool mean, void* scratch, const DLTensor& out,
               void* stream);

/*! \return the scratch bytes of CSRReduce over a matrix of cols columns. */
int64_t CSRReduceScratchBytes(int64_t cols);

/*!
 * \brief out = a*x*x + b*x + c for each stored value x, computed in out's dtype (a float; float32
 *  for float16 and bfloat16) from x converted to it, without fused multiply-adds, as the CPU's
 *  dense kernel does.
 */
void QuadraticValues(const DLTensor& x, double a, double b, double c, const DLTensor& out,
                     void* stream);

/*! \brief out[r] = indptr[begin + r] - indptr[begin] for r in [0, out.shape[0]). */
void SliceIndptr(const DLTensor& indptr, int64_t begin, const DLTensor& out, void* stream);

/*! \return indptr[i] (device) read back to the host; waits for stream. */
int64_t ReadIndex(const DLTensor& indices, int64_t i, void* stream);

/*!
 * \brief The positions in stored (sorted row ids) of the first ids >= begin and >= end.
 * \param scratch 16 bytes of device memory.
 * \param range receives the two positions; waits for stream.
 */
void RowRange(const DLTensor& stored, int64_t begin, int64_t end, void* scratch, int64_t range[2],
              void* stream);

/*! \brief out[j] = stored[lo + j] - begin for j in [0, out.shape[0]). */
void ShiftIndices(const DLTensor& stored, int64_t lo, int64_t begin, const DLTensor& out,
                  void* stream);

/*!
 * \brief sparse_retain's first pass: which of the k stored rows (sorted ids) the requested ids
 *  (n of them, any order, duplicates allowed) name, and the prefix sums of those flags.
 * \param workspace RetainWorkspaceBytes(k) bytes of device memory.
 * \param bad receives the first position in ids whose value is outside [0, rows), or -1.
 * \return the number of stored rows kept; waits for stream.
 */
int64_t RetainCount(const DLTensor& stored, const DLTensor& ids, int64_t rows, void* workspace,
                    int64_t* bad, void* stream);

/*! \return the workspace bytes RetainCount and RetainGather need for k stored rows. */
int64_t RetainWorkspaceBytes(int64_t k);

/*!
 * \brief sparse_retain's second pass: the kept rows' ids into idx_out and their values (width
 *  per row) into data_out.
 */
void RetainGather(const DLTensor& stored, const DLTensor& data, int64_t width,
                  const void* workspace, const DLTensor& idx_out, const DLTensor& data_out,
                  void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_SPARSE_MISC_CUDA_H_
