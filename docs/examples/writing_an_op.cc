// An op in an outside library: example_scaled_add (out = alpha * x + y) and the API function
// example.scaled_add that calls it. Built against the installed headers and libmxffi only, the
// way a user's project is (g++ with `python -m mxffi.config --includedir --libdir`); nothing
// from mxffi's src/ is used. docs/writing_an_op.md cuts its code from the marked blocks;
// tests/python/test_docs.py and tests/cpp/test_docs.cc check the page still matches this file,
// and tests/python/test_op_library.py builds it, loads it and checks it against numpy.

// [includes.begin]
#include <mxffi/op/op.h>     // Op, MXFFI_REGISTER_OP, the attribute types, Invoke
#include <mxffi/op/param.h>  // dmlc::Parameter and the field types ops share
#include <mxffi/registry.h>  // MXFFI_REGISTER_API

#include <cstdint>
#include <string>

using mxffi::NDArray;
using mxffi::OpAttrs;
using mxffi::OpContext;
using mxffi::OpReqType;
using mxffi::Span;
using mxffi::TShape;
// [includes.end]

// Everything but the two registrations is file-local: another library may pick the same names.
namespace {

// [param.begin]
/*! \brief The parameters of example_scaled_add. */
struct ScaledAddParam : public dmlc::Parameter<ScaledAddParam> {
  double alpha;
  DMLC_DECLARE_PARAMETER(ScaledAddParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).set_lower_bound(0.0).describe(
        "Scale of x; must be >= 0.");
  }
};
DMLC_REGISTER_PARAMETER(ScaledAddParam);
// [param.end]

// [shape.begin]
/*! \brief x and y have one shape, which the output takes. */
void ScaledAddShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  MXFFI_CHECK(in[0] == in[1], ValueError)
      << attrs.op->name << ": x and y must have the same shape; got x.shape=" << in[0].ToString()
      << " and y.shape=" << in[1].ToString();
  out[0] = in[0];
}
// [shape.end]

// [type.begin]
bool IsFloat(DLDataType t, int bits) {
  return t.code == kDLFloat && t.bits == bits && t.lanes == 1;
}

/*! \brief x and y are both float32 or both float64; the output has their dtype. */
void ScaledAddType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const char* names[2] = {"x", "y"};
  for (int i = 0; i < 2; ++i) {
    MXFFI_CHECK(IsFloat(in[i], 32) || IsFloat(in[i], 64), TypeError)
        << attrs.op->name << ": " << names[i] << " has dtype " << mxffi::DataTypeToString(in[i])
        << "; expected float32 or float64";
  }
  MXFFI_CHECK(in[0].bits == in[1].bits, TypeError)
      << attrs.op->name << ": x and y must have the same dtype; got "
      << mxffi::DataTypeToString(in[0]) << " and " << mxffi::DataTypeToString(in[1]);
  out[0] = in[0];
}
// [type.end]

// [compute.begin]
template <typename T>
T* Data(const DLTensor& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
}

int64_t NumElements(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

template <typename DType>
void ScaledAddKernel(double alpha, const DLTensor& x, const DLTensor& y, const DLTensor& out) {
  const DType a = static_cast<DType>(alpha);
  const DType* px = Data<const DType>(x);
  const DType* py = Data<const DType>(y);
  DType* po = Data<DType>(out);
  const int64_t n = NumElements(out);
  // Element i is read before it is written: out may be x or y itself (kWriteInplace).
  for (int64_t i = 0; i < n; ++i) po[i] = a * px[i] + py[i];
}

/*!
 * \brief The CPU kernel. Invoke has already run the inference above and allocated out, and
 *  hands the kernel C-contiguous tensors (it copies strided inputs first).
 */
void ScaledAddCompute(const OpAttrs& attrs, const OpContext& /*ctx*/, Span<const DLTensor> in,
                      Span<const OpReqType> /*req*/, Span<const DLTensor> out) {
  const double alpha = attrs.get<ScaledAddParam>().alpha;
  if (out[0].dtype.bits == 32) {
    ScaledAddKernel<float>(alpha, in[0], in[1], out[0]);
  } else {
    ScaledAddKernel<double>(alpha, in[0], in[1], out[0]);
  }
}
// [compute.end]

}  // namespace

// [register.begin]
MXFFI_REGISTER_OP(example_scaled_add)
    .describe("alpha * x + y, elementwise, for x and y of one shape and dtype.")
    .set_num_inputs(2)
    .add_argument("x", "NDArray", "the scaled input")
    .add_argument("y", "NDArray", "the added input")
    .set_param<ScaledAddParam>()
    .set_attr<mxffi::FInferShape>("FInferShape", ScaledAddShape)
    .set_attr<mxffi::FInferType>("FInferType", ScaledAddType)
    .set_attr<bool>("TWriteInplace", true)
    .set_attr<mxffi::FCompute>("FCompute<cpu>", ScaledAddCompute);
// [register.end]

namespace {

// [check.begin]
/*!
 * \brief Run the checks DMLC_DECLARE_FIELD declared (ranges, enums) on a struct filled from typed
 *  arguments. Parsing from strings (ops.invoke) runs them inside dmlc's Init; assigning a field
 *  does not.
 * \throws ValueError naming fname, the parameter and the value.
 */
template <typename P>
void CheckParam(const P& param, const char* fname) {
  for (const dmlc::ParamFieldInfo& field : P::__FIELDS__()) {
    try {
      P::__MANAGER__()->Find(field.name)->Check(const_cast<P*>(&param));
    } catch (const dmlc::ParamError& e) {
      std::string what = e.what();
      MXFFI_THROW(ValueError) << fname
                              << ": invalid parameter: " << what.substr(0, what.find('\n'));
    }
  }
}
// [check.end]

}  // namespace

// [api.begin]
MXFFI_REGISTER_API("example.scaled_add")
    .describe("alpha * x + y, elementwise (the op example_scaled_add).")
    .arg("x")
    .arg("y")
    .arg("alpha", 1.0)
    .set_body_typed([](DLTensor* x, DLTensor* y, double alpha) {
      // Looked up once: the op is registered by the time any call can reach this body.
      static const mxffi::Op* op = mxffi::Op::Get("example_scaled_add");
      ScaledAddParam param;  // filled from the typed argument, no string parsing
      param.alpha = alpha;
      CheckParam(param, "example.scaled_add");
      OpAttrs attrs;
      attrs.op = op;
      attrs.param = &param;
      // DLTensor* takes an mxffi NDArray or a borrowed array (a numpy array from Python); Invoke
      // reads the inputs and allocates the output, so borrowing them for the call is enough.
      NDArray inputs[2] = {NDArray::FromBorrowed(*x), NDArray::FromBorrowed(*y)};
      return mxffi::Invoke(attrs, Span<const NDArray>(inputs, 2));
    });
// [api.end]
