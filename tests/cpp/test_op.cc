/*!
 * \file test_op.cc
 * \brief The op registry, attribute tables, dmlc parameters, Invoke and the kernel pool.
 */
#include <gtest/gtest.h>
#include <mxffi/op/op.h>
#include <mxffi/op/param.h>
#include <mxffi/registry.h>

#include <atomic>
#include <sstream>
#include <vector>

#include "../../src/op/parallel.h"
#include "test_util.h"

namespace {

using mxffi::NDArray;
using mxffi::Op;
using mxffi::OpAttrs;
using mxffi::Span;
using mxffi::TShape;

struct ScaleParam : public dmlc::Parameter<ScaleParam> {
  double factor;
  TShape shape;
  DMLC_DECLARE_PARAMETER(ScaleParam) {
    DMLC_DECLARE_FIELD(factor).set_default(1.0).set_lower_bound(0.0).describe("Scale.");
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("Unused shape.");
  }
};
DMLC_REGISTER_PARAMETER(ScaleParam);

int g_kernel_runs = 0;

MXFFI_REGISTER_OP(test_scale)
    .describe("x * factor, float64 only.")
    .add_argument("x", "NDArray", "input")
    .set_param<ScaleParam>()
    .set_attr<mxffi::FInferShape>("FInferShape", [](const OpAttrs&, Span<const TShape> in,
                                                    Span<TShape> out) { out[0] = in[0]; })
    .set_attr<mxffi::FInferType>(
        "FInferType",
        [](const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
          MXFFI_CHECK(in[0].code == kDLFloat && in[0].bits == 64, TypeError)
              << "test_scale: float64 only, got " << mxffi::DataTypeToString(in[0]);
          out[0] = in[0];
        })
    .set_attr<mxffi::FCompute>("FCompute<cpu>",
                               [](const OpAttrs& attrs, const mxffi::OpContext&,
                                  Span<const DLTensor> in, Span<const mxffi::OpReqType>,
                                  Span<const DLTensor> out) {
                                 ++g_kernel_runs;
                                 int64_t n = 1;
                                 for (int i = 0; i < in[0].ndim; ++i) n *= in[0].shape[i];
                                 const double* x = static_cast<const double*>(in[0].data);
                                 double* y = static_cast<double*>(out[0].data);
                                 for (int64_t i = 0; i < n; ++i)
                                   y[i] = x[i] * attrs.get<ScaleParam>().factor;
                               })
    .set_attr<int>("TTestLevel", 7);

NDArray Iota(std::vector<int64_t> shape) {
  NDArray a = NDArray::Empty(shape, DLDataType{kDLFloat, 64, 1}, DLDevice{kDLCPU, 0});
  double* p = static_cast<double*>(a.data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = static_cast<double>(i);
  return a;
}

TEST(Op, RegistryFindsOpsByName) {
  const Op* op = Op::Get("test_scale");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->name, "test_scale");
  EXPECT_EQ(op->num_inputs, 1u);
  ASSERT_EQ(op->arguments.size(), 1u);
  EXPECT_EQ(op->arguments[0].name, "x");
  EXPECT_NE(op->param_doc.find("factor : double"), std::string::npos) << op->param_doc;
  EXPECT_EQ(Op::Find("no_such_op"), nullptr);
  MXFFI_EXPECT_THROW_KIND(Op::Get("no_such_op"), "ValueError", "no op named 'no_such_op'");
  std::vector<std::string> names = Op::ListNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "test_scale"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "_zeros"), names.end());
}

TEST(Op, AttributeTablesAreIndexedByOp) {
  const Op* scale = Op::Get("test_scale");
  const Op* zeros = Op::Get("_zeros");
  auto level = Op::GetAttr<int>("TTestLevel");
  ASSERT_TRUE(level.contains(scale));
  EXPECT_EQ(*level.get(scale), 7);
  EXPECT_FALSE(level.contains(zeros));
  EXPECT_TRUE(Op::GetAttr<mxffi::FCompute>("FCompute<cpu>").contains(zeros));
  // The same name with another type is a different (absent) table, never a bad cast.
  EXPECT_FALSE(Op::GetAttr<double>("TTestLevel").contains(scale));
}

TEST(Op, RefusedRegistrationsAreRecordedAndChangeNothing) {
  mxffi::details::TakeRegistrationErrors();
  Op::Register("test_scale").set_attr<int>("TTestLevel", 99).describe("replaced?");
  std::vector<std::string> errors = mxffi::details::TakeRegistrationErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("'test_scale' is already registered"), std::string::npos);
  EXPECT_EQ(*Op::Get("test_scale")->attr<int>("TTestLevel"), 7);
  EXPECT_EQ(Op::Get("test_scale")->description, "x * factor, float64 only.");

  Op& fresh = Op::Register("test_attr_type_clash");
  fresh.set_attr<std::string>("TTestLevel", "seven");
  errors = mxffi::details::TakeRegistrationErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("attribute 'TTestLevel' was registered with another type"),
            std::string::npos);
}

TEST(Op, InvokeInfersAllocatesAndRuns) {
  ScaleParam p;
  p.factor = 2.5;
  OpAttrs attrs;
  attrs.op = Op::Get("test_scale");
  attrs.param = &p;
  NDArray x = Iota({2, 3});
  int before = g_kernel_runs;
  NDArray y = mxffi::Invoke(attrs, Span<const NDArray>(&x, 1));
  EXPECT_EQ(g_kernel_runs, before + 1);
  ASSERT_EQ(y.tensor().ndim, 2);
  EXPECT_EQ(y.tensor().shape[1], 3);
  EXPECT_EQ(static_cast<double*>(y.data())[5], 12.5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(y.data()) % mxffi::kNDArrayAlignment, 0u);
}

TEST(Op, InvokeWritesIntoGivenOutputsAndChecksThem) {
  ScaleParam p;
  p.factor = 3;
  OpAttrs attrs;
  attrs.op = Op::Get("test_scale");
  attrs.param = &p;
  NDArray x = Iota({4});
  NDArray out = NDArray::Empty({4}, DLDataType{kDLFloat, 64, 1}, DLDevice{kDLCPU, 0});
  mxffi::Invoke(attrs, Span<const NDArray>(&x, 1), Span<NDArray>(&out, 1));
  EXPECT_EQ(static_cast<double*>(out.data())[3], 9.0);
  NDArray wrong = NDArray::Empty({5}, DLDataType{kDLFloat, 64, 1}, DLDevice{kDLCPU, 0});
  MXFFI_EXPECT_THROW_KIND(
      mxffi::Invoke(attrs, Span<const NDArray>(&x, 1), Span<NDArray>(&wrong, 1)), "ValueError",
      "output #0 has shape (5,) but the result has shape (4,)");
}

TEST(Op, InvokeMakesStridedInputsContiguous) {
  ScaleParam p;
  p.factor = 1;
  OpAttrs attrs;
  attrs.op = Op::Get("test_scale");
  attrs.param = &p;
  NDArray base = Iota({2, 3});
  int64_t shape[] = {3, 2}, strides[] = {1, 3};
  NDArray t = NDArray::View(base, shape, strides, 2, 0);  // the transpose
  EXPECT_FALSE(t.IsContiguous());
  NDArray y = mxffi::Invoke(attrs, Span<const NDArray>(&t, 1));
  const double* v = static_cast<const double*>(y.data());
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 3);
  EXPECT_EQ(v[2], 1);
}

TEST(Op, ExtendBeforeRegisterStaysHiddenUntilRegistered) {
  // Static initialisers run in no set order across files: an extension may come first.
  Op::Extend("test_extended_first").set_attr<int>("TTestLevel", 3);
  EXPECT_EQ(Op::Find("test_extended_first"), nullptr);
  std::vector<std::string> names = Op::ListNames();
  EXPECT_EQ(std::find(names.begin(), names.end(), "test_extended_first"), names.end());
  mxffi::details::TakeRegistrationErrors();
  Op& op = Op::Register("test_extended_first").describe("registered after its extension");
  EXPECT_TRUE(mxffi::details::TakeRegistrationErrors().empty());
  ASSERT_EQ(Op::Find("test_extended_first"), &op);
  EXPECT_EQ(*op.attr<int>("TTestLevel"), 3);
  EXPECT_EQ(&Op::Extend("test_extended_first"), &op);
  Op::Extend("test_scale").set_attr<int>("TTestExtra", 11);
  EXPECT_EQ(*Op::Get("test_scale")->attr<int>("TTestExtra"), 11);
}

TEST(Op, ReplaceRebindsTheNameAndKeepsTheOldOpValid) {
  Op& first = Op::Register("test_replaced").describe("first").set_attr<int>("TTestLevel", 1);
  mxffi::details::TakeRegistrationErrors();
  Op& second = Op::Replace("test_replaced").describe("second");
  EXPECT_TRUE(mxffi::details::TakeRegistrationErrors().empty());
  EXPECT_NE(&first, &second);
  EXPECT_NE(first.index, second.index);
  EXPECT_EQ(Op::Find("test_replaced"), &second);
  // The new op starts with no attributes; the old one keeps its own for whoever holds it.
  EXPECT_EQ(second.attr<int>("TTestLevel"), nullptr);
  EXPECT_EQ(*first.attr<int>("TTestLevel"), 1);
  EXPECT_EQ(first.description, "first");
  std::vector<std::string> names = Op::ListNames();
  EXPECT_EQ(std::count(names.begin(), names.end(), "test_replaced"), 1);
  // A name nobody registered is simply registered.
  Op& fresh = Op::Replace("test_replaced_fresh");
  EXPECT_EQ(Op::Find("test_replaced_fresh"), &fresh);
}

TEST(Op, InvokeRunsTheKernelSetLast) {
  // Invoke reads the attributes resolved on the op by set_attr; a kernel set after the first
  // call, or replaced, is the one the next call runs.
  Op& op = Op::Register("test_late_kernel")
               .set_num_inputs(0)
               .set_attr<mxffi::FInferShape>("FInferShape", [](const OpAttrs&, Span<const TShape>,
                                                               Span<TShape> out) { out[0] = {2}; })
               .set_attr<mxffi::FInferType>(
                   "FInferType", [](const OpAttrs&, Span<const DLDataType>, Span<DLDataType> out) {
                     out[0] = {kDLFloat, 64, 1};
                   });
  OpAttrs attrs;
  attrs.op = &op;
  MXFFI_EXPECT_THROW_KIND(mxffi::Invoke(attrs, Span<const NDArray>()), "NotImplementedError",
                          "test_late_kernel: has no kernel for device cpu");
  auto filler = [](double v) {
    return [v](const OpAttrs&, const mxffi::OpContext&, Span<const DLTensor>,
               Span<const mxffi::OpReqType>, Span<const DLTensor> out) {
      static_cast<double*>(out[0].data)[0] = static_cast<double*>(out[0].data)[1] = v;
    };
  };
  op.set_attr<mxffi::FCompute>("FCompute<cpu>", filler(1.5));
  NDArray a = mxffi::Invoke(attrs, Span<const NDArray>());
  EXPECT_EQ(static_cast<double*>(a.data())[1], 1.5);
  op.set_attr<mxffi::FCompute>("FCompute<cpu>", filler(-4));
  NDArray b = mxffi::Invoke(attrs, Span<const NDArray>());
  EXPECT_EQ(static_cast<double*>(b.data())[0], -4);
  EXPECT_EQ(op.call_attrs().compute[0], Op::GetAttr<mxffi::FCompute>("FCompute<cpu>").get(&op));
  EXPECT_EQ(op.call_attrs().compute[1], nullptr);
}

TEST(Op, InvokeErrorsNameTheOp) {
  OpAttrs attrs;
  attrs.op = Op::Get("test_scale");
  ScaleParam p;
  attrs.param = &p;
  MXFFI_EXPECT_THROW_KIND(mxffi::Invoke(attrs, Span<const NDArray>()), "TypeError",
                          "test_scale: expected 1 input(s), got 0");
  NDArray none;
  MXFFI_EXPECT_THROW_KIND(mxffi::Invoke(attrs, Span<const NDArray>(&none, 1)), "TypeError",
                          "test_scale: input #0 is None");
  NDArray ints = NDArray::Empty({2}, DLDataType{kDLInt, 32, 1}, DLDevice{kDLCPU, 0});
  MXFFI_EXPECT_THROW_KIND(mxffi::Invoke(attrs, Span<const NDArray>(&ints, 1)), "TypeError",
                          "float64 only, got int32");
}

// x + 1 element by element, recording the request and whether out is in's memory.
std::vector<mxffi::OpReqType> g_reqs;
std::vector<bool> g_out_is_in;

void PlusOne(const OpAttrs&, const mxffi::OpContext&, Span<const DLTensor> in,
             Span<const mxffi::OpReqType> req, Span<const DLTensor> out) {
  g_reqs.push_back(req[0]);
  g_out_is_in.push_back(in[0].data == out[0].data && in[0].byte_offset == out[0].byte_offset);
  const double* x = static_cast<const double*>(in[0].data) + in[0].byte_offset / sizeof(double);
  double* y = static_cast<double*>(out[0].data) + out[0].byte_offset / sizeof(double);
  for (int64_t i = 0; i < in[0].shape[0] * in[0].shape[1]; ++i) y[i] = x[i] + 1;
}

void SameShapeF64(const OpAttrs&, Span<const TShape> in, Span<TShape> out) { out[0] = in[0]; }
void SameTypeF64(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  out[0] = in[0];
}

MXFFI_REGISTER_OP(test_plus_one_inplace)
    .set_attr<mxffi::FInferShape>("FInferShape", SameShapeF64)
    .set_attr<mxffi::FInferType>("FInferType", SameTypeF64)
    .set_attr<bool>("TWriteInplace", true)
    .set_attr<mxffi::FCompute>("FCompute<cpu>", PlusOne);
MXFFI_REGISTER_OP(test_plus_one)
    .set_attr<mxffi::FInferShape>("FInferShape", SameShapeF64)
    .set_attr<mxffi::FInferType>("FInferType", SameTypeF64)
    .set_attr<mxffi::FCompute>("FCompute<cpu>", PlusOne);

/*! \brief Invoke op on in, writing into out; returns the request the kernel got. */
mxffi::OpReqType RunInto(const char* op, const NDArray& in, const NDArray& out) {
  OpAttrs attrs;
  attrs.op = Op::Get(op);
  NDArray outs[1] = {out};
  mxffi::Invoke(attrs, Span<const NDArray>(&in, 1), Span<NDArray>(outs, 1));
  return g_reqs.back();
}

TEST(Op, InvokeAsksForWriteInplaceWhereOutIsExactlyAnInputOfAnOpTakingIt) {
  using mxffi::OpReqType;
  NDArray a = Iota({2, 3});
  EXPECT_EQ(RunInto("test_plus_one_inplace", a, a), OpReqType::kWriteInplace);
  EXPECT_TRUE(g_out_is_in.back());
  EXPECT_EQ(static_cast<double*>(a.data())[5], 6.0);
  // Another array object with the same elements (a view of all of a) is the input too.
  int64_t shape[] = {2, 3};
  NDArray same = NDArray::View(a, shape, nullptr, 2, 0);
  EXPECT_EQ(RunInto("test_plus_one_inplace", a, same), OpReqType::kWriteInplace);
  EXPECT_EQ(static_cast<double*>(a.data())[0], 2.0);
  // An op that does not take it writes into a temporary, copied into out afterwards.
  EXPECT_EQ(RunInto("test_plus_one", a, a), OpReqType::kWriteTo);
  EXPECT_FALSE(g_out_is_in.back());
  EXPECT_EQ(static_cast<double*>(a.data())[5], 8.0);
  // Another array, or a view of other elements of the same memory, is not the input.
  NDArray b = Iota({2, 3});
  EXPECT_EQ(RunInto("test_plus_one_inplace", a, b), OpReqType::kWriteTo);
  EXPECT_EQ(static_cast<double*>(b.data())[5], 9.0);
  NDArray big = Iota({4, 3});
  NDArray top = NDArray::View(big, shape, nullptr, 2, 0);
  NDArray bottom = NDArray::View(big, shape, nullptr, 2, 6 * sizeof(double));
  EXPECT_EQ(RunInto("test_plus_one_inplace", top, bottom), OpReqType::kWriteTo);
  EXPECT_EQ(static_cast<double*>(big.data())[11], 6.0);
}

TEST(Op, AProductIntoOneOfItsOperandsReadsTheOperandFirst) {
  // _matmul does not write in place: out = a goes through a temporary.
  NDArray a = Iota({2, 2});  // [[0, 1], [2, 3]]
  NDArray b = Iota({2, 2});
  OpAttrs attrs;
  attrs.op = Op::Get("_matmul");
  NDArray in[2] = {a, b};
  NDArray out[1] = {a};
  mxffi::Invoke(attrs, Span<const NDArray>(in, 2), Span<NDArray>(out, 1));
  const double* p = static_cast<const double*>(a.data());
  EXPECT_EQ(std::vector<double>(p, p + 4), (std::vector<double>{2, 3, 6, 11}));
}

TEST(OpParam, ParsesStringsAndRejectsBadValues) {
  ScaleParam p =
      mxffi::ParseParam<ScaleParam>("test_scale", {{"factor", "0.5"}, {"shape", "(3, 4)"}});
  EXPECT_EQ(p.factor, 0.5);
  EXPECT_EQ(p.shape, (TShape{3, 4}));
  MXFFI_EXPECT_THROW_KIND(mxffi::ParseParam<ScaleParam>("test_scale", {{"factor", "abc"}}),
                          "ValueError", "test_scale: invalid parameter");
  MXFFI_EXPECT_THROW_KIND(mxffi::ParseParam<ScaleParam>("test_scale", {{"factor", "-1"}}),
                          "ValueError", "factor");
  MXFFI_EXPECT_THROW_KIND(mxffi::ParseParam<ScaleParam>("test_scale", {{"bogus", "1"}}),
                          "ValueError", "bogus");
  // Through the op's registered parser, as generic invocation uses it.
  const mxffi::FParamParse* parse = Op::Get("test_scale")->attr<mxffi::FParamParse>("FParamParse");
  ASSERT_NE(parse, nullptr);
  auto parsed = (*parse)({{"factor", "4"}});
  EXPECT_EQ(static_cast<const ScaleParam*>(parsed.get())->factor, 4.0);
}

TEST(OpParam, ShapeAndDTypeFields) {
  auto parse = [](const char* text) {
    TShape s;
    std::istringstream is(text);
    is >> s;
    return std::make_pair(!is.fail(), s);
  };
  EXPECT_EQ(parse("(3, 4)").second, (TShape{3, 4}));
  EXPECT_EQ(parse("[3,4]").second, (TShape{3, 4}));
  EXPECT_EQ(parse("(3,)").second, (TShape{3}));
  EXPECT_EQ(parse("7").second, (TShape{7}));
  EXPECT_EQ(parse("()").second, TShape());
  EXPECT_FALSE(parse("(3, x)").first);
  EXPECT_FALSE(parse("(3, 4").first);
  EXPECT_EQ((TShape{3}).ToString(), "(3,)");
  EXPECT_EQ((TShape{2, 5}).ToString(), "(2, 5)");
  mxffi::DTypeParam d;
  std::istringstream is("float32");
  is >> d;
  EXPECT_FALSE(d.is_none);
  EXPECT_EQ(d.dtype.bits, 32);
  std::ostringstream os;
  os << d;
  EXPECT_EQ(os.str(), "float32");
}

TEST(DataType, FromStringReadsNumpyNames) {
  auto bits = [](const char* s) { return mxffi::DataTypeFromString(s, "t").bits; };
  EXPECT_EQ(bits("float64"), 64);
  EXPECT_EQ(bits("f4"), 32);
  EXPECT_EQ(bits("<f8"), 64);
  EXPECT_EQ(mxffi::DataTypeFromString("bool", "t").code, kDLBool);
  EXPECT_EQ(mxffi::DataTypeFromString("bfloat16", "t").code, kDLBfloat);
  EXPECT_EQ(mxffi::DataTypeFromString("int8x4", "t").lanes, 4);
  MXFFI_EXPECT_THROW_KIND(mxffi::DataTypeFromString("float33", "np.zeros"), "TypeError",
                          "np.zeros: data type 'float33' not understood");
}

TEST(Parallel, EveryIndexRunsExactlyOnce) {
  constexpr int64_t n = 1 << 20;
  std::vector<std::atomic<int>> hits(n);
  mxffi::op::ParallelRun(n, 7, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
  // A kernel's exception reaches the caller, and the pool still works afterwards.
  EXPECT_THROW(mxffi::op::ParallelRun(100, 4,
                                      [](int64_t b, int64_t) {
                                        if (b == 0) MXFFI_THROW(ValueError) << "chunk failed";
                                      }),
               mxffi::Error);
  std::atomic<int64_t> sum{0};
  mxffi::op::ParallelFor(n, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), n);
  EXPECT_GE(mxffi::op::NumThreads(), 1);
}

}  // namespace
