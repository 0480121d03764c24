// An outside library built against the current headers; its function joins the registry.
#include <mxffi/registry.h>

MXFFI_REGISTER_API("good_lib.triple").describe("3 * x").arg("x").set_body_typed([](int64_t x) {
  return 3 * x;
});
