/*!
 * \file sparse_ops_api.cc
 * \brief The "sparse.*" ops behind mxffi.nd.sparse: sparse_retain, slice, add_n, sgd_update and
 *  adam_update, as MXNet users know them.
 */
#include <mxffi/registry.h>

#include <string>
#include <vector>

#include "../op/sparse/sparse_misc_op.h"
#include "../op/sparse/sparse_util.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

/*! \return v as an int64 (a Python int, not a bool); TypeError naming fname and arg otherwise. */
int64_t IntArg(const AnyView& v, const char* fname, const char* arg) {
  MXFFI_CHECK(v.type_index() == kMXFFIInt, TypeError)
      << fname << ": " << arg << " expected an int or None, got " << v.GetTypeName();
  return v.raw()->v_int64;
}

/*! \return v as a bool (a Python bool or int); TypeError otherwise. */
bool BoolArg(const AnyView& v, const char* fname, const char* arg) {
  MXFFI_CHECK(v.type_index() == kMXFFIBool || v.type_index() == kMXFFIInt, TypeError)
      << fname << ": " << arg << " expected a bool, got " << v.GetTypeName();
  return v.raw()->v_int64 != 0;
}

/*!
 * \return an array the update writes into: an mxffi array (not a borrowed numpy one, which the
 *  call cannot hand back), dense and writable.
 */
NDArray StateArg(const AnyView& v, const char* fname, const char* arg) {
  MXFFI_CHECK(v.type_index() == kMXFFINDArray, TypeError)
      << fname << ": " << arg << " must be an mxffi ndarray (it is updated in place), got "
      << v.GetTypeName();
  NDArray a = v.cast<NDArray>();
  MXFFI_CHECK(!a.is_sparse(), TypeError) << fname << ": " << arg << " must be a dense array, got a "
                                         << StorageTypeName(a.stype()) << " one";
  MXFFI_CHECK(!a.read_only(), ValueError)
      << fname << ": " << arg << " is read-only; it is updated in place";
  return a;
}

/*! \brief ValueError when two of the arrays an update writes share their first element. */
void CheckDistinct(const char* fname, std::initializer_list<std::pair<const char*, NDArray>> xs) {
  for (auto i = xs.begin(); i != xs.end(); ++i) {
    for (auto j = i + 1; j != xs.end(); ++j) {
      if (i->second.numel() == 0) continue;
      MXFFI_CHECK(i->second.data() != j->second.data(), ValueError)
          << fname << ": " << i->first << " and " << j->first
          << " are the same memory; each is updated in place and must be its own array";
    }
  }
}

OpAttrs AttrsOf(const Op* op, const void* param) {
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = param;
  return attrs;
}

}  // namespace

MXFFI_REGISTER_API("sparse.sparse_retain")
    .describe(
        "The stored rows of a row_sparse array whose ids are in indices (an int32 or int64 1-D "
        "array, any order, duplicates allowed); every other row becomes zero. Returns a new "
        "row_sparse array with data's index dtype. An id outside [0, rows) is a ValueError.")
    .arg("data")
    .arg("indices")
    .set_body_typed([](AnyView data, AnyView indices) {
      constexpr const char* fname = "sparse_retain";
      static const Op* op = Op::Get("sparse_retain");
      NDArray x = ArrayArg(data, fname, "data");
      MXFFI_CHECK(x.stype() == StorageType::kRowSparse, TypeError)
          << fname << ": data must be a row_sparse array, got a " << StorageTypeName(x.stype())
          << " one";
      NDArray idx = ArrayArg(indices, fname, "indices");
      MXFFI_CHECK(!idx.is_sparse(), TypeError) << fname << ": indices must be a dense array, got a "
                                               << StorageTypeName(idx.stype()) << " one";
      NDArray in[2] = {x, idx};
      return Invoke(AttrsOf(op, nullptr), Span<const NDArray>(in, 2));
    });

MXFFI_REGISTER_API("sparse.slice")
    .describe(
        "Rows [begin, end) of an array (csr, row_sparse or dense), as a new array of the same "
        "storage type sharing nothing with data. begin and end are ints or None and are read as "
        "Python reads a slice with step 1: negative ones count from the end, out-of-range ones "
        "are clamped, end <= begin gives no rows.")
    .arg("data")
    .arg("begin", nullptr)
    .arg("end", nullptr)
    .set_body_typed([](AnyView data, AnyView begin, AnyView end) {
      constexpr const char* fname = "sparse.slice";
      static const Op* op = Op::Get("slice_rows");
      NDArray x = ArrayArg(data, fname, "data");
      const DLTensor& t = x.tensor();
      MXFFI_CHECK(t.ndim >= 1, ValueError) << fname << ": cannot slice the rows of a 0-d array";
      const int64_t rows = t.shape[0];
      auto bound = [&](const AnyView& v, const char* arg, int64_t dflt) {
        if (v.type_index() == kMXFFINone) return dflt;
        int64_t i = IntArg(v, fname, arg);
        if (i < 0) i += rows;
        return std::min(std::max<int64_t>(i, 0), rows);
      };
      op::SliceRowsParam p;
      p.begin = bound(begin, "begin", 0);
      p.end = std::max(bound(end, "end", rows), p.begin);
      return InvokeOp(op, p, {x});
    });

MXFFI_REGISTER_API("sparse.add_n")
    .describe(
        "The elementwise sum of one or more arrays of one shape and dtype (float32 or float64). "
        "All row_sparse: row_sparse, the union of the stored rows (one merge of the sorted index "
        "lists). All csr: csr, each row the union of the rows' columns (a column whose values "
        "cancel stays stored, as a zero). Any dense, or a mix of csr and row_sparse: dense "
        "(sparse summands are added where they store values). A sparse result has int64 "
        "indices when any summand has, else int32.")
    .set_body([](PackedArgs args, Any* ret) {
      constexpr const char* fname = "add_n";
      MXFFI_CHECK(args.size() >= 1, TypeError) << fname << ": expected at least one array, got 0";
      std::vector<NDArray> arrays(args.size());
      for (int32_t i = 0; i < args.size(); ++i) {
        const std::string arg = "arrays[" + std::to_string(i) + "]";
        arrays[i] = ArrayArg(args[i], fname, arg.c_str());
        const DLTensor& a = arrays[i].tensor();
        const DLTensor& a0 = arrays[0].tensor();
        MXFFI_CHECK(TShape(a.shape, a.ndim) == TShape(a0.shape, a0.ndim), ValueError)
            << fname << ": all arrays must have the same shape; arrays[0].shape="
            << TShape(a0.shape, a0.ndim).ToString() << " but " << arg
            << ".shape=" << TShape(a.shape, a.ndim).ToString();
        MXFFI_CHECK(a.dtype.code == a0.dtype.code && a.dtype.bits == a0.dtype.bits &&
                        a.dtype.lanes == a0.dtype.lanes,
                    TypeError)
            << fname << ": all arrays must have the same dtype; arrays[0] is "
            << DataTypeToString(a0.dtype) << " but " << arg << " is " << DataTypeToString(a.dtype);
      }
      // One op, in one pass over any number of arrays.
      static const Op* op = Op::Get("add_n");
      op::AddNParam p;
      p.num_args = static_cast<int>(arrays.size());
      *ret = Invoke(AttrsOf(op, &p), Span<const NDArray>(arrays));
    });

MXFFI_REGISTER_API("sparse.sgd_update")
    .describe(
        "One SGD step in place on weight (returned): w -= lr * (clip(rescale_grad * grad) + "
        "wd * w), where clip limits to [-clip_gradient, clip_gradient] when clip_gradient >= 0. "
        "weight is a dense float32/float64 mxffi array; grad dense or row_sparse of the same "
        "shape and dtype. With a row_sparse grad and lazy_update, only the rows grad stores "
        "change; without lazy_update the absent rows take a zero-gradient step (weight decay).")
    .arg("weight")
    .arg("grad")
    .arg("lr")
    .arg("wd", 0.0)
    .arg("rescale_grad", 1.0)
    .arg("clip_gradient", -1.0)
    .arg("lazy_update", true)
    .set_body_typed([](AnyView weight, AnyView grad, AnyView lr, AnyView wd, AnyView rescale_grad,
                       AnyView clip_gradient, AnyView lazy_update) {
      constexpr const char* fname = "sgd_update";
      static const Op* op = Op::Get("sgd_update");
      op::SGDParam p;
      p.lr = NumberArg(lr, fname, "lr");
      p.wd = NumberArg(wd, fname, "wd");
      p.rescale_grad = NumberArg(rescale_grad, fname, "rescale_grad");
      p.clip_gradient = NumberArg(clip_gradient, fname, "clip_gradient");
      p.lazy_update = BoolArg(lazy_update, fname, "lazy_update");
      NDArray w = StateArg(weight, fname, "weight");
      NDArray g = ArrayArg(grad, fname, "grad");
      NDArray in[2] = {w, g};
      NDArray out[1] = {w};
      Invoke(AttrsOf(op, &p), Span<const NDArray>(in, 2), Span<NDArray>(out, 1));
      return w;
    });

MXFFI_REGISTER_API("sparse.adam_update")
    .describe(
        "One Adam step (MXNet's adam_update: no bias correction, fold it into lr) in place on "
        "weight (returned), mean and var: g = clip(rescale_grad * grad + wd * w); m = beta1 * m "
        "+ (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g; w -= lr * m / (sqrt(v) + "
        "epsilon). weight, mean and var are dense float32/float64 mxffi arrays of one shape and "
        "dtype; grad dense or row_sparse. With a row_sparse grad and lazy_update, only the rows "
        "grad stores change.")
    .arg("weight")
    .arg("grad")
    .arg("mean")
    .arg("var")
    .arg("lr")
    .arg("beta1", 0.9)
    .arg("beta2", 0.999)
    .arg("epsilon", 1e-8)
    .arg("wd", 0.0)
    .arg("rescale_grad", 1.0)
    .arg("clip_gradient", -1.0)
    .arg("lazy_update", true)
    .set_body_typed([](AnyView weight, AnyView grad, AnyView mean, AnyView var, AnyView lr,
                       AnyView beta1, AnyView beta2, AnyView epsilon, AnyView wd,
                       AnyView rescale_grad, AnyView clip_gradient, AnyView lazy_update) {
      constexpr const char* fname = "adam_update";
      static const Op* op = Op::Get("adam_update");
      op::AdamParam p;
      p.lr = NumberArg(lr, fname, "lr");
      p.beta1 = NumberArg(beta1, fname, "beta1");
      p.beta2 = NumberArg(beta2, fname, "beta2");
      p.epsilon = NumberArg(epsilon, fname, "epsilon");
      p.wd = NumberArg(wd, fname, "wd");
      p.rescale_grad = NumberArg(rescale_grad, fname, "rescale_grad");
      p.clip_gradient = NumberArg(clip_gradient, fname, "clip_gradient");
      p.lazy_update = BoolArg(lazy_update, fname, "lazy_update");
      NDArray w = StateArg(weight, fname, "weight");
      NDArray m = StateArg(mean, fname, "mean");
      NDArray v = StateArg(var, fname, "var");
      NDArray g = ArrayArg(grad, fname, "grad");
      CheckDistinct(fname, {{"weight", w}, {"mean", m}, {"var", v}});
      NDArray in[4] = {w, g, m, v};
      NDArray out[3] = {w, m, v};
      Invoke(AttrsOf(op, &p), Span<const NDArray>(in, 4), Span<NDArray>(out, 3));
      return w;
    });

}  // namespace api
}  // namespace mxffi
