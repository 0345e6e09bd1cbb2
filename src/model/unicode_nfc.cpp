// model/unicode_nfc.cpp — see unicode_nfc.hpp: ASCII is always stable; other code
// points by binary search over the generated runs.
#include "model/unicode_nfc.hpp"

#include <algorithm>
#include <cstdio>

#include "model/utf8.hpp"

namespace attn::model {

namespace {

bool unstable(char32_t cp) {
    if (cp < 0x300) return false;  // nothing below U+0300 combines or changes
    const auto* begin = detail::nfc_unstable_runs;
    const auto* end = begin + detail::nfc_unstable_run_count;
    const auto* it = std::lower_bound(begin, end, cp, [](const detail::nfc_run& r, char32_t c) { return r.last < c; });
    return it != end && it->first <= cp;
}

}  // namespace

std::optional<nfc_problem> first_nfc_unstable(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_one(text, i, cp);
        if (len == 0) return std::nullopt;  // the caller validated the text
        if (unstable(cp)) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
            return nfc_problem{i, buf};
        }
        i += len;
    }
    return std::nullopt;
}

}  // namespace attn::model
