// Built with MXFFI_BUILD_ABI_MAJOR=99: stands for a library compiled against the headers of
// another ABI major. Loading it must be refused with both versions named.
#include <mxffi/registry.h>

MXFFI_REGISTER_API("abi_mismatch.answer").set_body_typed([]() { return int64_t{42}; });
