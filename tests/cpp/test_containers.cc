#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include "test_util.h"

namespace {

using mxffi_test::CallRaw;
using mxffi_test::IntCell;
using mxffi_test::StrCell;

template <typename F>
mxffi::Error ExpectError(F f) {
  try {
    f();
  } catch (const mxffi::Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an mxffi::Error";
  return mxffi::Error("none", "");
}

TEST(Array, OutOfRangeIsIndexError) {
  mxffi::Array<int64_t> a{1, 2, 3};
  EXPECT_EQ(a[2], 3);
  mxffi::Error e = ExpectError([&] { a[3]; });
  EXPECT_EQ(e.kind(), "IndexError");
  EXPECT_EQ(e.message(), "Array: index 3 out of range for size 3");
  EXPECT_EQ(ExpectError([&] { a.at(-1); }).kind(), "IndexError");
  mxffi::Array<int64_t> empty;
  EXPECT_EQ(ExpectError([&] { empty.pop_back(); }).kind(), "IndexError");

  // Across the ABI, Python-style negative indices and the same error kind.
  auto r = CallRaw("container.array_get_item", {*mxffi::Any(a).raw(), IntCell(-1)});
  EXPECT_EQ(r.result.cast<int64_t>(), 3);
  r = CallRaw("container.array_get_item", {*mxffi::Any(a).raw(), IntCell(5)});
  EXPECT_EQ(r.kind, "IndexError");
  EXPECT_EQ(r.message, "container.array_get_item: index 5 out of range for size 3");
  r = CallRaw("container.array_get_item", {*mxffi::Any(a).raw(), IntCell(-4)});
  EXPECT_EQ(r.kind, "IndexError");
}

TEST(Array, CopyOnWrite) {
  mxffi::Array<int64_t> a{1, 2};
  mxffi::Array<int64_t> b = a;  // shares the payload
  EXPECT_EQ(a.get(), b.get());
  b.push_back(3);  // copies first: a is untouched
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(a.size(), 2);
  EXPECT_EQ(b.size(), 3);
  const mxffi::ArrayObj* before = b.get();
  b.Set(0, 10);  // unique now: no copy
  EXPECT_EQ(b.get(), before);
  EXPECT_EQ(b[0], 10);
  EXPECT_EQ(a[0], 1);
  b.pop_back();
  EXPECT_EQ(b.ToVector(), (std::vector<int64_t>{10, 2}));
}

TEST(Array, TypedConversionChecksEveryElement) {
  mxffi::Array<mxffi::Any> mixed{mxffi::Any(1), mxffi::Any("two")};
  mxffi::Any cell = mixed;
  EXPECT_FALSE(cell.try_cast<mxffi::Array<int64_t>>().has_value());
  EXPECT_TRUE(cell.try_cast<mxffi::Array<mxffi::Any>>().has_value());
  mxffi::Any ints = mxffi::Array<mxffi::Any>{mxffi::Any(1), mxffi::Any(2)};
  auto typed = ints.try_cast<mxffi::Array<int64_t>>();
  ASSERT_TRUE(typed.has_value());
  EXPECT_EQ((*typed)[1], 2);
  // An Array of ints converts to a Shape; a mixed one does not.
  EXPECT_EQ(ints.cast<mxffi::Shape>(), (mxffi::Shape{1, 2}));
  EXPECT_FALSE(cell.try_cast<mxffi::Shape>().has_value());
}

TEST(Map, MissingKeyIsKeyError) {
  mxffi::Map<mxffi::String, int64_t> m{{"one", 1}, {"a longer key", 2}};
  EXPECT_EQ(m.at("one"), 1);
  EXPECT_EQ(m["a longer key"], 2);
  mxffi::Error e = ExpectError([&] { m.at("three"); });
  EXPECT_EQ(e.kind(), "KeyError");
  EXPECT_EQ(e.message(), "Map: key 'three' not found");

  mxffi::Any cell = m;
  auto r = CallRaw("container.map_get_item", {*cell.raw(), StrCell("one")});
  EXPECT_EQ(r.result.cast<int64_t>(), 1);
  r = CallRaw("container.map_get_item", {*cell.raw(), StrCell("missing")});
  EXPECT_EQ(r.kind, "KeyError");
  EXPECT_EQ(r.message, "container.map_get_item: key 'missing' not found");
  r = CallRaw("container.map_get_item", {*cell.raw(), IntCell(7)});
  EXPECT_EQ(r.message, "container.map_get_item: key 7 not found");
}

TEST(Map, KeysCompareByValueAndOrderIsKept) {
  mxffi::Map<mxffi::Any, mxffi::Any> m;
  m.Set(mxffi::Any(mxffi::String("short")), mxffi::Any(1));
  // The same text arriving as a borrowed raw string finds the owned key.
  auto r = CallRaw("container.map_contains", {*mxffi::Any(m).raw(), StrCell("short")});
  EXPECT_TRUE(r.result.cast<bool>());
  m.Set(mxffi::Any(2), mxffi::Any("two"));
  EXPECT_TRUE(m.count(mxffi::Any(2.0)));  // 2 == 2.0, as in a Python dict
  m.Set(mxffi::Any(mxffi::String("a key longer than 7")), mxffi::Any(3));
  m.Set(mxffi::Any(2), mxffi::Any("TWO"));  // replaces in place, keeps the position
  auto items = m.items();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].first.cast<std::string>(), "short");
  EXPECT_EQ(items[1].second.cast<std::string>(), "TWO");
  EXPECT_EQ(items[2].first.cast<std::string>(), "a key longer than 7");
  mxffi::Map<mxffi::Any, mxffi::Any> copy = m;
  EXPECT_TRUE(copy.erase(mxffi::Any(2)));
  EXPECT_EQ(copy.size(), 2);
  EXPECT_EQ(m.size(), 3);  // copy-on-write
  EXPECT_EQ(copy.at(mxffi::Any(mxffi::String("a key longer than 7"))).cast<int64_t>(), 3);
}

TEST(ADT, TagFieldsAndBounds) {
  mxffi::ADT t(4, {mxffi::Any(1), mxffi::Any("x")});
  EXPECT_EQ(t.tag(), 4);
  EXPECT_EQ(t.size(), 2);
  EXPECT_EQ(t[1].cast<std::string>(), "x");
  EXPECT_EQ(ExpectError([&] { t[2]; }).kind(), "IndexError");
  auto r = CallRaw("container.adt", {IntCell(9), IntCell(1), StrCell("y")});
  ASSERT_EQ(r.rc, 0);
  mxffi::ADT made = r.result.cast<mxffi::ADT>();
  EXPECT_EQ(made.tag(), 9);
  EXPECT_EQ(made[1].cast<std::string>(), "y");
}

TEST(Shape, BasicsAndBounds) {
  mxffi::Shape s{3, 4};
  EXPECT_EQ(s.Product(), 12);
  EXPECT_EQ(mxffi::Shape().Product(), 1);
  EXPECT_EQ(ExpectError([&] { s[2]; }).kind(), "IndexError");
  auto r = CallRaw("container.shape", {IntCell(2), StrCell("x")});
  EXPECT_EQ(r.kind, "TypeError");
  EXPECT_EQ(r.message, "container.shape: argument #1 expected int, got str");
}

TEST(Optional, NoneOrValue) {
  mxffi::Function f = mxffi::Function::FromTyped(
      [](mxffi::Optional<int64_t> x) { return x.has_value() ? *x : int64_t{-1}; });
  EXPECT_EQ(f(nullptr).cast<int64_t>(), -1);
  EXPECT_EQ(f(5).cast<int64_t>(), 5);
  EXPECT_EQ(ExpectError([&] { f("x"); }).message(),
            "<anonymous function>: argument #0 expected Optional[int], got str");
  EXPECT_EQ(ExpectError([] { mxffi::Optional<int64_t>().value(); }).kind(), "ValueError");
}

TEST(Containers, BuiltInCxxCrossTheAbi) {
  auto r = CallRaw("testing.make_containers", {});
  ASSERT_EQ(r.rc, 0);
  auto m = r.result.cast<mxffi::Map<mxffi::String, mxffi::Any>>();
  auto arr = m["array"].cast<mxffi::Array<mxffi::Any>>();
  EXPECT_EQ(arr[1].cast<std::string>(), "two");
  EXPECT_EQ(m["shape"].cast<mxffi::Shape>(), (mxffi::Shape{2, 3}));
  EXPECT_EQ(m["adt"].cast<mxffi::ADT>().tag(), 7);
}

}  // namespace

TEST(Array, CreatedInOneAllocationGrowsOntoTheHeap) {
  MXFFIAny items[3];
  for (int i = 0; i < 3; ++i) {
    items[i].type_index = kMXFFIInt;
    items[i].small_len = 0;
    items[i].v_int64 = 10 + i;
  }
  MXFFIObjectHandle h = nullptr;
  ASSERT_EQ(MXFFIArrayCreate(items, 3, &h), 0);
  mxffi::Array<int64_t> a(
      mxffi::ObjectPtr<mxffi::Object>::MoveFromRaw(reinterpret_cast<mxffi::Object*>(h)));
  ASSERT_EQ(a.size(), 3);
  EXPECT_EQ(a[2], 12);
  mxffi::Array<int64_t> shared = a;  // shared: push_back copies first
  shared.push_back(13);
  EXPECT_EQ(a.size(), 3);
  for (int i = 0; i < 20; ++i) a.push_back(i);  // unique: the inline cells move to the heap
  EXPECT_EQ(a.size(), 23);
  EXPECT_EQ(a[1], 11);
  EXPECT_EQ(a[22], 19);
  EXPECT_EQ(MXFFIArrayCreate(nullptr, 2, &h), -1);
}
