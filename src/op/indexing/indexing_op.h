/*!
 * \file indexing_op.h
 * \brief The indexing ops: _npi_advanced_gather (x[i_0, ..., i_{k-1}] over consecutive axes),
 *  _npi_advanced_scatter (the same positions written), _npi_count_nonzero and _npi_nonzero.
 *  Their FCompute templates are written once for both devices; each device gives the pieces
 *  (indexing_op.cc for the CPU, indexing_gpu.cc for a CUDA device, in the context's stream).
 *
 * numpy's key normalisation (basic indices as views, masks through nonzero, index arrays
 * broadcast to one shape and their axes moved together) happens before these ops: each sees
 * k index arrays of one shape B indexing the axes axis..axis+k-1 of x.
 */
#ifndef MXFFI_SRC_OP_INDEXING_INDEXING_OP_H_
#define MXFFI_SRC_OP_INDEXING_INDEXING_OP_H_

#include <mxffi/op/param.h>

#include <cstdint>
#include <vector>

#include "../dtype.h"
#include "../overlap.h"
#include "../xpu.h"
#include "index_layout.h"

namespace mxffi {
namespace op {

/*! \brief _npi_advanced_gather and _npi_advanced_scatter. */
struct AdvancedIndexParam : public dmlc::Parameter<AdvancedIndexParam> {
  int num_args;
  int axis;
  DMLC_DECLARE_PARAMETER(AdvancedIndexParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(2).describe(
        "The number of inputs: x, (for the scatter) values, and the index arrays, at least "
        "one.");
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The first axis of x the index arrays index (negative counts from the end).");
  }
};

/*! \brief _npi_nonzero: the number of nonzero elements (what _npi_count_nonzero gives). */
struct NonzeroParam : public dmlc::Parameter<NonzeroParam> {
  int64_t count;
  DMLC_DECLARE_PARAMETER(NonzeroParam) {
    DMLC_DECLARE_FIELD(count).set_lower_bound(0).describe(
        "The number of nonzero elements of x (the output's second extent); checked.");
  }
};

/*! \return idx as int64: idx itself (borrowed) when it is, else a converted copy. */
NDArray IndexAsInt64(const DLTensor& idx);

/*! \return values converted to dtype as numpy's assignment converts them (astype, unsafe). */
NDArray CastValues(const NDArray& values, DLDataType dtype);

/*! \brief IndexError unless every element of the int64 idx (any strides) is in [-size, size). */
void CheckIndexRange(cpu, const OpContext& ctx, const DLTensor& idx, int64_t size, int axis,
                     const char* fname);
void CheckIndexRange(gpu, const OpContext& ctx, const DLTensor& idx, int64_t size, int axis,
                     const char* fname);

/*!
 * \brief The index arrays of a call as int64 (IndexAsInt64), each checked to be in range for
 *  its axis of x: IndexError with numpy's text ("index 5 is out of bounds for axis 1 with size
 *  3").
 */
template <typename xpu>
std::vector<NDArray> CheckedIndices(const OpContext& ctx, const DLTensor& x,
                                    Span<const DLTensor> idx, int axis, const char* fname) {
  std::vector<NDArray> out(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    out[i] = IndexAsInt64(idx[i]);
    const int a = axis + static_cast<int>(i);
    CheckIndexRange(xpu{}, ctx, out[i].tensor(), x.shape[a], a, fname);
  }
  return out;
}

/*!
 * \brief The layout of a gather or scatter over x (the array read or written) by the int64
 *  index arrays idx at axis; values (broadcast to the index space) for a scatter, else NULL.
 */
void MakeLayout(const DLTensor& x, const std::vector<NDArray>& idx, int axis,
                const DLTensor* values, indexing::IndexLayout* layout);

/*! \return axis normalised for x's ndim and k index arrays; IndexError when they do not fit. */
int IndexAxis(int axis, int ndim, int k, const char* fname);

// ---- the device pieces ----------------------------------------------------------------------

/*! \brief out (C-contiguous) = x gathered through the layout. */
void Gather(cpu, const OpContext& ctx, const indexing::IndexLayout& layout, const DLTensor& x,
            const DLTensor& out, const char* fname);
void Gather(gpu, const OpContext& ctx, const indexing::IndexLayout& layout, const DLTensor& x,
            const DLTensor& out, const char* fname);

/*!
 * \brief out (any strides) at the layout's positions = values (out's dtype); where positions
 *  repeat, the last in C order of the index space wins, as numpy's sequential assignment.
 */
void Scatter(cpu, const OpContext& ctx, const indexing::IndexLayout& layout, const DLTensor& values,
             const DLTensor& out, const char* fname);
void Scatter(gpu, const OpContext& ctx, const indexing::IndexLayout& layout, const DLTensor& values,
             const DLTensor& out, const char* fname);

/*! \brief out (0-d int64) = the number of nonzero elements of x (any strides). */
void CountNonzero(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out,
                  const char* fname);
void CountNonzero(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out,
                  const char* fname);

/*!
 * \brief out (ndim, count) int64: row d holds the d-th coordinate of each nonzero element of x
 *  (any strides), in C order; ValueError when x has another number of them than count.
 */
void Nonzero(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, int64_t count,
             const char* fname);
void Nonzero(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, int64_t count,
             const char* fname);

/*! \brief ValueError: x has found nonzero elements, not count. */
[[noreturn]] void ThrowNonzeroCount(int64_t found, int64_t count, const char* fname);

// ---- the kernels, for both devices ----------------------------------------------------------

/*! \brief _npi_advanced_gather: inputs (x, i_0, ..., i_{k-1}). */
template <typename xpu>
void AdvancedGatherCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                           Span<const OpReqType>, Span<const DLTensor> out) {
  const AdvancedIndexParam& p = attrs.get<AdvancedIndexParam>();
  const char* fname = attrs.op->name.c_str();
  const int k = p.num_args - 1;
  const int axis = IndexAxis(p.axis, in[0].ndim, k, fname);
  std::vector<NDArray> idx =
      CheckedIndices<xpu>(ctx, in[0], Span<const DLTensor>(in.data() + 1, k), axis, fname);
  if (NumElements(out[0]) == 0) return;
  indexing::IndexLayout layout;
  MakeLayout(in[0], idx, axis, nullptr, &layout);
  Gather(xpu{}, ctx, layout, in[0], out[0], fname);
}

/*!
 * \brief _npi_advanced_scatter: inputs (x, values, i_0, ..., i_{k-1}); out is x with the
 *  indexed positions set (x itself when the caller passes it as out, kWriteInplace).
 */
template <typename xpu>
void AdvancedScatterCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                            Span<const OpReqType> req, Span<const DLTensor> out) {
  const AdvancedIndexParam& p = attrs.get<AdvancedIndexParam>();
  const char* fname = attrs.op->name.c_str();
  const int k = p.num_args - 2;
  const int axis = IndexAxis(p.axis, in[0].ndim, k, fname);
  std::vector<NDArray> idx =
      CheckedIndices<xpu>(ctx, in[0], Span<const DLTensor>(in.data() + 2, k), axis, fname);
  NDArray values = NDArray::FromBorrowed(in[1]);
  if (req[0] != OpReqType::kWriteInplace) {
    NDArray::CopyFromTo(in[0], out[0]);
  } else {
    // out is x itself. An index array or values that are x too (x[x] = v, x[i] = x) are read
    // while x is written: they are copied first, as numpy reads them before it writes.
    for (NDArray& i : idx) {
      if (SameElements(i.tensor(), out[0])) i = NDArray::Copy(i.tensor());
    }
    if (SameElements(in[1], out[0])) values = NDArray::Copy(in[1]);
  }
  if (!SameDType(in[1].dtype, out[0].dtype)) values = CastValues(values, out[0].dtype);
  indexing::IndexLayout layout;
  MakeLayout(out[0], idx, axis, &values.tensor(), &layout);
  if (layout.size == 0) return;
  Scatter(xpu{}, ctx, layout, values.tensor(), out[0], fname);
}

/*! \brief _npi_count_nonzero. */
template <typename xpu>
void CountNonzeroCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                         Span<const OpReqType>, Span<const DLTensor> out) {
  CountNonzero(xpu{}, ctx, in[0], out[0], attrs.op->name.c_str());
}

/*! \brief _npi_nonzero. */
template <typename xpu>
void NonzeroCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                    Span<const OpReqType>, Span<const DLTensor> out) {
  Nonzero(xpu{}, ctx, in[0], out[0], attrs.get<NonzeroParam>().count, attrs.op->name.c_str());
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_INDEXING_INDEXING_OP_H_
