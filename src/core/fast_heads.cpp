// core/fast_heads.cpp — several heads per call (core/fast_heads.hpp): whole heads side by
// side on the shared pool when they are small, each pulled by the next free thread.
#include "core/fast_heads.hpp"

#include <atomic>

#include "core/fast_parallel.hpp"
#include "core/shape_check.hpp"

namespace attn {

namespace {

// Heads up to this many score cells run one per thread (issue 23: 8 heads of n = 512).
constexpr std::size_t side_by_side_cells = 512 * 512;

template <class T>
bool side_by_side(const std::vector<fast_head<T>>& heads, const fast_options<T>& o) {
    if (o.threads < 2 || heads.size() < o.threads || o.keep == keep_mode::one_query) return false;
    for (const auto& h : heads)
        if (h.q->shape(0) * h.k->shape(0) > side_by_side_cells) return false;
    return true;
}

// fast_attention's own shape checks and messages (core/shape_check.hpp).
template <class T>
void check_head(const fast_head<T>& h, const fast_options<T>& o) {
    attention_shapes s{h.q->shape(0), h.q->shape(1), h.k->shape(0), h.k->shape(1), h.v->shape(0), h.v->shape(1),
                       std::nullopt, std::nullopt};
    if (o.mask) s.mask = std::make_pair(o.mask->shape(0), o.mask->shape(1));
    if (o.bias) s.bias = std::make_pair(o.bias->shape(0), o.bias->shape(1));
    check_attention_shapes(s);
}

}  // namespace

template <class T>
void fast_attention_heads(const std::vector<fast_head<T>>& heads, const fast_options<T>& o) {
    if (!side_by_side(heads, o)) {
        for (const auto& h : heads) fast_attention(*h.q, *h.k, *h.v, *h.steps, o);
        return;
    }
    fast_options<T> one = o;  // each head on the thread that pulled it
    one.threads = 1;
    for (const auto& h : heads) check_head(h, o);  // on the caller: no exception may leave a pool thread
    std::atomic<std::size_t> next{0};
    auto pull = [&](std::size_t, std::size_t) {
        for (std::size_t i = next++; i < heads.size(); i = next++)
            fast_attention(*heads[i].q, *heads[i].k, *heads[i].v, *heads[i].steps, one);
    };
    if (!run_on_shared_pool(o.threads, o.threads, pull)) pull(0, 1);
}

template void fast_attention_heads<float>(const std::vector<fast_head<float>>&, const fast_options<float>&);
template void fast_attention_heads<double>(const std::vector<fast_head<double>>&, const fast_options<double>&);

}  // namespace attn
