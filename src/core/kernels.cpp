// core/kernels.cpp — which kernel set runs: the widest the CPU reports (checked once,
// with __builtin_cpu_supports, before any of that set's code runs), or one forced by a
// test or the benchmark, never wider than the CPU supports.
#include "core/kernels.hpp"

#include <atomic>

namespace attn::kernels {

namespace {

// Each set is built on first use only: avx2_set() and avx512_set() are compiled with
// their instruction sets and may use them, so they run only once the CPU has said yes.
const kernel_set& set_for(isa which) {
    switch (which) {
        case isa::avx512: {
            static const kernel_set s = avx512_set();
            return s;
        }
        case isa::avx2: {
            static const kernel_set s = avx2_set();
            return s;
        }
        default: {
            static const kernel_set s = generic_set();
            return s;
        }
    }
}

std::atomic<const kernel_set*>& current() {
    static std::atomic<const kernel_set*> chosen{&set_for(best_supported())};
    return chosen;
}

}  // namespace

isa best_supported() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return isa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return isa::avx2;
#endif
    return isa::generic;
}

const kernel_set& active() { return *current().load(std::memory_order_acquire); }

const kernel_set& force(isa which) {
    const isa best = best_supported();
    if (static_cast<int>(which) > static_cast<int>(best)) which = best;
    const kernel_set& s = set_for(which);
    current().store(&s, std::memory_order_release);
    return s;
}

}  // namespace attn::kernels
