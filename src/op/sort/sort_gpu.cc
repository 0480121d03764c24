/*!
 * \file sort_gpu.cc
 * \brief FCompute<gpu> of the sort ops (src/op/sort): the kernels of sort_op.h, written once for
 *  both devices, with a CUDA device's pieces (the kernels of sort.cu) in the op's stream.
 *  unique's checks (a position outside x, a count that is not x's) read the device count on
 *  the host.
 */
#include <mxffi/op/op.h>

#include "sort_cuda.h"
#include "sort_op.h"

namespace mxffi {
namespace op {
namespace {

constexpr DLDataType kInt64Type{kDLInt, 64, 1};
constexpr DLDevice kHost{kDLCPU, 0};

/*! \return the device int64 count, read on the host (waits for the stream). */
int64_t ReadCount(const DLTensor& count) {
  int64_t v = 0;
  DLTensor h{};
  h.data = &v;
  h.device = kHost;
  h.dtype = kInt64Type;
  NDArray::CopyFromTo(count, h);
  return v;
}

}  // namespace

void SortLines(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, int axis,
               bool descending, bool arg, const char* fname) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int d = axis + 1; d < x.ndim; ++d) inner *= x.shape[d];
  const int64_t n = x.shape[axis];
  int64_t size = 2 * outer * inner * n;
  NDArray scratch = NDArray::Empty(&size, 1, kInt64Type, ctx.device);
  cuda::SortLines(x, out, static_cast<int64_t*>(scratch.data()), outer, n, inner, descending, arg,
                  fname, ctx.stream);
}

void SearchSorted(gpu, const OpContext& ctx, const DLTensor& a, const DLTensor& v,
                  const DLTensor& out, bool right, const char* fname) {
  cuda::SearchSorted(a, v, out, right, fname, ctx.stream);
}

void UniqueCount(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& perm,
                 const DLTensor& out, bool equal_nan, const char* fname) {
  cuda::UniqueCount(x, DataPtr<const int64_t>(perm), DataPtr<int64_t>(out), equal_nan, fname,
                    ctx.stream);
  if (ReadCount(out) < 0) ThrowBadPermutation(x.shape[0], fname);
}

void Unique(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& perm,
            Span<const DLTensor> out, int64_t count, bool equal_nan, const char* fname) {
  // Checked first, so that the writes of the unique pass stay inside the outputs.
  NDArray found = NDArray::Empty(nullptr, 0, kInt64Type, ctx.device);
  UniqueCount(gpu{}, ctx, x, perm, found.tensor(), equal_nan, fname);
  const int64_t groups = ReadCount(found.tensor());
  if (groups != count) ThrowUniqueCount(groups, count, fname);
  cuda::Unique(x, DataPtr<const int64_t>(perm), out.data(), equal_nan, fname, ctx.stream);
}

MXFFI_EXTEND_OP(_npi_sort).set_attr<FCompute>("FCompute<gpu>", SortCompute<gpu, false>);
MXFFI_EXTEND_OP(_npi_argsort).set_attr<FCompute>("FCompute<gpu>", SortCompute<gpu, true>);
MXFFI_EXTEND_OP(_npi_searchsorted).set_attr<FCompute>("FCompute<gpu>", SearchSortedCompute<gpu>);
MXFFI_EXTEND_OP(_npi_unique_count).set_attr<FCompute>("FCompute<gpu>", UniqueCountCompute<gpu>);
MXFFI_EXTEND_OP(_npi_unique).set_attr<FCompute>("FCompute<gpu>", UniqueCompute<gpu>);

}  // namespace op
}  // namespace mxffi
