// tests/fuzz/fuzz_main.cpp — the libFuzzer entry point of one target; CMake compiles
// this file once per target with ATTN_FUZZ_TARGET set to its function's name
// (tests/support/fuzz_targets.hpp).
#include "support/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return attn::fuzz::ATTN_FUZZ_TARGET(data, size);
}
