// core/fast_softmax.cpp — the fused row softmax and the vectorised exp, run by the
// kernel set the CPU supports (core/kernels.hpp: AVX-512, AVX2 + FMA or generic; the
// code is core/kernels_softmax_impl.hpp, one template for every set). Before issue 23
// this was xsimd at the build's baseline (SSE2): the softmax now runs as wide as the
// products do, in the binary everyone installs.
#include "core/fast_softmax.hpp"

#include "core/kernels.hpp"

namespace attn {

template <class T>
bool fast_softmax_row(const T* raw, T* weights, std::size_t n, const softmax_row_inputs<T>& in) {
    return kernels::active().ops<T>().softmax_row(raw, weights, n, in);
}

template <class T>
void fast_exp_nonpositive(T* x, std::size_t n) {
    kernels::active().ops<T>().exp_in_place(x, n);
}

template bool fast_softmax_row<float>(const float*, float*, std::size_t, const softmax_row_inputs<float>&);
template bool fast_softmax_row<double>(const double*, double*, std::size_t, const softmax_row_inputs<double>&);
template void fast_exp_nonpositive<float>(float*, std::size_t);
template void fast_exp_nonpositive<double>(double*, std::size_t);

}  // namespace attn
