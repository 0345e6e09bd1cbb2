// tests/fuzz/fuzz_main.cpp — the libFuzzer entry point of every target: one executable,
// tests/fuzz/attn_fuzz, links once; the environment variable ATTN_FUZZ_TARGET names the
// target it runs (a name of tests/support/fuzz_targets.hpp's all_targets(), as tools/fuzz
// sets it). An unknown or missing name stops before the first input, listing the names.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "support/fuzz_targets.hpp"

namespace {

attn::fuzz::target_fn fuzz_chosen_target = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const char* name = std::getenv("ATTN_FUZZ_TARGET");
    for (const auto& t : attn::fuzz::all_targets())
        if (name != nullptr && std::strcmp(name, t.name) == 0) fuzz_chosen_target = t.run;
    if (fuzz_chosen_target != nullptr) return 0;
    std::fprintf(stderr, "attn_fuzz: set ATTN_FUZZ_TARGET to one of:");
    for (const auto& t : attn::fuzz::all_targets()) std::fprintf(stderr, " %s", t.name);
    std::fprintf(stderr, "\n");
    std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return fuzz_chosen_target(data, size);
}
