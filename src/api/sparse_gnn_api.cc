/*!
 * \file sparse_gnn_api.cc
 * \brief sparse.spmm, sparse.sddmm and sparse.edge_softmax: the typed front doors of the graph
 *  neural network ops (src/op/sparse/gnn_op.h). They check storage types and shapes with the
 *  caller's own shapes, promote adj's and the dense operands' dtypes as numpy does, and make a
 *  vector x a column.
 *
 * A coo adj is taken edge by edge: its entries grouped by row in their stored order (one stable
 * counting sort, nothing summed, a repeated (row, col) pair two edges, as PyG's edge lists are),
 * the ops run on that form, and the results go back to the coo order through the permutation the
 * sort gives: spmm's arg as coo positions, sddmm's values in adj's own order (a coo result
 * sharing adj's row and col), edge_softmax's rows in adj's order.
 */
#include <mxffi/container/tuple.h>
#include <mxffi/registry.h>

#include <string>

#include "../op/dtype.h"
#include "../op/promote.h"
#include "../op/sparse/coo.h"
#include "../op/sparse/gnn_op.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

TShape ShapeOf(const NDArray& a) { return TShape(a.tensor().shape, a.tensor().ndim); }

/*!
 * \brief adj as the ops take it: a csr adj itself; a coo adj's row-grouped csr form with perm,
 *  the coo position of each of its entries.
 */
struct Adj {
  NDArray csr;
  NDArray perm;  // defined for a coo adj only
  bool coo() const { return perm.defined(); }
};

Adj TakeAdj(const NDArray& adj, const char* fname) {
  const StorageType st = adj.stype();
  MXFFI_CHECK(st == StorageType::kCSR || st == StorageType::kCOO, TypeError)
      << fname << ": adj must be a csr or coo array; got storage type '" << StorageTypeName(st)
      << "'";
  Adj a;
  if (st == StorageType::kCSR) {
    a.csr = adj;
    return a;
  }
  const DLDevice d = adj.tensor().device;
  MXFFI_CHECK(d.device_type == kDLCPU, TypeError)
      << fname << ": a coo adj is taken edge by edge on the CPU only; got one on "
      << DeviceToString(d) << " (move it with .to('cpu'), or convert it with tocsr(), which sums "
      << "repeated (row, col) pairs and numbers the edges in csr order)";
  MXFFI_CHECK(adj.storage_initialized(), ValueError)
      << fname << ": adj is a coo array whose storage is not initialised";
  a.csr = op::COOToRowGrouped(adj, &a.perm, fname);
  return a;
}

void RequireDense(const NDArray& a, const char* name, const char* fname) {
  MXFFI_CHECK(!a.is_sparse(), TypeError)
      << fname << ": " << name << " must be a dense array; got storage type '"
      << StorageTypeName(a.stype()) << "'";
}

/*!
 * \return numpy's result_type of adj's values and the dense operands, which must be float32 or
 *  float64 (TypeError naming every input dtype otherwise).
 */
DLDataType Promote(const char* fname, const NDArray& adj,
                   std::initializer_list<const NDArray*> dense, const char* names) {
  std::string got = DataTypeToString(adj.tensor().dtype);
  bool known = op::DTypeIndex(adj.tensor().dtype) >= 0;
  for (const NDArray* d : dense) {
    got += std::string(" and ") + DataTypeToString(d->tensor().dtype);
    known = known && op::DTypeIndex(d->tensor().dtype) >= 0;
  }
  const char* refused =
      "expected float32 or float64 (float16, bfloat16, complex, integer and bool values are "
      "refused)";
  // Complex dtypes have no rule in the real promotion table: refused before promoting.
  MXFFI_CHECK(known, TypeError) << fname << ": " << names << " (" << got << "): " << refused;
  DLDataType r = adj.tensor().dtype;
  for (const NDArray* d : dense) r = op::PromoteTypes(r, d->tensor().dtype, fname);
  if (r.code == kDLFloat && r.lanes == 1 && (r.bits == 32 || r.bits == 64)) return r;
  MXFFI_THROW(TypeError) << fname << ": " << names << " (" << got << ") compute in "
                         << DataTypeToString(r) << "; " << refused;
}

/*! \return adj with its values in dtype, its index parts shared (adj itself if it has it). */
NDArray CsrAs(const NDArray& adj, DLDataType dtype) {
  const DLTensor& t = adj.tensor();
  if (op::SameDType(t.dtype, dtype)) return adj;
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, dtype, t.device);
  out.SetSparseStorage(CastTo(adj.sparse_data(), dtype), adj.sparse_indices(), adj.sparse_indptr());
  return out;
}

/*! \return a (m,) array viewed as (m, 1), C-contiguous; or (m, 1) viewed as (m,). */
NDArray AsColumn(const NDArray& a) {
  const NDArray c = a.Contiguous();
  const int64_t shape[2] = {c.tensor().shape[0], 1}, strides[2] = {1, 1};
  return NDArray::View(c, shape, strides, 2, 0);
}

NDArray AsVector(const NDArray& a) {
  const int64_t shape[1] = {a.tensor().shape[0]}, strides[1] = {1};
  return NDArray::View(a, shape, strides, 1, 0);
}

}  // namespace

MXFFI_REGISTER_API("sparse._spmm")
    .describe(
        "Sparse-dense product with a reduction, the message passing of graph neural networks: "
        "out[i] = reduce over row i's stored entries j of adj[i, j] * x[j], adj a canonical "
        "csr array (rows: destination nodes, columns: source nodes), x dense (adj.shape[1], F) "
        "or a vector (adj.shape[1],). reduce: 'sum', 'mean' (the sum over the row's stored "
        "count), 'max' or 'min'; an empty row gives 0. max and min return (values, arg), arg "
        "int64 of values' shape: the position in adj's stored entries (the edge id) of the "
        "chosen product, the first of equal ones (a NaN product wins, the first NaN staying), "
        "-1 for an empty row. adj and x promote as numpy does, to float32 or float64. Returns "
        "a tuple: (out,) for sum and mean, (values, arg) for max and min; mxffi.nd.sparse.spmm "
        "returns out alone for the former. A coo adj is taken edge by edge: each stored entry an "
        "edge (a repeated (row, col) pair two), arg its coo position.")
    .arg("adj")
    .arg("x")
    .arg("reduce", "sum")
    .set_body_typed([](NDArrayLike adj_arg, NDArrayLike x_arg, std::string_view reduce) {
      const char* fname = "sparse.spmm";
      op::SpmmReduce r;
      if (reduce == "sum") {
        r = op::SpmmReduce::kSum;
      } else if (reduce == "mean") {
        r = op::SpmmReduce::kMean;
      } else if (reduce == "max") {
        r = op::SpmmReduce::kMax;
      } else if (reduce == "min") {
        r = op::SpmmReduce::kMin;
      } else {
        MXFFI_THROW(ValueError) << fname << ": reduce must be 'sum', 'mean', 'max' or 'min'; got '"
                                << reduce << "'";
      }
      const NDArray& adj = adj_arg;
      const NDArray& x = x_arg;
      const Adj g = TakeAdj(adj, fname);
      RequireDense(x, "x", fname);
      const bool vector = x.tensor().ndim == 1;
      const TShape xs = ShapeOf(x);
      if (!vector || ShapeOf(adj)[1] != xs[0]) op::CheckSpmmShapes(fname, ShapeOf(adj), xs);
      const DLDataType dtype = Promote(fname, adj, {&x}, "adj and x");
      const NDArray a = CsrAs(g.csr, dtype);
      const NDArray xv = CastTo(vector ? AsColumn(x) : x, dtype);
      op::SpmmParam p;
      p.reduce = static_cast<int>(r);
      p.sorted_columns = !g.coo();
      OpAttrs attrs;
      attrs.param = &p;
      attrs.device = x.tensor().device;
      const NDArray inputs[2] = {a, xv};
      if (r == op::SpmmReduce::kSum || r == op::SpmmReduce::kMean) {
        static const Op* op = Op::Get("_sparse_spmm");
        attrs.op = op;
        NDArray out = Invoke(attrs, Span<const NDArray>(inputs, 2));
        return ADT::Tuple({Any(vector ? AsVector(out) : out)});
      }
      static const Op* op = Op::Get("_sparse_spmm_arg");
      attrs.op = op;
      NDArray outs[2];
      Invoke(attrs, Span<const NDArray>(inputs, 2), Span<NDArray>(outs, 2));
      if (g.coo()) op::MapPositions(outs[1], g.perm);  // positions in the grouped form -> coo's
      if (vector) {
        outs[0] = AsVector(outs[0]);
        outs[1] = AsVector(outs[1]);
      }
      return ADT::Tuple({Any(std::move(outs[0])), Any(std::move(outs[1]))});
    });

MXFFI_REGISTER_API("sparse.sddmm")
    .describe(
        "Sampled dense-dense product: a csr array with adj's exact structure (its index parts "
        "shared) holding adj[i, j] * dot(a[i, :], b[j, :]) at each stored (i, j); adj a "
        "canonical csr array (m, k), a dense (m, F), b dense (k, F). Unlike "
        "torch.sparse.sampled_addmm (beta * adj + alpha * (a @ b) at adj's entries, b given as "
        "(F, k)), the stored values multiply the product. adj, a and b promote as numpy does, to "
        "float32 or float64. A coo adj gives a coo result with adj's row and col, in its order.")
    .arg("adj")
    .arg("a")
    .arg("b")
    .set_body_typed([](NDArrayLike adj_arg, NDArrayLike a_arg, NDArrayLike b_arg) {
      const char* fname = "sparse.sddmm";
      const NDArray& adj = adj_arg;
      const NDArray& a = a_arg;
      const NDArray& b = b_arg;
      const Adj g = TakeAdj(adj, fname);
      RequireDense(a, "a", fname);
      RequireDense(b, "b", fname);
      op::CheckSddmmShapes(fname, ShapeOf(adj), ShapeOf(a), ShapeOf(b));
      const DLDataType dtype = Promote(fname, adj, {&a, &b}, "adj, a and b");
      static const Op* op = Op::Get("_sparse_sddmm");
      op::GnnAdjParam p;
      p.sorted_columns = !g.coo();
      OpAttrs attrs;
      attrs.op = op;
      attrs.param = &p;
      attrs.device = a.tensor().device;
      const NDArray inputs[3] = {CsrAs(g.csr, dtype), CastTo(a, dtype), CastTo(b, dtype)};
      NDArray out = Invoke(attrs, Span<const NDArray>(inputs, 3));
      if (!g.coo()) return out;
      // The values back in adj's stored order, with adj's own row and col (index parts are
      // never written once set, so they are shared).
      NDArray coo = NDArray::EmptySparse(StorageType::kCOO, out.tensor().shape, 2,
                                         out.tensor().dtype, out.tensor().device);
      coo.SetSparseStorage(op::ScatterRowsByPerm(out.sparse_data(), g.perm), adj.coo_row(),
                           adj.coo_col());
      return coo;
    });

MXFFI_REGISTER_API("sparse.edge_softmax")
    .describe(
        "The softmax of per-edge scores over the stored entries of each row of adj (the edges "
        "into one destination node, DGL's edge_softmax with norm_by='dst'): out[p] = exp(s[p] - "
        "m) / sum over the row's q of exp(s[q] - m), m the row's maximum. scores (nnz,) or (nnz, "
        "heads), float32 or float64, in the order of adj's stored entries; the result has "
        "scores' shape and dtype. Only adj's structure is read (its values may have any dtype). "
        "A row of -inf scores gives NaN, as torch.softmax does. A coo adj is taken edge by edge, "
        "scores and result in its stored order.")
    .arg("adj")
    .arg("scores")
    .set_body_typed([](NDArrayLike adj_arg, NDArrayLike scores_arg) {
      const char* fname = "sparse.edge_softmax";
      const NDArray& adj = adj_arg;
      const NDArray& scores = scores_arg;
      const Adj g = TakeAdj(adj, fname);
      RequireDense(scores, "scores", fname);
      MXFFI_CHECK(adj.storage_initialized(), ValueError)
          << fname << ": adj is a csr array whose storage is not initialised";
      op::CheckEdgeScores(fname, adj.sparse_data().tensor().shape[0], scores.tensor());
      static const Op* op = Op::Get("_sparse_edge_softmax");
      op::GnnAdjParam p;
      p.sorted_columns = !g.coo();
      OpAttrs attrs;
      attrs.op = op;
      attrs.param = &p;
      attrs.device = scores.tensor().device;
      if (!g.coo()) {
        const NDArray inputs[2] = {adj, scores};
        return Invoke(attrs, Span<const NDArray>(inputs, 2));
      }
      const DLDevice sd = scores.tensor().device;
      MXFFI_CHECK(sd.device_type == kDLCPU, ValueError)
          << fname << ": adj and scores must be on one device; got cpu and " << DeviceToString(sd);
      // scores in the grouped form's order, softmax, then back in adj's order.
      const NDArray inputs[2] = {g.csr, op::GatherRowsByPerm(scores, g.perm)};
      return op::ScatterRowsByPerm(Invoke(attrs, Span<const NDArray>(inputs, 2)), g.perm);
    });

}  // namespace api
}  // namespace mxffi
