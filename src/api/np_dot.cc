/*!
 * \file np_dot.cc
 * \brief np.dot, np.matmul, np.tensordot (numpy's semantics and messages), and
 *  runtime.num_threads.
 */
#include <mxffi/registry.h>

#include "../op/dot/dot_op.h"
#include "../op/parallel.h"
#include "../op/promote.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

using op::NumpyShape;
using op::TensordotParam;

/*!
 * \return v as an array; a Python bool, int or float as a 0-d array of bool, int64 or float64,
 *  as numpy's dot converts scalars (np.asarray, not NEP 50's weak scalars).
 */
NDArray OperandArg(const AnyView& v, const char* fname, const char* arg) {
  if (std::optional<NDArray> a = TryArray(v)) return *a;
  const int32_t ti = v.type_index();
  if (ti == kMXFFIBool || ti == kMXFFIInt || ti == kMXFFIFloat) {
    const int64_t unused = 0;
    NDArray s = NDArray::Empty(&unused, 0,
                               ti == kMXFFIBool  ? kBool
                               : ti == kMXFFIInt ? kInt64
                                                 : kFloat64,
                               DLDevice{kDLCPU, 0});
    if (ti == kMXFFIBool) {
      *static_cast<bool*>(s.data()) = v.raw()->v_int64 != 0;
    } else if (ti == kMXFFIInt) {
      *static_cast<int64_t*>(s.data()) = v.raw()->v_int64;
    } else {
      *static_cast<double*>(s.data()) = v.raw()->v_float64;
    }
    return s;
  }
  MXFFI_THROW(TypeError) << fname << ": argument '" << arg
                         << "' expected an ndarray or a number, got " << v.GetTypeName();
  __builtin_unreachable();
}

TShape ShapeOf(const NDArray& a) { return TShape(a.tensor().shape, a.tensor().ndim); }

NDArray RunTensordot(const NDArray& a, const NDArray& b, const TensordotParam& p,
                     const char* fname) {
  static const Op* op = Op::Get("_tensordot");
  op::PromoteTypes(a.tensor().dtype, b.tensor().dtype, fname);
  return InvokeOp(op, p, {a, b});
}

/*! \brief One side of tensordot's axes: an int or a sequence of ints. */
TShape AxesSide(const Any& v, const char* fname) {
  TShape out;
  if (v.type_index() == kMXFFIInt) {
    out.push_back(v.raw()->v_int64);
    return out;
  }
  if (v.type_index() == kMXFFIArray || v.type_index() == kMXFFIShape) {
    AnyView view = v;
    ShapeArg(view, fname, &out, false);
    return out;
  }
  MXFFI_THROW(TypeError) << fname << ": axes expected an int or a pair of int sequences, got "
                         << v.GetTypeName() << " in the pair";
  __builtin_unreachable();
}

}  // namespace

MXFFI_REGISTER_API("np.dot")
    .describe(
        "Dot product as numpy.dot: inner product of 1-D arrays, matrix product of 2-D ones, a "
        "sum over the last axis of a and the second-to-last of b for N-D ones, a product when "
        "either is 0-d.")
    .arg("a")
    .arg("b")
    .set_body_typed([](AnyView a_arg, AnyView b_arg) {
      NDArray a = OperandArg(a_arg, "np.dot", "a"), b = OperandArg(b_arg, "np.dot", "b");
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
        "axis removed from the result), leading axes broadcast as a stack of matrices.")
    .arg("a")
    .arg("b")
    .set_body_typed([](AnyView a_arg, AnyView b_arg) {
      static const Op* op = Op::Get("_matmul");
      NDArray a = OperandArg(a_arg, "np.matmul", "a"), b = OperandArg(b_arg, "np.matmul", "b");
      OpAttrs attrs;
      attrs.op = op;
      NDArray in[2] = {a, b};
      return Invoke(attrs, Span<const NDArray>(in, 2));
    });

MXFFI_REGISTER_API("np.tensordot")
    .describe(
        "Sum of products over axes, as numpy.tensordot: axes=N sums the last N axes of a "
        "against the first N of b; axes=(axes_a, axes_b) names them pairwise.")
    .arg("a")
    .arg("b")
    .arg("axes", 2)
    .set_body_typed([](AnyView a_arg, AnyView b_arg, AnyView axes) {
      constexpr const char* fname = "np.tensordot";
      NDArray a = OperandArg(a_arg, fname, "a"), b = OperandArg(b_arg, fname, "b");
      const TShape as = ShapeOf(a), bs = ShapeOf(b);
      TensordotParam p;
      if (axes.type_index() == kMXFFIInt) {
        const int64_t n = axes.raw()->v_int64;
        MXFFI_CHECK(n >= 0, ValueError)
            << fname << ": axes must be a non-negative int or a pair of sequences; got " << n;
        if (n > as.ndim() || n > bs.ndim()) {
          MXFFI_THROW(AxisError) << fname << ": axes=" << n << " sums more axes than a "
                                 << NumpyShape(as) << " or b " << NumpyShape(bs) << " has";
        }
        for (int64_t i = 0; i < n; ++i) {
          p.a_axes.push_back(as.ndim() - n + i);
          p.b_axes.push_back(i);
        }
      } else if (axes.type_index() == kMXFFIArray) {
        Array<Any> pair = axes.cast<Array<Any>>();
        MXFFI_CHECK(pair.size() == 2, ValueError)
            << fname << ": axes must be an int or a pair (axes_a, axes_b); got a sequence of "
            << pair.size();
        p.a_axes = AxesSide(pair[0], fname);
        p.b_axes = AxesSide(pair[1], fname);
      } else {
        MXFFI_THROW(TypeError) << fname << ": axes expected an int or a pair of sequences, got "
                               << axes.GetTypeName();
      }
      op::TensordotShape(as, bs, p.a_axes, p.b_axes, fname);
      return RunTensordot(a, b, p, fname);
    });

MXFFI_REGISTER_API("runtime.num_threads")
    .describe(
        "Threads mxffi's CPU kernels use: MXFFI_NUM_THREADS, else the number of cores (the pool "
        "plus the calling thread).")
    .set_body_typed([]() { return static_cast<int64_t>(op::NumThreads()); });

}  // namespace api
}  // namespace mxffi
