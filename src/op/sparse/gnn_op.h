/*!
 * \file gnn_op.h
 * \brief The graph neural network kernels on a csr adjacency matrix (rows: destination nodes,
 *  columns: source nodes): spmm with a sum, mean, max or min over each row's stored entries,
 *  sddmm (a dot product per stored entry) and edge_softmax (a softmax over each row's stored
 *  entries). Parameters, the checks the CPU and GPU ops share, and the CPU kernels.
 *
 * Ops (their public functions in sparse_gnn_api.cc):
 *
 *   _sparse_spmm(adj, x)       reduce sum or mean  -> out (rows, F)
 *   _sparse_spmm_arg(adj, x)   reduce max or min   -> out (rows, F), arg (rows, F) int64
 *   _sparse_sddmm(adj, a, b)                       -> csr with adj's structure
 *   _sparse_edge_softmax(adj, scores)              -> dense, scores' shape
 *
 * adj must be canonical (columns strictly increasing within each row, in range, indptr
 * consistent): the results are indexed by the position of a stored entry (the edge id), so a
 * kernel must not reorder entries behind the caller's back; CheckCanonicalCsr refuses anything
 * else before a kernel reads an index.
 */
#ifndef MXFFI_SRC_OP_SPARSE_GNN_OP_H_
#define MXFFI_SRC_OP_SPARSE_GNN_OP_H_

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cstdint>

namespace mxffi {
namespace op {

/*! \brief The reductions of spmm. */
enum class SpmmReduce : int { kSum = 0, kMean = 1, kMax = 2, kMin = 3 };

#define MXFFI_GNN_SORTED_COLUMNS_DOC                                                         \
  "true: adj must be canonical (columns strictly increasing within each row). false: the "   \
  "columns of a row may come in any order and repeat, each stored entry an edge of its own " \
  "(sparse.spmm, sddmm and edge_softmax pass the row-grouped form of a coo adj so); the "    \
  "column ids are range-checked either way."

/*! \brief spmm's parameters: the reduction over each row's stored entries, adj's order. */
struct SpmmParam : public dmlc::Parameter<SpmmParam> {
  int reduce;
  bool sorted_columns;
  DMLC_DECLARE_PARAMETER(SpmmParam) {
    DMLC_DECLARE_FIELD(reduce)
        .add_enum("sum", static_cast<int>(SpmmReduce::kSum))
        .add_enum("mean", static_cast<int>(SpmmReduce::kMean))
        .add_enum("max", static_cast<int>(SpmmReduce::kMax))
        .add_enum("min", static_cast<int>(SpmmReduce::kMin))
        .set_default(static_cast<int>(SpmmReduce::kSum))
        .describe(
            "How each row's products adj[i, j] * x[j] are reduced: sum, mean (sum over the "
            "row's stored count), max or min (with the position of the chosen entry).");
    DMLC_DECLARE_FIELD(sorted_columns).set_default(true).describe(MXFFI_GNN_SORTED_COLUMNS_DOC);
  }
};

/*! \brief sddmm's and edge_softmax's parameter: adj's order. */
struct GnnAdjParam : public dmlc::Parameter<GnnAdjParam> {
  bool sorted_columns;
  DMLC_DECLARE_PARAMETER(GnnAdjParam) {
    DMLC_DECLARE_FIELD(sorted_columns).set_default(true).describe(MXFFI_GNN_SORTED_COLUMNS_DOC);
  }
};

/*! \return whether the op's adj must be canonical (its sorted_columns parameter). */
bool GnnSortedColumns(const OpAttrs& attrs);

/*! \return the public function an op of this family backs ("sparse.spmm", ...). */
const char* GnnPublicName(const OpAttrs& attrs);

/*!
 * \brief Refuse csr parts that are not canonical: indptr of rows + 1 non-decreasing entries
 *  from 0 to nnz, indices of nnz entries, each row's columns strictly increasing in [0, cols)
 *  (only in [0, cols) when sorted is false). ValueError naming fname, the position and the
 *  values. The parts are on the CPU.
 */
void CheckCanonicalCsr(int64_t rows, int64_t cols, const NDArray& data, const NDArray& indices,
                       const NDArray& indptr, const char* fname, bool sorted = true);

/*! \brief spmm's shapes: adj (m, k) and x (k, F), 2-D (the API makes a vector a column). */
void CheckSpmmShapes(const char* fname, const TShape& adj, const TShape& x);

/*! \brief sddmm's shapes: adj (m, k), a (m, F), b (k, F). */
void CheckSddmmShapes(const char* fname, const TShape& adj, const TShape& a, const TShape& b);

/*! \brief edge_softmax's scores: (nnz,) or (nnz, heads) for adj's nnz stored entries. */
void CheckEdgeScores(const char* fname, int64_t nnz, const DLTensor& scores);

/*!
 * \brief out (rows, F) = the reduction over each row i's stored entries p of data[p] *
 *  x[indices[p], :]; for max and min, arg (rows, F) the position p chosen (the first of equal
 *  values; a NaN product wins and the first NaN stays), -1 and out 0 for an empty row. adj,
 *  x, out and arg are C-contiguous CPU arrays of one float dtype (arg int64 or undefined).
 */
void SpmmCPU(SpmmReduce reduce, const NDArray& adj, const NDArray& x, const NDArray& out,
             const NDArray& arg);

/*! \brief out_data[p] = data[p] * dot(a[i, :], b[indices[p], :]) for each stored p of row i. */
void SddmmCPU(const NDArray& adj, const NDArray& a, const NDArray& b, const NDArray& out_data);

/*!
 * \brief out[p, h] = exp(s[p, h] - m) / sum over the row's q of exp(s[q, h] - m), m the row's
 *  maximum of column h, over the stored entries p of each row; scores (nnz, heads).
 */
void EdgeSoftmaxCPU(const NDArray& adj, const NDArray& scores, const NDArray& out);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_GNN_OP_H_
