/*!
 * \file np_linalg.cc
 * \brief np.linalg.*: numpy's and the array API's linear algebra extension. The factorizations
 *  and solvers run LAPACK on the host (op/linalg/lapack.h), batched over the leading axes; bool
 *  and integer inputs compute in float64 and float16/bfloat16 are refused, as numpy does. An
 *  array on a CUDA device runs them on cuSOLVER where it loads (op/linalg/dispatch.h; pinv and
 *  matrix_rank excepted), else it is copied to the host for them and the results copied back.
 *  The other functions are views or fixed sequences of the ops and run where their inputs are.
 */
#include <mxffi/registry.h>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "../op/complex.h"
#include "../op/dot/dot_op.h"
#include "../op/elemwise/elemwise.h"
#include "../op/init/init_op.h"
#include "../op/linalg/dispatch.h"
#include "../op/promote.h"
#include "../op/reduce/reduce_op.h"
#include "api_util.h"

namespace mxffi {
namespace api {

/*! \brief matrix_norm's ord: a name ('fro', 'nuc') or a number (1, -1, 2, -2, inf, -inf). */
struct NormOrder {
  bool is_name = true;
  std::string name = "fro";
  double value = 0;
};

}  // namespace api

template <>
struct TypeTraits<api::NormOrder>
    : details::ConvertArgTraits<api::NormOrder, TypeTraits<api::NormOrder>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext*, api::NormOrder* out) {
    if (std::optional<String> name = TypeTraits<String>::TryCast(src)) {
      out->is_name = true;
      out->name = *name;
      return true;
    }
    if (src->type_index == kMXFFIInt || src->type_index == kMXFFIFloat) {
      out->is_name = false;
      out->value =
          src->type_index == kMXFFIInt ? static_cast<double>(src->v_int64) : src->v_float64;
      return true;
    }
    return false;
  }
  static std::string TypeStr() { return "NormOrder"; }
  static std::string TypeDesc() { return "'fro', 'nuc' or a number"; }
};

namespace api {
namespace {

namespace la = op::linalg::dispatch;
using op::NumpyShape;

TShape ShapeOf(const NDArray& a) { return TShape(a.tensor().shape, a.tensor().ndim); }

bool IsHost(const NDArray& a) { return a.tensor().device.device_type == kDLCPU; }

/*!
 * \return the dtype LAPACK computes x in, as numpy's linalg: float32, float64, complex64 and
 *  complex128 as they are; bool and integers in float64; TypeError for the others.
 */
DLDataType LapackDType(DLDataType t, const char* fname) {
  if (t.lanes == 1 && ((t.code == kDLFloat && (t.bits == 32 || t.bits == 64)) ||
                       (t.code == kDLComplex && (t.bits == 64 || t.bits == 128)))) {
    return t;
  }
  if (t.lanes == 1 && (t.code == kDLBool || t.code == kDLInt || t.code == kDLUInt)) {
    return DLDataType{kDLFloat, 64, 1};
  }
  MXFFI_THROW(TypeError) << fname << ": array type " << DataTypeToString(t)
                         << " is unsupported in linalg";
}

/*! \brief x must be a stack of matrices: numpy's LinAlgError otherwise. */
void CheckStack(const NDArray& x, const char* fname, bool square) {
  const DLTensor& t = x.tensor();
  MXFFI_CHECK(t.ndim >= 2, LinAlgError)
      << fname << ": " << t.ndim << "-dimensional array given. Array must be at least "
      << "two-dimensional";
  MXFFI_CHECK(!square || t.shape[t.ndim - 1] == t.shape[t.ndim - 2], LinAlgError)
      << fname << ": Last 2 dimensions of the array must be square, got shape "
      << NumpyShape(ShapeOf(x));
}

/*!
 * \return x as the factorizations take it: a C-contiguous array of its LAPACK dtype, on the
 *  device they run on (la::ComputeDevice).
 */
NDArray LapackInput(const NDArray& x, const char* fname) {
  const NDArray cast = CastTo(x, LapackDType(x.tensor().dtype, fname));
  return OnDevice(cast, la::ComputeDevice(x.tensor().device)).Contiguous();
}

/*! \return a view of a broadcast to shape (stride 0 along the broadcast axes). */
NDArray Broadcast(const NDArray& a, const TShape& shape) {
  const DLTensor& t = a.tensor();
  int64_t st[kMaxNDim], strides[kMaxNDim];
  ElementStrides(t, st);
  const int lead = static_cast<int>(shape.ndim()) - t.ndim;
  for (int i = 0; i < static_cast<int>(shape.ndim()); ++i) {
    const int k = i - lead;
    strides[i] = k < 0 || t.shape[k] == 1 ? 0 : st[k];
  }
  return NDArray::View(a, shape.data(), strides, static_cast<int>(shape.ndim()), 0);
}

/*! \return a view of the diagonal at offset of each matrix of x: shape (..., k). */
NDArray DiagonalView(const NDArray& x, int64_t offset, const char* fname) {
  const DLTensor& t = x.tensor();
  MXFFI_CHECK(t.ndim >= 2, ValueError)
      << fname << ": x must have at least 2 dimensions, got shape " << NumpyShape(ShapeOf(x));
  int64_t st[kMaxNDim], shape[kMaxNDim], strides[kMaxNDim];
  ElementStrides(t, st);
  const int nd = t.ndim;
  const int64_t rows = t.shape[nd - 2], cols = t.shape[nd - 1];
  int64_t len = offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols);
  if (len < 0) len = 0;
  int64_t start = 0;
  if (len > 0) start = (offset >= 0 ? offset * st[nd - 1] : -offset * st[nd - 2]);
  start *= DataTypeBytes(t.dtype);  // View takes a byte offset
  for (int i = 0; i < nd - 2; ++i) {
    shape[i] = t.shape[i];
    strides[i] = st[i];
  }
  shape[nd - 2] = len;
  strides[nd - 2] = st[nd - 2] + st[nd - 1];
  return NDArray::View(x, shape, strides, nd - 1, start);
}

NDArray Matmul(const NDArray& a, const NDArray& b) {
  static const Op* op = Op::Get("_matmul");
  OpAttrs attrs;
  attrs.op = op;
  NDArray in[2] = {a, b};
  return Invoke(attrs, Span<const NDArray>(in, 2));
}

/*! \return a list of arrays, each on device (the results of one LAPACK call sequence). */
Array<NDArray> ResultsOn(std::initializer_list<NDArray> results, DLDevice device) {
  Array<NDArray> out;
  for (const NDArray& r : results) out.push_back(OnDevice(r, device));
  return out;
}

/*!
 * \return pinv's and matrix_rank's relative cutoffs for the stack a (LAPACK's input): rtol None
 *  gives max(M, N) * eps of a's dtype; a number, that for every matrix; an array, broadcast
 *  against the stack's leading shape, one per matrix.
 */
std::vector<double> Rtol(Optional<ArrayOrScalar>* rtol_arg, const NDArray& a, const char* fname) {
  const DLTensor& t = a.tensor();
  if (!rtol_arg->has_value()) {
    const int64_t mn = std::max(t.shape[t.ndim - 2], t.shape[t.ndim - 1]);
    const bool single = t.dtype.bits == (t.dtype.code == kDLComplex ? 64 : 32);
    const double eps =
        single ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
    return {static_cast<double>(mn) * eps};
  }
  ArrayOrScalar rtol = rtol_arg->value();                // a copy: Optional gives const access only
  if (!rtol.is_array()) return {rtol.scalar().value()};  // a ScalarLike is never complex
  const NDArray arr = rtol.TakeArray();
  const DLDataType rt = arr.tensor().dtype;
  MXFFI_CHECK(
      rt.code == kDLFloat || rt.code == kDLInt || rt.code == kDLUInt || rt.code == kDLBfloat,
      TypeError)
      << fname << ": rtol must be a real number or a real array, got an array of "
      << DataTypeToString(rt);
  const TShape batch(t.shape, t.ndim - 2);
  TShape shape;
  op::BroadcastShapes(ShapeOf(arr), batch, &shape, fname);
  MXFFI_CHECK(shape == batch, ValueError)
      << fname << ": rtol of shape " << NumpyShape(ShapeOf(arr))
      << " does not broadcast to the stack's shape " << NumpyShape(batch);
  const NDArray host = OnDevice(CastTo(arr, DLDataType{kDLFloat, 64, 1}), kCPU);
  const NDArray full = NDArray::Copy(Broadcast(host, batch).tensor());
  const double* p = static_cast<const double*>(full.data());
  return std::vector<double>(p, p + full.numel());
}

/*! \return the unary op opname of x. */
NDArray UnaryOp(const char* opname, const NDArray& x) {
  OpAttrs attrs;
  attrs.op = Op::Get(opname);
  return Invoke(attrs, Span<const NDArray>(&x, 1));
}

/*! \return the binary op opname of a and b (broadcast together). */
NDArray BinaryOp(const char* opname, const NDArray& a, const NDArray& b) {
  OpAttrs attrs;
  attrs.op = Op::Get(opname);
  NDArray in[2] = {a, b};
  return Invoke(attrs, Span<const NDArray>(in, 2));
}

/*! \return the scalar op opname of x and the Python float v. */
NDArray ScalarOp(const char* opname, const NDArray& x, double v) {
  op::BinaryScalarParam p;
  p.scalar = op::ScalarValue::Float(v);
  return InvokeOp(Op::Get(opname), p, {x});
}

/*! \return the reduction opname (_sum, _max, _min) of x over axes (None: all). */
NDArray ReduceOp(const char* opname, const NDArray& x, const dmlc::optional<TShape>& axes,
                 bool keepdims) {
  op::ReduceParam p;
  p.axis = axes;
  p.keepdims = keepdims;
  return InvokeOp(Op::Get(opname), p, {x});
}

/*!
 * \return |x| in the dtype the norms compute in: floats their own (complex their real dtype),
 *  bool and integers float64, as numpy's linalg.
 */
NDArray NormAbs(const NDArray& x) {
  const DLDataType t = x.tensor().dtype;
  const bool integral = t.code == kDLBool || t.code == kDLInt || t.code == kDLUInt;
  return UnaryOp("_npi_absolute", integral ? CastTo(x, DLDataType{kDLFloat, 64, 1}) : x);
}

/*! \return the vector norm of ord of the absolute values a over axes. */
NDArray VectorNorm(const NDArray& a, const dmlc::optional<TShape>& axes, bool keepdims,
                   double ord) {
  if (ord == std::numeric_limits<double>::infinity()) return ReduceOp("_max", a, axes, keepdims);
  if (ord == -std::numeric_limits<double>::infinity()) {
    return ReduceOp("_min", a, axes, keepdims);
  }
  if (ord == 0) {
    const NDArray nonzero = CastTo(ScalarOp("_npi_not_equal_scalar", a, 0.0), a.tensor().dtype);
    return ReduceOp("_sum", nonzero, axes, keepdims);
  }
  if (ord == 1) return ReduceOp("_sum", a, axes, keepdims);
  if (ord == 2) {
    return UnaryOp("_npi_sqrt", ReduceOp("_sum", UnaryOp("_npi_square", a), axes, keepdims));
  }
  const NDArray sum = ReduceOp("_sum", ScalarOp("_npi_power_scalar", a, ord), axes, keepdims);
  return ScalarOp("_npi_power_scalar", sum, 1.0 / ord);
}

}  // namespace

MXFFI_REGISTER_API("np.linalg.inv")
    .describe("The inverse of each square matrix of x (..., M, M); LinAlgError when singular.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x_arg) {
      constexpr const char* fname = "np.linalg.inv";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, true);
      return OnDevice(la::Inv(LapackInput(x, fname), fname), x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg.solve")
    .describe(
        "x with x1 @ x == x2 for x1 (..., M, M): x2 is a vector (M,) when 1-D, else a stack "
        "(..., M, K); the leading axes broadcast (numpy 2 and the array API). LinAlgError when "
        "x1 is singular.")
    .arg("x1")
    .arg("x2")
    .positional_only()
    .set_body_typed([](NDArrayLike x1_arg, NDArrayLike x2_arg) {
      constexpr const char* fname = "np.linalg.solve";
      const NDArray x1 = DenseArray(x1_arg, fname), x2 = DenseArray(x2_arg, fname);
      CheckStack(x1, fname, true);
      const DLTensor &t1 = x1.tensor(), &t2 = x2.tensor();
      MXFFI_CHECK(t2.ndim >= 1, LinAlgError)
          << fname << ": x2 must have at least one dimension, got a 0-d array";
      const int64_t m = t1.shape[t1.ndim - 1];
      const bool vector = t2.ndim == 1;
      const int64_t rows = vector ? t2.shape[0] : t2.shape[t2.ndim - 2];
      MXFFI_CHECK(rows == m, ValueError)
          << fname << ": x2 has " << rows << " rows but x1 is " << m << " x " << m << " (shapes "
          << NumpyShape(ShapeOf(x1)) << " and " << NumpyShape(ShapeOf(x2)) << ")";
      // Both LAPACK dtypes (real or complex floats): the promotion table has every pair.
      const DLDataType dtype =
          op::DTypeAt(op::PromoteIndex(op::DTypeRuleIndex(LapackDType(t1.dtype, fname)),
                                       op::DTypeRuleIndex(LapackDType(t2.dtype, fname))));
      NDArray a = CastTo(x1, dtype), b = CastTo(x2, dtype);
      if (vector) {
        const int64_t col[2] = {m, 1};
        int64_t st[1];
        ElementStrides(t2, st);
        const int64_t col_strides[2] = {st[0], 0};
        b = NDArray::View(b, col, col_strides, 2, 0);
      }
      TShape batch;
      op::BroadcastShapes(TShape(a.tensor().shape, a.tensor().ndim - 2),
                          TShape(b.tensor().shape, b.tensor().ndim - 2), &batch, fname);
      TShape ashape = batch, bshape = batch;
      ashape.push_back(m);
      ashape.push_back(m);
      bshape.push_back(m);
      bshape.push_back(b.tensor().shape[b.tensor().ndim - 1]);
      const DLDevice where = la::ComputeDevice(t1.device);
      const NDArray ha = OnDevice(Broadcast(a, ashape), where).Contiguous();
      const NDArray hb = OnDevice(Broadcast(b, bshape), where).Contiguous();
      NDArray x = la::Solve(ha, hb, fname);  // Solve reads them into its own workspaces
      if (vector) x = NDArray::View(x, x.tensor().shape, nullptr, x.tensor().ndim - 1, 0);
      return OnDevice(x, t1.device);
    });

MXFFI_REGISTER_API("np.linalg.det")
    .describe("The determinant of each square matrix of x (..., M, M).")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x_arg) {
      constexpr const char* fname = "np.linalg.det";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, true);
      return OnDevice(la::Det(LapackInput(x, fname), fname), x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg._slogdet")
    .describe(
        "[sign, logabsdet] of each square matrix of x: det = sign * exp(logabsdet); sign 0 and "
        "logabsdet -inf for a singular matrix (np.linalg.slogdet gives them as a named tuple).")
    .arg("x")
    .positional_only()
    .returns_list()
    .set_body_typed([](NDArrayLike x_arg) {
      constexpr const char* fname = "np.linalg.slogdet";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, true);
      NDArray sign, logabs;
      la::Slogdet(LapackInput(x, fname), &sign, &logabs, fname);
      return ResultsOn({sign, logabs}, x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg.cholesky")
    .describe(
        "The Cholesky factor of each Hermitian positive-definite matrix of x: lower L with x = "
        "L @ L^H, or upper U with x = U^H @ U when upper=True; only that triangle of x is read. "
        "LinAlgError when a matrix is not positive definite.")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("upper", false)
    .set_body_typed([](NDArrayLike x_arg, bool upper) {
      constexpr const char* fname = "np.linalg.cholesky";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, true);
      return OnDevice(la::Cholesky(LapackInput(x, fname), upper, fname), x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg._qr")
    .describe(
        "[Q, R] of each matrix of x (..., M, N), K = min(M, N): mode 'reduced' gives Q (M, K) "
        "and R (K, N), 'complete' Q (M, M) and R (M, N), 'r' only R (K, N) (np.linalg.qr gives "
        "them as a named tuple).")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("mode", "reduced")
    .returns_list()
    .set_body_typed([](NDArrayLike x_arg, String mode) {
      constexpr const char* fname = "np.linalg.qr";
      const NDArray x = DenseArray(x_arg, fname);
      const std::string m = mode;
      MXFFI_CHECK(m == "reduced" || m == "complete" || m == "r", ValueError)
          << fname << ": Unrecognized mode '" << m << "'; expected 'reduced', 'complete' or 'r'";
      CheckStack(x, fname, false);
      NDArray q, r;
      la::Qr(LapackInput(x, fname), m == "complete", m == "r" ? nullptr : &q, &r, fname);
      if (m == "r") return ResultsOn({r}, x.tensor().device);
      return ResultsOn({q, r}, x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg._eigh")
    .describe(
        "[eigenvalues, eigenvectors] of each Hermitian matrix of x: eigenvalues ascending, in "
        "x's real dtype; eigenvectors as the columns. UPLO ('L' or 'U') names the triangle "
        "read (np.linalg.eigh gives them as a named tuple).")
    .arg("x")
    .arg("UPLO", "L")
    .returns_list()
    .set_body_typed([](NDArrayLike x_arg, String uplo) {
      constexpr const char* fname = "np.linalg.eigh";
      const NDArray x = DenseArray(x_arg, fname);
      const std::string u = uplo;
      MXFFI_CHECK(u == "L" || u == "U", ValueError)
          << fname << ": UPLO argument must be 'L' or 'U', got '" << u << "'";
      CheckStack(x, fname, true);
      NDArray w, v;
      la::Eigh(LapackInput(x, fname), u == "L", &w, &v, fname);
      return ResultsOn({w, v}, x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg.eigvalsh")
    .describe(
        "The eigenvalues of each Hermitian matrix of x, ascending, in x's real dtype; UPLO "
        "('L' or 'U') names the triangle read.")
    .arg("x")
    .arg("UPLO", "L")
    .set_body_typed([](NDArrayLike x_arg, String uplo) {
      constexpr const char* fname = "np.linalg.eigvalsh";
      const NDArray x = DenseArray(x_arg, fname);
      const std::string u = uplo;
      MXFFI_CHECK(u == "L" || u == "U", ValueError)
          << fname << ": UPLO argument must be 'L' or 'U', got '" << u << "'";
      CheckStack(x, fname, true);
      NDArray w;
      la::Eigh(LapackInput(x, fname), u == "L", &w, nullptr, fname);
      return OnDevice(w, x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg._svd")
    .describe(
        "[U, S, Vh] with x = U @ diag(S) @ Vh for each matrix of x (..., M, N), K = min(M, N): "
        "S descending in x's real dtype; U (M, M) and Vh (N, N) when full_matrices, else (M, K) "
        "and (K, N) (np.linalg.svd gives them as a named tuple).")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("full_matrices", true)
    .returns_list()
    .set_body_typed([](NDArrayLike x_arg, bool full) {
      constexpr const char* fname = "np.linalg.svd";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, false);
      NDArray u, s, vh;
      la::Svd(LapackInput(x, fname), full, &u, &s, &vh, fname);
      return ResultsOn({u, s, vh}, x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg.svdvals")
    .describe("The singular values of each matrix of x, descending, in x's real dtype.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x_arg) {
      constexpr const char* fname = "np.linalg.svdvals";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, false);
      NDArray s;
      la::Svd(LapackInput(x, fname), false, nullptr, &s, nullptr, fname);
      return OnDevice(s, x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg.diagonal")
    .describe(
        "A view of the diagonal at offset (0: main, > 0 above, < 0 below) of each "
        "matrix of x (..., M, N): shape (..., K).")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("offset", 0)
    .set_body_typed([](NDArrayLike x_arg, int64_t offset) {
      return DiagonalView(DenseArray(x_arg, "np.linalg.diagonal"), offset, "np.linalg.diagonal");
    });

MXFFI_REGISTER_API("np.linalg.trace")
    .describe(
        "The sum of the diagonal at offset of each matrix of x (..., M, N), in dtype= when "
        "given, else as np.sum accumulates (bool and signed integers as int64, unsigned as "
        "uint64).")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("offset", 0)
    .arg("dtype", nullptr)
    .set_body_typed([](NDArrayLike x_arg, int64_t offset, DTypeLike dtype) {
      static const Op* sum = Op::Get("_sum");
      const NDArray d =
          DiagonalView(DenseArray(x_arg, "np.linalg.trace"), offset, "np.linalg.trace");
      op::ReduceParam p;
      p.axis = dmlc::optional<TShape>(TShape{-1});
      p.keepdims = false;
      if (dtype.has_value()) p.dtype = DTypeParam(dtype.value());
      return InvokeOp(sum, p, {d});
    });

MXFFI_REGISTER_API("np.linalg.outer")
    .describe("The outer product x1[:, None] * x2[None, :] of two 1-D arrays.")
    .arg("x1")
    .arg("x2")
    .positional_only()
    .set_body_typed([](NDArrayLike x1_arg, NDArrayLike x2_arg) {
      constexpr const char* fname = "np.linalg.outer";
      const NDArray x1 = DenseArray(x1_arg, fname), x2 = DenseArray(x2_arg, fname);
      MXFFI_CHECK(x1.tensor().ndim == 1 && x2.tensor().ndim == 1, ValueError)
          << fname << ": Input arrays must be one-dimensional, got shapes "
          << NumpyShape(ShapeOf(x1)) << " and " << NumpyShape(ShapeOf(x2));
      int64_t s1[1], s2[1];
      ElementStrides(x1.tensor(), s1);
      ElementStrides(x2.tensor(), s2);
      const int64_t col_shape[2] = {x1.tensor().shape[0], 1}, col_st[2] = {s1[0], 0};
      const int64_t row_shape[2] = {1, x2.tensor().shape[0]}, row_st[2] = {0, s2[0]};
      static const Op* mul = Op::Get("_npi_multiply");
      OpAttrs attrs;
      attrs.op = mul;
      NDArray in[2] = {NDArray::View(x1, col_shape, col_st, 2, 0),
                       NDArray::View(x2, row_shape, row_st, 2, 0)};
      return Invoke(attrs, Span<const NDArray>(in, 2));
    });

MXFFI_REGISTER_API("np.linalg.matrix_power")
    .describe(
        "Each square matrix of x raised to the integer power n by repeated squaring: the "
        "identity for n = 0, powers of the inverse for n < 0 (floating dtypes).")
    .arg("x")
    .arg("n")
    .positional_only()
    .set_body_typed([](NDArrayLike x_arg, int64_t n) {
      constexpr const char* fname = "np.linalg.matrix_power";
      NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, true);
      const DLTensor& t = x.tensor();
      if (n == 0) {
        NDArray eye = NDArray::Empty(t.shape, t.ndim, t.dtype, kCPU);
        MXFFI_TYPE_SWITCH_WITH_COMPLEX(t.dtype, fname, T, {
          T* p = static_cast<T*>(eye.data());
          const int64_t m = t.shape[t.ndim - 1], count = eye.numel();
          for (int64_t i = 0; i < count; ++i) p[i] = T((i % (m * m)) % (m + 1) == 0 ? 1 : 0);
        });
        return OnDevice(eye, t.device);
      }
      if (n < 0) {
        x = OnDevice(la::Inv(LapackInput(x, fname), fname), t.device);
        n = -n;
      }
      // Binary powering: result = prod of x^(2^i) over the set bits of n.
      NDArray result, square = x;
      bool have = false;
      while (true) {
        if (n & 1) {
          result = have ? Matmul(result, square) : square;
          have = true;
        }
        n >>= 1;
        if (n == 0) break;
        square = Matmul(square, square);
      }
      return result.same_as(x) ? NDArray::Copy(x.tensor()) : result;
    });

MXFFI_REGISTER_API("np.linalg.pinv")
    .describe(
        "The Moore-Penrose pseudo-inverse of each matrix of x from its SVD: singular values at "
        "most rtol * the largest are taken as zero (rtol: a number, or an array broadcast "
        "against the stack; None is max(M, N) * eps of x's dtype).")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("rtol", nullptr)
    .set_body_typed([](NDArrayLike x_arg, Optional<ArrayOrScalar> rtol) {
      constexpr const char* fname = "np.linalg.pinv";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, false);
      const NDArray a = LapackInput(x, fname);
      return OnDevice(la::Pinv(a, Rtol(&rtol, a, fname), fname), x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg.matrix_rank")
    .describe(
        "The rank of each matrix of x: the number of singular values above rtol * the largest "
        "(rtol: a number, or an array broadcast against the stack; None is max(M, N) * eps of "
        "x's dtype), as int64.")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("rtol", nullptr)
    .set_body_typed([](NDArrayLike x_arg, Optional<ArrayOrScalar> rtol) {
      constexpr const char* fname = "np.linalg.matrix_rank";
      const NDArray x = DenseArray(x_arg, fname);
      CheckStack(x, fname, false);
      const NDArray a = LapackInput(x, fname);
      return OnDevice(la::MatrixRank(a, Rtol(&rtol, a, fname), fname), x.tensor().device);
    });

MXFFI_REGISTER_API("np.linalg.vector_norm")
    .describe(
        "The vector norm of order ord of x over axis (None: all of x as one vector; an int or a "
        "tuple): 2 the Euclidean norm, inf/-inf the largest/smallest |x|, 0 the count of "
        "nonzeros, any other p (sum |x|**p)**(1/p). In x's real floating dtype (bool and "
        "integers: float64).")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("axis", nullptr)
    .arg("keepdims", false)
    .arg("ord", 2.0)
    .set_body_typed([](NDArrayLike x_arg, AxisLike axis, bool keepdims, double ord) {
      const NDArray x = DenseArray(x_arg, "np.linalg.vector_norm");
      dmlc::optional<TShape> axes;
      if (!axis.is_none()) axes = axis.axes();
      return VectorNorm(NormAbs(x), axes, keepdims, ord);
    });

MXFFI_REGISTER_API("np.linalg.matrix_norm")
    .describe(
        "The matrix norm of order ord of each matrix of x (..., M, N): 'fro' (Frobenius), 'nuc' "
        "(the sum of the singular values), 1/-1 the largest/smallest column sum of |x|, inf/-inf "
        "the largest/smallest row sum, 2/-2 the largest/smallest singular value.")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("keepdims", false)
    .arg("ord", "fro")
    .set_body_typed([](NDArrayLike x_arg, bool keepdims, NormOrder ord) {
      constexpr const char* fname = "np.linalg.matrix_norm";
      const NDArray x = DenseArray(x_arg, fname);
      MXFFI_CHECK(x.tensor().ndim >= 2, ValueError)
          << fname << ": x must have at least 2 dimensions, got shape " << NumpyShape(ShapeOf(x));
      const dmlc::optional<TShape> last2(TShape{-2, -1});
      NDArray r;
      if (ord.is_name) {
        const std::string& o = ord.name;
        if (o == "fro") {
          r = VectorNorm(NormAbs(x), last2, keepdims, 2.0);
        } else if (o == "nuc") {
          NDArray s;
          la::Svd(LapackInput(x, fname), false, nullptr, &s, nullptr, fname);
          r = ReduceOp("_sum", OnDevice(s, x.tensor().device), dmlc::optional<TShape>(TShape{-1}),
                       false);
        } else {
          MXFFI_THROW(ValueError) << fname << ": Invalid norm order '" << o << "' for matrices";
        }
      } else {
        const std::optional<double> v = ord.value;
        const double inf = std::numeric_limits<double>::infinity();
        if (*v == 2 || *v == -2) {
          NDArray s;
          la::Svd(LapackInput(x, fname), false, nullptr, &s, nullptr, fname);
          r = ReduceOp(*v > 0 ? "_max" : "_min", OnDevice(s, x.tensor().device),
                       dmlc::optional<TShape>(TShape{-1}), false);
        } else if (*v == 1 || *v == -1 || *v == inf || *v == -inf) {
          // 1: the column sums (over the rows, axis -2); inf: the row sums (axis -1).
          const bool cols = *v == 1 || *v == -1;
          const NDArray sums =
              ReduceOp("_sum", NormAbs(x), dmlc::optional<TShape>(TShape{cols ? -2 : -1}), false);
          r = ReduceOp(*v > 0 ? "_max" : "_min", sums, dmlc::optional<TShape>(TShape{-1}), false);
        } else {
          MXFFI_THROW(ValueError) << fname << ": Invalid norm order " << *v << " for matrices";
        }
      }
      if (keepdims && r.tensor().ndim == x.tensor().ndim - 2) {
        // The reductions above drop both matrix axes: put them back as extent 1.
        std::vector<int64_t> shape(r.tensor().shape, r.tensor().shape + r.tensor().ndim);
        shape.push_back(1);
        shape.push_back(1);
        return NDArray::View(r, shape.data(), nullptr, static_cast<int>(shape.size()), 0);
      }
      return r;
    });

MXFFI_REGISTER_API("np.linalg.cross")
    .describe(
        "The cross product of the 3-element vectors along axis of x1 and x2 (axis counted in "
        "their broadcast shape); the other axes broadcast.")
    .arg("x1")
    .arg("x2")
    .positional_only()
    .keyword_only()
    .arg("axis", -1)
    .set_body_typed([](NDArrayLike x1_arg, NDArrayLike x2_arg, int64_t axis) {
      constexpr const char* fname = "np.linalg.cross";
      const NDArray x1 = DenseArray(x1_arg, fname), x2 = DenseArray(x2_arg, fname);
      TShape shape;
      op::BroadcastShapes(ShapeOf(x1), ShapeOf(x2), &shape, fname);
      const int nd = static_cast<int>(shape.ndim());
      const int k = NormalizeAxis(axis, nd, fname);
      for (const NDArray* x : {&x1, &x2}) {
        const DLTensor& t = x->tensor();
        const int own = k - (nd - t.ndim);
        MXFFI_CHECK(own >= 0 && t.shape[own] == 3, ValueError)
            << fname << ": x1 and x2 must have 3 elements along axis " << axis << ", got shapes "
            << NumpyShape(ShapeOf(x1)) << " and " << NumpyShape(ShapeOf(x2));
      }
      // Component i of a (broadcast to shape): the view without axis k at offset i.
      auto component = [&](const NDArray& a, int i) {
        const NDArray b = Broadcast(a, shape);
        int64_t st[kMaxNDim], sh[kMaxNDim], out_st[kMaxNDim];
        ElementStrides(b.tensor(), st);
        int m = 0;
        for (int d = 0; d < nd; ++d) {
          if (d == k) continue;
          sh[m] = shape[d];
          out_st[m++] = st[d];
        }
        return NDArray::View(b, sh, out_st, m, i * st[k] * DataTypeBytes(b.tensor().dtype));
      };
      NDArray a[3], b[3];
      for (int i = 0; i < 3; ++i) {
        a[i] = component(x1, i);
        b[i] = component(x2, i);
      }
      const NDArray c[3] = {BinaryOp("_npi_subtract", BinaryOp("_npi_multiply", a[1], b[2]),
                                     BinaryOp("_npi_multiply", a[2], b[1])),
                            BinaryOp("_npi_subtract", BinaryOp("_npi_multiply", a[2], b[0]),
                                     BinaryOp("_npi_multiply", a[0], b[2])),
                            BinaryOp("_npi_subtract", BinaryOp("_npi_multiply", a[0], b[1]),
                                     BinaryOp("_npi_multiply", a[1], b[0]))};
      NDArray out = NDArray::Empty(shape.data(), nd, c[0].tensor().dtype, x1.tensor().device);
      for (int i = 0; i < 3; ++i) NDArray::CopyFromTo(c[i].tensor(), component(out, i).tensor());
      return out;
    });

}  // namespace api
}  // namespace mxffi
