#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include <cmath>
#include <complex>
#include <limits>

namespace {

TEST(Any, CheckedConversions) {
  mxffi::Any i = int64_t{5};
  EXPECT_EQ(i.cast<int64_t>(), 5);
  EXPECT_EQ(i.cast<double>(), 5.0);  // int -> float, as Python's float(5)
  EXPECT_EQ(i.cast<bool>(), true);
  EXPECT_FALSE(i.try_cast<std::string>().has_value());
  mxffi::Any f = 2.5;
  EXPECT_FALSE(f.try_cast<int64_t>().has_value());  // no silent truncation
  try {
    f.cast<int64_t>();
    FAIL();
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_EQ(e.message(), "cannot convert from type 'float' to 'int'");
  }
  mxffi::Any big = int64_t{300};
  EXPECT_FALSE(big.try_cast<uint8_t>().has_value());
  EXPECT_EQ(big.cast<int16_t>(), 300);
  mxffi::Any neg = int64_t{-1};
  EXPECT_FALSE(neg.try_cast<uint64_t>().has_value());
}

TEST(Any, NanAndInfinityPassThrough) {
  mxffi::Any nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(nan.cast<double>()));
  mxffi::Any inf = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(inf.cast<double>(), -std::numeric_limits<double>::infinity());
}

TEST(Any, OwnershipFollowsCopiesAndMoves) {
  mxffi::Array<int64_t> arr{1};
  EXPECT_EQ(arr.use_count(), 1);
  {
    mxffi::Any a = arr;
    EXPECT_EQ(arr.use_count(), 2);
    mxffi::Any b = a;
    EXPECT_EQ(arr.use_count(), 3);
    mxffi::Any c = std::move(b);
    EXPECT_EQ(arr.use_count(), 3);
    EXPECT_TRUE(b.is_none());  // NOLINT(bugprone-use-after-move): moved-from is None
    mxffi::AnyView view = a;   // a view takes no reference
    EXPECT_EQ(arr.use_count(), 3);
    EXPECT_EQ(view.cast<mxffi::Array<int64_t>>()[0], 1);
  }
  EXPECT_EQ(arr.use_count(), 1);
}

TEST(Any, BorrowedStringsBecomeOwned) {
  std::string text = "text that will be destroyed";
  mxffi::Any owned;
  {
    std::string temp = text;
    mxffi::AnyView view(temp.c_str());
    EXPECT_EQ(view.type_index(), kMXFFIRawStr);
    owned = mxffi::Any(view);
  }
  EXPECT_EQ(owned.type_index(), kMXFFIString);
  EXPECT_EQ(owned.cast<std::string>(), text);
  mxffi::Any small = mxffi::Any(mxffi::AnyView("tiny"));
  EXPECT_EQ(small.type_index(), kMXFFISmallStr);
}

TEST(Any, ComplexNumbersBorrowedThenOwned) {
  double parts[2] = {1.5, -2.0};
  MXFFIAny cell{};
  cell.type_index = kMXFFIComplexView;
  cell.v_ptr = parts;
  const mxffi::AnyView& view = *mxffi::AnyView::FromRaw(&cell);
  EXPECT_EQ(view.cast<std::complex<double>>(), std::complex<double>(1.5, -2.0));
  EXPECT_EQ(view.GetTypeName(), "complex");
  mxffi::Any owned(view);  // a borrowed complex becomes a Complex object
  parts[0] = 99.0;
  EXPECT_EQ(owned.type_index(), kMXFFIComplex);
  EXPECT_EQ(owned.GetTypeName(), "mxffi.Complex");
  EXPECT_EQ(owned.cast<std::complex<double>>(), std::complex<double>(1.5, -2.0));
  const auto* obj = reinterpret_cast<const MXFFIComplexObj*>(owned.raw()->v_obj);
  EXPECT_EQ(obj->real, 1.5);  // the frozen layout
  EXPECT_EQ(obj->imag, -2.0);
  mxffi::Any made = std::complex<double>(0.0, 3.0);
  EXPECT_EQ(made.type_index(), kMXFFIComplex);
  EXPECT_EQ(made.cast<std::complex<double>>().imag(), 3.0);
  // Real numbers convert as Python's complex(x); a complex is no real number.
  EXPECT_EQ(mxffi::Any(2.5).cast<std::complex<double>>(), std::complex<double>(2.5, 0.0));
  EXPECT_EQ(mxffi::Any(int64_t{-4}).cast<std::complex<double>>().real(), -4.0);
  EXPECT_FALSE(owned.try_cast<double>().has_value());
  EXPECT_FALSE(mxffi::Any(mxffi::String("1j")).try_cast<std::complex<double>>().has_value());
}

TEST(Any, UInt64PastInt64TravelsAsItsOwnCode) {
  // 2**63 to 2**64 - 1 is kMXFFIUInt64 (its bits), never a negative int; smaller uint64
  // values stay kMXFFIInt.
  const uint64_t big = (uint64_t{1} << 63) + 5;
  mxffi::Any a = big;
  EXPECT_EQ(a.type_index(), kMXFFIUInt64);
  EXPECT_EQ(a.GetTypeName(), "int");
  EXPECT_EQ(a.cast<uint64_t>(), big);
  EXPECT_EQ(a.cast<double>(), static_cast<double>(big));
  EXPECT_FALSE(a.try_cast<int64_t>().has_value());
  EXPECT_FALSE(a.try_cast<uint32_t>().has_value());
  try {
    a.cast<int64_t>();
    FAIL() << "expected an OverflowError";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "OverflowError");
    EXPECT_EQ(e.message(), "value 9223372036854775813 out of range for int");
  }
  EXPECT_EQ(mxffi::Any(uint64_t{7}).type_index(), kMXFFIInt);
  EXPECT_EQ(mxffi::Any(std::numeric_limits<uint64_t>::max()).cast<uint64_t>(),
            std::numeric_limits<uint64_t>::max());
  mxffi::Array<mxffi::Any> arr;
  arr.push_back(a);
  EXPECT_EQ(arr[0].cast<uint64_t>(), big);
}

TEST(Any, TypeNames) {
  EXPECT_EQ(mxffi::Any().GetTypeName(), "None");
  EXPECT_EQ(mxffi::Any(1).GetTypeName(), "int");
  EXPECT_EQ(mxffi::Any(mxffi::String("s")).GetTypeName(), "str");
  EXPECT_EQ(mxffi::Any(mxffi::Shape{1}).GetTypeName(), "mxffi.Shape");
  using Nested = mxffi::Array<mxffi::Map<mxffi::String, double>>;
  EXPECT_EQ(mxffi::TypeTraits<Nested>::TypeStr(), "Array[Map[str, float]]");
}

}  // namespace
