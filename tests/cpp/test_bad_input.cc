// The C ABI rows of docs/bad_input.md, each run here. A row of the page names its test in the
// last column (`BadInputCApi.<Name>`); the test makes the call and hands the return code to
// ExpectDocRow, which reads the row's expected kind and message fragments from the page itself,
// so the page and the behaviour cannot drift apart. BadInputDoc.EveryCApiRowHasATest checks the
// rows and the tests name each other one to one.
#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using mxffi_test::Cell;
using mxffi_test::GetGlobalHandle;
using mxffi_test::IntCell;
using mxffi_test::StrCell;

constexpr const char* kSuite = "BadInputCApi";

/*! \brief One C ABI row of the page: the kind it raises ("none" for a call that succeeds) and
 *  the fragments the message must contain. */
struct DocRow {
  std::string kind;
  std::vector<std::string> fragments;
};

/*! \brief The cells of a Markdown table line, split at unescaped '|', with `\|` unescaped. */
std::vector<std::string> TableCells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 1; i < line.size(); ++i) {  // line[0] is the leading '|'
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  for (auto& c : cells) {
    size_t b = c.find_first_not_of(' ');
    size_t e = c.find_last_not_of(' ');
    c = b == std::string::npos ? "" : c.substr(b, e - b + 1);
  }
  return cells;
}

/*! \brief The `code spans` of a cell, in order. */
std::vector<std::string> CodeSpans(const std::string& cell) {
  std::vector<std::string> spans;
  size_t pos = 0;
  while ((pos = cell.find('`', pos)) != std::string::npos) {
    size_t end = cell.find('`', pos + 1);
    if (end == std::string::npos) break;
    spans.push_back(cell.substr(pos + 1, end - pos - 1));
    pos = end + 1;
  }
  return spans;
}

/*! \brief Every C ABI row of docs/bad_input.md by test name: tables whose header ends in
 *  "| test |", rows `| call | raises | message contains | test |`. */
const std::map<std::string, DocRow>& DocRows() {
  static const std::map<std::string, DocRow> rows = [] {
    std::map<std::string, DocRow> out;
    std::ifstream in(std::string(MXFFI_SOURCE_DIR) + "/docs/bad_input.md");
    EXPECT_TRUE(in.good()) << "cannot read docs/bad_input.md";
    bool in_c_table = false;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] != '|') {
        in_c_table = false;
        continue;
      }
      std::vector<std::string> cells = TableCells(line);
      if (cells.size() == 4 && cells[3] == "test") {
        in_c_table = true;
        continue;
      }
      if (!in_c_table || cells.size() != 4 || cells[3].rfind("---", 0) == 0) continue;
      std::vector<std::string> test = CodeSpans(cells[3]);
      std::vector<std::string> kind = CodeSpans(cells[1]);
      EXPECT_EQ(test.size(), 1u) << "row without one test name: " << line;
      EXPECT_EQ(kind.size(), 1u) << "row without one kind: " << line;
      if (test.size() != 1 || kind.size() != 1) continue;
      std::string prefix = std::string(kSuite) + ".";
      EXPECT_EQ(test[0].rfind(prefix, 0), 0u) << "test not in " << kSuite << ": " << line;
      std::string name = test[0].substr(prefix.size());
      EXPECT_EQ(out.count(name), 0u) << "two rows name " << test[0];
      out[name] = DocRow{kind[0], CodeSpans(cells[2])};
    }
    return out;
  }();
  return rows;
}

/*! \brief Check a C ABI call's outcome against the row of the page named `name`: rc 0 for a
 *  row raising "none"; else rc -1 with the row's kind and every fragment in the message. */
void ExpectDocRow(const std::string& name, int rc) {
  auto it = DocRows().find(name);
  ASSERT_NE(it, DocRows().end()) << "docs/bad_input.md has no row for " << kSuite << "." << name;
  const DocRow& row = it->second;
  if (row.kind == "none") {
    EXPECT_EQ(rc, 0);
    return;
  }
  ASSERT_EQ(rc, -1) << "the call succeeded; the page says it raises " << row.kind;
  const char *kind = nullptr, *message = nullptr;
  MXFFIErrorGetLast(&kind, &message, nullptr);
  EXPECT_EQ(std::string(kind), row.kind) << message;
  for (const auto& f : row.fragments) {
    EXPECT_NE(std::string(message).find(f), std::string::npos)
        << "message '" << message << "' lacks '" << f << "'";
  }
}

/*! \brief A fresh result cell, kMXFFINone as MXFFIFuncCall requires. */
MXFFIAny NoneCell() { return Cell(kMXFFINone); }

/*! \brief MXFFIFuncCall on global `name` with raw cells; the result (if any) is released. */
int CallGlobal(const char* name, std::vector<MXFFIAny> args) {
  MXFFIObjectHandle f = GetGlobalHandle(name);
  MXFFIAny result = NoneCell();
  int rc = MXFFIFuncCall(f, args.data(), static_cast<int32_t>(args.size()), &result);
  if (rc == 0) mxffi::Any::MoveFromRaw(&result);
  MXFFIObjectFree(f);
  return rc;
}

int NopCallback(void*, const MXFFIAny*, int32_t, MXFFIAny*) { return 0; }

/*! \brief An owned Array handle, for calls that want an object that is not a Function. */
struct ArrayHandle {
  mxffi::Array<int64_t> arr{1, 2};
  MXFFIObjectHandle get() { return mxffi::Any(arr).raw()->v_obj; }
};

// Section: versions and errors.

TEST(BadInputCApi, GetVersionNullOutputs) {
  ExpectDocRow("GetVersionNullOutputs", MXFFIGetVersion(nullptr, nullptr, nullptr));
}

TEST(BadInputCApi, ErrorGetLastNullOutputs) {
  MXFFIErrorSet("ValueError", "x", nullptr);
  ExpectDocRow("ErrorGetLastNullOutputs", MXFFIErrorGetLast(nullptr, nullptr, nullptr));
}

TEST(BadInputCApi, ErrorSetNullKindAndMessage) {
  int rc = MXFFIErrorSet(nullptr, nullptr, nullptr);
  ExpectDocRow("ErrorSetNullKindAndMessage", rc);
  const char *kind, *message;
  MXFFIErrorGetLast(&kind, &message, nullptr);
  EXPECT_STREQ(kind, "RuntimeError");
  EXPECT_STREQ(message, "");
}

TEST(BadInputCApi, SetGILHooksOnlyOne) {
  auto release = []() -> void* { return nullptr; };
  ExpectDocRow("SetGILHooksOnlyOne", MXFFIEnvSetGILHooks(release, nullptr));
}

// Section: objects.

TEST(BadInputCApi, ObjectIncRefNull) {
  ExpectDocRow("ObjectIncRefNull", MXFFIObjectIncRef(nullptr));
}

TEST(BadInputCApi, ObjectFreeNull) { ExpectDocRow("ObjectFreeNull", MXFFIObjectFree(nullptr)); }

TEST(BadInputCApi, ObjectGetTypeIndexNullObj) {
  int32_t out = 0;
  ExpectDocRow("ObjectGetTypeIndexNullObj", MXFFIObjectGetTypeIndex(nullptr, &out));
}

TEST(BadInputCApi, ObjectGetTypeIndexNullOut) {
  ArrayHandle a;
  ExpectDocRow("ObjectGetTypeIndexNullOut", MXFFIObjectGetTypeIndex(a.get(), nullptr));
}

TEST(BadInputCApi, TypeKey2IndexNullKey) {
  int32_t out = 0;
  ExpectDocRow("TypeKey2IndexNullKey", MXFFITypeKey2Index(nullptr, &out));
}

TEST(BadInputCApi, TypeKey2IndexNullOut) {
  ExpectDocRow("TypeKey2IndexNullOut", MXFFITypeKey2Index("mxffi.Array", nullptr));
}

TEST(BadInputCApi, TypeKey2IndexUnknownKey) {
  int32_t out = 0;
  ExpectDocRow("TypeKey2IndexUnknownKey", MXFFITypeKey2Index("mxffi.NoSuchType", &out));
}

TEST(BadInputCApi, TypeIndex2KeyUnknownIndex) {
  const char* out = nullptr;
  ExpectDocRow("TypeIndex2KeyUnknownIndex", MXFFITypeIndex2Key(100000, &out));
}

TEST(BadInputCApi, TypeIndex2KeyNegativeIndex) {
  const char* out = nullptr;
  ExpectDocRow("TypeIndex2KeyNegativeIndex", MXFFITypeIndex2Key(-1, &out));
}

TEST(BadInputCApi, TypeIndex2KeyNullOut) {
  ExpectDocRow("TypeIndex2KeyNullOut", MXFFITypeIndex2Key(kMXFFIArray, nullptr));
}

// Section: functions.

TEST(BadInputCApi, FuncCallNullFunc) {
  MXFFIAny result = NoneCell();
  ExpectDocRow("FuncCallNullFunc", MXFFIFuncCall(nullptr, nullptr, 0, &result));
}

TEST(BadInputCApi, FuncCallNotAFunction) {
  ArrayHandle a;
  MXFFIAny result = NoneCell();
  ExpectDocRow("FuncCallNotAFunction", MXFFIFuncCall(a.get(), nullptr, 0, &result));
}

TEST(BadInputCApi, FuncCallNegativeNumArgs) {
  MXFFIObjectHandle f = GetGlobalHandle("testing.nop");
  MXFFIAny arg = IntCell(1);
  MXFFIAny result = NoneCell();
  ExpectDocRow("FuncCallNegativeNumArgs", MXFFIFuncCall(f, &arg, -1, &result));
  MXFFIObjectFree(f);
}

TEST(BadInputCApi, FuncCallNullArgs) {
  MXFFIObjectHandle f = GetGlobalHandle("testing.add");
  MXFFIAny result = NoneCell();
  ExpectDocRow("FuncCallNullArgs", MXFFIFuncCall(f, nullptr, 2, &result));
  MXFFIObjectFree(f);
}

TEST(BadInputCApi, FuncCallTooManyArgs) {
  ExpectDocRow("FuncCallTooManyArgs",
               CallGlobal("testing.add", {IntCell(1), IntCell(2), IntCell(3)}));
}

TEST(BadInputCApi, FuncCallTooFewArgs) {
  ExpectDocRow("FuncCallTooFewArgs", CallGlobal("testing.add_float", {IntCell(1)}));
}

TEST(BadInputCApi, FuncCallWrongArgType) {
  ExpectDocRow("FuncCallWrongArgType", CallGlobal("testing.add", {IntCell(1), StrCell("two")}));
}

TEST(BadInputCApi, FuncCallUnknownTypeCode) {
  MXFFIAny cell = Cell(40);  // in the plain range, but no type has code 40
  cell.v_int64 = 7;
  ExpectDocRow("FuncCallUnknownTypeCode", CallGlobal("testing.add", {cell, IntCell(2)}));
}

TEST(BadInputCApi, FuncCallShapeNegativeDim) {
  mxffi::Any shape = mxffi::Shape({2, -3});
  ExpectDocRow("FuncCallShapeNegativeDim", CallGlobal("np.zeros", {*shape.raw()}));
}

TEST(BadInputCApi, FuncCallCallbackError) {
  auto callback = [](void*, const MXFFIAny*, int32_t n, MXFFIAny*) -> int {
    std::string msg = "my_callback: expected 0 arguments, got " + std::to_string(n);
    MXFFIErrorSet("ValueError", msg.c_str(), nullptr);
    return -1;
  };
  MXFFIObjectHandle f = nullptr;
  ASSERT_EQ(MXFFIFuncCreate(nullptr, callback, nullptr, &f), 0);
  MXFFIAny arg = IntCell(1);
  MXFFIAny result = NoneCell();
  ExpectDocRow("FuncCallCallbackError", MXFFIFuncCall(f, &arg, 1, &result));
  MXFFIObjectFree(f);
}

TEST(BadInputCApi, FuncCreateNullCallback) {
  MXFFIObjectHandle out = nullptr;
  ExpectDocRow("FuncCreateNullCallback", MXFFIFuncCreate(nullptr, nullptr, nullptr, &out));
  EXPECT_EQ(out, nullptr);
}

TEST(BadInputCApi, FuncCreateNullOut) {
  static int freed = 0;
  freed = 0;
  int rc = MXFFIFuncCreate(
      nullptr, NopCallback, [](void*) { ++freed; }, nullptr);
  ExpectDocRow("FuncCreateNullOut", rc);
  EXPECT_EQ(freed, 0);  // nothing was made, so the resource is still the caller's
}

TEST(BadInputCApi, FuncGetGlobalNullName) {
  MXFFIObjectHandle out = nullptr;
  ExpectDocRow("FuncGetGlobalNullName", MXFFIFuncGetGlobal(nullptr, &out));
}

TEST(BadInputCApi, FuncGetGlobalNullOut) {
  ExpectDocRow("FuncGetGlobalNullOut", MXFFIFuncGetGlobal("testing.nop", nullptr));
}

TEST(BadInputCApi, FuncGetGlobalUnknownName) {
  MXFFIObjectHandle out = reinterpret_cast<MXFFIObjectHandle>(0x1);
  ExpectDocRow("FuncGetGlobalUnknownName", MXFFIFuncGetGlobal("testing.no_such_function", &out));
  EXPECT_EQ(out, nullptr);
}

TEST(BadInputCApi, FuncSetGlobalNullName) {
  MXFFIObjectHandle f = GetGlobalHandle("testing.nop");
  ExpectDocRow("FuncSetGlobalNullName", MXFFIFuncSetGlobal(nullptr, f, 0));
  MXFFIObjectFree(f);
}

TEST(BadInputCApi, FuncSetGlobalNullFunc) {
  ExpectDocRow("FuncSetGlobalNullFunc", MXFFIFuncSetGlobal("bad_input.null_func", nullptr, 0));
}

TEST(BadInputCApi, FuncSetGlobalNotAFunction) {
  ArrayHandle a;
  ExpectDocRow("FuncSetGlobalNotAFunction", MXFFIFuncSetGlobal("bad_input.array", a.get(), 0));
}

TEST(BadInputCApi, FuncSetGlobalEmptyName) {
  MXFFIObjectHandle f = GetGlobalHandle("testing.nop");
  ExpectDocRow("FuncSetGlobalEmptyName", MXFFIFuncSetGlobal("", f, 0));
  MXFFIObjectFree(f);
}

TEST(BadInputCApi, FuncSetGlobalClash) {
  MXFFIObjectHandle f = GetGlobalHandle("testing.nop");
  ExpectDocRow("FuncSetGlobalClash", MXFFIFuncSetGlobal("testing.add", f, 0));
  MXFFIObjectFree(f);
  // The clash left the table as it was.
  EXPECT_EQ(CallGlobal("testing.add", {IntCell(1), IntCell(2)}), 0);
}

TEST(BadInputCApi, FuncListGlobalNamesNullOut) {
  ExpectDocRow("FuncListGlobalNamesNullOut", MXFFIFuncListGlobalNames(nullptr));
}

// Section: containers.

TEST(BadInputCApi, ArrayCreateNullItems) {
  MXFFIObjectHandle out = nullptr;
  ExpectDocRow("ArrayCreateNullItems", MXFFIArrayCreate(nullptr, 2, &out));
}

TEST(BadInputCApi, ArrayCreateNegativeSize) {
  MXFFIAny item = IntCell(1);
  MXFFIObjectHandle out = nullptr;
  ExpectDocRow("ArrayCreateNegativeSize", MXFFIArrayCreate(&item, -1, &out));
}

TEST(BadInputCApi, ArrayCreateNullOut) {
  MXFFIAny item = IntCell(1);
  ExpectDocRow("ArrayCreateNullOut", MXFFIArrayCreate(&item, 1, nullptr));
}

TEST(BadInputCApi, ArrayCreateUnknownTypeCode) {
  MXFFIAny items[2] = {IntCell(1), Cell(40)};
  MXFFIObjectHandle out = nullptr;
  ExpectDocRow("ArrayCreateUnknownTypeCode", MXFFIArrayCreate(items, 2, &out));
  EXPECT_EQ(out, nullptr);
}

// Section: the page and the tests name each other one to one.

TEST(BadInputDoc, EveryCApiRowHasATest) {
  std::set<std::string> tests;
  const ::testing::UnitTest* unit = ::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit->total_test_suite_count(); ++i) {
    const ::testing::TestSuite* suite = unit->GetTestSuite(i);
    if (std::string(suite->name()) != kSuite) continue;
    for (int j = 0; j < suite->total_test_count(); ++j) tests.insert(suite->GetTestInfo(j)->name());
  }
  std::set<std::string> rows;
  for (const auto& kv : DocRows()) rows.insert(kv.first);
  EXPECT_GE(rows.size(), 30u);
  for (const auto& r : rows) EXPECT_EQ(tests.count(r), 1u) << "row without a test: " << r;
  for (const auto& t : tests) EXPECT_EQ(rows.count(t), 1u) << "test without a row: " << t;
}

}  // namespace
