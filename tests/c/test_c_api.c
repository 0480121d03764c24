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
  if (failures == 0) printf("c_api: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
