/*!
 * \file tri_op.cc
 * \brief _npi_tril and _npi_triu (np.tril, np.triu): inference and the CPU kernel.
 */
#include "tri_op.h"

#include <mxffi/ndarray/ndarray.h>

#include "../dtype.h"
#include "../elemwise/strided_loop.h"
#include "../parallel.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief A stack of matrices (at least 2 dimensions); the output has its shape. */
void TriShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  MXFFI_CHECK(in[0].ndim() >= 2, ValueError)
      << attrs.op->name << ": input array must be at least 2-dimensional, but it is "
      << in[0].ndim();
  out[0] = in[0];
}

/*! \brief Any dtype of 1, 2, 4, 8 or 16 bytes (the elements move as bits); the output's is x's. */
void TriType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const int64_t bytes = DataTypeBytes(in[0]);
  MXFFI_CHECK(
      in[0].lanes == 1 && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16),
      TypeError)
      << attrs.op->name << ": unsupported dtype " << DataTypeToString(in[0]);
  out[0] = in[0];
}

template <typename U>
void TriKernel(const DLTensor& x, const DLTensor& out, tri::TriMask mask) {
  const int64_t n = NumElements(out);
  const DLTensor* ins[1] = {&x};
  const elemwise::StridedLoop<2> loop(out, ins);
  const U* src = DataPtr<const U>(x);
  U* dst = DataPtr<U>(out);
  ParallelFor(n, 1, [&](int64_t begin, int64_t end) {
    int64_t pos = begin;  // the output's flat index, which the mask reads
    loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
      const int64_t ostep = loop.stride[0][loop.ndim - 1], step = loop.stride[1][loop.ndim - 1];
      U* o = dst + off[0];
      const U* s = src + off[1];
      for (int64_t j = 0; j < len; ++j) {
        o[j * ostep] = mask.Keep(pos + j) ? s[j * step] : tri::Zero<U>();
      }
      pos += len;
    });
  });
}

}  // namespace

void Tri(cpu, const OpContext&, const DLTensor& x, const DLTensor& out, tri::TriMask mask,
         const char* fname) {
  if (NumElements(out) == 0) return;
  switch (DataTypeBytes(x.dtype)) {
    case 1:
      return TriKernel<uint8_t>(x, out, mask);
    case 2:
      return TriKernel<uint16_t>(x, out, mask);
    case 4:
      return TriKernel<uint32_t>(x, out, mask);
    case 8:
      return TriKernel<uint64_t>(x, out, mask);
    case 16:
      return TriKernel<tri::Bytes16>(x, out, mask);
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported dtype " << DataTypeToString(x.dtype);
  }
}

DMLC_REGISTER_PARAMETER(TriParam);

MXFFI_REGISTER_OP(_npi_tril)
    .describe("x (at least 2-d) with the elements above the k-th diagonal of each matrix zeroed.")
    .add_argument("x", "NDArray", "the stack of matrices")
    .set_param<TriParam>()
    .set_attr<FInferShape>("FInferShape", TriShape)
    .set_attr<FInferType>("FInferType", TriType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", TriCompute<cpu, true>);

MXFFI_REGISTER_OP(_npi_triu)
    .describe("x (at least 2-d) with the elements below the k-th diagonal of each matrix zeroed.")
    .add_argument("x", "NDArray", "the stack of matrices")
    .set_param<TriParam>()
    .set_attr<FInferShape>("FInferShape", TriShape)
    .set_attr<FInferType>("FInferType", TriType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FCompute>("FCompute<cpu>", TriCompute<cpu, false>);

}  // namespace op
}  // namespace mxffi
