/*!
 * \file tvm_ffi_lib.cc
 * \brief libmxb_tvm_ffi: the apache-tvm-ffi functions of the call-latency benchmark.
 *
 * Written as tvm-ffi's quick start shows: TVM_FFI_DLL_EXPORT_TYPED_FUNC over typed functions,
 * loaded in Python with tvm_ffi.load_module(path); ffi::String for strings and ffi::TensorView
 * (a borrowed DLTensor) for the numpy array.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include "kernels.h"

namespace ffi = tvm::ffi;

namespace {

// C++17 takes no lambda inside decltype, so the bodies are named functions (tvm-ffi's own
// examples do the same).
void Nop() { mxb_nop(); }
int64_t AddInt(int64_t a, int64_t b) { return mxb_add_int(a, b); }
double AddFloat(double a, double b) { return mxb_add_float(a, b); }

ffi::String EchoStr(ffi::String s) {
  mxb_str_t r = mxb_echo_str(s.data(), s.size());
  return ffi::String(r.data, r.size);
}

int64_t StrLen(ffi::String s) { return mxb_str_len(s.data(), s.size()); }

double Sum3(int64_t a, double b, ffi::String s) { return mxb_sum3(a, b, s.data(), s.size()); }

double FirstF64(ffi::TensorView a) {
  DLDataType dt = a.dtype();
  if (dt.code != kDLFloat || dt.bits != 64 || dt.lanes != 1 || !a.IsContiguous() ||
      a.device().device_type != kDLCPU) {
    TVM_FFI_THROW(TypeError) << "first_f64: expected a contiguous float64 CPU array";
  }
  const double* data =
      reinterpret_cast<const double*>(static_cast<const char*>(a.data_ptr()) + a.byte_offset());
  return mxb_first_f64(data, a.numel());
}

double First8(ffi::TensorView a0, ffi::TensorView a1, ffi::TensorView a2, ffi::TensorView a3,
              ffi::TensorView a4, ffi::TensorView a5, ffi::TensorView a6, ffi::TensorView a7) {
  const ffi::TensorView* in[8] = {&a0, &a1, &a2, &a3, &a4, &a5, &a6, &a7};
  const double* data[8];
  int64_t size[8];
  for (int i = 0; i < 8; ++i) {
    const ffi::TensorView& a = *in[i];
    DLDataType dt = a.dtype();
    if (dt.code != kDLFloat || dt.bits != 64 || dt.lanes != 1 || !a.IsContiguous() ||
        a.device().device_type != kDLCPU) {
      TVM_FFI_THROW(TypeError) << "first8: expected contiguous float64 CPU arrays";
    }
    data[i] =
        reinterpret_cast<const double*>(static_cast<const char*>(a.data_ptr()) + a.byte_offset());
    size[i] = a.numel();
  }
  return mxb_first8(data, size);
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(nop, Nop);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_float, AddFloat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo_str, EchoStr);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(str_len, StrLen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum3, Sum3);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(first_f64, FirstF64);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(first8, First8);
