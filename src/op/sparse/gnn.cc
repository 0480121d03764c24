/*!
 * \file gnn.cc
 * \brief The graph neural network ops on a csr adjacency matrix (see gnn_op.h): registration,
 *  shape, dtype and storage inference, the canonical-input check and the CPU compute functions
 *  (their kernels are gnn_kernels.cc's).
 */
#include <mxffi/op/op.h>

#include <atomic>
#include <sstream>
#include <string>

#include "../parallel.h"
#include "gnn_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(SpmmParam);
DMLC_REGISTER_PARAMETER(GnnAdjParam);

bool GnnSortedColumns(const OpAttrs& attrs) {
  if (attrs.param == nullptr) return true;
  const std::string& n = attrs.op->name;
  if (n == "_sparse_sddmm" || n == "_sparse_edge_softmax") {
    return attrs.get<GnnAdjParam>().sorted_columns;
  }
  return attrs.get<SpmmParam>().sorted_columns;
}

const char* GnnPublicName(const OpAttrs& attrs) {
  const std::string& n = attrs.op->name;
  if (n == "_sparse_sddmm") return "sparse.sddmm";
  if (n == "_sparse_edge_softmax") return "sparse.edge_softmax";
  return "sparse.spmm";
}

namespace {

/*!
 * \brief The first stored entry (or indptr entry) breaking the canonical form, as a message;
 *  empty when the parts are canonical. Rows are scanned in parallel; the message is that of
 *  the first bad row.
 */
template <typename IType>
std::string FirstNonCanonical(int64_t rows, int64_t cols, int64_t nnz, const IType* ip,
                              const IType* ix, bool sorted) {
  std::ostringstream os;
  if (ip[0] != 0) {
    os << "indptr[0] must be 0, got " << ip[0];
    return os.str();
  }
  // Each chunk records its first bad row; the smallest wins, so the message does not depend
  // on the number of threads.
  std::atomic<int64_t> first_bad{rows};
  ParallelFor(rows, 8, [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re && r < first_bad.load(std::memory_order_relaxed); ++r) {
      bool bad = ip[r + 1] < ip[r] || ip[r] < 0 || static_cast<int64_t>(ip[r + 1]) > nnz;
      for (int64_t j = ip[r]; !bad && j < static_cast<int64_t>(ip[r + 1]); ++j) {
        bad = ix[j] < 0 || ix[j] >= cols || (sorted && j > ip[r] && ix[j] <= ix[j - 1]);
      }
      if (bad) {
        int64_t cur = first_bad.load(std::memory_order_relaxed);
        while (r < cur && !first_bad.compare_exchange_weak(cur, r)) {
        }
        return;
      }
    }
  });
  const int64_t r = first_bad.load();
  if (r == rows) {
    if (static_cast<int64_t>(ip[rows]) != nnz) {
      os << "indptr[-1] must equal the number of values " << nnz << ", got " << ip[rows];
    }
    return os.str();
  }
  if (ip[r + 1] < ip[r]) {
    os << "indptr must be non-decreasing; indptr[" << r << "]=" << ip[r] << " > indptr[" << r + 1
       << "]=" << ip[r + 1];
  } else if (static_cast<int64_t>(ip[r + 1]) > nnz) {
    os << "indptr[" << r + 1 << "]=" << ip[r + 1] << " exceeds the number of values " << nnz;
  } else {
    for (int64_t j = ip[r]; j < static_cast<int64_t>(ip[r + 1]); ++j) {
      if (ix[j] < 0 || ix[j] >= cols) {
        os << "indices[" << j << "]=" << ix[j] << " is out of range for " << cols
           << " columns (row " << r << ")";
        break;
      }
      if (sorted && j > ip[r] && ix[j] <= ix[j - 1]) {
        os << "adj is not canonical: indices[" << j << "]=" << ix[j] << " follows indices[" << j - 1
           << "]=" << ix[j - 1] << " in row " << r
           << "; columns must strictly increase within a row (sparse.csr_matrix sorts them and "
              "sums duplicates)";
        break;
      }
    }
  }
  return os.str();
}

/*! \brief The name of input i in the public function's signature. */
const char* InputName(const OpAttrs& attrs, size_t i) {
  if (i == 0) return "adj";
  if (attrs.op->name == "_sparse_sddmm") return i == 1 ? "a" : "b";
  if (attrs.op->name == "_sparse_edge_softmax") return "scores";
  return "x";
}

DispatchMode GnnStorage(const OpAttrs& attrs, DLDevice, Span<const StorageType> in,
                        Span<StorageType> out) {
  const char* fname = GnnPublicName(attrs);
  MXFFI_CHECK(in[0] == StorageType::kCSR, TypeError)
      << fname << ": adj must be a csr array; got storage type '" << StorageTypeName(in[0]) << "'";
  for (size_t i = 1; i < in.size(); ++i) {
    MXFFI_CHECK(in[i] == StorageType::kDefault, TypeError)
        << fname << ": " << InputName(attrs, i) << " must be a dense array; got storage type '"
        << StorageTypeName(in[i]) << "'";
  }
  out[0] = attrs.op->name == "_sparse_sddmm" ? StorageType::kCSR : StorageType::kDefault;
  for (size_t i = 1; i < out.size(); ++i) out[i] = StorageType::kDefault;
  return DispatchMode::kFComputeEx;
}

bool IsRealFloat(DLDataType t) {
  return t.code == kDLFloat && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

void CheckReal(const char* fname, const char* name, DLDataType t) {
  MXFFI_CHECK(IsRealFloat(t), TypeError)
      << fname << ": " << name << " has dtype " << DataTypeToString(t)
      << "; expected float32 or float64 (float16, bfloat16, complex, integer and bool values "
         "are refused)";
}

/*! \brief adj and the dense operands share one float dtype (the API promotes them first). */
void GnnType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const char* fname = GnnPublicName(attrs);
  const bool softmax = attrs.op->name == "_sparse_edge_softmax";
  // edge_softmax reads only adj's structure: its values may have any dtype.
  if (!softmax) CheckReal(fname, "adj", in[0]);
  for (size_t i = 1; i < in.size(); ++i) {
    const char* name = InputName(attrs, i);
    CheckReal(fname, name, in[i]);
    MXFFI_CHECK(softmax || in[i].bits == in[0].bits, TypeError)
        << fname << ": adj and " << name << " must have the same dtype; got "
        << DataTypeToString(in[0]) << " and " << DataTypeToString(in[i]);
  }
  out[0] = softmax ? in[1] : in[0];
  if (out.size() > 1) out[1] = DLDataType{kDLInt, 64, 1};
}

const char* const kReduceNames[4] = {"sum", "mean", "max", "min"};

void SpmmShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  const auto reduce = static_cast<SpmmReduce>(attrs.get<SpmmParam>().reduce);
  const bool with_arg = out.size() > 1;
  // sum and mean have one output (_sparse_spmm), max and min two (_sparse_spmm_arg).
  MXFFI_CHECK(with_arg == (reduce == SpmmReduce::kMax || reduce == SpmmReduce::kMin), ValueError)
      << attrs.op->name << ": reduce '" << kReduceNames[static_cast<int>(reduce)]
      << "' is computed by " << (with_arg ? "_sparse_spmm" : "_sparse_spmm_arg")
      << "; sparse.spmm chooses the op for each reduce";
  CheckSpmmShapes(GnnPublicName(attrs), in[0], in[1]);
  out[0] = TShape{in[0][0], in[1][1]};
  if (out.size() > 1) out[1] = out[0];
}

void SddmmShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  CheckSddmmShapes(GnnPublicName(attrs), in[0], in[1], in[2]);
  out[0] = in[0];
}

void EdgeSoftmaxShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  MXFFI_CHECK(in[1].ndim() == 1 || in[1].ndim() == 2, ValueError)
      << GnnPublicName(attrs) << ": scores must be 1-D (nnz,) or 2-D (nnz, heads); got "
      << "scores.shape=" << in[1].ToString();
  out[0] = in[1];
}

/*! \brief adj checked canonical (CheckCanonicalCsr) with its storage initialised. */
void CheckAdj(const NDArray& adj, const OpAttrs& attrs) {
  const char* fname = GnnPublicName(attrs);
  MXFFI_CHECK(adj.storage_initialized(), ValueError)
      << fname << ": adj is a csr array whose storage is not initialised";
  const DLTensor& t = adj.tensor();
  CheckCanonicalCsr(t.shape[0], t.shape[1], adj.sparse_data(), adj.sparse_indices(),
                    adj.sparse_indptr(), fname, GnnSortedColumns(attrs));
}

/*! \brief A dense output written C-contiguously: the output itself or a temporary. */
NDArray ContiguousTarget(const NDArray& out) {
  if (!out.defined() || out.IsContiguous()) return out;
  const DLTensor& t = out.tensor();
  return NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
}

void CopyBack(const NDArray& target, const NDArray& out) {
  if (target.defined() && !target.same_as(out)) {
    NDArray::CopyFromTo(target.tensor(), out.tensor());
  }
}

void SpmmComputeEx(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                   Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = GnnPublicName(attrs);
  const auto reduce = static_cast<SpmmReduce>(attrs.get<SpmmParam>().reduce);
  const bool with_arg = out.size() > 1;
  CheckAdj(in[0], attrs);
  const NDArray o = ContiguousTarget(out[0]);
  const NDArray a = with_arg ? ContiguousTarget(out[1]) : NDArray();
  SpmmCPU(reduce, in[0], in[1].Contiguous(), o, a);
  CopyBack(o, out[0]);
  if (with_arg) CopyBack(a, out[1]);
}

void SddmmComputeEx(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                    Span<const OpReqType>, Span<const NDArray> out) {
  const NDArray& adj = in[0];
  CheckAdj(adj, attrs);
  const DLTensor& v = adj.sparse_data().tensor();
  NDArray values = NDArray::Empty(v.shape, 1, v.dtype, v.device);
  SddmmCPU(adj, in[1].Contiguous(), in[2].Contiguous(), values);
  // adj's index parts are shared: no kernel writes an index part once it is set.
  out[0].SetSparseStorage(std::move(values), adj.sparse_indices(), adj.sparse_indptr());
}

void EdgeSoftmaxComputeEx(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                          Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = GnnPublicName(attrs);
  CheckAdj(in[0], attrs);
  CheckEdgeScores(fname, in[0].sparse_data().tensor().shape[0], in[1].tensor());
  const NDArray o = ContiguousTarget(out[0]);
  EdgeSoftmaxCPU(in[0], in[1].Contiguous(), o);
  CopyBack(o, out[0]);
}

}  // namespace

void CheckCanonicalCsr(int64_t rows, int64_t cols, const NDArray& data, const NDArray& indices,
                       const NDArray& indptr, const char* fname, bool sorted) {
  const int64_t nnz = data.tensor().shape[0];
  MXFFI_CHECK(indptr.tensor().shape[0] == rows + 1, ValueError)
      << fname << ": adj's indptr must have rows + 1 = " << rows + 1 << " entries, got "
      << indptr.tensor().shape[0];
  MXFFI_CHECK(indices.tensor().shape[0] == nnz, ValueError)
      << fname << ": adj's data and indices must have the same length, got " << nnz << " and "
      << indices.tensor().shape[0];
  std::string bad;
  MXFFI_INDEX_SWITCH(indices.tensor().dtype, fname, IType, {
    bad = FirstNonCanonical<IType>(rows, cols, nnz, Ptr<const IType>(indptr),
                                   Ptr<const IType>(indices), sorted);
  });
  MXFFI_CHECK(bad.empty(), ValueError) << fname << ": " << bad;
}

void CheckSpmmShapes(const char* fname, const TShape& adj, const TShape& x) {
  MXFFI_CHECK(adj.ndim() == 2 && x.ndim() == 2 && x[0] == adj[1], ValueError)
      << fname << ": x must have one row per column of adj (its source nodes); expected "
      << "x.shape=(" << (adj.ndim() == 2 ? adj[1] : -1) << ",) or ("
      << (adj.ndim() == 2 ? adj[1] : -1) << ", F) for adj.shape=" << adj.ToString()
      << ", got x.shape=" << x.ToString();
}

void CheckSddmmShapes(const char* fname, const TShape& adj, const TShape& a, const TShape& b) {
  const bool ok = adj.ndim() == 2 && a.ndim() == 2 && b.ndim() == 2 && a[0] == adj[0] &&
                  b[0] == adj[1] && a[1] == b[1];
  MXFFI_CHECK(ok, ValueError) << fname << ": expected a.shape=(" << adj[0] << ", F) and b.shape=("
                              << adj[1] << ", F) for adj.shape=" << adj.ToString()
                              << ", got a.shape=" << a.ToString()
                              << " and b.shape=" << b.ToString();
}

void CheckEdgeScores(const char* fname, int64_t nnz, const DLTensor& scores) {
  MXFFI_CHECK((scores.ndim == 1 || scores.ndim == 2) && scores.shape[0] == nnz, ValueError)
      << fname << ": scores must have one row per stored entry of adj; expected shape (" << nnz
      << ",) or (" << nnz
      << ", heads), got scores.shape=" << TShape(scores.shape, scores.ndim).ToString();
}

MXFFI_REGISTER_OP(_sparse_spmm)
    .describe(
        "out[i, :] = the sum (or mean) over row i's stored entries of adj[i, j] * x[j, :]: "
        "message passing with csr adj's rows as destination nodes (sparse.spmm).")
    .set_num_inputs(2)
    .add_argument("adj", "NDArray", "csr (m, k), canonical")
    .add_argument("x", "NDArray", "dense (k, F)")
    .set_param<SpmmParam>()
    .set_attr<FInferShape>("FInferShape", SpmmShape)
    .set_attr<FInferType>("FInferType", GnnType)
    .set_attr<FInferStorageType>("FInferStorageType", GnnStorage)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SpmmComputeEx);

MXFFI_REGISTER_OP(_sparse_spmm_arg)
    .describe(
        "out[i, :] = the max (or min) over row i's stored entries of adj[i, j] * x[j, :], and "
        "arg, the position of the chosen stored entry (-1 for an empty row) (sparse.spmm).")
    .set_num_inputs(2)
    .set_num_outputs(2)
    .add_argument("adj", "NDArray", "csr (m, k), canonical")
    .add_argument("x", "NDArray", "dense (k, F)")
    .set_param<SpmmParam>()
    .set_attr<FInferShape>("FInferShape", SpmmShape)
    .set_attr<FInferType>("FInferType", GnnType)
    .set_attr<FInferStorageType>("FInferStorageType", GnnStorage)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SpmmComputeEx);

MXFFI_REGISTER_OP(_sparse_sddmm)
    .describe(
        "A csr array with adj's structure holding adj[i, j] * dot(a[i, :], b[j, :]) at each "
        "stored (i, j) (sparse.sddmm).")
    .set_num_inputs(3)
    .add_argument("adj", "NDArray", "csr (m, k), canonical")
    .add_argument("a", "NDArray", "dense (m, F)")
    .add_argument("b", "NDArray", "dense (k, F)")
    .set_param<GnnAdjParam>()
    .set_attr<FInferShape>("FInferShape", SddmmShape)
    .set_attr<FInferType>("FInferType", GnnType)
    .set_attr<FInferStorageType>("FInferStorageType", GnnStorage)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SddmmComputeEx);

MXFFI_REGISTER_OP(_sparse_edge_softmax)
    .describe(
        "The softmax of scores (nnz,) or (nnz, heads) over the stored entries of each row of "
        "csr adj (the edges into one destination node) (sparse.edge_softmax).")
    .set_num_inputs(2)
    .add_argument("adj", "NDArray", "csr (m, k), canonical; only its structure is read")
    .add_argument("scores", "NDArray", "dense (nnz,) or (nnz, heads)")
    .set_param<GnnAdjParam>()
    .set_attr<FInferShape>("FInferShape", EdgeSoftmaxShape)
    .set_attr<FInferType>("FInferType", GnnType)
    .set_attr<FInferStorageType>("FInferStorageType", GnnStorage)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FComputeEx>("FComputeEx<cpu>", EdgeSoftmaxComputeEx);

}  // namespace op
}  // namespace mxffi
