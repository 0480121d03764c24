// An op library built against mxffi/lib_api.h alone: my_gemm (cpu, and gpu with CUDA), my_relu,
// my_poly (stateful), my_row_sum (csr input) and my_threshold (csr input and output).
// docs/custom_ops.md walks through it, and tests/python/test_custom_op.py builds it with the
// installed CMake package and loads it.
// [prelude.begin]
#include "my_ops.h"

#include <mxffi/lib_api.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using mxffi::oplib::Attrs;
using mxffi::oplib::DType;
using mxffi::oplib::Error;
using mxffi::oplib::OpState;
using mxffi::oplib::Resource;
using mxffi::oplib::Shape;
using mxffi::oplib::ShapeString;
using mxffi::oplib::Status;
using mxffi::oplib::StorageType;
using mxffi::oplib::Tensor;

namespace {  // the ops' functions; the REGISTER_OP calls follow the namespace
// [prelude.end]

// ---------------------------------------------------------------------------------------------
// my_gemm(a, b, alpha=1): alpha * a @ b for 2-d float32 or float64 matrices.

// [parse.begin]
Status GemmParse(const Attrs& attrs) {
  for (const auto& kv : attrs.items()) {
    if (kv.first != "alpha") {
      return Error("TypeError") << "my_gemm: unknown attribute '" << kv.first
                                << "'; it takes alpha";
    }
  }
  double alpha = 1;
  return attrs.get_double("alpha", &alpha);
}
// [parse.end]

// [shape.begin]
Status GemmShape(const Attrs&, const std::vector<Shape>& in, std::vector<Shape>* out) {
  if (in[0].size() != 2 || in[1].size() != 2) {
    return Error("ValueError") << "my_gemm: a and b must be matrices; got shapes "
                               << ShapeString(in[0]) << " and " << ShapeString(in[1]);
  }
  if (in[0][1] != in[1][0]) {
    return Error("ValueError") << "my_gemm: a has " << in[0][1] << " columns but b has " << in[1][0]
                               << " rows";
  }
  (*out)[0] = {in[0][0], in[1][1]};
  return Status::Ok();
}
// [shape.end]

// [type.begin]
Status FloatType(const Attrs&, const std::vector<DType>& in, std::vector<DType>* out) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != in[0] || (in[i] != DType::Float32() && in[i] != DType::Float64())) {
      return Error("TypeError") << "inputs must all be float32 or all float64; input #" << i
                                << " is " << in[i].name() << " and input #0 " << in[0].name();
    }
  }
  for (DType& t : *out) t = in[0];
  return Status::Ok();
}
// [type.end]

// [gemm.begin]
template <typename T>
void Gemm(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, T alpha) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      const T aip = alpha * a[i * k + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
  }
}
// [gemm.end]

// [forward.begin]
Status GemmForward(const Attrs& attrs, const std::vector<Tensor>& in,
                   const std::vector<Tensor>& out, const Resource&) {
  double alpha = 1;
  attrs.get_double("alpha", &alpha);  // parse_attrs has checked it
  const int64_t m = in[0].dim(0), k = in[0].dim(1), n = in[1].dim(1);
  if (in[0].dtype() == DType::Float32()) {
    Gemm(in[0].data<float>(), in[1].data<float>(), out[0].data<float>(), m, k, n,
         static_cast<float>(alpha));
  } else {
    Gemm(in[0].data<double>(), in[1].data<double>(), out[0].data<double>(), m, k, n, alpha);
  }
  return Status::Ok();
}
// [forward.end]

// ---------------------------------------------------------------------------------------------
// my_relu(x): max(x, 0). A dense op: a sparse input takes mxffi's dense fallback.

// [same_shape.begin]
Status SameShape(const Attrs&, const std::vector<Shape>& in, std::vector<Shape>* out) {
  (*out)[0] = in[0];
  return Status::Ok();
}
// [same_shape.end]

Status ReluForward(const Attrs&, const std::vector<Tensor>& in, const std::vector<Tensor>& out,
                   const Resource&) {
  const int64_t size = in[0].size();
  if (in[0].dtype() == DType::Float32()) {
    const float* x = in[0].data<float>();
    float* y = out[0].data<float>();
    for (int64_t i = 0; i < size; ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
  } else {
    const double* x = in[0].data<double>();
    double* y = out[0].data<double>();
    for (int64_t i = 0; i < size; ++i) y[i] = x[i] > 0 ? x[i] : 0.0;
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// my_poly(x, coeffs="c0,c1,..."): c0 + c1*x + c2*x**2 + ..., elementwise. The coefficients are
// parsed once per attribute set, into the op's state.

std::atomic<int64_t> states_made{0}, states_live{0};

// [state.begin]
Status ParseCoeffs(const Attrs& attrs, std::vector<double>* coeffs) {
  std::istringstream in(attrs.get("coeffs", "0"));
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    double c = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0') {
      return Error("ValueError") << "my_poly: coeffs='" << attrs.get("coeffs")
                                 << "' is not a comma-separated list of numbers";
    }
    coeffs->push_back(c);
  }
  return Status::Ok();
}

class PolyState : public OpState {
 public:
  explicit PolyState(std::vector<double> coeffs) : coeffs_(std::move(coeffs)) {
    ++states_made;
    ++states_live;
  }
  ~PolyState() override { --states_live; }

  Status Forward(const std::vector<Tensor>& in, const std::vector<Tensor>& out,
                 const Resource&) override {
    if (in[0].dtype() == DType::Float32()) return Eval(in[0].data<float>(), out[0]);
    return Eval(in[0].data<double>(), out[0]);
  }

 private:
  template <typename T>
  Status Eval(const T* x, const Tensor& out) {
    T* y = out.data<T>();
    for (int64_t i = 0; i < out.size(); ++i) {
      double acc = 0;  // Horner's rule, highest power first
      for (size_t c = coeffs_.size(); c-- > 0;) acc = acc * x[i] + coeffs_[c];
      y[i] = static_cast<T>(acc);
    }
    return Status::Ok();
  }
  std::vector<double> coeffs_;
};

Status PolyParse(const Attrs& attrs) {
  std::vector<double> coeffs;
  return ParseCoeffs(attrs, &coeffs);
}

Status PolyCreateState(const Attrs& attrs, bool /*is_gpu*/, int /*device_id*/, OpState** state) {
  std::vector<double> coeffs;
  Status s = ParseCoeffs(attrs, &coeffs);
  if (s.ok()) *state = new PolyState(std::move(coeffs));
  return s;
}
// [state.end]

// ---------------------------------------------------------------------------------------------
// my_row_sum(x): the sum of each row of a 2-d matrix, csr or dense; a row_sparse input takes
// the dense fallback.

// [stype.begin]
Status RowSumSType(const Attrs&, const std::vector<StorageType>& in,
                   std::vector<StorageType>* out) {
  (*out)[0] = StorageType::kDefault;
  if (in[0] == StorageType::kRowSparse) return Status::Fallback();
  return Status::Ok();
}
// [stype.end]

Status RowSumShape(const Attrs&, const std::vector<Shape>& in, std::vector<Shape>* out) {
  if (in[0].size() != 2) {
    return Error("ValueError") << "my_row_sum: expected a matrix, got shape " << ShapeString(in[0]);
  }
  (*out)[0] = {in[0][0]};
  return Status::Ok();
}

// [csr.begin]
template <typename T, typename I>
void CSRRowSum(const Tensor& x, T* y) {
  const T* data = x.data<T>();
  const I* indptr = x.indptr<I>();
  for (int64_t r = 0; r < x.dim(0); ++r) {
    T acc = 0;
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) acc += data[j];
    y[r] = acc;
  }
}

template <typename T>
Status RowSum(const Tensor& x, const Tensor& y) {
  if (x.stype() == StorageType::kCSR) {
    if (x.indptr_dtype() == DType::Int32()) {
      CSRRowSum<T, int32_t>(x, y.data<T>());
    } else {
      CSRRowSum<T, int64_t>(x, y.data<T>());
    }
    return Status::Ok();
  }
  const int64_t rows = x.dim(0), cols = x.dim(1);
  for (int64_t r = 0; r < rows; ++r) {
    T acc = 0;
    for (int64_t c = 0; c < cols; ++c) acc += x.data<T>()[r * cols + c];
    y.data<T>()[r] = acc;
  }
  return Status::Ok();
}
// [csr.end]

Status RowSumForward(const Attrs&, const std::vector<Tensor>& in, const std::vector<Tensor>& out,
                     const Resource&) {
  if (in[0].dtype() == DType::Float32()) return RowSum<float>(in[0], out[0]);
  return RowSum<double>(in[0], out[0]);
}

// ---------------------------------------------------------------------------------------------
// my_threshold(x, t=0): x where |x| > t, else 0; csr in, csr out, dense in, dense out.

Status ThresholdParse(const Attrs& attrs) {
  double t = 0;
  Status s = attrs.get_double("t", &t);
  if (s.ok() && !(t >= 0)) return Error("ValueError") << "my_threshold: t=" << t << " is negative";
  return s;
}

Status ThresholdSType(const Attrs&, const std::vector<StorageType>& in,
                      std::vector<StorageType>* out) {
  (*out)[0] = in[0] == StorageType::kCSR ? StorageType::kCSR : StorageType::kDefault;
  return in[0] == StorageType::kRowSparse ? Status::Fallback() : Status::Ok();
}

// [sparse_out.begin]
template <typename T, typename I>
Status ThresholdCSR(const Tensor& x, const Tensor& y, T t, const Resource& res) {
  const T* data = x.data<T>();
  const I* indices = x.indices<I>();
  const I* indptr = x.indptr<I>();
  int64_t kept = 0;  // only now is the output's size known
  for (int64_t j = 0; j < x.nnz(); ++j) kept += std::abs(data[j]) > t;
  if (!res.alloc_sparse(0, kept)) return Error("RuntimeError") << "my_threshold: no output";
  T* out_data = y.data<T>();
  int64_t* out_indices = y.indices<int64_t>();  // alloc_sparse gives int64 indices
  int64_t* out_indptr = y.indptr<int64_t>();
  int64_t k = 0;
  out_indptr[0] = 0;
  for (int64_t r = 0; r < x.dim(0); ++r) {
    for (I j = indptr[r]; j < indptr[r + 1]; ++j) {
      if (std::abs(data[j]) > t) {
        out_data[k] = data[j];
        out_indices[k++] = indices[j];
      }
    }
    out_indptr[r + 1] = k;
  }
  return Status::Ok();
}
// [sparse_out.end]

template <typename T>
Status Threshold(const Tensor& x, const Tensor& y, double t, const Resource& res) {
  if (x.stype() == StorageType::kCSR) {
    if (x.indices_dtype() == DType::Int32()) return ThresholdCSR<T, int32_t>(x, y, T(t), res);
    return ThresholdCSR<T, int64_t>(x, y, T(t), res);
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    const T v = x.data<T>()[i];
    y.data<T>()[i] = std::abs(v) > T(t) ? v : T(0);
  }
  return Status::Ok();
}

Status ThresholdForward(const Attrs& attrs, const std::vector<Tensor>& in,
                        const std::vector<Tensor>& out, const Resource& res) {
  double t = 0;
  attrs.get_double("t", &t);
  if (in[0].dtype() == DType::Float32()) return Threshold<float>(in[0], out[0], t, res);
  return Threshold<double>(in[0], out[0], t, res);
}

}  // namespace

// [register.begin]
REGISTER_OP(my_gemm)
    .setDoc("alpha * a @ b for float32 or float64 matrices.")
    .setNumInputs(2)
    .setParseAttrs(GemmParse)
    .setInferShape(GemmShape)
    .setInferType(FloatType)
#ifdef MY_OPS_WITH_CUDA
    .setForward(GemmForwardGPU, "gpu")
#endif
    .setForward(GemmForward, "cpu");
// [register.end]

// [register_relu.begin]
REGISTER_OP(my_relu)
    .setDoc("max(x, 0), elementwise.")
    .setInferShape(SameShape)
    .setInferType(FloatType)
    .setForward(ReluForward, "cpu");
// [register_relu.end]

// [register_state.begin]
REGISTER_OP(my_poly)
    .setDoc("c0 + c1*x + c2*x**2 + ..., elementwise, for coeffs='c0,c1,c2,...'.")
    .setParseAttrs(PolyParse)
    .setInferShape(SameShape)
    .setInferType(FloatType)
    .setCreateOpState(PolyCreateState, "cpu");
// [register_state.end]

// [register_csr.begin]
REGISTER_OP(my_row_sum)
    .setDoc("The sum of each row of a matrix (csr or dense).")
    .setInferShape(RowSumShape)
    .setInferType(FloatType)
    .setInferSType(RowSumSType)
    .setForward(RowSumForward, "cpu");
// [register_csr.end]

REGISTER_OP(my_threshold)
    .setDoc("x where |x| > t, else 0, elementwise; csr in, csr out.")
    .setParseAttrs(ThresholdParse)
    .setInferShape(SameShape)
    .setInferType(FloatType)
    .setInferSType(ThresholdSType)
    .setForward(ThresholdForward, "cpu");

// How many my_poly states the library has made, and how many are alive: for tests and for
// anyone who wants to see the states come and go (ctypes.CDLL(path).my_ops_states()).
extern "C" __attribute__((visibility("default"))) void my_ops_states(int64_t* made, int64_t* live) {
  *made = states_made.load();
  *live = states_live.load();
}
