/*!
 * \file sparse_select_api.cc
 * \brief sparse.take (MXNet's take of csr rows, with its modes) and the csr take and concat
 *  np.take and np.concatenate run on csr arrays along axis 0 (src/op/sparse/csr_select.cc).
 */
#include <mxffi/registry.h>

#include <string>
#include <string_view>
#include <vector>

#include "../op/dtype.h"
#include "../op/sparse/csr_select_op.h"
#include "api_util.h"
#include "sparse_select.h"

namespace mxffi {
namespace api {

NDArray CsrTake(const NDArray& a, const NDArray& indices, int mode, const char* fname) {
  const DLTensor& t = indices.tensor();
  MXFFI_CHECK(t.ndim == 1, ValueError)
      << fname << ": csr rows are taken by a 1-D array of indices; got indices.shape="
      << TShape(t.shape, t.ndim).ToString();
  static const Op* op = Op::Get("_sparse_take_csr");
  op::CsrTakeParam p;
  p.mode = mode;
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &p;
  const NDArray inputs[2] = {a, CastTo(indices, DLDataType{kDLInt, 64, 1})};
  return Invoke(attrs, Span<const NDArray>(inputs, 2));
}

NDArray CsrConcat(const Array<NDArray>& arrays, DLDataType dtype, const char* fname) {
  const int64_t n = arrays.size();
  DLDataType itype = arrays[0].sparse_indices().tensor().dtype;
  for (int64_t i = 1; i < n; ++i) {
    if (!op::SameDType(arrays[i].sparse_indices().tensor().dtype, itype)) {
      itype = DLDataType{kDLInt, 64, 1};  // a result keeps its inputs' index dtype, else int64
    }
  }
  std::vector<NDArray> inputs;
  inputs.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const NDArray& a = arrays[i];
    MXFFI_CHECK(a.storage_initialized(), ValueError)
        << fname << ": arrays[" << i << "] is a csr array whose storage is not initialised";
    const DLTensor& t = a.tensor();
    if (op::SameDType(t.dtype, dtype) && op::SameDType(a.sparse_indices().tensor().dtype, itype)) {
      inputs.push_back(a);
      continue;
    }
    NDArray c = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, dtype, t.device);
    c.SetSparseStorage(CastTo(a.sparse_data(), dtype), CastTo(a.sparse_indices(), itype),
                       CastTo(a.sparse_indptr(), itype));
    inputs.push_back(std::move(c));
  }
  static const Op* op = Op::Get("_sparse_concat_csr");
  op::CsrConcatParam p;
  p.num_args = static_cast<int>(n);
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(inputs.data(), inputs.size()));
}

MXFFI_REGISTER_API("sparse.take")
    .describe(
        "MXNet's take on a csr array: the rows of a at indices (an integer array, 1-D), along "
        "axis 0 (the only axis MXNet takes csr rows along), as a csr array. mode says what an "
        "index outside [0, rows) means: 'clip' (MXNet's default) moves it into [0, rows - 1], "
        "a negative index picking row 0; 'wrap' takes it modulo rows; 'raise' counts a negative "
        "index from the end and raises IndexError for one still out of range (np.take's rule).")
    .arg("a")
    .arg("indices")
    .arg("axis", 0)
    .arg("mode", "clip")
    .set_body_typed([](NDArrayLike a_arg, ArrayLike indices_arg, int64_t axis,
                       std::string_view mode) {
      const char* fname = "sparse.take";
      const NDArray& a = a_arg;
      MXFFI_CHECK(a.stype() == StorageType::kCSR, TypeError)
          << fname << ": a must be a csr array; got storage type '" << StorageTypeName(a.stype())
          << "' (np.take takes dense arrays)";
      MXFFI_CHECK(axis == 0 || axis == -2, ValueError)
          << fname << ": a csr array is taken along axis 0 only (MXNet's rule); got axis=" << axis;
      int m;
      if (mode == "raise") {
        m = static_cast<int>(op::TakeMode::kRaise);
      } else if (mode == "wrap") {
        m = static_cast<int>(op::TakeMode::kWrap);
      } else if (mode == "clip") {
        m = static_cast<int>(op::TakeMode::kClip);
      } else {
        MXFFI_THROW(ValueError) << fname << ": mode must be 'raise', 'wrap' or 'clip'; got '"
                                << mode << "'";
      }
      NDArray idx = ArrayImpl(indices_arg, DTypeLike(), DeviceLike(a.tensor().device),
                              CopyMode::kIfNeeded, fname);
      const DLDataType t = idx.tensor().dtype;
      MXFFI_CHECK(t.code == kDLInt || t.code == kDLUInt, TypeError)
          << fname << ": indices must be an integer array; got dtype " << DataTypeToString(t);
      return CsrTake(a, idx, m, fname);
    });

}  // namespace api
}  // namespace mxffi
