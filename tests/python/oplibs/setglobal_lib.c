/* A library that registers a global through the C ABI alone (MXFFIFuncSetGlobal) from its
 * initializer, with no MXFFI_REGISTER_API and no op-library surface.
 *   setglobal.answer(x) = x + 42 (an int)
 */
#include <mxffi/c_api.h>
#include <stddef.h>

static int answer(void* resource, const MXFFIAny* args, int32_t num_args, MXFFIAny* result) {
  (void)resource;
  if (num_args != 1 || args[0].type_index != kMXFFIInt) {
    MXFFIErrorSet("TypeError", "setglobal.answer: expected one int", NULL);
    return -1;
  }
  result->type_index = kMXFFIInt;
  result->v_int64 = args[0].v_int64 + 42;
  return 0;
}

__attribute__((constructor)) static void register_answer(void) {
  MXFFIObjectHandle f = NULL;
  if (MXFFIFuncCreate(NULL, answer, NULL, &f) != 0) return;
  MXFFIFuncSetGlobal("setglobal.answer", f, 0);
  MXFFIObjectFree(f);
}
