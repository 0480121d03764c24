#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include "test_util.h"

namespace {

using mxffi_test::CallRaw;
using mxffi_test::StrCell;

TEST(Error, EveryKindCrossesTheAbi) {
  for (const char* kind : {"TypeError", "ValueError", "IndexError", "KeyError", "AttributeError",
                           "MemoryError", "NotImplementedError", "OverflowError", "RuntimeError"}) {
    auto r = CallRaw("testing.raise_error", {StrCell(kind), StrCell("the message")});
    EXPECT_EQ(r.rc, -1);
    EXPECT_EQ(r.kind, kind);
    EXPECT_EQ(r.message, "the message");
  }
}

TEST(Error, ThrowAndCheckMacros) {
  try {
    int x = 3;
    MXFFI_CHECK_EQ(x, 4, ValueError) << "x must be four";
    FAIL();
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_EQ(e.message(), "check failed: x == 4 (3 vs. 4): x must be four");
    EXPECT_EQ(e.FullMessage(), "ValueError: check failed: x == 4 (3 vs. 4): x must be four");
  }
  try {
    MXFFI_CHECK(false, NotImplementedError) << "not yet";
    FAIL();
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "NotImplementedError");
    EXPECT_EQ(e.message(), "not yet");
  }
  MXFFI_CHECK_LT(1, 2, ValueError);  // passes silently
}

TEST(Error, BacktraceFormattedWhenRead) {
  auto r = CallRaw("testing.raise_error", {StrCell("ValueError"), StrCell("deep")});
  ASSERT_EQ(r.rc, -1);
  const char *kind, *message, *backtrace;
  MXFFIErrorGetLast(&kind, &message, &backtrace);
  std::string bt(backtrace);
  EXPECT_NE(bt.find("[0]"), std::string::npos) << bt;
  EXPECT_NE(bt.find("libmxffi_testing"), std::string::npos) << bt;
}

// Not inlined, and internal (only the executable's full symbol table names it).
[[gnu::noinline]] void RaiseFromHere(int x) { MXFFI_THROW(ValueError) << "x is " << x; }

TEST(Error, BacktraceStartsAtTheRaisingFunctionNotTheErrorMachinery) {
  std::string symbolizer =
      mxffi::Function::GetGlobalRequired("error.symbolizer")().cast<mxffi::String>().str();
  try {
    RaiseFromHere(3);
    FAIL();
  } catch (const mxffi::Error& e) {
    const std::string& bt = e.backtrace();
    std::string first = bt.substr(0, bt.find('\n'));
    ASSERT_EQ(first.rfind("  [0] ", 0), 0u) << bt;
    EXPECT_EQ(first.find("ErrorBuilder"), std::string::npos) << bt;
    EXPECT_EQ(first.find("mxffi::Error::Error"), std::string::npos) << bt;
    // libdw reads the executable's .symtab; dladdr knows exported functions only
    if (symbolizer == "libdw") {
      EXPECT_NE(first.find("RaiseFromHere(int)"), std::string::npos) << bt;
    }
    EXPECT_NE(first.find("mxffi_cpp_tests"), std::string::npos) << bt;
  }
}

TEST(Error, ForeignExceptionsBecomeRuntimeOrMemoryError) {
  mxffi::Function std_error = mxffi::Function::FromPacked(
      [](mxffi::PackedArgs, mxffi::Any*) { throw std::runtime_error("from the STL"); });
  mxffi::Function oom =
      mxffi::Function::FromPacked([](mxffi::PackedArgs, mxffi::Any*) { throw std::bad_alloc(); });
  mxffi::Function other =
      mxffi::Function::FromPacked([](mxffi::PackedArgs, mxffi::Any*) { throw 42; });
  auto kind_of = [](const mxffi::Function& f) {
    try {
      f();
    } catch (const mxffi::Error& e) {
      return e.FullMessage();
    }
    return std::string("no error");
  };
  EXPECT_EQ(kind_of(std_error), "RuntimeError: from the STL");
  EXPECT_EQ(kind_of(oom), "MemoryError: out of memory");
  EXPECT_EQ(kind_of(other), "RuntimeError: unknown C++ exception");
}

TEST(Error, SetFromCAndReturnedAsValue) {
  ASSERT_EQ(MXFFIErrorSet("KeyError", "set from C", "  python traceback here"), 0);
  const char *kind, *message, *backtrace;
  MXFFIErrorGetLast(&kind, &message, &backtrace);
  EXPECT_STREQ(kind, "KeyError");
  EXPECT_STREQ(message, "set from C");
  EXPECT_STREQ(backtrace, "  python traceback here");

  auto r = CallRaw("testing.make_error", {StrCell("IndexError"), StrCell("as a value")});
  ASSERT_EQ(r.rc, 0);
  mxffi::Error e = r.result.cast<mxffi::Error>();
  EXPECT_EQ(e.kind(), "IndexError");
  EXPECT_EQ(e.message(), "as a value");
}

TEST(Error, CheckSignalsHookInterruptsLongLoops) {
  static int polls_until_signal = 0;
  MXFFIEnvSetCheckSignals([]() -> int {
    if (--polls_until_signal > 0) return 0;
    MXFFIErrorSet("KeyboardInterrupt", "interrupted", nullptr);
    return -1;
  });
  polls_until_signal = 5;
  auto r = CallRaw("testing.poll_signals", {mxffi_test::IntCell(60000)});
  MXFFIEnvSetCheckSignals(nullptr);
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.kind, "KeyboardInterrupt");  // the hook's error, not overwritten
  EXPECT_EQ(r.message, "interrupted");
  // Without a hook the loop runs to its deadline.
  r = CallRaw("testing.poll_signals", {mxffi_test::IntCell(5)});
  EXPECT_EQ(r.rc, 0);
  EXPECT_GT(r.result.cast<int64_t>(), 0);
}

}  // namespace

namespace {
int g_warned = 0;
std::string g_warning;
int RecordWarning(const char* category, const char* message) {
  ++g_warned;
  g_warning = std::string(category) + "|" + message;
  return 0;
}
int RefuseWarning(const char*, const char* message) {
  MXFFIErrorSet("UserWarning", message, nullptr);
  return -1;
}
}  // namespace

TEST(Env, WarnWithoutAHookWritesStderr) {
  ASSERT_EQ(MXFFIEnvSetWarnHook(nullptr), 0);
  testing::internal::CaptureStderr();
  EXPECT_TRUE(mxffi::Warn("StorageFallbackWarning", "made dense"));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "mxffi: StorageFallbackWarning: made dense\n");
}

TEST(Env, WarnGoesThroughTheHookAndItsErrorIsThrown) {
  ASSERT_EQ(MXFFIEnvSetWarnHook(RecordWarning), 0);
  g_warned = 0;
  EXPECT_TRUE(mxffi::Warn("StorageFallbackWarning", "made dense"));
  EXPECT_EQ(g_warned, 1);
  EXPECT_EQ(g_warning, "StorageFallbackWarning|made dense");
  ASSERT_EQ(MXFFIEnvSetWarnHook(RefuseWarning), 0);
  try {
    mxffi::Warn("StorageFallbackWarning", "turned into an error");
    ADD_FAILURE() << "expected the hook's error";
  } catch (const mxffi::EnvErrorAlreadySet&) {
    const char *kind = nullptr, *message = nullptr;
    MXFFIErrorGetLast(&kind, &message, nullptr);
    EXPECT_STREQ(kind, "UserWarning");
    EXPECT_STREQ(message, "turned into an error");
  }
  ASSERT_EQ(MXFFIEnvSetWarnHook(nullptr), 0);
}
