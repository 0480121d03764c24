// The kernels my_ops.cc registers but other files define.
// [header.begin]
#ifndef MY_OPS_H_
#define MY_OPS_H_

#include <mxffi/lib_api.h>

#include <vector>

// my_gemm's kernel for "gpu", in my_gemm.cu (built when CMake finds a CUDA compiler).
mxffi::oplib::Status GemmForwardGPU(const mxffi::oplib::Attrs& attrs,
                                    const std::vector<mxffi::oplib::Tensor>& in,
                                    const std::vector<mxffi::oplib::Tensor>& out,
                                    const mxffi::oplib::Resource& res);

#endif  // MY_OPS_H_
// [header.end]
