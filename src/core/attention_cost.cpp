// core/attention_cost.cpp — see attention_cost.hpp.
#include "core/attention_cost.hpp"

namespace attn {

attention_cost attention_cost_of(std::size_t n_q, std::size_t n_k, std::size_t d_k, std::size_t d_v) {
    const std::uint64_t pairs = static_cast<std::uint64_t>(n_q) * n_k;  // one score per query–key pair
    attention_cost c;
    c.score_macs = pairs * d_k;
    c.softmax_exps = pairs;
    c.output_macs = pairs * d_v;
    c.score_entries = pairs;
    c.output_entries = static_cast<std::uint64_t>(n_q) * d_v;
    return c;
}

}  // namespace attn
