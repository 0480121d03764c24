/*!
 * \file sparse_ops_api.cc
 * \brief The "sparse.*" ops behind mxffi.nd.sparse: sparse_retain, slice, add_n, sgd_update and
 *  adam_update, as MXNet users know them.
 */
#include <mxffi/registry.h>

#include <string>
#include <vector>

#include "../op/sparse/optimizer_param.h"
#include "../op/sparse/sparse_misc_op.h"
#include "../op/sparse/sparse_util.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

/*! \return an array an update writes into (a WritableArray), checked to be dense. */
const NDArray& DenseState(const WritableArray& a, const char* fname, const char* arg) {
  MXFFI_CHECK(!a->is_sparse(), TypeError)
      << fname << ": " << arg << " must be a dense array, got a " << StorageTypeName(a->stype())
      << " one";
  return a;
}

/*! \brief ValueError when two of the arrays an update writes share their first element. */
void CheckDistinct(const char* fname, const std::vector<std::pair<const char*, NDArray>>& xs) {
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

/*!
 * \brief Runs an optimizer op (its name names the errors) in place: inputs weight, grad, states...;
 * outputs weight, states.... The weight and the states must be dense and distinct. Returns the
 * weight.
 */
NDArray UpdateInPlace(const Op* op, const void* param, const WritableArray& weight,
                      const NDArrayLike& grad,
                      std::initializer_list<std::pair<const char*, const WritableArray*>> states) {
  const char* fname = op->name.c_str();
  NDArray w = DenseState(weight, fname, "weight");
  std::vector<NDArray> in{w, grad}, out{w};
  std::vector<std::pair<const char*, NDArray>> named{{"weight", w}};
  for (const auto& s : states) {
    NDArray a = DenseState(*s.second, fname, s.first);
    in.push_back(a);
    out.push_back(a);
    named.emplace_back(s.first, a);
  }
  CheckDistinct(fname, named);
  Invoke(AttrsOf(op, param), Span<const NDArray>(in.data(), in.size()),
         Span<NDArray>(out.data(), out.size()));
  return w;
}

}  // namespace

MXFFI_REGISTER_API("sparse.sparse_retain")
    .describe(
        "The stored rows of a row_sparse array whose ids are in indices (an int32 or int64 1-D "
        "array, any order, duplicates allowed); every other row becomes zero. Returns a new "
        "row_sparse array with data's index dtype. An id outside [0, rows) is a ValueError.")
    .arg("data")
    .arg("indices")
    .set_body_typed([](NDArrayLike data, NDArrayLike indices) {
      constexpr const char* fname = "sparse_retain";
      static const Op* op = Op::Get("sparse_retain");
      const NDArray& x = data;
      MXFFI_CHECK(x.stype() == StorageType::kRowSparse, TypeError)
          << fname << ": data must be a row_sparse array, got a " << StorageTypeName(x.stype())
          << " one";
      const NDArray& idx = indices;
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
    .set_body_typed([](NDArrayLike data, Optional<int64_t> begin, Optional<int64_t> end) {
      constexpr const char* fname = "sparse.slice";
      static const Op* op = Op::Get("slice_rows");
      const DLTensor& t = data->tensor();
      MXFFI_CHECK(t.ndim >= 1, ValueError) << fname << ": cannot slice the rows of a 0-d array";
      const int64_t rows = t.shape[0];
      auto bound = [&](const Optional<int64_t>& v, int64_t dflt) {
        if (!v.has_value()) return dflt;
        int64_t i = *v;
        if (i < 0) i += rows;
        return std::min(std::max<int64_t>(i, 0), rows);
      };
      op::SliceRowsParam p;
      p.begin = bound(begin, 0);
      p.end = std::max(bound(end, rows), p.begin);
      return InvokeOp(op, p, {data});
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
        std::optional<NDArrayLike> given = TypeTraits<NDArrayLike>::TryCast(args[i].raw());
        if (!given.has_value()) {
          // A packed body, so the message is made here, in the form of a typed argument's.
          details::ThrowArgError(details::GetFuncInfo("sparse.add_n").get(), i,
                                 TypeTraits<NDArrayLike>::TypeDesc(), args[i], false);
        }
        arrays[i] = given->array();
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
    .set_body_typed([](WritableArray weight, NDArrayLike grad, double lr, double wd,
                       double rescale_grad, double clip_gradient, bool lazy_update) {
      op::SGDParam p;
      p.lr = lr;
      p.wd = wd;
      p.rescale_grad = rescale_grad;
      p.clip_gradient = clip_gradient;
      p.lazy_update = lazy_update;
      static const Op* op = Op::Get("sgd_update");
      return UpdateInPlace(op, &p, weight, grad, {});
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
    .set_body_typed([](WritableArray weight, NDArrayLike grad, WritableArray mean,
                       WritableArray var, double lr, double beta1, double beta2, double epsilon,
                       double wd, double rescale_grad, double clip_gradient, bool lazy_update) {
      op::AdamParam p;
      p.lr = lr;
      p.beta1 = beta1;
      p.beta2 = beta2;
      p.epsilon = epsilon;
      p.wd = wd;
      p.rescale_grad = rescale_grad;
      p.clip_gradient = clip_gradient;
      p.lazy_update = lazy_update;
      static const Op* op = Op::Get("adam_update");
      return UpdateInPlace(op, &p, weight, grad, {{"mean", &mean}, {"var", &var}});
    });

MXFFI_REGISTER_API("sparse.sgd_mom_update")
    .describe(
        "One SGD step with momentum (MXNet's sgd_mom_update) in place on weight (returned) and "
        "mom: mom = momentum * mom - lr * (clip(rescale_grad * grad) + wd * w); w += mom, where "
        "clip limits to [-clip_gradient, clip_gradient] when clip_gradient >= 0. weight and mom "
        "are dense float32/float64 mxffi arrays of one shape and dtype; grad dense or "
        "row_sparse. With a row_sparse grad and lazy_update only the rows grad stores change; "
        "without it the absent rows take a zero-gradient step.")
    .arg("weight")
    .arg("grad")
    .arg("mom")
    .arg("lr")
    .arg("momentum", 0.0)
    .arg("wd", 0.0)
    .arg("rescale_grad", 1.0)
    .arg("clip_gradient", -1.0)
    .arg("lazy_update", true)
    .set_body_typed([](WritableArray weight, NDArrayLike grad, WritableArray mom, double lr,
                       double momentum, double wd, double rescale_grad, double clip_gradient,
                       bool lazy_update) {
      op::SGDMomParam p;
      p.lr = lr;
      p.momentum = momentum;
      p.wd = wd;
      p.rescale_grad = rescale_grad;
      p.clip_gradient = clip_gradient;
      p.lazy_update = lazy_update;
      static const Op* op = Op::Get("sgd_mom_update");
      return UpdateInPlace(op, &p, weight, grad, {{"mom", &mom}});
    });

MXFFI_REGISTER_API("sparse.ftrl_update")
    .describe(
        "One FTRL-proximal step (MXNet's ftrl_update) in place on weight (returned), z and n: "
        "g = clip(rescale_grad * grad); z += g - (sqrt(n + g * g) - sqrt(n)) * w / lr; n += "
        "g * g; w = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > lamda1, "
        "else 0. weight, z and n are dense float32/float64 mxffi arrays of one shape and dtype; "
        "grad dense or row_sparse. With a row_sparse grad and lazy_update only the rows grad "
        "stores change.")
    .arg("weight")
    .arg("grad")
    .arg("z")
    .arg("n")
    .arg("lr")
    .arg("lamda1", 0.01)
    .arg("beta", 1.0)
    .arg("wd", 0.0)
    .arg("rescale_grad", 1.0)
    .arg("clip_gradient", -1.0)
    .arg("lazy_update", true)
    .set_body_typed([](WritableArray weight, NDArrayLike grad, WritableArray z, WritableArray n,
                       double lr, double lamda1, double beta, double wd, double rescale_grad,
                       double clip_gradient, bool lazy_update) {
      op::FtrlParam p;
      p.lr = lr;
      p.lamda1 = lamda1;
      p.beta = beta;
      p.wd = wd;
      p.rescale_grad = rescale_grad;
      p.clip_gradient = clip_gradient;
      p.lazy_update = lazy_update;
      static const Op* op = Op::Get("ftrl_update");
      return UpdateInPlace(op, &p, weight, grad, {{"z", &z}, {"n", &n}});
    });

MXFFI_REGISTER_API("sparse.adagrad_update")
    .describe(
        "One AdaGrad step (MXNet's adagrad_update) in place on weight (returned) and history: "
        "g = clip(rescale_grad * grad); history += g * g; w -= lr * (g / sqrt(history + "
        "epsilon) + wd * w). weight and history are dense float32/float64 mxffi arrays of one "
        "shape and dtype; grad dense or row_sparse. With a row_sparse grad and lazy_update "
        "only the rows grad stores change.")
    .arg("weight")
    .arg("grad")
    .arg("history")
    .arg("lr")
    .arg("epsilon", 1e-7)
    .arg("wd", 0.0)
    .arg("rescale_grad", 1.0)
    .arg("clip_gradient", -1.0)
    .arg("lazy_update", true)
    .set_body_typed([](WritableArray weight, NDArrayLike grad, WritableArray history, double lr,
                       double epsilon, double wd, double rescale_grad, double clip_gradient,
                       bool lazy_update) {
      op::AdagradParam p;
      p.lr = lr;
      p.epsilon = epsilon;
      p.wd = wd;
      p.rescale_grad = rescale_grad;
      p.clip_gradient = clip_gradient;
      p.lazy_update = lazy_update;
      static const Op* op = Op::Get("adagrad_update");
      return UpdateInPlace(op, &p, weight, grad, {{"history", &history}});
    });

}  // namespace api
}  // namespace mxffi
