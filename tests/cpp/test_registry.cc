#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include "test_util.h"

namespace {

TEST(Registry, SignatureWithDefaultsQueriedBackExactly) {
  mxffi::Function info_fn = mxffi::Function::GetGlobalRequired("registry.function_info");
  auto info = info_fn("testing.add").cast<mxffi::Map<mxffi::String, mxffi::Any>>();
  EXPECT_EQ(info["name"].cast<std::string>(), "testing.add");
  EXPECT_EQ(info["doc"].cast<std::string>(), "a + b for integers.");
  EXPECT_EQ(info["arg_names"].cast<mxffi::Array<mxffi::String>>().ToVector(),
            (std::vector<mxffi::String>{"a", "b"}));
  EXPECT_EQ(info["arg_types"].cast<mxffi::Array<mxffi::String>>().ToVector(),
            (std::vector<mxffi::String>{"int", "int"}));
  EXPECT_EQ(info["return_type"].cast<std::string>(), "int");
  auto defaults = info["defaults"].cast<mxffi::Array<mxffi::Any>>();
  ASSERT_EQ(defaults.size(), 1);
  EXPECT_EQ(defaults[0].type_index(), kMXFFIInt);
  EXPECT_EQ(defaults[0].cast<int64_t>(), 1);
  EXPECT_EQ(info["num_args"].cast<int64_t>(), 2);
  EXPECT_FALSE(info["long_running"].cast<bool>());

  auto poll = info_fn("testing.poll_signals").cast<mxffi::Map<mxffi::String, mxffi::Any>>();
  EXPECT_TRUE(poll["long_running"].cast<bool>());
  auto echo = info_fn("testing.echo").cast<mxffi::Map<mxffi::String, mxffi::Any>>();
  EXPECT_EQ(echo["num_args"].cast<int64_t>(), -1);  // packed body

  try {
    info_fn("testing.no_such_function");
    FAIL();
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "KeyError");
    EXPECT_EQ(e.message(),
              "registry.function_info: no global function named 'testing.no_such_function'");
  }
}

TEST(Registry, RegisteringTwiceNeedsOverride) {
  auto first = mxffi::Function::FromTyped([]() { return int64_t{1}; });
  auto second = mxffi::Function::FromTyped([]() { return int64_t{2}; });
  mxffi::Function::SetGlobal("test.twice", first);
  try {
    mxffi::Function::SetGlobal("test.twice", second);
    FAIL() << "a clash without override must fail";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_EQ(e.message(),
              "global function 'test.twice' is already registered; pass override to replace it");
  }
  EXPECT_EQ(mxffi::Function::GetGlobal("test.twice")().cast<int64_t>(), 1);  // unchanged
  mxffi::Function::SetGlobal("test.twice", second, /*override=*/true);
  EXPECT_EQ(mxffi::Function::GetGlobal("test.twice")().cast<int64_t>(), 2);

  // The same through the C ABI.
  MXFFIObjectHandle h =
      mxffi::details::ObjectUnsafe::Header(const_cast<mxffi::FunctionObj*>(first.get()));
  EXPECT_EQ(MXFFIFuncSetGlobal("test.twice", h, 0), -1);
  EXPECT_EQ(MXFFIFuncSetGlobal("test.twice", h, 1), 0);
  EXPECT_EQ(mxffi::Function::GetGlobal("test.twice")().cast<int64_t>(), 1);

  // And through the builder: a clash is recorded, not thrown (it runs in static initialisers).
  mxffi::details::TakeRegistrationErrors();
  mxffi::Registry::Register("test.twice", MXFFI_VERSION_MAJOR).set_body_typed([]() { return 3; });
  auto errors = mxffi::details::TakeRegistrationErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "MXFFI_REGISTER_API(\"test.twice\") is already registered; use .allow_override() to "
            "replace it");
  EXPECT_EQ(mxffi::Function::GetGlobal("test.twice")().cast<int64_t>(), 1);
  mxffi::Registry::Register("test.twice", MXFFI_VERSION_MAJOR)
      .allow_override()
      .set_body_typed([]() { return 4; });
  EXPECT_TRUE(mxffi::details::TakeRegistrationErrors().empty());
  EXPECT_EQ(mxffi::Function::GetGlobal("test.twice")().cast<int64_t>(), 4);
}

TEST(Registry, BadDeclarationsAreRefused) {
  mxffi::details::TakeRegistrationErrors();
  mxffi::Registry::Register("test.bad_defaults", MXFFI_VERSION_MAJOR)
      .arg("a", 1)
      .arg("b")
      .set_body_typed([](int64_t a, int64_t b) { return a + b; });
  mxffi::Registry::Register("test.bad_count", MXFFI_VERSION_MAJOR)
      .arg("a")
      .set_body_typed([](int64_t a, int64_t b) { return a + b; });
  auto errors = mxffi::details::TakeRegistrationErrors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("argument 'b' has no default but follows an argument with one"),
            std::string::npos);
  EXPECT_NE(errors[1].find("names 1 arguments but its body takes 2"), std::string::npos);
  EXPECT_FALSE(mxffi::Function::GetGlobal("test.bad_defaults").defined());
  EXPECT_FALSE(mxffi::Function::GetGlobal("test.bad_count").defined());
}

TEST(Registry, ParameterKinds) {
  mxffi::details::TakeRegistrationErrors();
  mxffi::Registry& r =
      mxffi::Registry::Register("test.kinds", MXFFI_VERSION_MAJOR)
          .arg("a")
          .positional_only()
          .arg("b")
          .keyword_only()
          .arg("c", 3)
          .set_body_typed([](int64_t a, int64_t b, int64_t c) { return a + b + c; });
  EXPECT_TRUE(mxffi::details::TakeRegistrationErrors().empty());
  EXPECT_EQ(r.info()->num_positional_only, 1);
  EXPECT_EQ(r.info()->first_keyword_only, 2);
  EXPECT_EQ(r.info()->variadic_index, -1);
  mxffi::Map<mxffi::String, mxffi::Any> info =
      mxffi::Function::GetGlobalRequired("registry.function_info")("test.kinds")
          .cast<mxffi::Map<mxffi::String, mxffi::Any>>();
  EXPECT_EQ(info.at("positional_only").cast<int64_t>(), 1);
  EXPECT_EQ(info.at("keyword_only").cast<int64_t>(), 2);
  EXPECT_EQ(info.at("variadic").cast<int64_t>(), -1);
  // C++ calls stay positional: the kinds shape Python's binding only.
  EXPECT_EQ(mxffi::Function::GetGlobalRequired("test.kinds")(1, 2, 4).cast<int64_t>(), 7);

  // A variadic argument: the arguments after it are keyword-only; none by default.
  mxffi::Registry& v =
      mxffi::Registry::Register("test.variadic", MXFFI_VERSION_MAJOR)
          .arg("first")
          .arg_variadic("rest")
          .arg("scale", 1)
          .set_body_typed([](int64_t first, mxffi::Array<mxffi::Any> rest, int64_t scale) {
            return (first + rest.size()) * scale;
          });
  EXPECT_TRUE(mxffi::details::TakeRegistrationErrors().empty());
  EXPECT_EQ(v.info()->variadic_index, 1);
  EXPECT_EQ(v.info()->first_keyword_only, 2);
  mxffi::Array<mxffi::Any> three;
  for (int i = 0; i < 3; ++i) three.push_back(mxffi::Any(i));
  EXPECT_EQ(mxffi::Function::GetGlobalRequired("test.variadic")(1, three, 2).cast<int64_t>(), 8);
}

TEST(Registry, BadParameterKindsAreRefused) {
  mxffi::details::TakeRegistrationErrors();
  mxffi::Registry::Register("test.kinds_twice", MXFFI_VERSION_MAJOR)
      .arg("a")
      .keyword_only()
      .positional_only()
      .set_body_typed([](int64_t a) { return a; });
  mxffi::Registry::Register("test.variadic_after_default", MXFFI_VERSION_MAJOR)
      .arg("a", 1)
      .arg_variadic("rest")
      .set_body_typed([](int64_t a, mxffi::Array<mxffi::Any> rest) { return a + rest.size(); });
  mxffi::Registry::Register("test.variadic_twice", MXFFI_VERSION_MAJOR)
      .arg_variadic("a")
      .arg_variadic("b")
      .set_body_typed([](mxffi::Array<mxffi::Any> a, mxffi::Array<mxffi::Any> b) {
        return a.size() + b.size();
      });
  auto errors = mxffi::details::TakeRegistrationErrors();
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("calls positional_only() after positional_only(), keyword_only() or "
                           "arg_variadic()"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("declares variadic argument 'rest' after an argument with a default"),
            std::string::npos)
      << errors[1];
  EXPECT_NE(errors[2].find("declares variadic argument 'b' after keyword_only() or another "
                           "arg_variadic()"),
            std::string::npos)
      << errors[2];
  for (const char* name :
       {"test.kinds_twice", "test.variadic_after_default", "test.variadic_twice"}) {
    EXPECT_FALSE(mxffi::Function::GetGlobal(name).defined()) << name;
  }
}

TEST(Registry, ListGlobalNames) {
  MXFFIObjectHandle h = nullptr;
  ASSERT_EQ(MXFFIFuncListGlobalNames(&h), 0);
  mxffi::Array<mxffi::String> names(
      mxffi::ObjectPtr<mxffi::Object>::MoveFromRaw(mxffi::details::ObjectUnsafe::FromHeader(h)));
  std::vector<mxffi::String> v = names.ToVector();
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
  for (const char* want :
       {"testing.add", "testing.echo", "registry.function_info", "library.load"}) {
    EXPECT_NE(std::find(v.begin(), v.end(), mxffi::String(want)), v.end()) << want;
  }
  MXFFIObjectHandle missing = reinterpret_cast<MXFFIObjectHandle>(1);
  ASSERT_EQ(MXFFIFuncGetGlobal("no.such.name", &missing), 0);
  EXPECT_EQ(missing, nullptr);
}

TEST(Registry, LibraryBuiltForAnotherAbiMajorIsRefused) {
  mxffi::Function load = mxffi::Function::GetGlobalRequired("library.load");
  try {
    load(MXFFI_ABI_MISMATCH_LIB);
    FAIL() << "loading a library built for ABI major 99 must fail";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
    std::string msg = e.message();
    EXPECT_NE(msg.find(MXFFI_ABI_MISMATCH_LIB), std::string::npos) << msg;
    EXPECT_NE(msg.find("compiled against mxffi C ABI major version 99"), std::string::npos) << msg;
    EXPECT_NE(
        msg.find("this libmxffi has ABI major version " + std::to_string(MXFFI_VERSION_MAJOR)),
        std::string::npos)
        << msg;
  }
  EXPECT_FALSE(mxffi::Function::GetGlobal("abi_mismatch.answer").defined());
}

TEST(Registry, LibraryLoadRegistersAndReportsBadPaths) {
  mxffi::Function load = mxffi::Function::GetGlobalRequired("library.load");
  mxffi::Any lib = load(MXFFI_GOOD_LIB);
  EXPECT_EQ(lib.type_index(), kMXFFILibrary);
  EXPECT_EQ(mxffi::Function::GetGlobalRequired("good_lib.triple")(7).cast<int64_t>(), 21);
  try {
    load("/nonexistent/libnothing.so");
    FAIL();
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_NE(e.message().find("library.load: cannot load /nonexistent/libnothing.so"),
              std::string::npos);
  }
  try {
    load(MXFFI_SOURCE_DIR "/pyproject.toml");  // not a shared library at all
    FAIL();
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
  }
}

}  // namespace
