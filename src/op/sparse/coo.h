/*!
 * \file coo.h
 * \brief Conversions between coo and csr on the CPU, which cast_storage builds every conversion
 *  from or to coo on, and the canonical-form test of coo parts.
 */
#ifndef MXFFI_SRC_OP_SPARSE_COO_H_
#define MXFFI_SRC_OP_SPARSE_COO_H_

#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace op {

/*!
 * \brief A canonical csr matrix (each row's columns sorted, duplicates summed) with the values
 *  of a CPU coo matrix, in its index dtype: a stable counting sort of the entries by row, then
 *  a sort of each row's columns, both split across the pool for large inputs. Repeated (row,
 *  col) pairs add up in the order they are stored.
 */
NDArray COOToCSR(const NDArray& coo, const char* fname);

/*!
 * \brief The entries of a CPU coo matrix grouped by row, nothing sorted within a row and
 *  nothing summed: a csr array whose row r holds the coo entries of row r in their stored order
 *  (columns in that order, a repeated column kept as its own entry), and *perm, int64 (nnz,):
 *  the coo position of each of its entries. The first pass of COOToCSR, the stable counting sort
 *  by row, alone. The graph kernels run on it to take a coo adjacency matrix edge by edge.
 */
NDArray COOToRowGrouped(const NDArray& coo, NDArray* perm, const char* fname);

/*! \brief out[p, ...] = src[perm[p], ...] along axis 0 (CPU; any dtype, C-contiguous result). */
NDArray GatherRowsByPerm(const NDArray& src, const NDArray& perm);

/*! \brief out[perm[p], ...] = src[p, ...] along axis 0 (CPU; perm a permutation). */
NDArray ScatterRowsByPerm(const NDArray& src, const NDArray& perm);

/*! \brief In place on a C-contiguous CPU int64 array: each k >= 0 becomes perm[k]; -1 stays. */
void MapPositions(const NDArray& pos, const NDArray& perm);

/*! \brief A canonical coo matrix (row-major, no repeated pair) with the entries of a csr one. */
NDArray CSRToCOO(const NDArray& csr, const char* fname);

/*!
 * \return whether CPU coo parts are in canonical form: sorted by row, then by column, with no
 *  repeated (row, col) pair (scipy's has_canonical_format).
 */
bool COOIsCanonical(const NDArray& coo, const char* fname);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_COO_H_
