/*!
 * \file optimizer_op.cc
 * \brief sgd_update and adam_update: one optimizer step, written into the weight (and Adam's
 *  mean and var), which the caller passes as the op's outputs.
 *
 * Storage: weight, mean and var are dense. A dense gradient runs the dense kernel (FCompute); a
 * row_sparse one the sparse kernel (FComputeEx), which with lazy_update touches only the rows the
 * gradient stores and otherwise treats the absent rows as zero gradient; a csr gradient goes
 * through the dense fallback (a standard, non-lazy update).
 *
 * The formulas (MXNet's, all arithmetic in the arrays' dtype):
 *   clip(x) = min(max(x, -clip_gradient), clip_gradient) when clip_gradient >= 0, else x
 *   sgd:  w -= lr * (clip(rescale_grad * g) + wd * w)
 *   adam: g' = clip(rescale_grad * g + wd * w) (clipped after the weight decay, as MXNet does);
 *         m = beta1 * m + (1 - beta1) * g'; v = beta2 * v + (1 - beta2) * g' * g';
 *         w -= lr * m / (sqrt(v) + epsilon)
 */
#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "../parallel.h"
#include "optimizer_param.h"
#include "optimizer_step.h"
#include "sparse_misc_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(SGDParam);
DMLC_REGISTER_PARAMETER(AdamParam);
DMLC_REGISTER_PARAMETER(SGDMomParam);
DMLC_REGISTER_PARAMETER(FtrlParam);
DMLC_REGISTER_PARAMETER(AdagradParam);

namespace {

const char* const kSGDInputs[] = {"weight", "grad"};
const char* const kAdamInputs[] = {"weight", "grad", "mean", "var"};
const char* const kMomInputs[] = {"weight", "grad", "mom"};
const char* const kFtrlInputs[] = {"weight", "grad", "z", "n"};
const char* const kAdagradInputs[] = {"weight", "grad", "history"};

/*! \brief SGD steps (optimizer_step.h) over n values; w may be the array w_out writes to. */
template <typename DType>
struct SGDKernel {
  SGDStep<DType> step;
  explicit SGDKernel(const SGDParam& p) : step(p) {}
  /*! \brief g == nullptr means a zero gradient. */
  void operator()(const DType* w, const DType* g, DType* w_out, int64_t n) const {
    if (g == nullptr) {
      for (int64_t i = 0; i < n; ++i) w_out[i] = step(w[i], DType(0), false);
    } else {
      for (int64_t i = 0; i < n; ++i) w_out[i] = step(w[i], g[i], true);
    }
  }
};

/*! \brief Adam steps over n values; inputs may be the arrays the outputs write to. */
template <typename DType>
struct AdamKernel {
  AdamStep<DType> step;
  explicit AdamKernel(const AdamParam& p) : step(p) {}
  void operator()(const DType* w, const DType* g, const DType* m, const DType* v, DType* w_out,
                  DType* m_out, DType* v_out, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
      DType wi = w[i], mi = m[i], vi = v[i];
      step(wi, g == nullptr ? DType(0) : g[i], g != nullptr, mi, vi);
      m_out[i] = mi;
      v_out[i] = vi;
      w_out[i] = wi;
    }
  }
};

template <const char* const* kNames>
void SameShapes(const char* fname, Span<const TShape> in, Span<TShape> out) {
  for (size_t i = 1; i < in.size(); ++i) {
    MXFFI_CHECK(in[i] == in[0], ValueError)
        << fname << ": " << kNames[i] << ".shape=" << in[i].ToString()
        << " does not match weight.shape=" << in[0].ToString();
  }
  for (TShape& s : out) s = in[0];
}

template <const char* const* kNames>
void SameRealTypes(const char* fname, Span<const DLDataType> in, Span<DLDataType> out) {
  for (size_t i = 0; i < in.size(); ++i) {
    const DLDataType t = in[i];
    MXFFI_CHECK(t.code == kDLFloat && t.lanes == 1 && (t.bits == 32 || t.bits == 64), TypeError)
        << fname << ": " << kNames[i] << " must be float32 or float64; got " << DataTypeToString(t);
    MXFFI_CHECK(t.bits == in[0].bits, TypeError)
        << fname << ": " << kNames[i] << ".dtype=" << DataTypeToString(t)
        << " does not match weight.dtype=" << DataTypeToString(in[0]);
  }
  for (DLDataType& t : out) t = in[0];
}

template <const char* const* kNames>
DispatchMode UpdateStype(const char* fname, Span<const StorageType> in, Span<StorageType> out) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (i == 1) continue;
    MXFFI_CHECK(in[i] == StorageType::kDefault, TypeError)
        << fname << ": " << kNames[i] << " must be a dense array; got a " << StorageTypeName(in[i])
        << " one";
  }
  for (StorageType& s : out) s = StorageType::kDefault;
  switch (in[1]) {
    case StorageType::kDefault:
      return DispatchMode::kFCompute;
    case StorageType::kRowSparse:
      return DispatchMode::kFComputeEx;
    default:
      return DispatchMode::kFComputeFallback;
  }
}

template <typename DType>
inline DType* At(const DLTensor& t) {
  return reinterpret_cast<DType*>(static_cast<char*>(t.data) + t.byte_offset);
}

void SGDDense(const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
              Span<const OpReqType>, Span<const DLTensor> out) {
  int64_t n = 1;
  for (int d = 0; d < in[0].ndim; ++d) n *= in[0].shape[d];
  MXFFI_REAL_SWITCH(in[0].dtype, "sgd_update", DType, {
    const SGDKernel<DType> kernel(attrs.get<SGDParam>());
    const DType *w = At<DType>(in[0]), *g = At<DType>(in[1]);
    DType* w_out = At<DType>(out[0]);
    ParallelFor(n, 4, [&](int64_t b, int64_t e) { kernel(w + b, g + b, w_out + b, e - b); });
  });
}

void AdamDense(const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
               Span<const OpReqType>, Span<const DLTensor> out) {
  int64_t n = 1;
  for (int d = 0; d < in[0].ndim; ++d) n *= in[0].shape[d];
  MXFFI_REAL_SWITCH(in[0].dtype, "adam_update", DType, {
    const AdamKernel<DType> kernel(attrs.get<AdamParam>());
    const DType *w = At<DType>(in[0]), *g = At<DType>(in[1]);
    const DType *m = At<DType>(in[2]), *v = At<DType>(in[3]);
    DType *w_out = At<DType>(out[0]), *m_out = At<DType>(out[1]), *v_out = At<DType>(out[2]);
    ParallelFor(n, 16, [&](int64_t b, int64_t e) {
      kernel(w + b, g + b, m + b, v + b, w_out + b, m_out + b, v_out + b, e - b);
    });
  });
}

/*!
 * \brief Where the sparse kernel writes the new values of state `in`: out itself when out is
 *  C-contiguous (after copying in there, unless req is kWriteInplace: out is in, the update in
 *  place), else a contiguous temporary that Finish copies into out.
 */
NDArray Work(const NDArray& in, const NDArray& out, OpReqType req) {
  if (out.IsContiguous()) {
    if (req != OpReqType::kWriteInplace) NDArray::CopyFromTo(in.tensor(), out.tensor());
    return out;
  }
  return NDArray::Copy(in.tensor());
}

void Finish(const NDArray& work, const NDArray& out) {
  if (!work.same_as(out)) NDArray::CopyFromTo(work.tensor(), out.tensor());
}

/*!
 * \brief Run step(row, grad_row_or_null) on the rows a row_sparse gradient updates: its stored
 *  rows when lazy, every row otherwise (absent ones with a zero gradient).
 */
template <typename DType, typename F>
void ForEachRow(const NDArray& grad, bool lazy, const char* fname, int64_t width, F step) {
  MXFFI_CHECK(grad.storage_initialized(), ValueError)
      << fname << ": the row_sparse gradient's storage is not initialised";
  const int64_t rows = grad.tensor().shape[0];
  const int64_t k = grad.sparse_indices().tensor().shape[0];
  const DType* gdata = Ptr<DType>(grad.sparse_data());
  MXFFI_INDEX_SWITCH(grad.sparse_indices().tensor().dtype, fname, IType, {
    const IType* idx = Ptr<IType>(grad.sparse_indices());
    if (lazy) {
      ParallelFor(k, width, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) step(static_cast<int64_t>(idx[j]), gdata + j * width);
      });
    } else {
      std::vector<int64_t> where(rows, -1);
      for (int64_t j = 0; j < k; ++j) where[idx[j]] = j;
      ParallelFor(rows, width, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          step(r, where[r] < 0 ? nullptr : gdata + where[r] * width);
        }
      });
    }
  });
}

void SGDRowSparse(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                  Span<const OpReqType> req, Span<const NDArray> out) {
  const SGDParam& p = attrs.get<SGDParam>();
  const int64_t width = RowWidth(in[0].tensor());
  NDArray w = Work(in[0], out[0], req[0]);
  MXFFI_REAL_SWITCH(in[0].tensor().dtype, "sgd_update", DType, {
    const SGDKernel<DType> kernel(p);
    DType* wp = Ptr<DType>(w);
    ForEachRow<DType>(in[1], p.lazy_update, "sgd_update", width, [&](int64_t r, const DType* g) {
      DType* row = wp + r * width;
      kernel(row, g, row, width);
    });
  });
  Finish(w, out[0]);
}

void AdamRowSparse(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                   Span<const OpReqType> req, Span<const NDArray> out) {
  const AdamParam& p = attrs.get<AdamParam>();
  const int64_t width = RowWidth(in[0].tensor());
  NDArray w = Work(in[0], out[0], req[0]), m = Work(in[2], out[1], req[1]);
  NDArray v = Work(in[3], out[2], req[2]);
  MXFFI_REAL_SWITCH(in[0].tensor().dtype, "adam_update", DType, {
    const AdamKernel<DType> kernel(p);
    DType *wp = Ptr<DType>(w), *mp = Ptr<DType>(m), *vp = Ptr<DType>(v);
    ForEachRow<DType>(in[1], p.lazy_update, "adam_update", width, [&](int64_t r, const DType* g) {
      const int64_t o = r * width;
      kernel(wp + o, g, mp + o, vp + o, wp + o, mp + o, vp + o, width);
    });
  });
  Finish(w, out[0]);
  Finish(m, out[1]);
  Finish(v, out[2]);
}

/*!
 * \brief Steps of an optimizer with Step::kStates state arrays (sgd_mom_update, ftrl_update,
 *  adagrad_update) over n values; the inputs may be the arrays the outputs write to, and g ==
 *  nullptr means a zero gradient.
 */
template <typename DType, typename Step>
void StateSteps(const Step& step, const DType* w, const DType* g, const DType* const* s,
                DType* w_out, DType* const* s_out, int64_t n) {
  constexpr int K = Step::kStates;
  for (int64_t i = 0; i < n; ++i) {
    DType wi = w[i], si[K];
    for (int j = 0; j < K; ++j) si[j] = s[j][i];
    step(wi, g == nullptr ? DType(0) : g[i], g != nullptr, si);
    for (int j = 0; j < K; ++j) s_out[j][i] = si[j];
    w_out[i] = wi;
  }
}

/*!
 * \brief The ops with state arrays: Op::Param, Op::Step<T>, Op::kName; inputs weight, grad,
 *  then the states; outputs the weight then the states.
 */
template <typename Op>
void StateDense(const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                Span<const OpReqType>, Span<const DLTensor> out) {
  int64_t n = 1;
  for (int d = 0; d < in[0].ndim; ++d) n *= in[0].shape[d];
  MXFFI_REAL_SWITCH(in[0].dtype, Op::kName, DType, {
    using Step = typename Op::template Step<DType>;
    constexpr int K = Step::kStates;
    const Step step(attrs.get<typename Op::Param>());
    const DType *w = At<DType>(in[0]), *g = At<DType>(in[1]);
    const DType* s[K];
    DType* s_out[K];
    for (int j = 0; j < K; ++j) {
      s[j] = At<DType>(in[2 + j]);
      s_out[j] = At<DType>(out[1 + j]);
    }
    DType* w_out = At<DType>(out[0]);
    ParallelFor(n, 16, [&](int64_t b, int64_t e) {
      const DType* sb[K];
      DType* sob[K];
      for (int j = 0; j < K; ++j) {
        sb[j] = s[j] + b;
        sob[j] = s_out[j] + b;
      }
      StateSteps(step, w + b, g + b, sb, w_out + b, sob, e - b);
    });
  });
}

template <typename Op>
void StateRowSparse(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                    Span<const OpReqType> req, Span<const NDArray> out) {
  const typename Op::Param& p = attrs.get<typename Op::Param>();
  const int64_t width = RowWidth(in[0].tensor());
  const int k = static_cast<int>(in.size()) - 2;
  NDArray w = Work(in[0], out[0], req[0]);
  std::vector<NDArray> st;
  for (int j = 0; j < k; ++j) st.push_back(Work(in[2 + j], out[1 + j], req[1 + j]));
  MXFFI_REAL_SWITCH(in[0].tensor().dtype, Op::kName, DType, {
    using Step = typename Op::template Step<DType>;
    constexpr int K = Step::kStates;
    const Step step(p);
    DType* wp = Ptr<DType>(w);
    DType* sp[K];
    for (int j = 0; j < K; ++j) sp[j] = Ptr<DType>(st[j]);
    ForEachRow<DType>(in[1], p.lazy_update, Op::kName, width, [&](int64_t r, const DType* g) {
      const int64_t o = r * width;
      DType* so[K];
      for (int j = 0; j < K; ++j) so[j] = sp[j] + o;
      StateSteps(step, wp + o, g, so, wp + o, so, width);
    });
  });
  Finish(w, out[0]);
  for (int j = 0; j < k; ++j) Finish(st[j], out[1 + j]);
}

struct MomOp {
  using Param = SGDMomParam;
  template <typename T>
  using Step = SGDMomStep<T>;
  static constexpr const char* kName = "sgd_mom_update";
};

struct FtrlOp {
  using Param = FtrlParam;
  template <typename T>
  using Step = FtrlStep<T>;
  static constexpr const char* kName = "ftrl_update";
};

struct AdagradOp {
  using Param = AdagradParam;
  template <typename T>
  using Step = AdagradStep<T>;
  static constexpr const char* kName = "adagrad_update";
};

}  // namespace

MXFFI_REGISTER_OP(sgd_update)
    .describe(
        "One SGD step, w -= lr * (clip(rescale_grad * grad) + wd * w), written into the output "
        "(the weight, for an update in place). With a row_sparse grad and lazy_update only the "
        "rows grad stores change.")
    .set_num_inputs(2)
    .add_argument("weight", "NDArray", "dense weight")
    .add_argument("grad", "NDArray", "gradient: dense or row_sparse")
    .set_param<SGDParam>()
    .set_attr<bool>("TWriteInplace", true)
    .set_attr<FInferShape>("FInferShape",
                           [](const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
                             SameShapes<kSGDInputs>("sgd_update", in, out);
                           })
    .set_attr<FInferType>("FInferType",
                          [](const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
                            SameRealTypes<kSGDInputs>("sgd_update", in, out);
                          })
    .set_attr<FInferStorageType>("FInferStorageType",
                                 [](const OpAttrs&, DLDevice, Span<const StorageType> in,
                                    Span<StorageType> out) {
                                   return UpdateStype<kSGDInputs>("sgd_update", in, out);
                                 })
    .set_attr<FCompute>("FCompute<cpu>", SGDDense)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SGDRowSparse);

MXFFI_REGISTER_OP(adam_update)
    .describe(
        "One Adam step (MXNet's adam_update, no bias correction): outputs the new weight, mean "
        "and var (the inputs themselves, for an update in place). With a row_sparse grad and "
        "lazy_update only the rows grad stores change.")
    .set_num_inputs(4)
    .set_num_outputs(3)
    .add_argument("weight", "NDArray", "dense weight")
    .add_argument("grad", "NDArray", "gradient: dense or row_sparse")
    .add_argument("mean", "NDArray", "dense first moment")
    .add_argument("var", "NDArray", "dense second moment")
    .set_param<AdamParam>()
    .set_attr<bool>("TWriteInplace", true)
    .set_attr<FInferShape>("FInferShape",
                           [](const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
                             SameShapes<kAdamInputs>("adam_update", in, out);
                           })
    .set_attr<FInferType>("FInferType",
                          [](const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
                            SameRealTypes<kAdamInputs>("adam_update", in, out);
                          })
    .set_attr<FInferStorageType>("FInferStorageType",
                                 [](const OpAttrs&, DLDevice, Span<const StorageType> in,
                                    Span<StorageType> out) {
                                   return UpdateStype<kAdamInputs>("adam_update", in, out);
                                 })
    .set_attr<FCompute>("FCompute<cpu>", AdamDense)
    .set_attr<FComputeEx>("FComputeEx<cpu>", AdamRowSparse);

/*! \brief Registers an op with state arrays (Op as above, inputs named by kNames). */
#define MXFFI_REGISTER_STATE_OPTIMIZER(NAME, OP, NAMES, DESC)                                     \
  MXFFI_REGISTER_OP(NAME)                                                                         \
      .describe(DESC)                                                                             \
      .set_num_inputs(static_cast<uint32_t>(sizeof(NAMES) / sizeof(NAMES[0])))                    \
      .set_num_outputs(static_cast<uint32_t>(sizeof(NAMES) / sizeof(NAMES[0])) - 1)               \
      .set_param<OP::Param>()                                                                     \
      .set_attr<bool>("TWriteInplace", true)                                                      \
      .set_attr<FInferShape>("FInferShape",                                                       \
                             [](const OpAttrs&, Span<const TShape> in, Span<TShape> out) {        \
                               SameShapes<NAMES>(OP::kName, in, out);                             \
                             })                                                                   \
      .set_attr<FInferType>("FInferType",                                                         \
                            [](const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) { \
                              SameRealTypes<NAMES>(OP::kName, in, out);                           \
                            })                                                                    \
      .set_attr<FInferStorageType>(                                                               \
          "FInferStorageType",                                                                    \
          [](const OpAttrs&, DLDevice, Span<const StorageType> in, Span<StorageType> out) {       \
            return UpdateStype<NAMES>(OP::kName, in, out);                                        \
          })                                                                                      \
      .set_attr<FCompute>("FCompute<cpu>", StateDense<OP>)                                        \
      .set_attr<FComputeEx>("FComputeEx<cpu>", StateRowSparse<OP>)

MXFFI_REGISTER_STATE_OPTIMIZER(
    sgd_mom_update, MomOp, kMomInputs,
    "One SGD step with momentum (MXNet's sgd_mom_update): mom = momentum * mom - lr * "
    "(clip(rescale_grad * grad) + wd * w); w += mom, written into the outputs (weight, mom)")
    .add_argument("weight", "NDArray", "dense weight")
    .add_argument("grad", "NDArray", "gradient: dense or row_sparse")
    .add_argument("mom", "NDArray", "dense momentum");

MXFFI_REGISTER_STATE_OPTIMIZER(
    ftrl_update, FtrlOp, kFtrlInputs,
    "One FTRL-proximal step (MXNet's ftrl_update), written into the outputs (weight, z, n)")
    .add_argument("weight", "NDArray", "dense weight")
    .add_argument("grad", "NDArray", "gradient: dense or row_sparse")
    .add_argument("z", "NDArray", "dense z state")
    .add_argument("n", "NDArray", "dense n state (sum of squared gradients)");

MXFFI_REGISTER_STATE_OPTIMIZER(
    adagrad_update, AdagradOp, kAdagradInputs,
    "One AdaGrad step (MXNet's adagrad_update): history += g^2; w -= lr * (g / sqrt(history "
    "+ epsilon) + wd * w), g = clip(rescale_grad * grad), written into the outputs (weight, "
    "history)")
    .add_argument("weight", "NDArray", "dense weight")
    .add_argument("grad", "NDArray", "gradient: dense or row_sparse")
    .add_argument("history", "NDArray", "dense sum of squared gradients");

}  // namespace op
}  // namespace mxffi
