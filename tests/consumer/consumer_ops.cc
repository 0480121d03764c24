// A function in an outside library, registered into mxffi's one registry when loaded.
#include <mxffi/registry.h>

#include <string>

MXFFI_REGISTER_API("consumer.greet")
    .describe("A greeting for name, repeated times times.")
    .arg("name")
    .arg("times", 1)
    .set_body_typed([](std::string name, int64_t times) {
      std::string out;
      for (int64_t i = 0; i < times; ++i) out += "hello, " + name + "! ";
      return mxffi::String(out);
    });
