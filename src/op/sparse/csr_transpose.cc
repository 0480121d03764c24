/*!
 * \file csr_transpose.cc
 * \brief csr_transpose: a csr array transposed into a new canonical csr array (CSRNDArray.T,
 *  np.transpose of a csr array), by csr_kernels.h's counting sort, split across the pool.
 *
 * The counting sort lists each column's values in increasing row, so the result is canonical
 * (sorted column ids, no duplicates) whenever the input is, which every csr array is. The
 * values are moved, never computed: any value dtype is taken, switched on its size.
 */
#include "csr_transpose.h"

#include <mxffi/op/op.h>

#include <climits>
#include <cstdint>
#include <optional>

#include "csr_kernels.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief A value of B bytes, moved as a whole. */
template <int B>
struct Bytes {
  unsigned char b[B];
};

template <typename VType, typename IType, typename OType>
void TransposeAs(const NDArray& csr, const NDArray& out) {
  const DLTensor& t = csr.tensor();
  const CsrView<VType, IType> a(t.shape[0], t.shape[1], Ptr<const VType>(csr.sparse_data()),
                                Ptr<const IType>(csr.sparse_indices()),
                                Ptr<const IType>(csr.sparse_indptr()));
  std::optional<ScopedGILRelease> gil;
  if (a.nnz + a.cols > kReleaseGILThreshold) gil.emplace();
  TransposeCsr(a, Ptr<OType>(out.sparse_indptr()), Ptr<OType>(out.sparse_indices()),
               Ptr<VType>(out.sparse_data()));
}

void TransposeInto(const NDArray& csr, const NDArray& out, const char* fname) {
  const DLDataType itype = csr.sparse_indices().tensor().dtype;
  const DLDataType otype = CsrTransposeIndexDType(csr);
  const int bytes = (csr.tensor().dtype.bits * csr.tensor().dtype.lanes + 7) / 8;
  auto run = [&](auto value) {
    using VType = decltype(value);
    MXFFI_INDEX_SWITCH(itype, fname, IType, {
      if (otype.bits == 64) {
        TransposeAs<VType, IType, int64_t>(csr, out);
      } else {
        TransposeAs<VType, IType, int32_t>(csr, out);
      }
    });
  };
  switch (bytes) {
    case 1:
      run(Bytes<1>{});
      break;
    case 2:
      run(Bytes<2>{});
      break;
    case 4:
      run(Bytes<4>{});
      break;
    case 8:
      run(Bytes<8>{});
      break;
    case 16:
      run(Bytes<16>{});
      break;
    default:
      ThrowUnsupportedDType(fname, csr.tensor().dtype);
  }
}

void TransposeShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  MXFFI_CHECK(in[0].ndim() == 2, ValueError)
      << attrs.op->name << ": a csr array is 2-D; got shape " << in[0].ToString();
  out[0] = TShape{in[0][1], in[0][0]};
}

void SameType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) { out[0] = in[0]; }

DispatchMode TransposeStype(const OpAttrs& attrs, DLDevice, Span<const StorageType> in,
                            Span<StorageType> out) {
  MXFFI_CHECK(in[0] == StorageType::kCSR, TypeError)
      << attrs.op->name << ": data must be csr; got " << StorageTypeName(in[0]);
  out[0] = StorageType::kCSR;
  return DispatchMode::kFComputeEx;
}

void TransposeCompute(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                      Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = attrs.op->name.c_str();
  MXFFI_CHECK(in[0].storage_initialized(), ValueError)
      << fname << ": the csr array's storage is not initialised";
  out[0].CheckAndAlloc(in[0].sparse_data().tensor().shape[0], CsrTransposeIndexDType(in[0]));
  TransposeInto(in[0], out[0], fname);
}

}  // namespace

DLDataType CsrTransposeIndexDType(const NDArray& csr) {
  const DLDataType itype = csr.sparse_indices().tensor().dtype;
  // The row ids become column ids: int32 holds them unless a has more rows than int32 counts.
  if (itype.bits == 32 && csr.tensor().shape[0] - 1 > INT32_MAX) return kIndex64;
  return itype;
}

NDArray CsrTransposeCPU(const NDArray& csr, const char* fname) {
  const DLTensor& t = csr.tensor();
  const int64_t shape[2] = {t.shape[1], t.shape[0]};
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, shape, 2, t.dtype, t.device);
  out.CheckAndAlloc(csr.sparse_data().tensor().shape[0], CsrTransposeIndexDType(csr));
  TransposeInto(csr, out, fname);
  return out;
}

MXFFI_REGISTER_OP(csr_transpose)
    .describe(
        "The transpose of a csr array as a new canonical csr array (shape reversed; column ids "
        "sorted within each row). Its index dtype is the input's, int64 when the input's row "
        "count does not fit int32.")
    .add_argument("data", "NDArray", "a csr array")
    .set_attr<FInferShape>("FInferShape", TransposeShape)
    .set_attr<FInferType>("FInferType", SameType)
    .set_attr<FInferStorageType>("FInferStorageType", TransposeStype)
    .set_attr<FComputeEx>("FComputeEx<cpu>", TransposeCompute);

}  // namespace op
}  // namespace mxffi
