// lessons/key_check.cpp — see key_check.hpp.
#include "lessons/key_check.hpp"

#include <algorithm>

namespace attn::lessons {

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

void check_known_keys(const toml_reader& rd, const toml::table& t, const std::string& where,
                      const std::vector<std::string>& known) {
    for (const auto& [key, value] : t) {
        const std::string k(key.str());
        if (std::find(known.begin(), known.end(), k) != known.end()) continue;
        std::string list;
        for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
        source_pos p{rd.file, static_cast<int>(key.source().begin.line), static_cast<int>(key.source().begin.column)};
        if (p.line == 0) p = rd.pos(&value);
        rd.problems->push_back({p, "unknown key '" + k + "' in " + where + " (" + did_you_mean(k, known) +
                                       "known keys: " + list + ")"});
    }
}

}  // namespace attn::lessons
