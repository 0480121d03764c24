/*!
 * \file where_op.cc
 * \brief _npi_where (np.where of three arguments): inference and the CPU kernel.
 *
 * The kernel is instantiated per element size (where moves elements, it computes nothing), and
 * reads a bool condition in place. A condition of another dtype is read through a converter to
 * bool (c != 0, NaN true, a complex number true when either part is nonzero) kBlock elements at
 * a time into a stack buffer, as the elementwise kernels read mixed dtypes: no temporary array.
 * Three contiguous inputs of the output's shape take a flat loop; every other layout the
 * strided loop of the elementwise ops (StridedLoop: broadcast dimensions have stride 0,
 * neighbours merged), split across the kernel pool above the threads' threshold.
 */
#include "where_op.h"

#include <algorithm>
#include <cstdint>

#include "../dtype.h"
#include "../elemwise/broadcast.h"
#include "../elemwise/elemwise.h"
#include "../promote.h"
#include "where_functors.h"

namespace mxffi {
namespace op {
namespace {

constexpr const char* kName = "np.where";

/*! \brief The broadcast of the three shapes (numpy's rule and message). */
void WhereShape(const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
  int nd = 0;
  for (int k = 0; k < 3; ++k) nd = std::max(nd, in[k].ndim());
  TShape& shape = out[0];
  shape.resize(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t extent = 1;
    for (int k = 0; k < 3; ++k) {
      const int j = i - (nd - in[k].ndim());
      const int64_t e = j >= 0 ? in[k][j] : 1;
      if (e == extent || e == 1) continue;
      if (extent != 1) {
        MXFFI_THROW(ValueError) << kName
                                << ": operands could not be broadcast together with shapes "
                                << NumpyShapeString(in[0]) << " " << NumpyShapeString(in[1]) << " "
                                << NumpyShapeString(in[2]);
      }
      extent = e;
    }
    shape[i] = extent;
  }
}

/*! \brief condition: any dtype; x and y: one dtype, which the output takes. */
void WhereType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  MXFFI_CHECK(DTypeRuleIndex(in[0]) >= 0, TypeError)
      << kName << ": unsupported condition dtype " << DataTypeToString(in[0]);
  MXFFI_CHECK(DTypeRuleIndex(in[1]) >= 0, TypeError)
      << kName << ": unsupported dtype " << DataTypeToString(in[1]);
  MXFFI_CHECK(SameDType(in[1], in[2]), TypeError)
      << kName << ": x1 and x2 must have one dtype (promoted by the caller); got "
      << DataTypeToString(in[1]) << " and " << DataTypeToString(in[2]);
  out[0] = in[1];
}

/*! \brief o[i] = c[i] ? x[i] : y[i] over n contiguous elements: a select the compiler vectorizes.
 */
template <typename U>
void SelectContiguous(const uint8_t* __restrict c, const U* __restrict x, const U* __restrict y,
                      U* __restrict o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = where::Select(c[i], x[i], y[i]);
}

/*! \brief The select along one run, each operand moving by its own element stride. */
template <typename U>
void SelectRun(const uint8_t* c, int64_t sc, const U* x, int64_t sx, const U* y, int64_t sy, U* o,
               int64_t so, int64_t n) {
  if (sc == 1 && sx == 1 && sy == 1 && so == 1) return SelectContiguous(c, x, y, o, n);
  for (int64_t i = 0; i < n; ++i) o[i * so] = where::Select(c[i * sc], x[i * sx], y[i * sy]);
}

/*! \return whether t is C-contiguous with exactly shape's extents (no broadcasting). */
bool DenseAs(const DLTensor& t, const DLTensor& shape) {
  if (t.ndim != shape.ndim || !NDArray::IsContiguous(t)) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != shape.shape[d]) return false;
  }
  return true;
}

template <typename U>
void WhereKernel(const DLTensor& c, const DLTensor& x, const DLTensor& y, const DLTensor& out,
                 int64_t n) {
  const U* px = DataPtr<const U>(x);
  const U* py = DataPtr<const U>(y);
  U* po = DataPtr<U>(out);
  const elemwise::ConvertFn<bool> convert = elemwise::GetConverter<bool>(c.dtype, kName);
  if (convert == nullptr && DenseAs(c, out) && DenseAs(x, out) && DenseAs(y, out)) {
    const uint8_t* pc = DataPtr<const uint8_t>(c);
    elemwise::RunParallel(n, 1, [&](int64_t begin, int64_t end) {
      SelectContiguous(pc + begin, px + begin, py + begin, po + begin, end - begin);
    });
    return;
  }
  const DLTensor* ins[3] = {&c, &x, &y};
  const elemwise::StridedLoop<4> loop(out, ins);
  const int last = loop.ndim - 1;
  const int64_t so = loop.stride[0][last], sc = loop.stride[1][last];
  const int64_t sx = loop.stride[2][last], sy = loop.stride[3][last];
  const char* cbase = DataPtr<const char>(c);
  const int64_t cbytes = DataTypeBytes(c.dtype);
  elemwise::RunParallel(n, 1, [&](int64_t begin, int64_t end) {
    loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
      const U* xs = px + off[2];
      const U* ys = py + off[3];
      U* o = po + off[0];
      const char* cs = cbase + off[1] * cbytes;
      if (convert == nullptr) {
        SelectRun(reinterpret_cast<const uint8_t*>(cs), sc, xs, sx, ys, sy, o, so, len);
        return;
      }
      bool buf[elemwise::kBlock];
      if (sc == 0) {  // one condition value for the whole run
        convert(cs, 0, buf, 1);
        SelectRun(reinterpret_cast<const uint8_t*>(buf), 0, xs, sx, ys, sy, o, so, len);
        return;
      }
      for (int64_t i = 0; i < len; i += elemwise::kBlock) {
        const int64_t m = std::min(elemwise::kBlock, len - i);
        convert(cs + i * sc * cbytes, sc, buf, m);
        SelectRun(reinterpret_cast<const uint8_t*>(buf), 1, xs + i * sx, sx, ys + i * sy, sy,
                  o + i * so, so, m);
      }
    });
  });
}

}  // namespace

void Where(cpu, const OpContext&, const DLTensor& c, const DLTensor& x, const DLTensor& y,
           const DLTensor& out) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  switch (DataTypeBytes(x.dtype)) {
    case 1:
      return WhereKernel<uint8_t>(c, x, y, out, n);
    case 2:
      return WhereKernel<uint16_t>(c, x, y, out, n);
    case 4:
      return WhereKernel<uint32_t>(c, x, y, out, n);
    case 8:
      return WhereKernel<uint64_t>(c, x, y, out, n);
    case 16:
      return WhereKernel<where::Bytes16>(c, x, y, out, n);
    default:
      ThrowUnsupportedDType(kName, x.dtype);
  }
}

MXFFI_REGISTER_OP(_npi_where)
    .describe(
        "x where condition is nonzero, else y, elementwise; the three broadcast together. x and "
        "y have one dtype, which the output takes; condition may have any dtype (NaN is true).")
    .set_num_inputs(3)
    .add_argument("condition", "NDArray", "where to take x (read as condition != 0)")
    .add_argument("x", "NDArray", "the elements taken where condition is true")
    .add_argument("y", "NDArray", "the elements taken where condition is false")
    .set_attr<FInferShape>("FInferShape", WhereShape)
    .set_attr<FInferType>("FInferType", WhereType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", WhereCompute<cpu>);

}  // namespace op
}  // namespace mxffi
