/*!
 * \file test_dtype.cc
 * \brief The data type grammar: DataTypeFromString against the types numpy gives each spelling,
 *  the refusals and their messages, DataTypeToString's round trip, and ndarray.parse_dtype.
 */
#include <gtest/gtest.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/op/param.h>

#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using mxffi::DataTypeFromString;
using mxffi::DataTypeToString;

struct Spelling {
  const char* text;
  uint8_t code, bits;
  uint16_t lanes;
};

// What numpy.dtype(text) is (numpy 2, x86-64 Linux); "bfloat16" as ml_dtypes has it; the lane
// forms are DLPack's, which numpy does not read.
const Spelling kAccepted[] = {
    {"float64", kDLFloat, 64, 1},
    {"float32", kDLFloat, 32, 1},
    {"float16", kDLFloat, 16, 1},
    {"bfloat16", kDLBfloat, 16, 1},
    {"int8", kDLInt, 8, 1},
    {"int64", kDLInt, 64, 1},
    {"uint16", kDLUInt, 16, 1},
    {"bool", kDLBool, 8, 1},
    {"complex64", kDLComplex, 64, 1},
    {"complex128", kDLComplex, 128, 1},
    {"float", kDLFloat, 64, 1},
    {"int", kDLInt, 64, 1},
    {"uint", kDLUInt, 64, 1},
    {"complex", kDLComplex, 128, 1},
    {"double", kDLFloat, 64, 1},
    {"single", kDLFloat, 32, 1},
    {"half", kDLFloat, 16, 1},
    {"intp", kDLInt, 64, 1},
    {"longlong", kDLInt, 64, 1},
    {"intc", kDLInt, 32, 1},
    {"short", kDLInt, 16, 1},
    {"ubyte", kDLUInt, 8, 1},
    {"csingle", kDLComplex, 64, 1},
    {"cdouble", kDLComplex, 128, 1},
    {"bool_", kDLBool, 8, 1},
    {"?", kDLBool, 8, 1},
    {"b1", kDLBool, 8, 1},
    {"b", kDLInt, 8, 1},
    {"B", kDLUInt, 8, 1},
    {"h", kDLInt, 16, 1},
    {"i", kDLInt, 32, 1},
    {"l", kDLInt, 64, 1},
    {"q", kDLInt, 64, 1},
    {"Q", kDLUInt, 64, 1},
    {"e", kDLFloat, 16, 1},
    {"f", kDLFloat, 32, 1},
    {"d", kDLFloat, 64, 1},
    {"F", kDLComplex, 64, 1},
    {"D", kDLComplex, 128, 1},
    {"f4", kDLFloat, 32, 1},
    {"i8", kDLInt, 64, 1},
    {"u1", kDLUInt, 8, 1},
    {"c8", kDLComplex, 64, 1},
    {"c16", kDLComplex, 128, 1},
    {"<f8", kDLFloat, 64, 1},
    {"=i4", kDLInt, 32, 1},
    {"|b1", kDLBool, 8, 1},
    {"|f4", kDLFloat, 32, 1},
    {">i1", kDLInt, 8, 1},
    {">?", kDLBool, 8, 1},
    {"float32x4", kDLFloat, 32, 4},
    {"int8x16", kDLInt, 8, 16},
    {"boolx2", kDLBool, 8, 2},
    {"complex128x2", kDLComplex, 128, 2},
    {"bfloat16x65535", kDLBfloat, 16, 65535},
};

TEST(DataType, FromStringReadsWhatNumpyReads) {
  for (const Spelling& s : kAccepted) {
    DLDataType t = DataTypeFromString(s.text, "t");
    EXPECT_EQ(int(t.code), int(s.code)) << s.text;
    EXPECT_EQ(int(t.bits), int(s.bits)) << s.text;
    EXPECT_EQ(t.lanes, s.lanes) << s.text;
    // The canonical name reads back to the same type.
    DLDataType again = DataTypeFromString(DataTypeToString(t), "t");
    EXPECT_TRUE(again.code == t.code && again.bits == t.bits && again.lanes == t.lanes) << s.text;
  }
  EXPECT_EQ(DataTypeToString(DataTypeFromString("c16", "t")), "complex128");
  EXPECT_EQ(DataTypeToString(DataTypeFromString("?", "t")), "bool");
  EXPECT_EQ(DataTypeToString(DataTypeFromString("float32x4", "t")), "float32x4");
}

TEST(DataType, FromStringRefusesWhatItCannotHoldNamingCallerAndText) {
  struct Refusal {
    const char* text;
    const char* message;
  };
  const Refusal kRefused[] = {
      {">f4",
       "np.zeros: data type '>f4' has big-endian byte order; mxffi arrays hold native "
       "(little-endian) data only"},
      {">c16", "np.zeros: data type '>c16' has big-endian byte order"},
      {"U",
       "np.zeros: data type 'U' is a numpy str dtype, which mxffi does not support; its "
       "data types are bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
       "float16, bfloat16, float32, float64, complex64 and complex128"},
      {"<U3", "data type '<U3' is a numpy str dtype"},
      {"S3", "data type 'S3' is a numpy bytes dtype"},
      {"O", "data type 'O' is a numpy object dtype"},
      {"|O", "data type '|O' is a numpy object dtype"},
      {"V8", "data type 'V8' is a numpy void (raw or structured) dtype"},
      {"M8", "data type 'M8' is a numpy datetime64 dtype"},
      {"<M8[ns]", "data type '<M8[ns]' is a numpy datetime64 dtype"},
      {"timedelta64[s]", "is a numpy timedelta64 dtype"},
      {"g", "data type 'g' is numpy's long double (extended precision)"},
      {"float128", "data type 'float128' is numpy's long double"},
      {"longdouble", "data type 'longdouble' is numpy's long double"},
      {"G", "data type 'G' is numpy's long double"},
      {"float33", "np.zeros: data type 'float33' not understood; expected a numpy type name"},
      {"x", "np.zeros: data type 'x' not understood"},
      {"", "np.zeros: data type '' not understood"},
      {"<float32", "data type '<float32' not understood"},
      {" float32", "data type ' float32' not understood"},
      {"Float32", "data type 'Float32' not understood"},
      {"f4x4", "data type 'f4x4' not understood"},
      {"float_", "data type 'float_' not understood"},
      {"handle", "data type 'handle' not understood"},
      {"int8x0", "data type 'int8x0' has a lane count out of range; expected 1 to 65535 lanes"},
      {"int8x65536", "data type 'int8x65536' has a lane count out of range"},
      {"int8x99999999999999999999", "has a lane count out of range"},
  };
  for (const Refusal& r : kRefused) {
    MXFFI_EXPECT_THROW_KIND(DataTypeFromString(r.text, "np.zeros"), "TypeError", r.message);
  }
}

TEST(DataType, LongTextIsCutInTheMessage) {
  std::string text(200, 'z');
  try {
    DataTypeFromString(text, "np.zeros");
    ADD_FAILURE() << "no exception";
  } catch (const mxffi::Error& e) {
    EXPECT_NE(e.message().find("data type '" + std::string(64, 'z') + "...' not understood"),
              std::string::npos)
        << e.message();
  }
}

TEST(DataType, ParseDtypeGlobalNamesItsCaller) {
  mxffi::Function parse = mxffi::Function::GetGlobalRequired("ndarray.parse_dtype");
  DLDataType t = parse(std::string("c8"), std::string("mxffi.DataType")).cast<DLDataType>();
  EXPECT_TRUE(t.code == kDLComplex && t.bits == 64 && t.lanes == 1);
  MXFFI_EXPECT_THROW_KIND(parse(std::string("V8"), std::string("mxffi.DataType")), "TypeError",
                          "mxffi.DataType: data type 'V8' is a numpy void");
}

TEST(DataType, OpParameterReadsTheSameGrammar) {
  mxffi::DTypeParam d;
  std::istringstream is("c16");
  is >> d;
  ASSERT_FALSE(is.fail());
  EXPECT_EQ(int(d.dtype.code), int(kDLComplex));
  EXPECT_EQ(int(d.dtype.bits), 128);
  std::istringstream bad(">f8");
  bad >> d;
  EXPECT_TRUE(bad.fail());
}

}  // namespace
