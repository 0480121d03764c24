/*!
 * \file np_dot.cc
 * \brief np.dot, np.matmul, np.tensordot, np.vecdot (numpy's semantics and messages), and
 *  runtime.num_threads.
 */
#include <mxffi/registry.h>

#include "../op/dot/dot_op.h"
#include "../op/elemwise/elemwise.h"
#include "../op/parallel.h"
#include "../op/promote.h"
#include "../op/type_switch.h"
#include "api_util.h"
#include "sparse_dot.h"

namespace mxffi {
namespace api {

/*!
 * \brief tensordot's axes: N (the last N axes of a against the first N of b) or a pair
 *  (axes_a, axes_b), each side an int or a sequence of ints.
 */
struct TensordotAxes {
  bool is_count = true;
  int64_t count = 2;
  TShape a, b;
};

}  // namespace api

template <>
struct TypeTraits<api::TensordotAxes>
    : details::ConvertArgTraits<api::TensordotAxes, TypeTraits<api::TensordotAxes>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx,
                         api::TensordotAxes* out) {
    api::TensordotAxes& axes = *out;
    if (src->type_index == kMXFFIInt) {
      axes.count = src->v_int64;
      if (axes.count < 0) {
        if (ctx == nullptr) return false;
        MXFFI_THROW(ValueError) << *ctx << ": axes must be a non-negative int or a pair of "
                                << "sequences; got " << axes.count;
      }
      return true;
    }
    if (src->type_index != kMXFFIArray) return false;
    const auto* pair = reinterpret_cast<const MXFFIArrayObj*>(src->v_obj);
    if (pair->size != 2) {
      if (ctx == nullptr) return false;
      MXFFI_THROW(ValueError) << *ctx << ": axes must be an int or a pair (axes_a, axes_b); got "
                              << "a sequence of " << pair->size;
    }
    axes.is_count = false;
    for (int side = 0; side < 2; ++side) {
      const MXFFIAny* c = &pair->data[side];
      bool any_negative;
      if (!details::ReadIntTuple(c, ctx, side == 0 ? &axes.a : &axes.b, &any_negative)) {
        if (ctx == nullptr) return false;
        MXFFI_THROW(TypeError) << *ctx << ": " << (side == 0 ? "axes_a" : "axes_b")
                               << " expected an int or a sequence of ints, got "
                               << details::CellTypeName(c);
      }
    }
    return true;
  }
  static std::string TypeStr() { return "TensordotAxes"; }
  static std::string TypeDesc() { return "an int or a pair of int sequences"; }
};

namespace api {
namespace {

using op::NumpyShape;
using op::TensordotParam;

/*!
 * \return v as an array; a Python bool, int or float as a 0-d array of bool, int64 or float64,
 *  as numpy's dot converts scalars (np.asarray, not NEP 50's weak scalars).
 */
NDArray OperandArray(ArrayOrScalar* v) {
  if (v->is_array()) return v->TakeArray();
  const ScalarLike& s = v->scalar();
  NDArray out = NDArray::Empty(nullptr, 0, s.DefaultDType(), kCPU);
  if (s.is_bool()) {
    *static_cast<bool*>(out.data()) = s.int_value() != 0;
  } else if (s.is_int()) {
    *static_cast<int64_t*>(out.data()) = s.int_value();
  } else {
    *static_cast<double*>(out.data()) = s.value();
  }
  return out;
}

TShape ShapeOf(const NDArray& a) { return TShape(a.tensor().shape, a.tensor().ndim); }

NDArray RunTensordot(const NDArray& a, const NDArray& b, const TensordotParam& p,
                     const char* fname) {
  static const Op* op = Op::Get("_tensordot");
  op::ProductType(a.tensor().dtype, b.tensor().dtype, fname);
  return InvokeOp(op, p, {a, b});
}

/*!
 * \brief A view of a with axis k taken out of its place and appended as the last two axes, as
 *  (1, n) when as_row, else (n, 1): vecdot's operands as stacks of a row and a column.
 */
NDArray VectorAsMatrix(const NDArray& a, int k, bool as_row) {
  const DLTensor& t = a.tensor();
  int64_t st[kMaxNDim], shape[kMaxNDim + 1], strides[kMaxNDim + 1];
  ElementStrides(t, st);
  int m = 0;
  for (int i = 0; i < t.ndim; ++i) {
    if (i == k) continue;
    shape[m] = t.shape[i];
    strides[m++] = st[i];
  }
  const int vec = as_row ? m + 1 : m, one = as_row ? m : m + 1;
  shape[vec] = t.shape[k];
  strides[vec] = st[k];
  shape[one] = 1;
  strides[one] = 1;
  return NDArray::View(a, shape, strides, m + 2, 0);
}

}  // namespace

MXFFI_REGISTER_API("np.dot")
    .describe(
        "Dot product as numpy.dot: inner product of 1-D arrays, matrix product of 2-D ones, a "
        "sum over the last axis of a and the second-to-last of b for N-D ones, a product when "
        "either is 0-d.")
    .arg("a")
    .arg("b")
    .set_body_typed([](ArrayOrScalar a_arg, ArrayOrScalar b_arg) {
      NDArray a = OperandArray(&a_arg), b = OperandArray(&b_arg);
      const TShape as = ShapeOf(a), bs = ShapeOf(b);
      TensordotParam p;
      if (as.ndim() > 0 && bs.ndim() > 0) {
        int ka = as.ndim() - 1, kb = bs.ndim() == 1 ? 0 : bs.ndim() - 2;
        MXFFI_CHECK(as[ka] == bs[kb], ValueError)
            << "np.dot: shapes " << NumpyShape(as) << " and " << NumpyShape(bs)
            << " not aligned: " << as[ka] << " (dim " << ka << ") != " << bs[kb] << " (dim " << kb
            << ")";
        p.a_axes = TShape{ka};
        p.b_axes = TShape{kb};
      }
      return RunTensordot(a, b, p, "np.dot");
    });

MXFFI_REGISTER_API("np.matmul")
    .describe(
        "Matrix product as numpy.matmul: a 1-D operand is promoted to a matrix (and the added "
        "axis removed from the result), leading axes broadcast as a stack of matrices. out= is an "
        "mxffi array of the result's "
        "shape to write into (same_kind casting; it may overlap a or b).")
    .arg("a")
    .arg("b")
    .arg("out", nullptr)
    .set_body_typed([](ArrayOrScalar a_arg, ArrayOrScalar b_arg, Optional<WritableArray> out) {
      static const Op* op = Op::Get("_matmul");
      NDArray a = OperandArray(&a_arg), b = OperandArray(&b_arg);
      if (!out.has_value() && (a.is_sparse() || b.is_sparse())) {
        // scipy's sparse products (csr @ csr is csr); what they do not take runs as dense.
        NDArray product = SparseMatmul(a, b, "np.matmul");
        if (product.defined()) return product;
      }
      OpAttrs attrs;
      attrs.op = op;
      NDArray in[2] = {a, b};
      if (out.has_value()) {
        return InvokeIntoOut(attrs, Span<const NDArray>(in, 2), out->array(), true, "np.matmul");
      }
      return Invoke(attrs, Span<const NDArray>(in, 2));
    });

MXFFI_REGISTER_API("np.tensordot")
    .describe(
        "Sum of products over axes, as numpy.tensordot: axes=N sums the last N axes of a "
        "against the first N of b; axes=(axes_a, axes_b) names them pairwise.")
    .arg("a")
    .arg("b")
    .arg("axes", 2)
    .set_body_typed([](ArrayOrScalar a_arg, ArrayOrScalar b_arg, TensordotAxes axes) {
      constexpr const char* fname = "np.tensordot";
      NDArray a = OperandArray(&a_arg), b = OperandArray(&b_arg);
      const TShape as = ShapeOf(a), bs = ShapeOf(b);
      TensordotParam p;
      if (axes.is_count) {
        const int64_t n = axes.count;
        if (n > as.ndim() || n > bs.ndim()) {
          MXFFI_THROW(AxisError) << fname << ": axes=" << n << " sums more axes than a "
                                 << NumpyShape(as) << " or b " << NumpyShape(bs) << " has";
        }
        for (int64_t i = 0; i < n; ++i) {
          p.a_axes.push_back(as.ndim() - n + i);
          p.b_axes.push_back(i);
        }
      } else {
        p.a_axes = axes.a;
        p.b_axes = axes.b;
      }
      op::TensordotShape(as, bs, p.a_axes, p.b_axes, fname);
      return RunTensordot(a, b, p, fname);
    });

MXFFI_REGISTER_API("np.vecdot")
    .describe(
        "Dot product of the vectors along axis of x1 and x2, as numpy.vecdot and the array API: "
        "the other axes broadcast, the result has them; x1 is conjugated when complex. Both "
        "arrays must have the same length along axis (each axis counted in its own array).")
    .arg("x1")
    .arg("x2")
    .positional_only()
    .keyword_only()
    .arg("axis", -1)
    .set_body_typed([](NDArrayLike x1_arg, NDArrayLike x2_arg, int64_t axis) {
      constexpr const char* fname = "np.vecdot";
      const NDArray x1 = DenseArray(x1_arg, fname), x2 = DenseArray(x2_arg, fname);
      const DLTensor &t1 = x1.tensor(), &t2 = x2.tensor();
      MXFFI_CHECK(t1.ndim > 0 && t2.ndim > 0, ValueError)
          << fname << ": x1 and x2 must have at least one dimension, got shapes "
          << NumpyShape(ShapeOf(x1)) << " and " << NumpyShape(ShapeOf(x2));
      MXFFI_CHECK(t1.ndim <= kMaxNDim - 1 && t2.ndim <= kMaxNDim - 1, ValueError)
          << fname << ": at most " << kMaxNDim - 1 << " dimensions, got " << t1.ndim << " and "
          << t2.ndim;
      const int k1 = NormalizeAxis(axis, t1.ndim, fname);
      const int k2 = NormalizeAxis(axis, t2.ndim, fname);
      MXFFI_CHECK(t1.shape[k1] == t2.shape[k2], ValueError)
          << fname << ": x1 and x2 must have the same length along axis " << axis << ", got "
          << t1.shape[k1] << " (shape " << NumpyShape(ShapeOf(x1)) << ") and " << t2.shape[k2]
          << " (shape " << NumpyShape(ShapeOf(x2)) << ")";
      // The batch axes must broadcast; checked here so the message names vecdot.
      TShape batch;
      {
        const NDArray r = VectorAsMatrix(x1, k1, true), c = VectorAsMatrix(x2, k2, false);
        op::BroadcastShapes(TShape(r.tensor().shape, t1.ndim - 1),
                            TShape(c.tensor().shape, t2.ndim - 1), &batch, fname);
      }
      op::ProductType(t1.dtype, t2.dtype, fname);
      // sum(conj(x1) * x2): a complex x1 is conjugated first (one copy); matmul conjugates
      // nothing.
      NDArray left = x1;
      if (t1.dtype.code == kDLComplex) {
        static const Op* conj = Op::Get("_npi_conjugate");
        OpAttrs conj_attrs;
        conj_attrs.op = conj;
        left = Invoke(conj_attrs, Span<const NDArray>(&x1, 1));
      }
      const NDArray rows = VectorAsMatrix(left, k1, true), cols = VectorAsMatrix(x2, k2, false);
      static const Op* matmul = Op::Get("_matmul");
      OpAttrs attrs;
      attrs.op = matmul;
      NDArray in[2] = {rows, cols};
      const NDArray r = Invoke(attrs, Span<const NDArray>(in, 2));
      // (..., 1, 1) -> (...): the batch axes keep their strides.
      const DLTensor& tr = r.tensor();
      int64_t st[kMaxNDim];
      ElementStrides(tr, st);
      return NDArray::View(r, tr.shape, st, tr.ndim - 2, 0);
    });

MXFFI_REGISTER_API("runtime.num_threads")
    .describe(
        "Threads mxffi's CPU kernels use: MXFFI_NUM_THREADS, else the number of cores (the pool "
        "plus the calling thread).")
    .set_body_typed([]() { return static_cast<int64_t>(op::NumThreads()); });

}  // namespace api
}  // namespace mxffi
