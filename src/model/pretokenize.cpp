// model/pretokenize.cpp — see pretokenize.hpp: the registry, the one loop that tiles a
// text with pieces, and GPT-2's splitter. GPT-2's alternatives are tried in order at
// each position, as JavaScript's (and Python's) regex engines do:
//   1. a contraction: ' then s, t, m, d, re, ve or ll (ASCII, case-sensitive);
//   2–4. an optional U+0020 then a run of letters, of numbers, or of "other"
//        characters (the space belongs to the run only when a run follows it);
//   5. \s+(?!\S): a whitespace run up to the end of the text, or all of the run but its
//      last character when something non-space follows (that character then leads
//      the next piece, as the optional space of 2–4 or on its own);
//   6. \s+: one whitespace character followed by non-space (what 5 leaves).
#include "model/pretokenize.hpp"

namespace attn::model {

namespace {

// The contraction at code point i, as a length in code points (0: none).
std::size_t contraction_length(const std::vector<code_point>& cps, std::size_t i) {
    const std::size_t n = cps.size();
    if (cps[i].cp != U'\'' || i + 1 >= n) return 0;
    const char32_t a = cps[i + 1].cp;
    if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
    if (i + 2 >= n) return 0;
    const char32_t b = cps[i + 2].cp;
    if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
    return 0;
}

// The end of the run of class `c` starting at code point j.
std::size_t run_end(const std::vector<char_class>& cls, std::size_t j, char_class c) {
    while (j < cls.size() && cls[j] == c) ++j;
    return j;
}

constexpr const char* gpt2_pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr const char* llama3_pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* qwen2_pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Does `name` appear among the space-separated words of `list`?
bool listed(std::string_view list, std::string_view name) {
    std::size_t k = 0;
    while (k < list.size()) {
        std::size_t e = list.find(' ', k);
        if (e == std::string_view::npos) e = list.size();
        if (list.substr(k, e - k) == name) return true;
        k = e + 1;
    }
    return false;
}

}  // namespace

std::size_t gpt2_piece_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i) {
    const std::size_t n = cps.size();
    if (const std::size_t c = contraction_length(cps, i)) return i + c;
    if (cps[i].cp == U' ' && i + 1 < n && cls[i + 1] != char_class::space)
        return run_end(cls, i + 1, cls[i + 1]);  // 2–4 with the leading space
    if (cls[i] != char_class::space) return run_end(cls, i, cls[i]);  // 2–4 without it
    const std::size_t j = run_end(cls, i, char_class::space);
    if (j == n) return n;          // 5: the run reaches the end of the text
    if (j - i >= 2) return j - 1;  // 5: leave the last space to the next piece
    return j;                      // 6: one space before non-space
}

const std::vector<pretokenizer_kind>& pretokenizer_kinds() {
    static const std::vector<pretokenizer_kind> kinds = {
        {"gpt2", "GPT-2's pattern", gpt2_pattern, "default gpt-2 gpt2", gpt2_piece_end},
        {"llama3", "Llama 3's pattern (numbers in pieces of up to 3 digits)", llama3_pattern,
         "llama3 llama-bpe llama-v3 smaug-bpe", llama3_piece_end},
        {"qwen2", "Qwen2's pattern (one digit a piece)", qwen2_pattern, "qwen2", qwen2_piece_end},
    };
    return kinds;
}

const pretokenizer_kind& gpt2_pretokenizer() { return pretokenizer_kinds().front(); }

const pretokenizer_kind* pretokenizer_for_gguf(std::string_view pre) {
    for (const auto& k : pretokenizer_kinds())
        if (listed(k.gguf_names, pre)) return &k;
    return nullptr;
}

const pretokenizer_kind* pretokenizer_for_pattern(std::string_view regex) {
    for (const auto& k : pretokenizer_kinds())
        if (regex == k.pattern) return &k;
    return nullptr;
}

std::string pretokenizer_names() {
    std::string out;
    for (const auto& k : pretokenizer_kinds()) {
        if (!out.empty()) out += "; ";
        out += std::string(k.words) + " (" + k.gguf_names + ")";
    }
    return out;
}

std::vector<pretoken> pretokenize(std::string_view utf8, const pretokenizer_kind& kind) {
    const std::vector<code_point> cps = decode_utf8(utf8);  // [n] code points with byte offsets
    std::vector<char_class> cls(cps.size());               // [n] class of each code point
    for (std::size_t i = 0; i < cps.size(); ++i) cls[i] = classify(cps[i].cp);

    std::vector<pretoken> pieces;
    std::size_t i = 0;
    while (i < cps.size()) {
        const std::size_t e = kind.piece_end(cps, cls, i);
        pieces.push_back({cps[i].offset, e < cps.size() ? cps[e].offset : utf8.size()});
        i = e;
    }
    return pieces;
}

std::vector<pretoken> pretokenize(std::string_view utf8) { return pretokenize(utf8, gpt2_pretokenizer()); }

}  // namespace attn::model
