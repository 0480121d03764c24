// A REGISTER_API library whose registrations the tests choose with -D:
//   -DREFUSED: registers apilib.first, then testing.add without .allow_override() (refused), then
//              apilib.second: the load fails and must leave no apilib.* behind.
//   -DOVERRIDE: registers testing.add with .allow_override(), returning a + b + 1000: replaced
//              only when the library is loaded with override=True.
#include <mxffi/registry.h>

#include <cstdint>

#ifdef REFUSED
MXFFI_REGISTER_API("apilib.first").set_body_typed([](int64_t x) { return x + 1; });
MXFFI_REGISTER_API("testing.add").set_body_typed([](int64_t a, int64_t b) { return a - b; });
MXFFI_REGISTER_API("apilib.second").set_body_typed([](int64_t x) { return x + 2; });
#endif

#ifdef OVERRIDE
MXFFI_REGISTER_API("testing.add").allow_override().set_body_typed([](int64_t a, int64_t b) {
  return a + b + 1000;
});
MXFFI_REGISTER_API("apilib.override_marker").set_body_typed([]() { return int64_t{7}; });
#endif
