/*!
 * \file dot_sparse.cc
 * \brief dot: MXNet's matrix product of two 2-D arrays, either of which may be csr. Shape and
 *  dtype inference, storage inference (which kernel runs, and the output's storage type), the
 *  dense kernel (the GEMM under np.dot) and the storage-aware one, which calls dot_csr.cc.
 *
 * Kernels, by input storage types (csr.T: transpose_a):
 *
 *   dot(csr, default)   -> default
 *   dot(csr.T, default) -> row_sparse, or default when forward_stype is "default"
 *   dot(default, csr)   -> default
 *   dot(default, default) -> default (the GEMM); csr or row_sparse when forward_stype asks
 *   dot(csr, csr)       -> csr (spgemm.cc), either side transposed first when asked
 *   dot(csr, row_sparse) -> default (CPU), csr transposed first with transpose_a
 *   dot(row_sparse, csr) -> row_sparse: the stored rows of lhs times csr (the dense @ csr
 *                           kernel on lhs's values), csr transposed first with transpose_b
 *
 * The last three, asked for another storage type by forward_stype, compute theirs and cast it.
 * Anything else (row_sparse with row_sparse or dense, transpose_b with dense @ csr, a
 * forward_stype the other kernels do not produce) is the fallback: the inputs are made dense,
 * the GEMM runs, and the result is cast to forward_stype (default when none), with the
 * fallback's warning.
 */
// dmlc::optional<int>'s parser (dmlc/optional.h) swaps in a default-constructed optional whose
// value is never read; GCC's -Wmaybe-uninitialized flags that swap when it inlines the parser.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "dot_sparse.h"

#include <mxffi/op/op.h>

#include <optional>

#include "../dot/dot_op.h"
#include "../parallel.h"
#include "cast_storage.h"
#include "csr_transpose.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(DotParam);

namespace {

bool IsFloat32Or64(DLDataType t) {
  return t.code == kDLFloat && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

void DotShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  const DotParam& p = attrs.get<DotParam>();
  const char* names[2] = {"lhs", "rhs"};
  for (int i = 0; i < 2; ++i) {
    MXFFI_CHECK(in[i].ndim() == 2, ValueError)
        << attrs.op->name << ": " << names[i] << " must be 2-D; got " << names[i]
        << ".shape=" << in[i].ToString();
  }
  // The summed axis of each side, and the axis the result keeps.
  const int ka = p.transpose_a ? 0 : 1, kb = p.transpose_b ? 1 : 0;
  if (in[0][ka] != in[1][kb]) {
    MXFFI_THROW(ValueError) << attrs.op->name << ": shapes " << in[0].ToString() << " and "
                            << in[1].ToString()
                            << " not aligned (transpose_a=" << (p.transpose_a ? "True" : "False")
                            << ", transpose_b=" << (p.transpose_b ? "True" : "False")
                            << "): lhs.shape[" << ka << "]=" << in[0][ka] << " != rhs.shape[" << kb
                            << "]=" << in[1][kb];
  }
  out[0] = TShape{in[0][1 - ka], in[1][1 - kb]};
}

void DotType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const char* names[2] = {"lhs", "rhs"};
  for (int i = 0; i < 2; ++i) {
    MXFFI_CHECK(IsFloat32Or64(in[i]), TypeError)
        << attrs.op->name << ": " << names[i] << " has dtype " << DataTypeToString(in[i])
        << "; expected float32 or float64";
  }
  MXFFI_CHECK(in[0].bits == in[1].bits, TypeError)
      << attrs.op->name << ": lhs and rhs must have the same dtype; got lhs "
      << DataTypeToString(in[0]) << " and rhs " << DataTypeToString(in[1]);
  out[0] = in[0];
}

DispatchMode DotStorageType(const OpAttrs& attrs, DLDevice dev, Span<const StorageType> in,
                            Span<StorageType> out) {
  const DotParam& p = attrs.get<DotParam>();
  const StorageType lhs = in[0], rhs = in[1];
  const bool hint = p.forward_stype.has_value();
  const StorageType want =
      hint ? static_cast<StorageType>(p.forward_stype.value()) : StorageType::kUndefined;
  // The kernel's own output storage type when one exists for these inputs, else kUndefined.
  StorageType native = StorageType::kUndefined;
  const bool no_transpose = !p.transpose_a && !p.transpose_b;
  if (lhs == StorageType::kDefault && rhs == StorageType::kDefault) {
    native = StorageType::kDefault;
  } else if (lhs == StorageType::kCSR && rhs == StorageType::kDefault && !p.transpose_b) {
    native = p.transpose_a ? StorageType::kRowSparse : StorageType::kDefault;
  } else if (lhs == StorageType::kDefault && rhs == StorageType::kCSR && no_transpose) {
    native = StorageType::kDefault;
  }
  // Sparse-sparse kernels, which write any storage type asked (by casting their own).
  StorageType sparse_native = StorageType::kUndefined;
  if (lhs == StorageType::kCSR && rhs == StorageType::kCSR) {
    sparse_native = StorageType::kCSR;
  } else if (lhs == StorageType::kCSR && rhs == StorageType::kRowSparse && !p.transpose_b &&
             dev.device_type == kDLCPU) {
    sparse_native = StorageType::kDefault;
  } else if (lhs == StorageType::kRowSparse && rhs == StorageType::kCSR && !p.transpose_a) {
    sparse_native = StorageType::kRowSparse;
  }
  if (sparse_native != StorageType::kUndefined) {
    out[0] = hint ? want : sparse_native;
    return DispatchMode::kFComputeEx;
  }
  const bool dense_in = lhs == StorageType::kDefault && rhs == StorageType::kDefault;
  if (native != StorageType::kUndefined && (!hint || want == native)) {
    out[0] = native;
    return dense_in ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
  }
  // Kernels that also write another storage type: csr.T @ dense into a dense output, and the
  // GEMM's result cast to a sparse one (the fallback needs a sparse input to make dense).
  if ((lhs == StorageType::kCSR && native == StorageType::kRowSparse &&
       want == StorageType::kDefault) ||
      dense_in) {
    out[0] = want;
    return DispatchMode::kFComputeEx;
  }
  out[0] = hint ? want : StorageType::kDefault;
  return DispatchMode::kFComputeFallback;
}

const DotKernels kCpuDot = {
    DenseDot<cpu>,
    [](const NDArray& csr, const NDArray& dense, const NDArray& out, const OpContext&) {
      DotCsrDense(csr, dense, out);
    },
    [](const NDArray& csr, const NDArray& dense, const NDArray& out, const OpContext&) {
      DotCsrTDense(csr, dense, out);
    },
    [](const NDArray& dense, const NDArray& csr, const NDArray& out, const OpContext&) {
      DotDenseCsr(dense, csr, out);
    },
    [](const NDArray& a, const NDArray& b, const NDArray& out, const OpContext&) {
      CsrCsrCPU(a, b, out);
    },
    [](const NDArray& csr, const OpContext&) { return CsrTransposeCPU(csr, "dot"); },
    [](const NDArray& csr, const NDArray& rsp, const NDArray& out, const OpContext&) {
      DotCsrRsp(csr, rsp, out);
    },
};

void DotComputeEx(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                  Span<const OpReqType> req, Span<const NDArray> out) {
  DotComputeExWith(kCpuDot, attrs, ctx, in, req, out);
}

/*!
 * \brief dot of two sparse operands (csr @ csr, csr @ row_sparse, row_sparse @ csr, as
 *  DotStorageType admits them) into result, cast when its storage type is not the kernel's.
 */
void SparseDot(const DotKernels& k, const DotParam& p, const OpContext& ctx, const NDArray& lhs,
               const NDArray& rhs, const NDArray& result, const char* name) {
  const NDArray a =
      p.transpose_a && lhs.stype() == StorageType::kCSR ? k.csr_transpose(lhs, ctx) : lhs;
  const NDArray b =
      p.transpose_b && rhs.stype() == StorageType::kCSR ? k.csr_transpose(rhs, ctx) : rhs;
  StorageType native = StorageType::kCSR;
  if (a.stype() == StorageType::kCSR && b.stype() == StorageType::kRowSparse) {
    native = StorageType::kDefault;
  } else if (a.stype() == StorageType::kRowSparse) {
    native = StorageType::kRowSparse;
  }
  const DLTensor& t = result.tensor();
  NDArray product = result;
  if (native == StorageType::kDefault) {
    if (result.is_sparse() || !result.IsContiguous()) {
      product = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
    }
  } else if (native != result.stype()) {
    product = NDArray::EmptySparse(native, t.shape, t.ndim, t.dtype, t.device);
  }
  if (native == StorageType::kCSR) {
    k.csr_csr(a, b, product, ctx);
  } else if (native == StorageType::kDefault) {
    k.csr_rsp(a, b, product, ctx);
  } else {
    // The stored rows of a, each times b: a row_sparse result with a's row ids.
    const NDArray& ids = a.sparse_indices();
    product.CheckAndAlloc(ids.tensor().shape[0], ids.tensor().dtype);
    NDArray::CopyFromTo(ids.tensor(), product.sparse_indices().tensor());
    if (ids.tensor().shape[0] > 0) {
      k.dense_csr(a.sparse_data().Contiguous(), b, product.sparse_data(), ctx);
    }
  }
  if (product.same_as(result)) return;
  if (!result.is_sparse()) {
    NDArray dense =
        product.is_sparse() ? CastStorage(product, StorageType::kDefault, name) : product;
    NDArray::CopyFromTo(dense.tensor(), result.tensor());
    return;
  }
  NDArray cast = CastStorage(product, result.stype(), name);
  result.SetSparseStorage(cast.sparse_data(), cast.sparse_indices(),
                          result.stype() == StorageType::kCSR ? cast.sparse_indptr() : NDArray());
}

}  // namespace

void DotComputeExWith(const DotKernels& k, const OpAttrs& attrs, const OpContext& ctx,
                      Span<const NDArray> in, Span<const OpReqType>, Span<const NDArray> out) {
  const char* name = attrs.op->name.c_str();
  const DotParam& p = attrs.get<DotParam>();
  for (int i = 0; i < 2; ++i) {
    MXFFI_CHECK(in[i].storage_initialized(), ValueError)
        << name << ": input #" << i << " is a sparse array whose storage is not initialised";
  }
  const StorageType lhs = in[0].stype(), rhs = in[1].stype();
  const NDArray& result = out[0];
  if (lhs == StorageType::kDefault && rhs == StorageType::kDefault) {
    // The dense product, stored as forward_stype asks.
    const DLTensor& t = result.tensor();
    NDArray dense = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
    k.dense(p, ctx, in[0].tensor(), in[1].tensor(), dense.tensor());
    NDArray cast = CastStorage(dense, result.stype(), name);
    result.SetSparseStorage(cast.sparse_data(), cast.sparse_indices(),
                            result.stype() == StorageType::kCSR ? cast.sparse_indptr() : NDArray());
    return;
  }
  if (lhs != StorageType::kDefault && rhs != StorageType::kDefault) {
    SparseDot(k, p, ctx, in[0], in[1], result, name);
    return;
  }
  // A dense output the caller gave with strides is written through a contiguous temporary.
  NDArray target = result;
  if (!result.is_sparse() && !result.IsContiguous()) {
    const DLTensor& t = result.tensor();
    target = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  }
  if (lhs == StorageType::kCSR && rhs == StorageType::kDefault && !p.transpose_b) {
    if (p.transpose_a) {
      k.csr_t_dense(in[0], in[1].Contiguous(), target, ctx);
    } else {
      k.csr_dense(in[0], in[1].Contiguous(), target, ctx);
    }
  } else if (lhs == StorageType::kDefault && rhs == StorageType::kCSR && !p.transpose_a &&
             !p.transpose_b) {
    k.dense_csr(in[0].Contiguous(), in[1], target, ctx);
  } else {
    MXFFI_THROW(ValueError) << name << ": no kernel for storage types (" << StorageTypeName(lhs)
                            << ", " << StorageTypeName(rhs) << ")";
  }
  if (!target.same_as(result)) NDArray::CopyFromTo(target.tensor(), result.tensor());
}

MXFFI_REGISTER_OP(dot)
    .describe(
        "Matrix product of two 2-D arrays, lhs and rhs, each optionally transposed; either may "
        "be csr. dot(csr, default) and dot(default, csr) are default; dot(csr.T, default) is "
        "row_sparse (default with forward_stype='default'); dot(csr, csr) is csr; dot(csr, "
        "row_sparse) is default; dot(row_sparse, csr) is row_sparse. Other storage types fall "
        "back to the dense product.")
    .set_num_inputs(2)
    .add_argument("lhs", "NDArray", "the left operand (2-D)")
    .add_argument("rhs", "NDArray", "the right operand (2-D)")
    .set_param<DotParam>()
    .set_attr<FInferShape>("FInferShape", DotShape)
    .set_attr<FInferType>("FInferType", DotType)
    .set_attr<FInferStorageType>("FInferStorageType", DotStorageType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", DotCompute<cpu>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", DotComputeEx);

}  // namespace op
}  // namespace mxffi
