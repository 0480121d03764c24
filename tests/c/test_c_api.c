/* c_api.h is plain C99: this file compiles with -std=c99 -pedantic -Werror and calls a few
 * entry points the way a C binding would. */
#include <mxffi/c_api.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond)                                                     \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

/* A coo array (ABI 1.7) read as a binding built against 1.6 reads an NDArray: its stype is none
 * of 1.6's three values and its tensor has no data, so that binding sees an opaque sparse
 * array, never dense elements. */
static void check_coo_reads_as_opaque_to_older_bindings(void) {
  MXFFIObjectHandle zeros = NULL, shape = NULL;
  MXFFIAny dims[2], args[2], result;
  const MXFFINDArrayObj* arr;
  int known_in_1_6;
  EXPECT(MXFFIFuncGetGlobal("sparse._zeros", &zeros) == 0 && zeros != NULL);
  memset(dims, 0, sizeof(dims));
  dims[0].type_index = kMXFFIInt;
  dims[0].v_int64 = 3;
  dims[1].type_index = kMXFFIInt;
  dims[1].v_int64 = 4;
  EXPECT(MXFFIArrayCreate(dims, 2, &shape) == 0);
  memset(args, 0, sizeof(args));
  args[0].type_index = kMXFFIRawStr;
  args[0].v_c_str = "coo";
  args[1].type_index = kMXFFIArray;
  args[1].v_obj = (MXFFIObject*)shape;
  memset(&result, 0, sizeof(result));
  result.type_index = kMXFFINone;
  EXPECT(MXFFIFuncCall(zeros, args, 2, &result) == 0);
  EXPECT(result.type_index == kMXFFINDArray);
  if (result.type_index == kMXFFINDArray) {
    arr = (const MXFFINDArrayObj*)result.v_obj;
    known_in_1_6 = arr->stype == 0 || arr->stype == 1 || arr->stype == 2;
    EXPECT(arr->stype == kMXFFIStorageCOO && !known_in_1_6);
    EXPECT(arr->tensor.data == NULL && arr->tensor.ndim == 2 && arr->tensor.shape[1] == 4);
    MXFFIObjectFree(result.v_obj);
  }
  MXFFIObjectFree(shape);
  MXFFIObjectFree(zeros);
}

int main(void) {
  int32_t major = 0;
  MXFFIObjectHandle add = NULL;
  MXFFIAny args[2];
  MXFFIAny result;
  const char* kind;
  const char* message;

  EXPECT(MXFFIGetVersion(&major, NULL, NULL) == 0 && major == MXFFI_VERSION_MAJOR);
  EXPECT(sizeof(MXFFIAny) == 16);
  EXPECT(kMXFFIStorageDefault == 0 && kMXFFIStorageRowSparse == 1 && kMXFFIStorageCSR == 2);
  EXPECT(kMXFFIStorageCOO == 3); /* since 1.7 */
  EXPECT(MXFFIFuncGetGlobal("testing.add", &add) == 0 && add != NULL);

  memset(args, 0, sizeof(args));
  args[0].type_index = kMXFFIInt;
  args[0].v_int64 = 40;
  args[1].type_index = kMXFFIInt;
  args[1].v_int64 = 2;
  memset(&result, 0, sizeof(result));
  result.type_index = kMXFFINone;
  EXPECT(MXFFIFuncCall(add, args, 2, &result) == 0);
  EXPECT(result.type_index == kMXFFIInt && result.v_int64 == 42);

  args[1].type_index = kMXFFIRawStr;
  args[1].v_c_str = "two";
  result.type_index = kMXFFINone;
  EXPECT(MXFFIFuncCall(add, args, 2, &result) == -1);
  MXFFIErrorGetLast(&kind, &message, NULL);
  EXPECT(strcmp(kind, "TypeError") == 0);
  EXPECT(strcmp(message, "testing.add: argument #1 'b' expected int, got str") == 0);

  MXFFIObjectFree(add);
  check_coo_reads_as_opaque_to_older_bindings();
  if (failures == 0) printf("c_api: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
