/*!
 * \file indexing_gpu.cc
 * \brief FCompute<gpu> of the indexing ops (src/op/indexing): the kernels of indexing_op.h,
 *  written once for both devices, with a CUDA device's pieces (the kernels of indexing.cu) in
 *  the op's stream.
 *
 * Three steps need the host: an index out of range (the error names its value), the nonzero
 * blocks' starts (a prefix sum over at most 1,024 counts), and a scatter's repeated index
 * tuples (numpy's sequential "last write wins", which concurrent writes do not give: the host
 * marks the last of each repeated tuple and only those write).
 */
#include <mxffi/op/op.h>

#include <unordered_map>
#include <vector>

#include "indexing_cuda.h"
#include "indexing_op.h"

namespace mxffi {
namespace op {
namespace {

using indexing::IndexLayout;

constexpr DLDataType kInt64Type{kDLInt, 64, 1};
constexpr DLDataType kUInt8Type{kDLUInt, 8, 1};
constexpr DLDevice kHost{kDLCPU, 0};

NDArray DeviceArray(int64_t n, DLDataType dtype, DLDevice device) {
  return NDArray::Empty(&n, 1, dtype, device);
}

/*! \return a C-contiguous host copy of t (waits for the stream). */
NDArray ToHost(const DLTensor& t) {
  NDArray h = NDArray::Empty(t.shape, t.ndim, t.dtype, kHost);
  NDArray::CopyFromTo(t, h.tensor());
  return h;
}

/*! \return host bytes [p, p + n) as a DLTensor. */
DLTensor HostBytes(const void* p, int64_t* n) {
  DLTensor t{};
  t.data = const_cast<void*>(p);
  t.device = kHost;
  t.ndim = 1;
  t.dtype = kUInt8Type;
  t.shape = n;
  return t;
}

/*! \return the layout copied to device memory. */
NDArray LayoutOnDevice(const IndexLayout& l, DLDevice device) {
  int64_t n = sizeof(IndexLayout);
  NDArray d = DeviceArray(n, kUInt8Type, device);
  NDArray::CopyFromTo(HostBytes(&l, &n), d.tensor());
  return d;
}

/*!
 * \return a device byte per position of B (C order): 1 for the last position of each index
 *  tuple; undefined when no tuple repeats.
 */
NDArray LastOfRepeated(const IndexLayout& l, DLDevice device) {
  int64_t nb = 1;
  for (int j = 0; j < l.bdim; ++j) nb *= l.shape[l.bfirst + j];
  if (nb <= 1) return NDArray();
  std::vector<NDArray> host(l.k);
  for (int i = 0; i < l.k; ++i) {
    DLTensor t{};
    t.data = const_cast<int64_t*>(l.idx[i]);
    t.device = device;
    t.ndim = l.bdim;
    t.dtype = kInt64Type;
    t.shape = const_cast<int64_t*>(l.shape + l.bfirst);
    t.strides = const_cast<int64_t*>(l.idx_stride[i]);
    host[i] = ToHost(t);
  }
  // One int64 key per tuple: its position in the indexed axes (which fits: x has that many
  // elements).
  std::vector<int64_t> keys(static_cast<size_t>(nb));
  for (int64_t b = 0; b < nb; ++b) {
    int64_t key = 0;
    for (int i = 0; i < l.k; ++i) {
      int64_t v = static_cast<const int64_t*>(host[i].data())[b];
      if (v < 0) v += l.axis_size[i];
      key = key * l.axis_size[i] + v;
    }
    keys[b] = key;
  }
  std::unordered_map<int64_t, int64_t> last;
  last.reserve(static_cast<size_t>(nb));
  for (int64_t b = 0; b < nb; ++b) last[keys[b]] = b;
  if (static_cast<int64_t>(last.size()) == nb) return NDArray();
  NDArray keep = NDArray::Empty(&nb, 1, kUInt8Type, kHost);
  uint8_t* k = static_cast<uint8_t*>(keep.data());
  for (int64_t b = 0; b < nb; ++b) k[b] = last[keys[b]] == b ? 1 : 0;
  NDArray d = DeviceArray(nb, kUInt8Type, device);
  NDArray::CopyFromTo(keep.tensor(), d.tensor());
  return d;
}

}  // namespace

void CheckIndexRange(gpu, const OpContext& ctx, const DLTensor& idx, int64_t size, int axis,
                     const char* fname) {
  const int64_t n = NumElements(idx);
  if (n == 0) return;
  NDArray first = DeviceArray(1, kInt64Type, idx.device);
  cuda::FirstIndexOutOfRange(idx, size, static_cast<int64_t*>(first.data()), fname, ctx.stream);
  const int64_t pos = *static_cast<const int64_t*>(ToHost(first.tensor()).data());
  if (pos >= n) return;
  // The offending element, copied alone: a 0-d view of it.
  int64_t strides[kMaxNDim];
  if (idx.strides != nullptr) {
    for (int d = 0; d < idx.ndim; ++d) strides[d] = idx.strides[d];
  } else {
    NDArray::CompactStrides(idx, strides);
  }
  int64_t off = 0, rem = pos;
  for (int d = idx.ndim - 1; d >= 0; --d) {
    off += (rem % idx.shape[d]) * strides[d];
    rem /= idx.shape[d];
  }
  DLTensor one = idx;
  one.ndim = 0;
  one.shape = nullptr;
  one.strides = nullptr;
  one.byte_offset += static_cast<uint64_t>(off * 8);
  const int64_t v = *static_cast<const int64_t*>(ToHost(one).data());
  MXFFI_THROW(IndexError) << "index " << v << " is out of bounds for axis " << axis << " with size "
                          << size;
}

void Gather(gpu, const OpContext& ctx, const IndexLayout& l, const DLTensor& x, const DLTensor& out,
            const char* fname) {
  NDArray d = LayoutOnDevice(l, x.device);
  cuda::Gather(static_cast<const IndexLayout*>(d.data()), l.size, x, out, fname, ctx.stream);
}

void Scatter(gpu, const OpContext& ctx, const IndexLayout& l, const DLTensor& values,
             const DLTensor& out, const char* fname) {
  NDArray keep = LastOfRepeated(l, out.device);
  NDArray d = LayoutOnDevice(l, out.device);
  cuda::Scatter(static_cast<const IndexLayout*>(d.data()), l.size, values, out,
                keep.defined() ? static_cast<const uint8_t*>(keep.data()) : nullptr, fname,
                ctx.stream);
}

void CountNonzero(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out,
                  const char* fname) {
  cuda::CountNonzero(x, DataPtr<int64_t>(out), fname, ctx.stream);
}

void Nonzero(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, int64_t count,
             const char* fname) {
  const int64_t n = NumElements(x);
  if (n == 0) {
    if (count != 0) ThrowNonzeroCount(0, count, fname);
    return;
  }
  const int blocks = cuda::NonzeroBlocks(n);
  NDArray counts = DeviceArray(blocks, kInt64Type, x.device);
  cuda::NonzeroBlockCounts(x, static_cast<int64_t*>(counts.data()), fname, ctx.stream);
  NDArray starts = ToHost(counts.tensor());
  int64_t* s = static_cast<int64_t*>(starts.data());
  int64_t total = 0;
  for (int b = 0; b < blocks; ++b) {
    const int64_t c = s[b];
    s[b] = total;
    total += c;
  }
  if (total != count) ThrowNonzeroCount(total, count, fname);
  NDArray::CopyFromTo(starts.tensor(), counts.tensor());
  cuda::NonzeroWrite(x, static_cast<const int64_t*>(counts.data()), DataPtr<int64_t>(out), count,
                     fname, ctx.stream);
}

MXFFI_EXTEND_OP(_npi_advanced_gather)
    .set_attr<FCompute>("FCompute<gpu>", AdvancedGatherCompute<gpu>);
MXFFI_EXTEND_OP(_npi_advanced_scatter)
    .set_attr<FCompute>("FCompute<gpu>", AdvancedScatterCompute<gpu>);
MXFFI_EXTEND_OP(_npi_count_nonzero).set_attr<FCompute>("FCompute<gpu>", CountNonzeroCompute<gpu>);
MXFFI_EXTEND_OP(_npi_nonzero).set_attr<FCompute>("FCompute<gpu>", NonzeroCompute<gpu>);

}  // namespace op
}  // namespace mxffi
