// The argument kinds of mxffi/api/arg_types.h: what each converts, the exact error each raises
// (naming the function and the argument), and that the registry reports their names.
#include <gtest/gtest.h>
#include <mxffi/api/arg_types.h>
#include <mxffi/mxffi.h>

#include <cstdint>
#include <sstream>
#include <string>

namespace {

using mxffi::Any;
using mxffi::Array;
using mxffi::ArrayLike;
using mxffi::ArrayOrScalar;
using mxffi::AxisLike;
using mxffi::DeviceLike;
using mxffi::DTypeLike;
using mxffi::Function;
using mxffi::IntTupleLike;
using mxffi::NDArray;
using mxffi::NDArrayLike;
using mxffi::Optional;
using mxffi::ScalarLike;
using mxffi::ShapeLike;
using mxffi::StorageTypeLike;
using mxffi::WritableArray;

constexpr DLDataType kF64{kDLFloat, 64, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};
constexpr DLDevice kCPU{kDLCPU, 0};

std::string Str(const mxffi::TShape& s) { return s.ToString(); }

// Each function echoes what its kinds read, as a string, so a test can check the conversion.
MXFFI_REGISTER_API("test_args.shapes")
    .arg("shape")
    .arg("ints", nullptr)
    .arg("axis", nullptr)
    .arg("maybe", nullptr)
    .set_body_typed([](ShapeLike shape, Optional<IntTupleLike> ints, AxisLike axis,
                       Optional<ShapeLike> maybe) {
      std::ostringstream os;
      os << Str(shape) << " " << (ints.has_value() ? Str(*ints) : "None") << " "
         << (axis.is_none()  ? "None"
             : axis.is_int() ? "int " + std::to_string(axis.axis())
                             : "tuple " + Str(axis.tuple()))
         << " " << (maybe.has_value() ? Str(*maybe) : "None");
      return os.str();
    });

MXFFI_REGISTER_API("test_args.dtype_device")
    .arg("dtype")
    .arg("device", nullptr)
    .set_body_typed([](DTypeLike dtype, DeviceLike device) {
      std::ostringstream os;
      os << (dtype.has_value() ? mxffi::DataTypeToString(dtype.value()) : "None") << " ";
      if (device.has_value()) {
        os << device.value().device_type << ":" << device.value().device_id;
      } else {
        os << "None";
      }
      return os.str();
    });

MXFFI_REGISTER_API("test_args.values")
    .arg("scalar")
    .arg("array")
    .arg("operand")
    .arg("stype", "default")
    .set_body_typed([](ScalarLike scalar, NDArrayLike array, ArrayOrScalar operand,
                       StorageTypeLike stype) {
      std::ostringstream os;
      os << (scalar.is_bool()  ? "bool"
             : scalar.is_int() ? "int"
                               : "float")
         << " " << scalar.value() << " " << (array.borrowed() ? "borrowed" : "owned") << " "
         << array->tensor().ndim << " " << (operand.is_array() ? "array" : "number") << " "
         << mxffi::StorageTypeName(stype);
      return os.str();
    });

MXFFI_REGISTER_API("test_args.arrays")
    .arg("object")
    .arg("out", nullptr)
    .set_body_typed([](ArrayLike object, Optional<WritableArray> out) {
      std::ostringstream os;
      os << static_cast<int>(object.kind()) << " ";
      if (object.kind() == ArrayLike::Kind::kSequence) {
        os << Str(object.sequence_shape()) << " "
           << mxffi::DataTypeToString(object.SequenceDType());
      }
      os << " " << (out.has_value() ? "out" : "None");
      return os.str();
    });

std::string Call(const char* name, std::initializer_list<Any> args) {
  Function f = Function::GetGlobalRequired(name);
  Any rv;
  f.CallPacked(mxffi::PackedArgs(reinterpret_cast<const mxffi::AnyView*>(args.begin()),
                                 static_cast<int32_t>(args.size())),
               &rv);
  return rv.cast<std::string>();
}

/*! \return "Kind: message" of the error the call raises, or "no error". */
std::string ErrorOf(const char* name, std::initializer_list<Any> args) {
  try {
    Call(name, args);
  } catch (const mxffi::Error& e) {
    return e.kind() + ": " + e.message();
  }
  return "no error";
}

Array<Any> Ints(std::initializer_list<int64_t> v) {
  Array<Any> a;
  for (int64_t x : v) a.push_back(Any(x));
  return a;
}

TEST(ArgTypes, ShapesAxesAndIntTuplesConvert) {
  EXPECT_EQ(Call("test_args.shapes", {Any(int64_t{3})}), "(3,) None None None");
  EXPECT_EQ(Call("test_args.shapes", {Ints({2, 3}), Ints({-1, 4}), Any(int64_t{-1})}),
            "(2, 3) (-1, 4) int -1 None");
  EXPECT_EQ(
      Call("test_args.shapes", {mxffi::Shape{4, 0}, Any(int64_t{-2}), Ints({0, -1}), Ints({})}),
      "(4, 0) (-2,) tuple (0, -1) ()");
  // bools count as ints, as numpy's shapes take them.
  Array<Any> with_bool;
  with_bool.push_back(Any(true));
  with_bool.push_back(Any(int64_t{2}));
  EXPECT_EQ(Call("test_args.shapes", {with_bool}), "(1, 2) None None None");
}

TEST(ArgTypes, ShapeErrors) {
  Array<Any> mixed;
  mixed.push_back(Any(int64_t{2}));
  mixed.push_back(Any(1.5));
  Array<Any> many;
  for (int i = 0; i < 33; ++i) many.push_back(Any(int64_t{1}));
  EXPECT_EQ(ErrorOf("test_args.shapes", {Any("x")}),
            "TypeError: test_args.shapes: argument #0 'shape' expected a shape (an int or a "
            "sequence of ints), got str");
  EXPECT_EQ(ErrorOf("test_args.shapes", {mixed}),
            "TypeError: test_args.shapes: argument #0 'shape' element 1 expected an int, got "
            "float");
  EXPECT_EQ(ErrorOf("test_args.shapes", {Ints({2, -1})}),
            "ValueError: test_args.shapes: argument #0 'shape': negative dimensions are not "
            "allowed; got (2, -1)");
  EXPECT_EQ(ErrorOf("test_args.shapes", {Any(int64_t{-3})}),
            "ValueError: test_args.shapes: argument #0 'shape': negative dimensions are not "
            "allowed; got (-3,)");
  EXPECT_EQ(ErrorOf("test_args.shapes", {mxffi::Shape{1, -1}}),
            "ValueError: test_args.shapes: argument #0 'shape': negative dimensions are not "
            "allowed; got (1, -1)");
  EXPECT_EQ(ErrorOf("test_args.shapes", {many}),
            "ValueError: test_args.shapes: argument #0 'shape': maximum supported dimension for "
            "an ndarray is 32, found 33");
  EXPECT_EQ(ErrorOf("test_args.shapes", {Any(int64_t{1}), Any(2.5)}),
            "TypeError: test_args.shapes: argument #1 'ints' expected None or an int or a "
            "sequence of ints, got float");
  EXPECT_EQ(ErrorOf("test_args.shapes", {Any(int64_t{1}), nullptr, Any("x")}),
            "TypeError: test_args.shapes: argument #2 'axis' expected None, an int or a "
            "sequence of ints, got str");
  EXPECT_EQ(ErrorOf("test_args.shapes", {Any(int64_t{1}), nullptr, mixed}),
            "TypeError: test_args.shapes: argument #2 'axis' element 1 expected an int, got "
            "float");
  // Optional<ShapeLike> keeps the kind's value check.
  EXPECT_EQ(ErrorOf("test_args.shapes", {Any(int64_t{1}), nullptr, nullptr, Ints({-5})}),
            "ValueError: test_args.shapes: argument #3 'maybe': negative dimensions are not "
            "allowed; got (-5,)");
  EXPECT_EQ(ErrorOf("test_args.shapes", {Any(int64_t{1}), nullptr, nullptr, Any(1.0)}),
            "TypeError: test_args.shapes: argument #3 'maybe' expected None or a shape (an int "
            "or a sequence of ints), got float");
}

TEST(ArgTypes, DTypesAndDevicesConvert) {
  EXPECT_EQ(Call("test_args.dtype_device", {nullptr}), "None None");
  EXPECT_EQ(Call("test_args.dtype_device", {kI32, kCPU}), "int32 1:0");
  EXPECT_EQ(Call("test_args.dtype_device", {Any("float32"), Any("cpu")}), "float32 1:0");
  EXPECT_EQ(Call("test_args.dtype_device", {nullptr, Any("cuda:3")}), "None 2:3");
  EXPECT_EQ(Call("test_args.dtype_device", {nullptr, Any("gpu")}), "None 2:0");
  EXPECT_EQ(Call("test_args.dtype_device", {nullptr, Ints({2, 1})}), "None 2:1");
  EXPECT_EQ(Call("test_args.dtype_device", {nullptr, DLDevice{kDLCUDA, 7}}), "None 2:7");
}

TEST(ArgTypes, DTypeAndDeviceErrors) {
  EXPECT_EQ(ErrorOf("test_args.dtype_device", {Any(int64_t{3})}),
            "TypeError: test_args.dtype_device: argument #0 'dtype' expected a data type (a str, "
            "a DataType or None), got int");
  // The text after the label is the dtype parser's own (numpy's words).
  const std::string unknown = ErrorOf("test_args.dtype_device", {Any("floaty")});
  EXPECT_EQ(unknown.rfind("TypeError: test_args.dtype_device: argument #0 'dtype': ", 0), 0u)
      << unknown;
  EXPECT_NE(unknown.find("'floaty'"), std::string::npos) << unknown;
  EXPECT_EQ(ErrorOf("test_args.dtype_device", {DLDataType{kDLFloat, 32, 0}}),
            "ValueError: test_args.dtype_device: argument #0 'dtype': a data type has at least "
            "one lane; got lanes=0");
  EXPECT_EQ(ErrorOf("test_args.dtype_device", {nullptr, Any(1.5)}),
            "TypeError: test_args.dtype_device: argument #1 'device' expected a device (a str, a "
            "Device, a (device_type, device_id) pair or None), got float");
  for (const char* bad :
       {"tpu", "cpu:", "cpu: 1", "cpu:+1", "cpu:-0", "cuda:1 ", "cpu:0x1", "cuda:99999999999"}) {
    EXPECT_EQ(ErrorOf("test_args.dtype_device", {nullptr, Any(bad)}),
              std::string("ValueError: test_args.dtype_device: argument #1 'device': unknown "
                          "device '") +
                  bad + "'; expected 'cpu', 'cpu:0', 'cuda' or 'cuda:1'");
  }
  EXPECT_EQ(ErrorOf("test_args.dtype_device", {nullptr, Ints({1, 0, 0})}),
            "ValueError: test_args.dtype_device: argument #1 'device': a device pair must be "
            "(device_type, device_id) as DLPack gives it, e.g. (1, 0); got a sequence of 3");
  EXPECT_EQ(ErrorOf("test_args.dtype_device", {nullptr, Ints({1, -1})}),
            "ValueError: test_args.dtype_device: argument #1 'device': a device pair must be "
            "(device_type, device_id) as DLPack gives it, e.g. (1, 0); got a sequence of 2");
  EXPECT_EQ(ErrorOf("test_args.dtype_device", {nullptr, Ints({10, 0})}),
            "NotImplementedError: test_args.dtype_device: argument #1 'device': device type 10 "
            "is not supported; only the CPU (1) and CUDA (2) are");
  EXPECT_EQ(ErrorOf("test_args.dtype_device", {nullptr, DLDevice{kDLCUDAHost, 0}}),
            "NotImplementedError: test_args.dtype_device: argument #1 'device': device type 3 "
            "is not supported; only the CPU (1) and CUDA (2) are");
}

TEST(ArgTypes, NumbersArraysAndStorageTypesConvert) {
  NDArray a = NDArray::Empty({2, 3}, kF64, kCPU);
  DLTensor* lent = const_cast<DLTensor*>(&a.tensor());
  EXPECT_EQ(Call("test_args.values", {Any(true), a, Any(2.5)}), "bool 1 owned 2 number default");
  EXPECT_EQ(Call("test_args.values", {Any(int64_t{-4}), lent, a, Any("csr")}),
            "int -4 borrowed 2 array csr");
  EXPECT_EQ(Call("test_args.values", {Any(0.5), a, lent, Any("row_sparse")}),
            "float 0.5 owned 2 array row_sparse");
}

TEST(ArgTypes, NumberArrayAndStorageTypeErrors) {
  NDArray a = NDArray::Empty({2}, kF64, kCPU);
  EXPECT_EQ(ErrorOf("test_args.values", {Any("1"), a, a}),
            "TypeError: test_args.values: argument #0 'scalar' expected a number, got str");
  EXPECT_EQ(ErrorOf("test_args.values", {Any(1.0), Any(int64_t{1}), a}),
            "TypeError: test_args.values: argument #1 'array' expected an ndarray, got int");
  EXPECT_EQ(ErrorOf("test_args.values", {Any(1.0), a, Any("x")}),
            "TypeError: test_args.values: argument #2 'operand' expected an ndarray or a number, "
            "got str");
  EXPECT_EQ(ErrorOf("test_args.values", {Any(1.0), a, a, Any(int64_t{1})}),
            "TypeError: test_args.values: argument #3 'stype' expected a storage type "
            "('default', 'csr', 'row_sparse' or 'coo'), got int");
  EXPECT_EQ(ErrorOf("test_args.values", {Any(1.0), a, a, Any("dense")}),
            "ValueError: test_args.values: argument #3 'stype': unknown storage type 'dense'; "
            "expected 'default', 'csr', 'row_sparse' or 'coo'");
}

void NoDelete(DLManagedTensorVersioned*) {}

TEST(ArgTypes, ArraysAndWritableArrays) {
  Array<Any> nested;
  nested.push_back(Ints({1, 2}));
  nested.push_back(Ints({3, 4}));
  EXPECT_EQ(Call("test_args.arrays", {nested}), "2 (2, 2) int64 None");
  EXPECT_EQ(Call("test_args.arrays", {Array<Any>()}), "2 (0,) float64 None");
  NDArray out = NDArray::Empty({2}, kF64, kCPU);
  EXPECT_EQ(Call("test_args.arrays", {Any(1.5), out}), "1  out");
  EXPECT_EQ(Call("test_args.arrays", {out}), "0  None");

  EXPECT_EQ(ErrorOf("test_args.arrays", {Any("abc")}),
            "TypeError: test_args.arrays: argument #0 'object' expected an array, a number or a "
            "nested sequence of numbers and arrays, got str");
  Array<Any> ragged;
  ragged.push_back(Ints({1, 2}));
  ragged.push_back(Ints({3}));
  EXPECT_EQ(ErrorOf("test_args.arrays", {ragged}),
            "ValueError: test_args.arrays: argument #0 'object': setting an array element with a "
            "sequence. The requested array has an inhomogeneous shape; the first element has "
            "shape (2, 2)");
  Array<Any> text;
  text.push_back(Any(int64_t{1}));
  text.push_back(Any("a"));
  EXPECT_EQ(ErrorOf("test_args.arrays", {text}),
            "TypeError: test_args.arrays: argument #0 'object': cannot make an array element "
            "from str; expected numbers, arrays and nested lists of them");

  EXPECT_EQ(ErrorOf("test_args.arrays", {out, Any(int64_t{1})}),
            "TypeError: test_args.arrays: argument #1 'out' expected None or a writable mxffi "
            "ndarray, got int");
  EXPECT_EQ(ErrorOf("test_args.arrays", {out, const_cast<DLTensor*>(&out.tensor())}),
            "TypeError: test_args.arrays: argument #1 'out' expected a writable mxffi ndarray, "
            "got DLTensor* (a tensor lent for the call, such as a numpy array, is not written "
            "through)");
  double data[2] = {1, 2};
  int64_t shape[1] = {2};
  DLManagedTensorVersioned m{};
  m.version = {1, 0};
  m.deleter = NoDelete;
  m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  m.dl_tensor = DLTensor{data, kCPU, 1, kF64, shape, nullptr, 0};
  NDArray read_only = NDArray::FromDLPackVersioned(&m);
  ASSERT_TRUE(read_only.read_only());
  EXPECT_EQ(ErrorOf("test_args.arrays", {out, read_only}),
            "ValueError: test_args.arrays: argument #1 'out': the array is read-only; the "
            "function writes into it");
}

TEST(ArgTypes, TryCastWithoutACallRaisesNothing) {
  // Outside a typed call a kind converts quietly: nullopt for a value it refuses.
  Any negative = Ints({2, -1});
  EXPECT_FALSE(negative.try_cast<ShapeLike>().has_value());
  ASSERT_TRUE(negative.try_cast<IntTupleLike>().has_value());
  EXPECT_EQ(Str(*negative.try_cast<IntTupleLike>()), "(2, -1)");
  EXPECT_FALSE(Any("floaty").try_cast<DTypeLike>().has_value());
  EXPECT_EQ(Any("int32").try_cast<DTypeLike>()->value().bits, 32);
  EXPECT_FALSE(Any("tpu").try_cast<DeviceLike>().has_value());
  EXPECT_FALSE(Any(Ints({10, 0})).try_cast<DeviceLike>().has_value());
  EXPECT_FALSE(Any("dense").try_cast<StorageTypeLike>().has_value());
  EXPECT_FALSE(Any(nullptr).try_cast<ShapeLike>().has_value());
  EXPECT_TRUE(Any(nullptr).try_cast<Optional<ShapeLike>>().has_value());
  // cast() refuses with the generic conversion message.
  try {
    negative.cast<ShapeLike>();
    ADD_FAILURE() << "no error";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_EQ(e.message(), "cannot convert from type 'mxffi.Array' to 'ShapeLike'");
  }
}

TEST(ArgTypes, RegistryReportsTheKinds) {
  auto info = mxffi::details::GetFuncInfo("test_args.values");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->arg_types, (std::vector<std::string>{"ScalarLike", "NDArrayLike", "ArrayOrScalar",
                                                       "StorageTypeLike"}));
  EXPECT_EQ(info->arg_labels[3], "test_args.values: argument #3 'stype'");
  info = mxffi::details::GetFuncInfo("np.zeros");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->arg_types, (std::vector<std::string>{"ShapeLike", "DTypeLike", "DeviceLike"}));
  EXPECT_EQ(info->return_type, "mxffi.NDArray");
  info = mxffi::details::GetFuncInfo("test_args.shapes");
  EXPECT_EQ(info->arg_types, (std::vector<std::string>{"ShapeLike", "Optional[IntTupleLike]",
                                                       "AxisLike", "Optional[ShapeLike]"}));
}

TEST(ArgTypes, ComplexNumbersMakeComplexArraysAndNothingElse) {
  // A complex number is an array-like (np.asarray makes complex128 of it, alone or in a
  // sequence with real numbers) but no ScalarLike or ArrayOrScalar: a function taking those
  // refuses it rather than drop its imaginary part.
  double parts[2] = {1.0, 2.0};
  MXFFIAny cell{};
  cell.type_index = kMXFFIComplexView;
  cell.v_ptr = parts;
  Function asarray = Function::GetGlobalRequired("np.asarray");
  NDArray c = asarray(*mxffi::AnyView::FromRaw(&cell)).cast<NDArray>();
  EXPECT_EQ(c.tensor().ndim, 0);
  EXPECT_EQ(c.tensor().dtype.code, kDLComplex);
  EXPECT_EQ(c.tensor().dtype.bits, 128);
  EXPECT_EQ(static_cast<const double*>(c.data())[1], 2.0);
  mxffi::Array<Any> seq{Any(int64_t{3}), Any(0.5), Any(std::complex<double>(0.0, -1.0))};
  NDArray v = asarray(seq, mxffi::String("complex64")).cast<NDArray>();
  EXPECT_EQ(v.tensor().shape[0], 3);
  EXPECT_EQ(v.tensor().dtype.bits, 64);
  const float* f = static_cast<const float*>(v.data());
  EXPECT_EQ(f[0], 3.0f);
  EXPECT_EQ(f[2], 0.5f);
  EXPECT_EQ(f[5], -1.0f);
  EXPECT_EQ(ErrorOf("np.asarray", {seq, Any(mxffi::String("float64"))}),
            "TypeError: np.asarray: cannot store a complex number in an array of float64 "
            "(numpy's TypeError); take its .real or .imag, or ask for a complex dtype");
  // np.arange takes ScalarLike: a complex start is refused, not read as its real part.
  std::string err = ErrorOf("np.arange", {Any(std::complex<double>(1.0, 1.0))});
  EXPECT_NE(err.find("TypeError: np.arange: argument #0 'start' expected"), std::string::npos)
      << err;
  // The elementwise functions take ArrayOrNumber: a complex number is a weak complex operand.
  NDArray z = Function::GetGlobalRequired("np.zeros")(int64_t{2}).cast<NDArray>();
  NDArray s =
      Function::GetGlobalRequired("np.add")(z, std::complex<double>(1.0, -1.0)).cast<NDArray>();
  EXPECT_EQ(s.tensor().dtype.code, kDLComplex);
  EXPECT_EQ(s.tensor().dtype.bits, 128);
  EXPECT_EQ(static_cast<const double*>(s.data())[3], -1.0);
}

TEST(ArgTypes, TypedFunctionPassesKindsToAFunction) {
  // The kinds go into cells too, so C++ can call an API function through its signature.
  mxffi::TypedFunction<NDArray(ShapeLike, DTypeLike, DeviceLike)> zeros =
      Function::GetGlobalRequired("np.zeros");
  NDArray z = zeros(ShapeLike{2, 3}, DTypeLike(kI32), DeviceLike());
  EXPECT_EQ(z.tensor().ndim, 2);
  EXPECT_EQ(z.tensor().shape[1], 3);
  EXPECT_EQ(z.tensor().dtype.bits, 32);
  NDArray d = zeros(ShapeLike{4}, DTypeLike(), DeviceLike(kCPU));
  EXPECT_EQ(d.tensor().dtype.code, kDLFloat);
  EXPECT_EQ(d.tensor().dtype.bits, 64);
  mxffi::TypedFunction<NDArray(ArrayOrScalar, ArrayOrScalar)> add =
      Function::GetGlobalRequired("np.add");
  NDArray s = add(ArrayOrScalar(NDArrayLike(z, false)), ArrayOrScalar(ScalarLike::Int(1)));
  EXPECT_EQ(static_cast<const int32_t*>(s.data())[5], 1);
}

}  // namespace
