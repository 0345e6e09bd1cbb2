// model/added_tokens.cpp — see added_tokens.hpp.
#include "model/added_tokens.hpp"

#include <array>

#include "model/unicode_classes.hpp"
#include "model/utf8.hpp"

namespace attn::model {

namespace {

// The longest added token at text[i], or −1.
int longest_at(std::string_view text, std::size_t i, const std::vector<added_token>& added,
               const std::vector<int>& candidates) {
    int best = -1;
    for (const int k : candidates) {
        const std::string& c = added[static_cast<std::size_t>(k)].content;
        if (text.compare(i, c.size(), c) == 0 && (best < 0 || c.size() > added[static_cast<std::size_t>(best)].content.size()))
            best = k;
    }
    return best;
}

bool is_space_at(std::string_view text, std::size_t i, std::size_t& len) {
    char32_t cp = 0;
    len = decode_one(text, i, cp);
    return len > 0 && classify(cp) == char_class::space;
}

// Drops whitespace at the end of text section s (lstrip of the token after it).
void trim_end(std::string_view text, text_section& s) {
    while (s.end > s.begin) {
        std::size_t k = s.end - 1;
        while (k > s.begin && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80) --k;
        std::size_t len = 0;
        if (!is_space_at(text, k, len) || k + len != s.end) return;
        s.end = k;
    }
}

// Drops whitespace at the start of text section s (rstrip of the token before it).
void trim_start(std::string_view text, text_section& s) {
    std::size_t len = 0;
    while (s.begin < s.end && is_space_at(text, s.begin, len)) s.begin += len;
}

}  // namespace

std::vector<text_section> split_added(std::string_view text, const std::vector<added_token>& added) {
    std::array<std::vector<int>, 256> by_first;  // [256] indices of the added tokens starting with each byte
    for (std::size_t k = 0; k < added.size(); ++k)
        if (!added[k].content.empty()) by_first[static_cast<unsigned char>(added[k].content[0])].push_back(static_cast<int>(k));

    std::vector<text_section> out;
    std::size_t start = 0, i = 0;
    while (i < text.size()) {
        const auto& cands = by_first[static_cast<unsigned char>(text[i])];
        const int k = cands.empty() ? -1 : longest_at(text, i, added, cands);
        if (k < 0) {
            ++i;
            continue;
        }
        if (i > start) out.push_back({start, i, -1});
        i += added[static_cast<std::size_t>(k)].content.size();
        out.push_back({i - added[static_cast<std::size_t>(k)].content.size(), i, k});
        start = i;
    }
    if (start < text.size()) out.push_back({start, text.size(), -1});

    for (std::size_t s = 0; s < out.size(); ++s) {
        if (out[s].added < 0) continue;
        const added_token& t = added[static_cast<std::size_t>(out[s].added)];
        if (t.lstrip && s > 0 && out[s - 1].added < 0) trim_end(text, out[s - 1]);
        if (t.rstrip && s + 1 < out.size() && out[s + 1].added < 0) trim_start(text, out[s + 1]);
    }
    std::vector<text_section> kept;  // sections emptied by stripping dropped
    for (const auto& s : out)
        if (s.end > s.begin) kept.push_back(s);
    return kept;
}

}  // namespace attn::model
