// trace/stage_words.cpp — see stage_words.hpp.
#include "trace/stage_words.hpp"

#include "trace/number_format.hpp"

namespace attn::trace {

std::optional<std::string> stage_title(const std::string& word, const title_names& n) {
    namespace sw = stage_word;
    if (word == sw::raw()) return "raw scores " + n.q + " " + n.k + "ᵀ";
    if (word == sw::scaled()) return n.scale ? "scores ÷ " + compact(*n.scale) : "scaled scores ÷ √d_k";
    if (word == sw::masked()) return "masked scores (blocked = -inf)";
    if (word == sw::weights()) return n.softmax ? "attention weights (softmax over the keys)" : "weights (no softmax)";
    if (word == sw::output()) return "output (weights · " + n.v + ")";
    if (word == sw::scale()) return "the divisor of the raw scores";
    if (word == sw::argmax()) return "the key each query attends to most (index or token)";
    if (word == sw::q()) return "your own " + n.q;
    if (word == sw::k()) return "your own " + n.k;
    if (word == sw::v()) return "your own " + n.v;
    if (word == sw::grad_v()) return "dV = Aᵀ dO";  // lessons 15–17's stages
    if (word == sw::grad_weights()) return "dA = dO Vᵀ";
    if (word == sw::grad_scores()) return "dS, the gradient of the scaled scores";
    if (word == sw::grad_q()) return "dQ";
    if (word == sw::grad_k()) return "dK";
    if (word == sw::running_max()) return "running max after each key block";
    if (word == sw::running_sum()) return "running sum after each key block";
    if (word == sw::rot_q()) return "q turned by its rotary angles";
    if (word == sw::rot_k()) return "k turned by its rotary angles";
    return std::nullopt;
}

}  // namespace attn::trace
