/*!
 * \file dot_op.cc
 * \brief _tensordot (which np.dot and np.tensordot use) and _matmul (np.matmul): shape and
 *  dtype inference, their operands as GEMM operands without copying (gemm.cc decides whether a
 *  copy is needed), the CPU's batched GEMM, and the ops with their CPU kernels (the GPU ones:
 *  dot_gpu.cc).
 */
#include "dot_op.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "../dtype.h"
#include "../parallel.h"
#include "../promote.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(TensordotParam);

std::string NumpyShape(const TShape& s) {
  std::ostringstream os;
  os << "(";
  for (int i = 0; i < s.ndim(); ++i) os << (i ? "," : "") << s[i];
  os << (s.ndim() == 1 ? ",)" : ")");
  return os.str();
}

TShape TensordotShape(const TShape& a, const TShape& b, const TShape& a_axes, const TShape& b_axes,
                      const char* fname, TShape* a_norm, TShape* b_norm) {
  MXFFI_CHECK(a_axes.ndim() == b_axes.ndim(), ValueError)
      << fname << ": shape-mismatch for sum; " << a_axes.ndim() << " axes of a "
      << a_axes.ToString() << " against " << b_axes.ndim() << " of b " << b_axes.ToString();
  TShape an, bn;
  uint64_t a_mask = 0, b_mask = 0;
  auto norm = [&](int64_t ax, const TShape& shape, uint64_t* mask, const char* which) {
    int nd = shape.ndim();
    if (ax < -nd || ax >= nd) {
      MXFFI_THROW(AxisError) << fname << ": axis " << ax << " is out of bounds for array of "
                             << "dimension " << nd << " (" << which << ".shape "
                             << NumpyShape(shape) << ")";
    }
    if (ax < 0) ax += nd;
    MXFFI_CHECK(!(*mask >> ax & 1), ValueError)
        << fname << ": duplicate axes are not allowed in tensordot; got axes of " << which << " "
        << (which[0] == 'a' ? a_axes : b_axes).ToString();
    *mask |= uint64_t{1} << ax;
    return ax;
  };
  for (int i = 0; i < a_axes.ndim(); ++i) {
    an.push_back(norm(a_axes[i], a, &a_mask, "a"));
    bn.push_back(norm(b_axes[i], b, &b_mask, "b"));
    MXFFI_CHECK(a[an[i]] == b[bn[i]], ValueError)
        << fname << ": shape-mismatch for sum: a.shape[" << an[i] << "]=" << a[an[i]]
        << " but b.shape[" << bn[i] << "]=" << b[bn[i]] << " (shapes " << NumpyShape(a) << " and "
        << NumpyShape(b) << ")";
  }
  TShape out;
  for (int i = 0; i < a.ndim(); ++i) {
    if (!(a_mask >> i & 1)) out.push_back(a[i]);
  }
  for (int i = 0; i < b.ndim(); ++i) {
    if (!(b_mask >> i & 1)) out.push_back(b[i]);
  }
  if (a_norm) *a_norm = an;
  if (b_norm) *b_norm = bn;
  return out;
}

DLDataType ProductType(DLDataType a, DLDataType b, const char* fname) {
  // The rule table has the complex dtypes too; PromoteTypes (which refuses them) only gives
  // the error of a pair the table has no result for.
  const int i = DTypeRuleIndex(a), j = DTypeRuleIndex(b);
  const int r = i >= 0 && j >= 0 ? PromoteIndex(i, j) : -1;
  if (r >= 0) return DTypeAt(r);
  return PromoteTypes(a, b, fname);
}

namespace {

constexpr const char* kMatmulSignature = "(n?,k),(k,m?)->(n?,m?)";

/*! \brief "(2,3,4)->(2,newaxis,newaxis)", as numpy's broadcast error shows an operand. */
std::string Remapped(const TShape& s) {
  std::ostringstream os;
  os << NumpyShape(s) << "->(";
  for (int i = 0; i + 2 < s.ndim(); ++i) os << s[i] << ",";
  os << "newaxis,newaxis)";
  return os.str();
}

}  // namespace

TShape MatmulShape(const TShape& a, const TShape& b, const char* fname) {
  const TShape* ops[2] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    MXFFI_CHECK(ops[i]->ndim() > 0, ValueError)
        << fname << ": Input operand " << i << " does not have enough dimensions (has 0, "
        << "gufunc core with signature " << kMatmulSignature << " requires 1); shapes "
        << NumpyShape(a) << " and " << NumpyShape(b);
  }
  const int64_t ka = a[a.ndim() - 1];
  const int64_t kb = b.ndim() == 1 ? b[0] : b[b.ndim() - 2];
  MXFFI_CHECK(ka == kb, ValueError)
      << fname << ": Input operand 1 has a mismatch in its core dimension 0, with gufunc "
      << "signature " << kMatmulSignature << " (size " << kb << " is different from " << ka
      << "); shapes " << NumpyShape(a) << " and " << NumpyShape(b);
  const int abatch = std::max(a.ndim() - 2, 0), bbatch = std::max(b.ndim() - 2, 0);
  const int nbatch = std::max(abatch, bbatch);
  TShape out;
  out.resize(nbatch);
  for (int i = 0; i < nbatch; ++i) {
    int ia = i - (nbatch - abatch), ib = i - (nbatch - bbatch);
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      TShape core;
      if (a.ndim() >= 2) core.push_back(a[a.ndim() - 2]);
      if (b.ndim() >= 2) core.push_back(b[b.ndim() - 1]);
      MXFFI_THROW(ValueError) << fname
                              << ": operands could not be broadcast together with remapped "
                                 "shapes [original->remapped]: "
                              << Remapped(a) << " " << Remapped(b) << " and requested shape "
                              << NumpyShape(core);
    }
    out[i] = da == 1 ? db : da;
  }
  if (a.ndim() >= 2) out.push_back(a[a.ndim() - 2]);
  if (b.ndim() >= 2) out.push_back(b[b.ndim() - 1]);
  return out;
}

namespace {

void StridesOf(const DLTensor& t, int64_t* strides) {
  int64_t s = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    strides[i] = t.strides ? t.strides[i] : s;
    s *= t.shape[i];
  }
}

void TensordotType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  out[0] = ProductType(in[0], in[1], "np.tensordot");
}

void MatmulType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  out[0] = ProductType(in[0], in[1], "np.matmul");
}

void TensordotInferShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  const TensordotParam& p = attrs.get<TensordotParam>();
  out[0] = TensordotShape(in[0], in[1], p.a_axes, p.b_axes, "np.tensordot");
}

void MatmulInferShape(const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
  out[0] = MatmulShape(in[0], in[1], "np.matmul");
}

/*! \brief Above this much work per product, one product at a time uses the whole pool. */
constexpr int64_t kParallelProductWork = int64_t{1} << 18;

}  // namespace

GemmOperand MatrixOperand(const DLTensor& t, bool trans) {
  int64_t strides[2];
  NDArray::CompactStrides(t, strides);
  if (t.strides != nullptr) {
    strides[0] = t.strides[0];
    strides[1] = t.strides[1];
  }
  GemmOperand g;
  g.data = DataPtr<const char>(t);
  g.dtype = t.dtype;
  g.nrow = g.ncol = 1;
  const int r = trans ? 1 : 0;
  g.row[0] = GemmDim{t.shape[r], strides[r]};
  g.col[0] = GemmDim{t.shape[1 - r], strides[1 - r]};
  return g;
}

void TensordotOperands(const DLTensor& x, const DLTensor& y, const TensordotParam& p,
                       GemmOperand* a, GemmOperand* b) {
  TShape xs(x.shape, x.ndim), ys(y.shape, y.ndim), xa, ya;
  TensordotShape(xs, ys, p.a_axes, p.b_axes, "np.tensordot", &xa, &ya);
  int64_t xst[kMaxNDim], yst[kMaxNDim];
  StridesOf(x, xst);
  StridesOf(y, yst);
  a->data = DataPtr<const char>(x);
  a->dtype = x.dtype;
  b->data = DataPtr<const char>(y);
  b->dtype = y.dtype;
  uint64_t xmask = 0, ymask = 0;
  for (int i = 0; i < xa.ndim(); ++i) {
    xmask |= uint64_t{1} << xa[i];
    ymask |= uint64_t{1} << ya[i];
    a->col[a->ncol++] = GemmDim{x.shape[xa[i]], xst[xa[i]]};
    b->row[b->nrow++] = GemmDim{y.shape[ya[i]], yst[ya[i]]};
  }
  for (int i = 0; i < x.ndim; ++i) {
    if (!(xmask >> i & 1)) a->row[a->nrow++] = GemmDim{x.shape[i], xst[i]};
  }
  for (int i = 0; i < y.ndim; ++i) {
    if (!(ymask >> i & 1)) b->col[b->ncol++] = GemmDim{y.shape[i], yst[i]};
  }
}

int MatmulOperands(const DLTensor& x, const DLTensor& y, GemmOperand* a, GemmOperand* b,
                   int64_t* batch_shape) {
  int64_t xst[kMaxNDim], yst[kMaxNDim];
  StridesOf(x, xst);
  StridesOf(y, yst);
  const bool x1 = x.ndim == 1, y1 = y.ndim == 1;
  const int64_t n = x1 ? 1 : x.shape[x.ndim - 2], k = x.shape[x.ndim - 1];
  const int64_t m = y1 ? 1 : y.shape[y.ndim - 1];
  a->data = DataPtr<const char>(x);
  a->dtype = x.dtype;
  b->data = DataPtr<const char>(y);
  b->dtype = y.dtype;
  a->nrow = a->ncol = b->nrow = b->ncol = 1;
  a->row[0] = GemmDim{n, x1 ? 0 : xst[x.ndim - 2]};
  a->col[0] = GemmDim{k, xst[x.ndim - 1]};
  b->row[0] = GemmDim{k, y1 ? yst[0] : yst[y.ndim - 2]};
  b->col[0] = GemmDim{m, y1 ? 0 : yst[y.ndim - 1]};
  const int xb = std::max(x.ndim - 2, 0), yb = std::max(y.ndim - 2, 0);
  const int nb = std::max(xb, yb);
  for (int i = 0; i < nb; ++i) {
    const int ix = i - (nb - xb), iy = i - (nb - yb);
    const int64_t dx = ix >= 0 ? x.shape[ix] : 1, dy = iy >= 0 ? y.shape[iy] : 1;
    batch_shape[i] = dx == 1 ? dy : dx;
    a->batch_stride[i] = dx == 1 ? 0 : xst[ix];
    b->batch_stride[i] = dy == 1 ? 0 : yst[iy];
  }
  return nb;
}

void BatchedGemm(cpu, const OpContext&, const GemmOperand& a, const GemmOperand& b, int nbatch_dims,
                 const int64_t* batch_shape, DLDataType out_dtype, void* c, const char* /*fname*/) {
  const int64_t n = a.rows(), m = b.cols(), k = a.cols();
  const int64_t work = n * m * k;
  if (nbatch_dims == 0) {
    // Release the GIL for products above a few microseconds of work.
    std::optional<ScopedGILRelease> gil;
    if (work > kReleaseGILThreshold) gil.emplace();
    Gemm(a, b, out_dtype, c, true);
    return;
  }
  int64_t nbatch = 1;
  for (int i = 0; i < nbatch_dims; ++i) nbatch *= batch_shape[i];
  if (nbatch == 0 || n * m == 0) return;
  const char* abase = static_cast<const char*>(a.data);
  const char* bbase = static_cast<const char*>(b.data);
  char* cbase = static_cast<char*>(c);
  const int64_t ae = DataTypeBytes(a.dtype), be = DataTypeBytes(b.dtype);
  const int64_t ce = DataTypeBytes(out_dtype);
  auto product = [&](int64_t t, bool parallel) {
    int64_t oa = 0, ob = 0, rest = t;
    for (int i = nbatch_dims - 1; i >= 0; --i) {
      int64_t idx = rest % batch_shape[i];
      rest /= batch_shape[i];
      oa += idx * a.batch_stride[i];
      ob += idx * b.batch_stride[i];
    }
    GemmOperand at = a, bt = b;
    at.data = abase + oa * ae;
    bt.data = bbase + ob * be;
    Gemm(at, bt, out_dtype, cbase + t * n * m * ce, parallel);
  };
  std::optional<ScopedGILRelease> gil;
  if (nbatch * work > kReleaseGILThreshold) gil.emplace();
  if (nbatch > 1 && work < kParallelProductWork) {
    ParallelFor(nbatch, work, [&](int64_t b0, int64_t e0) {
      for (int64_t t = b0; t < e0; ++t) product(t, false);
    });
  } else {
    for (int64_t t = 0; t < nbatch; ++t) product(t, true);
  }
}

MXFFI_REGISTER_OP(_tensordot)
    .describe(
        "Sum of products over a's a_axes and b's b_axes (numpy.tensordot); the result has a's "
        "free axes then b's. One GEMM, through OpenBLAS for floats.")
    .set_num_inputs(2)
    .add_argument("a", "NDArray", "the first operand")
    .add_argument("b", "NDArray", "the second operand")
    .set_param<TensordotParam>()
    .set_attr<FInferShape>("FInferShape", TensordotInferShape)
    .set_attr<FInferType>("FInferType", TensordotType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", TensordotCompute<cpu>);

MXFFI_REGISTER_OP(_matmul)
    .describe(
        "Matrix product with numpy.matmul's rules: 1-D operands promoted, batch axes "
        "broadcast.")
    .set_num_inputs(2)
    .add_argument("a", "NDArray", "the first operand")
    .add_argument("b", "NDArray", "the second operand")
    .set_attr<FInferShape>("FInferShape", MatmulInferShape)
    .set_attr<FInferType>("FInferType", MatmulType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", MatmulCompute<cpu>);

}  // namespace op
}  // namespace mxffi
