// Loads the consumer's library with the library.load global and calls consumer.greet through
// MXFFIFuncCall, as any binding would. Exits non-zero on any mismatch.
#include <mxffi/c_api.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

int CallGlobal(const char* name, MXFFIAny* args, int n, MXFFIAny* result) {
  MXFFIObjectHandle f = nullptr;
  if (MXFFIFuncGetGlobal(name, &f) != 0 || f == nullptr) {
    std::fprintf(stderr, "no global %s\n", name);
    return -1;
  }
  result->type_index = kMXFFINone;
  int rc = MXFFIFuncCall(f, args, n, result);
  MXFFIObjectFree(f);
  if (rc != 0) {
    const char *kind, *message;
    MXFFIErrorGetLast(&kind, &message, nullptr);
    std::fprintf(stderr, "%s failed: %s: %s\n", name, kind, message);
  }
  return rc;
}

}  // namespace

int main() {
  MXFFIAny arg{};
  arg.type_index = kMXFFIRawStr;
  arg.v_c_str = CONSUMER_OPS_LIB;
  MXFFIAny lib{};
  if (CallGlobal("library.load", &arg, 1, &lib) != 0) return 1;

  MXFFIAny args[2]{};
  args[0].type_index = kMXFFIRawStr;
  args[0].v_c_str = "consumer";
  args[1].type_index = kMXFFIInt;
  args[1].v_int64 = 2;
  MXFFIAny out{};
  if (CallGlobal("consumer.greet", args, 2, &out) != 0) return 1;
  if (out.type_index != kMXFFIString) return 1;
  const auto* s = reinterpret_cast<const MXFFIStringObj*>(out.v_obj);
  std::string text(s->data, static_cast<size_t>(s->size));
  std::printf("consumer.greet('consumer', 2) = %s\n", text.c_str());
  MXFFIObjectFree(out.v_obj);
  MXFFIObjectFree(lib.v_obj);
  return text == "hello, consumer! hello, consumer! " ? 0 : 1;
}
