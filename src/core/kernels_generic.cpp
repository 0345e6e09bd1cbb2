// core/kernels_generic.cpp — the product kernels every CPU runs: 128-bit GCC vectors
// (SSE2 on x86-64, NEON elsewhere), a multiply then an add (no FMA assumed).
// Tiles: float 6 × 8, double 6 × 4 (12 accumulators of 16 registers).
#include <cstddef>
#include <cstring>

#include "core/kernels.hpp"

namespace attn::kernels {
namespace {

template <class E>
struct vec128 {
    using T = E;
    typedef E reg __attribute__((vector_size(16)));
    static constexpr std::size_t width = 16 / sizeof(E);
    static inline reg zero() { return reg{}; }
    static inline reg load(const T* p) {
        reg r;
        std::memcpy(&r, p, sizeof r);
        return r;
    }
    static inline void store(T* p, reg r) { std::memcpy(p, &r, sizeof r); }
    static inline reg set1(T x) { return reg{} + x; }
    static inline reg mul(reg a, reg b) { return a * b; }
    static inline reg fma(reg a, reg b, reg c) { return a * b + c; }  // -ffp-contract=off: two roundings
};

#include "core/kernels_impl.hpp"

}  // namespace

kernel_set generic_set() {
    kernel_set s;
    s.which = isa::generic;
    s.name = "generic (128-bit, no FMA)";
    s.f32 = make_ops<vec128<float>, 6, 2>();
    s.f64 = make_ops<vec128<double>, 6, 2>();
    return s;
}

}  // namespace attn::kernels
