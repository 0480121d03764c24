/*!
 * \file binary_sparse_cuda.h
 * \brief Launchers of the GPU kernels of the sparse binary ops (add, subtract, multiply of csr
 *  or row_sparse operands, src/op/sparse/binary_sparse.cc) and of add_n (src/op/sparse/add_n.cc).
 *
 * Every launcher takes the parts of its operands as DLTensors on one CUDA device (C-contiguous
 * unless said otherwise), enqueues its kernels on `stream` (a cudaStream_t) and returns without
 * waiting, except those documented to read a count back. A sparse result is built in two passes:
 * a count per row (or a mark per row id) into an array the caller allocates, OffsetsFromCounts
 * turning the counts into offsets and reading the total back, then, once the caller has
 * allocated the parts, a pass writing them. Index arrays are int32 or int64; the operands of one
 * call share one index dtype unless said otherwise.
 */
#ifndef MXFFI_SRC_OP_SPARSE_BINARY_SPARSE_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_BINARY_SPARSE_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstddef>
#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \brief Which binary op a kernel applies: add, subtract or multiply (functors.h). */
enum class SparseBinaryOp : int { kAdd = 0, kSubtract = 1, kMultiply = 2 };

// ---- shared -------------------------------------------------------------------------------------

/*!
 * \brief dst = src converted elementwise to dst's dtype (numpy's astype); both dense, of one
 *  shape. Either may be strided when the dtypes are equal; a conversion takes C-contiguous
 *  arrays (ValueError otherwise).
 */
void CopyConvert(const DLTensor& src, const DLTensor& dst, void* stream);

/*! \brief bytes bytes at ptr (device memory) set to value, as memset does. */
void FillBytes(void* ptr, int value, size_t bytes, void* stream);

/*! \return the bytes of workspace OffsetsFromCounts needs for n counts of dtype itype. */
size_t OffsetsWorkspaceBytes(int64_t n, DLDataType itype);

/*!
 * \brief offsets[0] = 0 and offsets[1..n] = the running sums of the counts held there
 *  (offsets has n + 1 elements, int32 or int64), then waits for the stream and returns
 *  offsets[n], the total.
 * \param workspace device memory of OffsetsWorkspaceBytes(n, offsets.dtype) bytes.
 */
int64_t OffsetsFromCounts(const DLTensor& offsets, void* workspace, size_t workspace_bytes,
                          void* stream);

// ---- csr with csr -------------------------------------------------------------------------------

/*!
 * \brief The number of entries of each row of a op b (the union of the two rows' columns, or the
 *  intersection when union_rows is false) into out_indptr[1..rows]; out_indptr[0] is left.
 */
void CSRMergeCount(bool union_rows, const DLTensor& a_indptr, const DLTensor& a_indices,
                   const DLTensor& b_indptr, const DLTensor& b_indices, const DLTensor& out_indptr,
                   void* stream);

/*!
 * \brief The entries of a op b into out_data and out_indices at the offsets out_indptr holds
 *  (from CSRMergeCount and OffsetsFromCounts). a, b and out values share one dtype. Multiply
 *  keeps the intersection; add and subtract the union, a value cancelling to zero included.
 */
void CSRMergeWrite(SparseBinaryOp op, const DLTensor& a_data, const DLTensor& a_indptr,
                   const DLTensor& a_indices, const DLTensor& b_data, const DLTensor& b_indptr,
                   const DLTensor& b_indices, const DLTensor& out_data, const DLTensor& out_indptr,
                   const DLTensor& out_indices, void* stream);

// ---- row_sparse rows ----------------------------------------------------------------------------

/*!
 * \brief marks[1 + r] = 1 for every row id r in indices (marks is int64, rows + 1 long, zeroed
 *  by the caller).
 */
void RowMarkAll(const DLTensor& indices, const DLTensor& marks, void* stream);

/*!
 * \brief marks[1 + r] = 1 for every row id r stored in both a_indices and b_indices (sorted):
 *  the rows of a row_sparse product.
 */
void RowMarkBoth(const DLTensor& a_indices, const DLTensor& b_indices, const DLTensor& marks,
                 void* stream);

/*!
 * \brief For the j-th row id r of indices kept in the result (offsets[r + 1] > offsets[r],
 *  offsets made from the marks by OffsetsFromCounts): out_indices[offsets[r]] = r (when
 *  out_indices has a dtype) and source[offsets[r]] = j (int64, when source is not null).
 */
void RowPlace(const DLTensor& indices, const DLTensor& offsets, const DLTensor* out_indices,
              const DLTensor* source, void* stream);

/*!
 * \brief Row o of out_data (k rows of width values) = row a_source[o] of a_data op row
 *  b_source[o] of b_data, a source of -1 standing for a row of zeros.
 */
void RowCombine(SparseBinaryOp op, const DLTensor& a_data, const DLTensor& a_source,
                const DLTensor& b_data, const DLTensor& b_source, const DLTensor& out_data,
                int64_t width, void* stream);

// ---- dense with sparse --------------------------------------------------------------------------

/*!
 * \brief out (dense, C-contiguous, may be the dense operand) = dense op sparse, or sparse op
 *  dense when sparse_first: every element, the sparse operand's implicit zeros included.
 *  sparse is csr (indptr given) or row_sparse (indptr null); all values of out's dtype.
 */
void DenseWithSparse(SparseBinaryOp op, bool sparse_first, const DLTensor& dense,
                     const DLTensor& s_data, const DLTensor& s_indices, const DLTensor* s_indptr,
                     const DLTensor& out, void* stream);

/*!
 * \brief The stored values of sparse op dense (dense op sparse when !sparse_first) where the
 *  result keeps the sparse operand's structure: out_data has s_data's shape.
 */
void SparseValuesWithDense(SparseBinaryOp op, bool sparse_first, const DLTensor& dense,
                           const DLTensor& s_data, const DLTensor& s_indices,
                           const DLTensor* s_indptr, const DLTensor& out_data, void* stream);

// ---- add_n --------------------------------------------------------------------------------------

/*! \brief Most summands of one add_n kernel launch; the op sums more in several. */
constexpr int kMaxSummands = 16;

/*!
 * \brief out = in[0] + in[1] + ... + in[n - 1], left to right in the values' dtype (float32 or
 *  float64); all dense and C-contiguous, of one shape.
 */
void AddNDense(const DLTensor* in, int n, const DLTensor& out, void* stream);

/*!
 * \brief dst += the stored values of one sparse summand, dst dense and C-contiguous of the
 *  summand's shape (csr when indptr is given, else row_sparse).
 */
void AddSparseInto(const DLTensor& data, const DLTensor& indices, const DLTensor* indptr,
                   const DLTensor& dst, void* stream);

/*!
 * \brief dst rows (row_sparse data, width values each) += the rows of one row_sparse summand,
 *  its row j going to row offsets[indices[j]] of dst.
 */
void AddRowsAt(const DLTensor& data, const DLTensor& indices, const DLTensor& offsets,
               const DLTensor& dst, int64_t width, void* stream);

/*!
 * \brief The length of each row of the sum of n csr matrices (the union of their columns) into
 *  out_indptr[1..rows]. The summands may differ in index dtype.
 */
void CSRSumCount(const DLTensor* indptr, const DLTensor* indices, int n, const DLTensor& out_indptr,
                 void* stream);

/*! \brief The entries of the sum of n csr matrices at the offsets out_indptr holds. */
void CSRSumWrite(const DLTensor* data, const DLTensor* indptr, const DLTensor* indices, int n,
                 const DLTensor& out_data, const DLTensor& out_indptr, const DLTensor& out_indices,
                 void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_BINARY_SPARSE_CUDA_H_
