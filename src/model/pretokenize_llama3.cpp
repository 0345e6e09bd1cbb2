// model/pretokenize_llama3.cpp — Llama 3's pre-tokenising pattern by hand (and Qwen2's,
// which differs only in taking one digit a piece):
//
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//    ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// The alternatives in order, at code point i, as a backtracking regex engine tries them:
//   1. a contraction, ASCII letters in either case ('S, 'Ll);
//   2. a letter run, led by at most one character that is neither CR, LF, a letter nor
//      a number (a space, a tab, punctuation: " world", "(x", "\tif");
//   3. one to three numbers (Qwen2: one);
//   4. an optional U+0020, a run of "other" characters, then any CR/LF run (".\n\n");
//   5. \s*[\r\n]+ inside a whitespace run: up to and including its last CR or LF;
//   6. \s+(?!\S): a run reaching the end, or all of it but its last character;
//   7. \s+: a single whitespace character before non-space.
#include "model/pretokenize.hpp"

namespace attn::model {

namespace {

bool is_crlf(char32_t c) { return c == U'\r' || c == U'\n'; }

char32_t ascii_lower(char32_t c) { return (c >= U'A' && c <= U'Z') ? c + 32 : c; }

// The contraction at code point i, in code points (0: none); case-insensitive, ASCII.
std::size_t llama3_contraction_length(const std::vector<code_point>& cps, std::size_t i) {
    const std::size_t n = cps.size();
    if (cps[i].cp != U'\'' || i + 1 >= n) return 0;
    const char32_t a = ascii_lower(cps[i + 1].cp);
    if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
    if (i + 2 >= n) return 0;
    const char32_t b = ascii_lower(cps[i + 2].cp);
    if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
    return 0;
}

std::size_t llama3_run_end(const std::vector<char_class>& cls, std::size_t j, char_class c) {
    while (j < cls.size() && cls[j] == c) ++j;
    return j;
}

// Alternatives 5–7 at a whitespace character i.
std::size_t whitespace_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i) {
    const std::size_t j = llama3_run_end(cls, i, char_class::space);
    for (std::size_t k = j; k > i; --k)
        if (is_crlf(cps[k - 1].cp)) return k;  // 5: through the run's last CR or LF
    if (j == cls.size()) return j;              // 6: the run reaches the end
    if (j - i >= 2) return j - 1;               // 6: all but the last
    return j;                                   // 7
}

std::size_t piece_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i,
                      std::size_t max_digits) {
    const std::size_t n = cps.size();
    if (const std::size_t c = llama3_contraction_length(cps, i)) return i + c;                   // 1
    if (cls[i] == char_class::letter) return llama3_run_end(cls, i, char_class::letter);         // 2
    if (cls[i] != char_class::number && !is_crlf(cps[i].cp) && i + 1 < n && cls[i + 1] == char_class::letter)
        return llama3_run_end(cls, i + 1, char_class::letter);                                   // 2, led
    if (cls[i] == char_class::number) {                                                   // 3
        std::size_t e = i;
        while (e < n && e - i < max_digits && cls[e] == char_class::number) ++e;
        return e;
    }
    std::size_t j = i;
    if (cps[j].cp == U' ' && j + 1 < n && cls[j + 1] == char_class::other) ++j;          // 4's space
    if (cls[j] == char_class::other) {                                                    // 4
        j = llama3_run_end(cls, j, char_class::other);
        while (j < n && is_crlf(cps[j].cp)) ++j;
        return j;
    }
    return whitespace_end(cps, cls, i);                                                   // 5–7
}

}  // namespace

std::size_t llama3_piece_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i) {
    return piece_end(cps, cls, i, 3);
}

std::size_t qwen2_piece_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i) {
    return piece_end(cps, cls, i, 1);
}

}  // namespace attn::model
