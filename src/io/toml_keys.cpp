// io/toml_keys.cpp — the one unknown-key check of toml_reader (io/toml_read.hpp) and the
// closest known word for "did you mean" hints, so a typo such as `stgae = "weights"` is
// reported at the key's own file:line:col instead of being silently ignored.
#include "io/toml_read.hpp"

#include <algorithm>

namespace attn::io {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    // Optimal string alignment distance; the tables are short, a full matrix is fine.
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));  // [n+1][m+1]
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

std::string closest_word(const std::string& found, const std::vector<std::string>& known) {
    // Known words are short; a long found word is no typo of one, and the distance
    // table below is |found| × |known| (a 1 MB key must stay linear).
    if (found.size() > 64) return "";
    std::string best;
    std::size_t best_d = 0;
    for (const auto& k : known) {
        const std::size_t dist = edit_distance(found, k);
        if (best.empty() || dist < best_d) {
            best = k;
            best_d = dist;
        }
    }
    // A typo changes a few letters; beyond that a suggestion would only confuse.
    const std::size_t limit = std::max<std::size_t>(2, std::min(found.size(), best.size()) / 3);
    return best_d <= limit ? best : "";
}

std::string did_you_mean(const std::string& found, const std::vector<std::string>& known) {
    const std::string c = closest_word(found, known);
    return c.empty() ? "" : "did you mean '" + c + "'? ";
}

std::string hint_suffix(const std::string& found, const std::vector<std::string>& known) {
    const std::string c = closest_word(found, known);
    return c.empty() ? "" : " (did you mean '" + c + "'?)";
}

void toml_reader::known_keys(const toml::table& t, const std::string& where,
                             const std::vector<std::string>& known) const {
    for (const auto& [key, value] : t) {
        const std::string k(key.str());
        if (std::find(known.begin(), known.end(), k) != known.end()) continue;
        std::string list;
        for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
        source_pos p = toml_pos(file, key);
        if (p.line == 0) p = pos(&value);
        fail_at(p, "unknown key '" + k + "' in " + where + " (" + did_you_mean(k, known) + "known keys: " + list + ")");
    }
}

}  // namespace attn::io
