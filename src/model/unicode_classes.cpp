// model/unicode_classes.cpp — looks a code point up in the generated runs
// (model/unicode_classes_table.cpp): ASCII from a small table built once, the rest by
// binary search over ~800 sorted runs.
#include "model/unicode_classes.hpp"

#include <algorithm>
#include <array>

namespace attn::model {

namespace {

char_class search_runs(char32_t cp) {
    const auto* begin = detail::unicode_class_runs;
    const auto* end = begin + detail::unicode_class_run_count;
    // The first run whose last code point is >= cp; cp is in it when first <= cp.
    const auto* it = std::lower_bound(begin, end, cp, [](const detail::class_run& r, char32_t c) { return r.last < c; });
    return (it != end && it->first <= cp) ? it->cls : char_class::other;
}

const std::array<char_class, 128>& ascii_classes() {
    static const std::array<char_class, 128> table = [] {
        std::array<char_class, 128> t{};  // [128] one class per ASCII code
        for (char32_t c = 0; c < 128; ++c) t[c] = search_runs(c);
        return t;
    }();
    return table;
}

}  // namespace

char_class classify(char32_t cp) {
    if (cp < 128) return ascii_classes()[cp];
    return search_runs(cp);
}

const char* unicode_classes_version() { return detail::unicode_table_version; }

}  // namespace attn::model
