/*!
 * \file tvm_ffi_np.cc
 * \brief libmxb_tvm_ffi_np: the apache-tvm-ffi side of benchmarks/bench_np_ops.py.
 *
 * Two global functions, registered when the library is loaded (TVM_FFI_STATIC_INIT_BLOCK +
 * reflection::GlobalDef, as tvm-ffi's own libraries register theirs) and fetched in Python with
 * tvm_ffi.get_global_func:
 *
 * - "mxb_np.zeros"(shape, dtype="float64") allocates a tensor with Tensor::FromNDAlloc and a
 *   malloc-based allocator (the example in tvm/ffi/container/tensor.h), zeroes its bytes and
 *   returns it. tvm-ffi typed functions take no default arguments, so this one is packed: one
 *   or two positional arguments, as a tvm-ffi user writes an optional argument.
 * - "mxb_np.tensor_first_f64"(x) reads the first element of a float64 CPU tensor passed as a
 *   borrowed ffi::TensorView: the same body as mxffi's testing.tensor_first_f64.
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdlib>
#include <cstring>

namespace ffi = tvm::ffi;

namespace {

/*! \brief The CPU allocator of tensor.h's FromNDAlloc example. */
struct CPUNDAlloc {
  void AllocData(DLTensor* tensor) {
    tensor->data = std::malloc(ffi::GetDataSize(*tensor));
    if (tensor->data == nullptr) TVM_FFI_THROW(RuntimeError) << "mxb_np.zeros: out of memory";
  }
  void FreeData(DLTensor* tensor) { std::free(tensor->data); }
};

void Zeros(ffi::PackedArgs args, ffi::Any* ret) {
  if (args.size() < 1 || args.size() > 2) {
    TVM_FFI_THROW(TypeError) << "mxb_np.zeros: expected 1 or 2 arguments, got " << args.size();
  }
  ffi::Shape shape = args[0].cast<ffi::Shape>();
  DLDataType dtype = args.size() == 2 ? args[1].cast<DLDataType>() : DLDataType{kDLFloat, 64, 1};
  ffi::Tensor out = ffi::Tensor::FromNDAlloc(CPUNDAlloc(), shape, dtype, DLDevice{kDLCPU, 0});
  std::memset(out.data_ptr(), 0, ffi::GetDataSize(out.numel(), out.dtype()));
  *ret = std::move(out);
}

double TensorFirstF64(ffi::TensorView x) {
  DLDataType dt = x.dtype();
  if (dt.code != kDLFloat || dt.bits != 64) {
    TVM_FFI_THROW(TypeError) << "mxb_np.tensor_first_f64: expected float64, got code "
                             << int(dt.code) << " bits " << int(dt.bits);
  }
  return static_cast<const double*>(x.data_ptr())[x.byte_offset() / sizeof(double)];
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::GlobalDef()
      .def_packed("mxb_np.zeros", Zeros)
      .def("mxb_np.tensor_first_f64", TensorFirstF64);
}
