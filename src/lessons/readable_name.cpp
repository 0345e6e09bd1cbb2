// lessons/readable_name.cpp — see readable_name.hpp. One table of block pieces
// (the names loader_blocks.cpp gives them) and a fallback for plain names.
#include "lessons/readable_name.hpp"

#include <regex>
#include <utility>
#include <vector>

namespace attn::lessons {

namespace {

std::string ordinal(const std::string& n) {
    static const char* const words[] = {"zeroth", "first", "second", "third", "fourth", "fifth"};
    const int i = std::stoi(n);
    return i >= 0 && i <= 5 ? words[i] : n + "th";
}

// A piece of a block, after "block." — pattern and its words ($1 = a number).
const std::vector<std::pair<std::regex, std::string>>& pieces() {
    static const std::vector<std::pair<std::regex, std::string>> table = {
        {std::regex("q\\.h(\\d+)"), "Q, head $1"},
        {std::regex("k\\.h(\\d+)"), "K, head $1"},
        {std::regex("v\\.h(\\d+)"), "V, head $1"},
        {std::regex("result\\.h(\\d+)"), "head $1 through its rows of W_O"},
        {std::regex("h(\\d+)"), "output of head $1"},
        {std::regex("q"), "Q, all heads"},
        {std::regex("k"), "K, all heads"},
        {std::regex("v"), "V, all heads"},
        {std::regex("concat"), "heads concatenated"},
        {std::regex("output"), "output"},
        {std::regex("outputs"), "outputs of every step"},
        {std::regex("attn\\.output"), "self-attention output"},
        {std::regex("cross\\.output"), "cross-attention output"},
        {std::regex("ffn\\.hidden_pre"), "FFN hidden layer before the activation"},
        {std::regex("ffn\\.hidden"), "FFN hidden layer"},
        {std::regex("ffn\\.output"), "FFN output"},
        {std::regex("cross_k"), "cross-attention K (from the encoder)"},
        {std::regex("cross_v"), "cross-attention V (from the encoder)"},
        {std::regex("self_k_cache"), "self-attention K cache"},
        {std::regex("self_v_cache"), "self-attention V cache"},
        {std::regex("combined_weights"), "the two layers' weights combined"},
        {std::regex("collapsed_output"), "output of the collapsed layer"},
        {std::regex("stats"), "mean, variance and σ"},
    };
    return table;
}

}  // namespace

std::string readable_name(const std::string& id) {
    const auto dot = id.find('.');
    if (dot != std::string::npos) {
        const std::string piece = id.substr(dot + 1);
        std::smatch m;
        static const std::regex add_norm("add_norm(\\d+)\\.(residual|stream)");
        if (std::regex_match(piece, m, add_norm))
            return (m[2] == "residual" ? "residual after the " : "stream after the ") + ordinal(m[1]) + " Add & Norm";
        static const std::regex step("step(\\d+)\\.(.*)");
        if (std::regex_match(piece, m, step)) return "step " + m[1].str() + ": " + readable_name("x." + m[2].str());
        for (const auto& [pattern, words] : pieces())
            if (std::regex_match(piece, m, pattern)) return m.format(words);
    }
    if (dot == std::string::npos && id.size() <= 6) return id;  // a symbol: Q, K_enc, W_O
    std::string out = id;  // a longer plain name: snake_case read as words
    for (auto& c : out)
        if (c == '_' || c == '.') c = ' ';
    return out;
}

}  // namespace attn::lessons
