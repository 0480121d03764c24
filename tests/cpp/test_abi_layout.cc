// The frozen C ABI, pinned: every struct's size and field offsets, and every type code's value.
// A change here is an ABI break and must bump MXFFI_VERSION_MAJOR.
#include <gtest/gtest.h>
#include <mxffi/c_api.h>
#include <mxffi/mxffi.h>
#include <mxffi/ndarray/dlpack_compat.h>
#include <mxffi/op/op.h>
// The op-library ABI (its own version, MXFFI_OPLIB_ABI_MAJOR): the C half only.
#define MXFFI_OPLIB_HOST
#include <mxffi/lib_api.h>

#include <cstddef>
#include <fstream>
#include <regex>
#include <sstream>
#include <type_traits>

// Section: the op-library ABI (lib_api.h). Fields are only added at a struct's end, with a
// minor version; anything else here changing is a break and bumps MXFFI_OPLIB_ABI_MAJOR.
static_assert(MXFFI_OPLIB_ABI_MAJOR == 1);
static_assert(MXFFI_OPLIB_MAX_NDIM == mxffi::kMaxNDim && MXFFI_OPLIB_MAX_ARGS == mxffi::kMaxOpArgs);
static_assert(MXFFI_OPLIB_OK == 0 && MXFFI_OPLIB_FAIL == -1 && MXFFI_OPLIB_FALLBACK == 1);
static_assert(sizeof(MXFFIOpLibDType) == 4);
static_assert(offsetof(MXFFIOpLibAttrs, struct_size) == 0 && offsetof(MXFFIOpLibAttrs, num) == 4);
static_assert(offsetof(MXFFIOpLibAttrs, keys) == 8 && offsetof(MXFFIOpLibAttrs, values) == 16);
static_assert(offsetof(MXFFIOpLibTensor, struct_size) == 0 &&
              offsetof(MXFFIOpLibTensor, ndim) == 4 && offsetof(MXFFIOpLibTensor, data) == 8 &&
              offsetof(MXFFIOpLibTensor, shape) == 16 && offsetof(MXFFIOpLibTensor, stype) == 24 &&
              offsetof(MXFFIOpLibTensor, dtype) == 28 &&
              offsetof(MXFFIOpLibTensor, device_type) == 32 &&
              offsetof(MXFFIOpLibTensor, device_id) == 36 &&
              offsetof(MXFFIOpLibTensor, nnz) == 40 && offsetof(MXFFIOpLibTensor, indices) == 48 &&
              offsetof(MXFFIOpLibTensor, indices_dtype) == 56 &&
              offsetof(MXFFIOpLibTensor, indptr) == 64 &&
              offsetof(MXFFIOpLibTensor, indptr_dtype) == 72 && sizeof(MXFFIOpLibTensor) == 80);
static_assert(offsetof(MXFFIOpLibResource, struct_size) == 0 &&
              offsetof(MXFFIOpLibResource, device_type) == 4 &&
              offsetof(MXFFIOpLibResource, device_id) == 8 &&
              offsetof(MXFFIOpLibResource, host) == 16 &&
              offsetof(MXFFIOpLibResource, stream) == 24 &&
              offsetof(MXFFIOpLibResource, alloc_sparse) == 32 &&
              offsetof(MXFFIOpLibResource, alloc_workspace) == 40);
static_assert(offsetof(MXFFIOpLibOp, struct_size) == 0 && offsetof(MXFFIOpLibOp, name) == 8 &&
              offsetof(MXFFIOpLibOp, doc) == 16 && offsetof(MXFFIOpLibOp, num_inputs) == 24 &&
              offsetof(MXFFIOpLibOp, num_outputs) == 28 && offsetof(MXFFIOpLibOp, self) == 32 &&
              offsetof(MXFFIOpLibOp, parse_attrs) == 40 &&
              offsetof(MXFFIOpLibOp, infer_shape) == 48 &&
              offsetof(MXFFIOpLibOp, infer_type) == 56 &&
              offsetof(MXFFIOpLibOp, infer_stype) == 64 && offsetof(MXFFIOpLibOp, forward) == 72 &&
              offsetof(MXFFIOpLibOp, create_state) == 88 &&
              offsetof(MXFFIOpLibOp, state_forward) == 96 &&
              offsetof(MXFFIOpLibOp, destroy_state) == 112 && sizeof(MXFFIOpLibOp) == 120);

// Section: type codes
static_assert(kMXFFINone == 0);
static_assert(kMXFFIInt == 1);
static_assert(kMXFFIBool == 2);
static_assert(kMXFFIFloat == 3);
static_assert(kMXFFIOpaquePtr == 4);
static_assert(kMXFFIDataType == 5);
static_assert(kMXFFIDevice == 6);
static_assert(kMXFFIDLTensorPtr == 7);
static_assert(kMXFFIRawStr == 8);
static_assert(kMXFFISmallStr == 9);
static_assert(kMXFFISmallBytes == 10);
static_assert(kMXFFIStrView == 11);
static_assert(kMXFFIBytesView == 12);
static_assert(kMXFFIComplexView == 13);   // since 1.3
static_assert(kMXFFIUInt64 == 14);        // since 1.4
static_assert(kMXFFIResultBuffer == 15);  // since 1.8
static_assert(kMXFFIBufferStr == 16);     // since 1.8
static_assert(kMXFFIStaticObjectBegin == 64);
static_assert(kMXFFIObject == 64);
static_assert(kMXFFIString == 65);
static_assert(kMXFFIBytes == 66);
static_assert(kMXFFIError == 67);
static_assert(kMXFFIFunction == 68);
static_assert(kMXFFIArray == 69);
static_assert(kMXFFIMap == 70);
static_assert(kMXFFIADT == 71);
static_assert(kMXFFIShape == 72);
static_assert(kMXFFINDArray == 73);
static_assert(kMXFFILibrary == 74);
static_assert(kMXFFIComplex == 75);  // since 1.3
static_assert(kMXFFIDynObjectBegin == 128);

// Section: the value cell
static_assert(sizeof(MXFFIAny) == 16);
static_assert(alignof(MXFFIAny) == 8);
static_assert(offsetof(MXFFIAny, type_index) == 0);
static_assert(offsetof(MXFFIAny, small_len) == 4);
static_assert(offsetof(MXFFIAny, v_int64) == 8);
static_assert(offsetof(MXFFIAny, v_float64) == 8);
static_assert(offsetof(MXFFIAny, v_ptr) == 8);
static_assert(offsetof(MXFFIAny, v_c_str) == 8);
static_assert(offsetof(MXFFIAny, v_obj) == 8);
static_assert(offsetof(MXFFIAny, v_dtype) == 8);
static_assert(offsetof(MXFFIAny, v_device) == 8);
static_assert(offsetof(MXFFIAny, v_bytes) == 8);
static_assert(sizeof(DLDataType) == 4 && sizeof(DLDevice) == 8, "fit the 8-byte payload");
static_assert(sizeof(MXFFIByteArray) == 16);
static_assert(offsetof(MXFFIByteArray, data) == 0 && offsetof(MXFFIByteArray, size) == 8);

// Section: object layouts
static_assert(sizeof(MXFFIObject) == 24);
static_assert(offsetof(MXFFIObject, ref_counter) == 0);
static_assert(offsetof(MXFFIObject, type_index) == 8);
static_assert(offsetof(MXFFIObject, reserved) == 12);
static_assert(offsetof(MXFFIObject, deleter) == 16);
static_assert(sizeof(MXFFIStringObj) == 40);
static_assert(offsetof(MXFFIStringObj, data) == 24 && offsetof(MXFFIStringObj, size) == 32);
static_assert(sizeof(MXFFIFunctionObj) == 32 && offsetof(MXFFIFunctionObj, safe_call) == 24);
static_assert(sizeof(MXFFIArrayObj) == 48);
static_assert(offsetof(MXFFIArrayObj, data) == 24 && offsetof(MXFFIArrayObj, size) == 32 &&
              offsetof(MXFFIArrayObj, capacity) == 40);
static_assert(sizeof(MXFFIADTObj) == 32);
static_assert(offsetof(MXFFIADTObj, tag) == 24 && offsetof(MXFFIADTObj, size) == 28 &&
              offsetof(MXFFIADTObj, fields) == 32);
static_assert(sizeof(MXFFIShapeObj) == 40);
static_assert(offsetof(MXFFIShapeObj, data) == 24 && offsetof(MXFFIShapeObj, size) == 32);
static_assert(sizeof(MXFFIComplexObj) == 40);  // since 1.3
static_assert(offsetof(MXFFIComplexObj, real) == 24 && offsetof(MXFFIComplexObj, imag) == 32);
static_assert(offsetof(MXFFINDArrayObj, tensor) == 24);
static_assert(offsetof(MXFFINDArrayObj, stype) == 24 + sizeof(DLTensor));  // since 1.2
static_assert(sizeof(MXFFINDArrayObj) == 24 + sizeof(DLTensor) + 8);

// Section: storage types (MXFFINDArrayObj::stype). Frozen values; the op-library ABI and
// mxffi::StorageType use the same ones.
static_assert(kMXFFIStorageDefault == 0 && kMXFFIStorageRowSparse == 1 && kMXFFIStorageCSR == 2);
// Added in 1.7.
static_assert(kMXFFIStorageCOO == 3);
static_assert(MXFFI_OPLIB_STYPE_DEFAULT == kMXFFIStorageDefault &&
              MXFFI_OPLIB_STYPE_ROW_SPARSE == kMXFFIStorageRowSparse &&
              MXFFI_OPLIB_STYPE_CSR == kMXFFIStorageCSR);
static_assert(static_cast<int>(mxffi::StorageType::kDefault) == kMXFFIStorageDefault &&
              static_cast<int>(mxffi::StorageType::kRowSparse) == kMXFFIStorageRowSparse &&
              static_cast<int>(mxffi::StorageType::kCSR) == kMXFFIStorageCSR &&
              static_cast<int>(mxffi::StorageType::kCOO) == kMXFFIStorageCOO);

// Section: the C++ objects agree with the C layouts they implement
static_assert(sizeof(mxffi::Object) == sizeof(MXFFIObject));
static_assert(sizeof(mxffi::StringObj) == sizeof(MXFFIStringObj));
static_assert(sizeof(mxffi::BytesObj) == sizeof(MXFFIStringObj));
static_assert(sizeof(mxffi::FunctionObj) == sizeof(MXFFIFunctionObj));
static_assert(sizeof(mxffi::ArrayObj) == sizeof(MXFFIArrayObj));
static_assert(sizeof(mxffi::ADTObj) == sizeof(MXFFIADTObj));
static_assert(sizeof(mxffi::ShapeObj) == sizeof(MXFFIShapeObj));
static_assert(sizeof(mxffi::Any) == sizeof(MXFFIAny) && sizeof(mxffi::AnyView) == sizeof(MXFFIAny));

// Section: DLPack 1.x declarations (compat header or a 1.x dlpack.h)
static_assert(kDLBool == 6);
static_assert(sizeof(DLPackVersion) == 8);
static_assert(offsetof(DLManagedTensorVersioned, version) == 0);
static_assert(offsetof(DLManagedTensorVersioned, manager_ctx) == 8);
static_assert(offsetof(DLManagedTensorVersioned, deleter) == 16);
static_assert(offsetof(DLManagedTensorVersioned, flags) == 24);
static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
static_assert(DLPACK_FLAG_BITMASK_READ_ONLY == 1 && DLPACK_FLAG_BITMASK_IS_COPIED == 2);

// Section: DLPack C exchange API (DLPack 1.2+; the table behind __dlpack_c_exchange_api__)
static_assert(sizeof(DLPackExchangeAPIHeader) == 16);
static_assert(offsetof(DLPackExchangeAPIHeader, version) == 0);
static_assert(offsetof(DLPackExchangeAPIHeader, prev_api) == 8);
static_assert(sizeof(DLPackExchangeAPI) == 56);
static_assert(offsetof(DLPackExchangeAPI, header) == 0);
static_assert(offsetof(DLPackExchangeAPI, managed_tensor_allocator) == 16);
static_assert(offsetof(DLPackExchangeAPI, managed_tensor_from_py_object_no_sync) == 24);
static_assert(offsetof(DLPackExchangeAPI, managed_tensor_to_py_object_no_sync) == 32);
static_assert(offsetof(DLPackExchangeAPI, dltensor_from_py_object_no_sync) == 40);
static_assert(offsetof(DLPackExchangeAPI, current_work_stream) == 48);
static_assert(std::is_same_v<DLPackManagedTensorFromPyObjectNoSync,
                             int (*)(void*, DLManagedTensorVersioned**)>);
static_assert(std::is_same_v<DLPackManagedTensorToPyObjectNoSync,
                             int (*)(DLManagedTensorVersioned*, void**)>);
static_assert(std::is_same_v<DLPackDLTensorFromPyObjectNoSync, int (*)(void*, DLTensor*)>);
static_assert(std::is_same_v<DLPackCurrentWorkStream, int (*)(DLDeviceType, int32_t, void**)>);
static_assert(std::is_same_v<DLPackManagedTensorAllocator,
                             int (*)(DLTensor*, DLManagedTensorVersioned**, void*,
                                     void (*)(void*, const char*, const char*))>);

// The C++ classes put their fields where the C structs say, checked on live objects (offsetof
// is not defined for the C++ classes, which are not standard-layout).
TEST(AbiLayout, CxxObjectsMatchCLayouts) {
  mxffi::String s("a string longer than seven bytes");
  const auto* c = reinterpret_cast<const MXFFIStringObj*>(s.raw()->v_obj);
  EXPECT_EQ(c->size, 32);
  EXPECT_EQ(std::string(c->data, c->size), "a string longer than seven bytes");
  EXPECT_EQ(c->header.type_index, kMXFFIString);
  EXPECT_EQ(c->header.ref_counter, 1);

  mxffi::Shape shape{2, 3, 4};
  const auto* sc = reinterpret_cast<const MXFFIShapeObj*>(shape.get());
  ASSERT_EQ(sc->size, 3);
  EXPECT_EQ(sc->data[2], 4);

  mxffi::ADT adt(5, {mxffi::Any(int64_t{9})});
  const auto* ac = reinterpret_cast<const MXFFIADTObj*>(adt.get());
  EXPECT_EQ(ac->tag, 5);
  ASSERT_EQ(ac->size, 1);
  EXPECT_EQ(ac->fields[0].type_index, kMXFFIInt);
  EXPECT_EQ(ac->fields[0].v_int64, 9);

  mxffi::Array<int64_t> arr{7, 8};
  const auto* arc = reinterpret_cast<const MXFFIArrayObj*>(arr.get());
  ASSERT_EQ(arc->size, 2);
  EXPECT_EQ(arc->data[1].v_int64, 8);
}

TEST(AbiLayout, VersionReportedMatchesHeader) {
  int32_t major = -1, minor = -1, patch = -1;
  ASSERT_EQ(MXFFIGetVersion(&major, &minor, &patch), 0);
  EXPECT_EQ(major, MXFFI_VERSION_MAJOR);
  EXPECT_EQ(minor, MXFFI_VERSION_MINOR);
  EXPECT_EQ(patch, MXFFI_VERSION_PATCH);
}

// Each version number lives in one place: the package version in pyproject.toml (CMake reads
// it from there), the C ABI version in c_api.h (the library's SONAME follows its major).
TEST(AbiLayout, VersionsReadFromTheirOnePlace) {
  std::ifstream in(MXFFI_SOURCE_DIR "/pyproject.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  std::string s = text.str();
  ASSERT_TRUE(std::regex_search(s, m, std::regex("\nversion = \"([0-9.]+)\"")));
  EXPECT_EQ(m[1].str(), MXFFI_CMAKE_PACKAGE_VERSION);
  EXPECT_EQ(std::string(MXFFI_CMAKE_SOVERSION), std::to_string(MXFFI_VERSION_MAJOR));
}
