#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include <climits>
#include <cstring>
#include <string>

#include "test_util.h"

namespace {

using mxffi_test::CallRaw;
using mxffi_test::Cell;
using mxffi_test::FloatCell;
using mxffi_test::IntCell;
using mxffi_test::StrCell;
using mxffi_test::ViewCell;

// Every plain type code goes through testing.echo and comes back with the same code and value
// (borrowed string views come back owned, as String/SmallStr/Bytes).
TEST(Function, EveryPlainTypeCodeRoundTrips) {
  EXPECT_EQ(CallRaw("testing.echo", {Cell(kMXFFINone)}).result.type_index(), kMXFFINone);

  auto r = CallRaw("testing.echo", {IntCell(-42)});
  EXPECT_EQ(r.result.type_index(), kMXFFIInt);
  EXPECT_EQ(r.result.raw()->v_int64, -42);

  MXFFIAny b = Cell(kMXFFIBool);
  b.v_int64 = 1;
  r = CallRaw("testing.echo", {b});
  EXPECT_EQ(r.result.type_index(), kMXFFIBool);
  EXPECT_EQ(r.result.cast<bool>(), true);

  r = CallRaw("testing.echo", {FloatCell(2.5)});
  EXPECT_EQ(r.result.type_index(), kMXFFIFloat);
  EXPECT_EQ(r.result.raw()->v_float64, 2.5);

  int target = 0;
  MXFFIAny p = Cell(kMXFFIOpaquePtr);
  p.v_ptr = &target;
  r = CallRaw("testing.echo", {p});
  EXPECT_EQ(r.result.type_index(), kMXFFIOpaquePtr);
  EXPECT_EQ(r.result.raw()->v_ptr, &target);

  MXFFIAny dt = Cell(kMXFFIDataType);
  dt.v_dtype = DLDataType{kDLFloat, 16, 4};
  r = CallRaw("testing.echo", {dt});
  ASSERT_EQ(r.result.type_index(), kMXFFIDataType);
  EXPECT_EQ(r.result.raw()->v_dtype.bits, 16);
  EXPECT_EQ(r.result.raw()->v_dtype.lanes, 4);
  EXPECT_EQ(CallRaw("testing.dtype_bits", {dt}).result.cast<int64_t>(), 64);

  MXFFIAny dev = Cell(kMXFFIDevice);
  dev.v_device = DLDevice{kDLCUDA, 3};
  r = CallRaw("testing.echo", {dev});
  ASSERT_EQ(r.result.type_index(), kMXFFIDevice);
  EXPECT_EQ(r.result.raw()->v_device.device_type, kDLCUDA);
  EXPECT_EQ(r.result.raw()->v_device.device_id, 3);

  double values[3] = {7.5, 1, 2};
  int64_t shape[1] = {3};
  DLTensor t{values, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, shape, nullptr, 0};
  MXFFIAny tp = Cell(kMXFFIDLTensorPtr);
  tp.v_ptr = &t;
  r = CallRaw("testing.echo", {tp});
  EXPECT_EQ(r.result.type_index(), kMXFFIDLTensorPtr);
  EXPECT_EQ(r.result.raw()->v_ptr, &t);
  EXPECT_EQ(CallRaw("testing.tensor_first_f64", {tp}).result.cast<double>(), 7.5);

  r = CallRaw("testing.echo", {StrCell("raw string")});
  EXPECT_EQ(r.result.type_index(), kMXFFIString);
  EXPECT_EQ(r.result.cast<std::string>(), "raw string");

  mxffi::String small("abc");
  r = CallRaw("testing.echo", {*small.raw()});
  EXPECT_EQ(r.result.type_index(), kMXFFISmallStr);
  EXPECT_EQ(r.result.cast<std::string>(), "abc");

  mxffi::Bytes small_bytes(std::string("a\0b", 3));
  r = CallRaw("testing.echo", {*small_bytes.raw()});
  EXPECT_EQ(r.result.type_index(), kMXFFISmallBytes);
  EXPECT_EQ(r.result.cast<mxffi::Bytes>().str(), std::string("a\0b", 3));

  std::string text = "a view of some text";
  MXFFIByteArray arr{text.data(), text.size()};
  r = CallRaw("testing.echo", {ViewCell(kMXFFIStrView, &arr)});
  EXPECT_EQ(r.result.type_index(), kMXFFIString);
  EXPECT_EQ(r.result.cast<std::string>(), text);
  r = CallRaw("testing.echo", {ViewCell(kMXFFIBytesView, &arr)});
  EXPECT_EQ(r.result.type_index(), kMXFFIBytes);
  EXPECT_EQ(r.result.cast<mxffi::Bytes>().str(), text);
}

// Every object type code: the same object comes back (identity, refcount restored).
TEST(Function, EveryObjectTypeCodeRoundTrips) {
  mxffi::Function adder =
      mxffi::Function::GetGlobalRequired("testing.make_adder")(1).cast<mxffi::Function>();
  std::vector<mxffi::Any> objects = {
      mxffi::Any(mxffi::String("a string longer than seven")),
      mxffi::Any(mxffi::Bytes("bytes longer than seven")),
      mxffi::Any(mxffi::Error("ValueError", "carried as a value")),
      mxffi::Any(adder),
      mxffi::Any(mxffi::Array<int64_t>{1, 2}),
      mxffi::Any(mxffi::Map<mxffi::String, int64_t>{{"k", 1}}),
      mxffi::Any(mxffi::ADT(3, {mxffi::Any(1)})),
      mxffi::Any(mxffi::Shape{2, 3}),
      mxffi::Function::GetGlobalRequired("library.load")(MXFFI_GOOD_LIB),
  };
  std::vector<int32_t> codes;
  for (const mxffi::Any& obj : objects) {
    const MXFFIObject* header = obj.raw()->v_obj;
    int64_t refs_before = header->ref_counter;
    auto r = CallRaw("testing.echo", {*obj.raw()});
    ASSERT_EQ(r.rc, 0) << r.message;
    EXPECT_EQ(r.result.type_index(), obj.type_index());
    EXPECT_EQ(r.result.raw()->v_obj, header) << "echo must return the same object";
    EXPECT_EQ(header->ref_counter, refs_before + 1);  // the result holds one reference
    codes.push_back(obj.type_index());
  }
  EXPECT_EQ(codes,
            (std::vector<int32_t>{kMXFFIString, kMXFFIBytes, kMXFFIError, kMXFFIFunction,
                                  kMXFFIArray, kMXFFIMap, kMXFFIADT, kMXFFIShape, kMXFFILibrary}));
}

TEST(Function, WrongArgumentTypeNamesFunctionArgumentAndTypes) {
  auto r = CallRaw("testing.add", {IntCell(1), StrCell("x")});
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.kind, "TypeError");
  EXPECT_EQ(r.message, "testing.add: argument #1 'b' expected int, got str");

  r = CallRaw("testing.add", {FloatCell(1.0), IntCell(2)});
  EXPECT_EQ(r.kind, "TypeError");
  EXPECT_EQ(r.message, "testing.add: argument #0 'a' expected int, got float");

  mxffi::Array<int64_t> arr{1};
  r = CallRaw("testing.add_float", {FloatCell(1.0), *mxffi::Any(arr).raw()});
  EXPECT_EQ(r.message, "testing.add_float: argument #1 'b' expected float, got mxffi.Array");
}

TEST(Function, NoneIsNotAFunctionArgument) {
  // None where a Function is expected is a TypeError, not a null function called.
  EXPECT_FALSE(mxffi::AnyView().try_cast<mxffi::Function>().has_value());
  EXPECT_TRUE(mxffi::AnyView().try_cast<mxffi::Optional<mxffi::Function>>().has_value());
  auto r = CallRaw("testing.apply", {Cell(kMXFFINone), IntCell(1)});
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.kind, "TypeError");
  EXPECT_EQ(r.message, "testing.apply: argument #0 'f' expected Function, got None");
  r = CallRaw("testing.apply_in_thread", {Cell(kMXFFINone)});
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.kind, "TypeError");
}

TEST(Function, WrongArityIsTypeError) {
  auto r = CallRaw("testing.add", {IntCell(1), IntCell(2), IntCell(3)});
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.kind, "TypeError");
  EXPECT_EQ(r.message, "testing.add: expected 1 to 2 arguments, got 3");
  r = CallRaw("testing.add", {});
  EXPECT_EQ(r.message, "testing.add: expected 1 to 2 arguments, got 0");
  r = CallRaw("testing.add_float", {FloatCell(1)});
  EXPECT_EQ(r.message, "testing.add_float: expected 2 arguments, got 1");
  r = CallRaw("testing.nop", {IntCell(1)});
  EXPECT_EQ(r.message, "testing.nop: expected 0 arguments, got 1");
}

TEST(Function, DefaultsFillMissingTrailingArguments) {
  auto r = CallRaw("testing.add", {IntCell(41)});
  ASSERT_EQ(r.rc, 0) << r.message;
  EXPECT_EQ(r.result.cast<int64_t>(), 42);
}

TEST(Function, Int64Extremes) {
  for (int64_t v : {INT64_MIN, INT64_MIN + 1, int64_t{-1}, int64_t{0}, INT64_MAX}) {
    auto r = CallRaw("testing.echo", {IntCell(v)});
    EXPECT_EQ(r.result.cast<int64_t>(), v);
  }
  EXPECT_EQ(CallRaw("testing.add", {IntCell(INT64_MAX), IntCell(0)}).result.cast<int64_t>(),
            INT64_MAX);
  EXPECT_EQ(CallRaw("testing.add", {IntCell(INT64_MIN), IntCell(0)}).result.cast<int64_t>(),
            INT64_MIN);
  auto r = CallRaw("testing.add", {IntCell(INT64_MAX), IntCell(1)});
  EXPECT_EQ(r.kind, "OverflowError");
  EXPECT_EQ(r.message, "testing.add: 9223372036854775807 + 1 overflows int64");

  // A narrower parameter refuses an out-of-range value with OverflowError, naming it.
  r = CallRaw("container.adt", {IntCell(int64_t{1} << 40)});
  EXPECT_EQ(r.kind, "OverflowError");  // a packed body checks the range of what it casts
  EXPECT_EQ(r.message, "container.adt: the tag 1099511627776 does not fit in int32");
  MXFFI_EXPECT_THROW_KIND(mxffi::Any(int64_t{1} << 40).cast<int32_t>(), "OverflowError",
                          "value 1099511627776 out of range for int32");
  mxffi::Function f = mxffi::Function::FromTyped([](int32_t x) { return x; });
  try {
    f(int64_t{1} << 40);
    FAIL() << "expected OverflowError";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "OverflowError");
    EXPECT_EQ(e.message(),
              "<anonymous function>: argument #0 value 1099511627776 out of range for int32");
  }
  EXPECT_EQ(f(INT32_MIN).cast<int64_t>(), INT32_MIN);
}

std::string WithNuls(size_t n) {
  std::string s(n, 'x');
  for (size_t i = 0; i < n; i += 3) s[i] = '\0';
  return s;
}

TEST(Function, StringsOfEveryLengthWithEmbeddedNuls) {
  for (size_t n : {size_t{0}, size_t{7}, size_t{8}, size_t{1} << 20}) {
    std::string s = WithNuls(n);
    MXFFIByteArray arr{s.data(), s.size()};
    auto r = CallRaw("testing.echo", {ViewCell(kMXFFIStrView, &arr)});
    ASSERT_EQ(r.rc, 0);
    EXPECT_EQ(r.result.type_index(), n <= 7 ? kMXFFISmallStr : kMXFFIString) << n;
    EXPECT_EQ(r.result.cast<std::string>(), s) << n;
    EXPECT_EQ(CallRaw("testing.str_len", {ViewCell(kMXFFIStrView, &arr)}).result.cast<int64_t>(),
              static_cast<int64_t>(n));

    // Owned String: inline up to 7 bytes, shared object past that; NULs kept either way.
    mxffi::String owned(s);
    EXPECT_EQ(owned.is_small(), n <= 7);
    EXPECT_EQ(owned.size(), n);
    EXPECT_EQ(owned.str(), s);
    auto r2 = CallRaw("testing.echo", {*owned.raw()});
    EXPECT_EQ(r2.result.cast<mxffi::String>(), owned);

    mxffi::Bytes bytes(s);
    auto r3 = CallRaw("testing.echo", {*bytes.raw()});
    EXPECT_EQ(r3.result.cast<mxffi::Bytes>().str(), s);
  }
  // A str is not bytes, and bytes are not a str.
  mxffi::Bytes b("bytes!");
  auto r = CallRaw("testing.str_len", {*b.raw()});
  EXPECT_EQ(r.message, "testing.str_len: argument #0 's' expected str, got bytes");
}

/*! \brief MXFFIFuncCall of f lending buf (cap bytes) for a text result; rc in *rc. */
MXFFIAny CallLending(MXFFIObjectHandle f, std::vector<MXFFIAny> args, char* buf, uint32_t cap,
                     int* rc) {
  MXFFIAny result;
  result.type_index = kMXFFIResultBuffer;
  result.small_len = cap;
  result.v_ptr = buf;
  *rc = MXFFIFuncCall(f, args.data(), static_cast<int32_t>(args.size()), &result);
  return result;
}

TEST(Function, TextResultsGoIntoTheBufferTheCallerLends) {
  char buf[64];
  MXFFIObjectHandle echo = mxffi_test::GetGlobalHandle("testing.echo_text");
  for (size_t n :
       {size_t{0}, size_t{7}, size_t{8}, size_t{62}, size_t{63}, size_t{64}, size_t{1000}}) {
    const std::string s = WithNuls(n);
    MXFFIByteArray arr{s.data(), s.size()};
    std::memset(buf, '?', sizeof(buf));
    int rc;
    MXFFIAny r = CallLending(echo, {ViewCell(kMXFFIStrView, &arr)}, buf, sizeof(buf), &rc);
    ASSERT_EQ(rc, 0) << n;
    if (n <= 7) {  // inline, as without a loan
      EXPECT_EQ(r.type_index, kMXFFISmallStr) << n;
      EXPECT_EQ(buf[0], '?') << n;
    } else if (n < sizeof(buf)) {  // with its NUL, it fits: in the buffer, nothing owned
      ASSERT_EQ(r.type_index, kMXFFIBufferStr) << n;
      EXPECT_EQ(r.v_ptr, static_cast<void*>(buf));
      EXPECT_EQ(r.small_len, n);
      EXPECT_EQ(std::string(buf, n), s);
      EXPECT_EQ(buf[n], '\0');
      EXPECT_EQ(mxffi::Any::MoveFromRaw(&r).cast<std::string>(), s);  // a str for C++ too
      continue;
    } else {  // too long for the buffer: a String, as without a loan
      EXPECT_EQ(r.type_index, kMXFFIString) << n;
      EXPECT_EQ(buf[0], '?') << n;
    }
    EXPECT_EQ(mxffi::Any::MoveFromRaw(&r).cast<std::string>(), s) << n;
  }
  // Without a loan the same call makes a String.
  const std::string twelve = "hello, world";
  MXFFIByteArray arr{twelve.data(), twelve.size()};
  EXPECT_EQ(CallRaw("testing.echo_text", {ViewCell(kMXFFIStrView, &arr)}).result.type_index(),
            kMXFFIString);

  int rc;
  // std::string and const char* results are written the same way.
  MXFFIAny r1 = CallLending(mxffi_test::GetGlobalHandle("testing.repeat_text"),
                            {ViewCell(kMXFFIStrView, &arr), IntCell(3)}, buf, sizeof(buf), &rc);
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(r1.type_index, kMXFFIBufferStr);
  EXPECT_EQ(std::string(buf, r1.small_len), twelve + twelve + twelve);
  auto c_str = mxffi::Function::FromTyped([]() -> const char* { return "twelve bytes"; });
  MXFFIAny r2 = CallLending(
      mxffi::details::ObjectUnsafe::Header(const_cast<mxffi::FunctionObj*>(c_str.get())), {}, buf,
      sizeof(buf), &rc);
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(r2.type_index, kMXFFIBufferStr);
  EXPECT_EQ(std::string(buf, r2.small_len), "twelve bytes");

  // A function that writes no result leaves the loan, which means None; one returning another
  // type, or a String it made itself, ignores it.
  auto nothing = mxffi::Function::FromTyped([](int64_t) {});
  MXFFIAny r3 = CallLending(
      mxffi::details::ObjectUnsafe::Header(const_cast<mxffi::FunctionObj*>(nothing.get())),
      {IntCell(1)}, buf, sizeof(buf), &rc);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(r3.type_index, kMXFFIResultBuffer);
  MXFFIAny r4 = CallLending(mxffi_test::GetGlobalHandle("testing.str_len"),
                            {ViewCell(kMXFFIStrView, &arr)}, buf, sizeof(buf), &rc);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(r4.type_index, kMXFFIInt);
  EXPECT_EQ(r4.v_int64, 12);
  MXFFIAny r5 = CallLending(mxffi_test::GetGlobalHandle("testing.concat"),
                            {ViewCell(kMXFFIStrView, &arr), ViewCell(kMXFFIStrView, &arr)}, buf,
                            sizeof(buf), &rc);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(r5.type_index, kMXFFIString);
  EXPECT_EQ(mxffi::Any::MoveFromRaw(&r5).cast<std::string>(), twelve + twelve);
  // An error leaves nothing to release.
  MXFFIAny r6 = CallLending(mxffi_test::GetGlobalHandle("testing.repeat_text"),
                            {ViewCell(kMXFFIStrView, &arr), IntCell(-1)}, buf, sizeof(buf), &rc);
  EXPECT_EQ(rc, -1);
  EXPECT_LT(r6.type_index, kMXFFIStaticObjectBegin);
}

TEST(Function, ReturnedClosureCalledLater) {
  mxffi::Function make_adder;
  {
    auto r = CallRaw("testing.make_adder", {IntCell(10)});
    ASSERT_EQ(r.rc, 0);
    make_adder = r.result.cast<mxffi::Function>();
  }
  // The factory's frame is long gone; the closure still holds its state.
  EXPECT_EQ(make_adder(5).cast<int64_t>(), 15);
  mxffi::TypedFunction<int64_t(int64_t)> typed = make_adder;
  EXPECT_EQ(typed(-10), 0);
  auto r = CallRaw("testing.apply", {*mxffi::Any(make_adder).raw(), IntCell(32)});
  EXPECT_EQ(r.result.cast<int64_t>(), 42);
}

TEST(Function, CCallbackFunction) {
  static int freed = 0;
  int resource = 100;
  auto callback = [](void* res, const MXFFIAny* args, int32_t n, MXFFIAny* out) -> int {
    if (n != 1 || args[0].type_index != kMXFFIInt) {
      MXFFIErrorSet("TypeError", "callback wants one int", nullptr);
      return -1;
    }
    out->type_index = kMXFFIInt;
    out->v_int64 = args[0].v_int64 + *static_cast<int*>(res);
    return 0;
  };
  MXFFIObjectHandle h = nullptr;
  ASSERT_EQ(MXFFIFuncCreate(
                &resource, callback, [](void*) { ++freed; }, &h),
            0);
  mxffi::Function f(
      mxffi::ObjectPtr<mxffi::Object>::MoveFromRaw(mxffi::details::ObjectUnsafe::FromHeader(h)));
  EXPECT_EQ(f(1).cast<int64_t>(), 101);
  // Called back from C++ through testing.apply, and from a new C++ thread.
  mxffi::Function apply = mxffi::Function::GetGlobalRequired("testing.apply");
  EXPECT_EQ(apply(f, 2).cast<int64_t>(), 102);
  mxffi::Function in_thread = mxffi::Function::GetGlobalRequired("testing.apply_in_thread");
  EXPECT_EQ(in_thread(f, 3).cast<int64_t>(), 103);
  try {
    in_thread(f, "no");
    FAIL() << "expected the callback's TypeError";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_EQ(e.message(), "callback wants one int");
  }
  f = mxffi::Function();
  EXPECT_EQ(freed, 1);
}

TEST(Function, CallRefusesNonFunctions) {
  mxffi::Array<int64_t> arr{1};
  MXFFIAny result = mxffi_test::Cell(kMXFFINone);
  EXPECT_EQ(MXFFIFuncCall(mxffi::Any(arr).raw()->v_obj, nullptr, 0, &result), -1);
  const char *kind, *msg;
  MXFFIErrorGetLast(&kind, &msg, nullptr);
  EXPECT_STREQ(kind, "TypeError");
  EXPECT_STREQ(msg, "MXFFIFuncCall: func is not a Function; got mxffi.Array");
  EXPECT_EQ(MXFFIFuncCall(nullptr, nullptr, 0, &result), -1);
}

TEST(Function, CreateRefusesNullOutAndKeepsTheResource) {
  static int freed = 0;
  auto callback = [](void*, const MXFFIAny*, int32_t, MXFFIAny*) -> int { return 0; };
  EXPECT_EQ(MXFFIFuncCreate(
                nullptr, callback, [](void*) { ++freed; }, nullptr),
            -1);
  const char *kind, *msg;
  MXFFIErrorGetLast(&kind, &msg, nullptr);
  EXPECT_STREQ(kind, "ValueError");
  EXPECT_STREQ(msg, "MXFFIFuncCreate: out is NULL");
  EXPECT_EQ(freed, 0);  // nothing was made: the resource is still the caller's
}

TEST(Function, CallErrorsNameTheBadCount) {
  MXFFIObjectHandle f = mxffi_test::GetGlobalHandle("testing.add");
  MXFFIAny result = mxffi_test::Cell(kMXFFINone);
  MXFFIAny arg = mxffi_test::IntCell(1);
  const char *kind, *msg;
  EXPECT_EQ(MXFFIFuncCall(f, &arg, -1, &result), -1);
  MXFFIErrorGetLast(&kind, &msg, nullptr);
  EXPECT_STREQ(msg, "MXFFIFuncCall: num_args is -1; expected >= 0");
  EXPECT_EQ(MXFFIFuncCall(f, nullptr, 2, &result), -1);
  MXFFIErrorGetLast(&kind, &msg, nullptr);
  EXPECT_STREQ(msg, "MXFFIFuncCall: args is NULL but num_args is 2");
  MXFFIObjectFree(f);
}

TEST(Function, ArrayCreateRefusesCellsOfNoType) {
  MXFFIAny items[2] = {mxffi_test::IntCell(1), mxffi_test::Cell(40)};
  MXFFIObjectHandle out = nullptr;
  EXPECT_EQ(MXFFIArrayCreate(items, 2, &out), -1);
  EXPECT_EQ(out, nullptr);
  const char *kind, *msg;
  MXFFIErrorGetLast(&kind, &msg, nullptr);
  EXPECT_STREQ(kind, "TypeError");
  EXPECT_STREQ(msg, "MXFFIArrayCreate: items[1] has type code 40, which names no type");
}

}  // namespace
