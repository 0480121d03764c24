// An op library built against the op-library ABI 1.0 header as it was frozen
// (tests/abi/op_library_1_0/mxffi/lib_api.h, a copy that never changes): every later mxffi must
// keep loading it and running its op. tests/python/test_op_library_abi.py builds it with that
// header alone and calls abi10_scale(x, factor=...) = factor * x.
#include <mxffi/lib_api.h>

#include <string>
#include <vector>

using mxffi::oplib::Attrs;
using mxffi::oplib::DType;
using mxffi::oplib::Error;
using mxffi::oplib::Resource;
using mxffi::oplib::Shape;
using mxffi::oplib::Status;
using mxffi::oplib::Tensor;

namespace {

Status ScaleParse(const Attrs& attrs) {
  for (const auto& kv : attrs.items()) {
    if (kv.first != "factor") {
      return Error("TypeError") << "abi10_scale: unknown attribute '" << kv.first
                                << "'; it takes factor";
    }
  }
  double factor = 1;
  return attrs.get_double("factor", &factor);
}

Status ScaleShape(const Attrs&, const std::vector<Shape>& in, std::vector<Shape>* out) {
  (*out)[0] = in[0];
  return Status::Ok();
}

Status ScaleType(const Attrs&, const std::vector<DType>& in, std::vector<DType>* out) {
  if (in[0] != DType::Float64()) {
    return Error("TypeError") << "abi10_scale: expected float64, got " << in[0].name();
  }
  (*out)[0] = in[0];
  return Status::Ok();
}

Status ScaleForward(const Attrs& attrs, const std::vector<Tensor>& in,
                    const std::vector<Tensor>& out, const Resource&) {
  double factor = 1;
  attrs.get_double("factor", &factor);
  const double* x = in[0].data<double>();
  double* y = out[0].data<double>();
  for (int64_t i = 0; i < in[0].size(); ++i) y[i] = factor * x[i];
  return Status::Ok();
}

}  // namespace

REGISTER_OP(abi10_scale)
    .setDoc("factor * x, for float64 x.")
    .setParseAttrs(ScaleParse)
    .setInferShape(ScaleShape)
    .setInferType(ScaleType)
    .setForward(ScaleForward, "cpu");
