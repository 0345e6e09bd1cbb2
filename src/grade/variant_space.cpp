// grade/variant_space.cpp — see variant_space.hpp.
#include "grade/variant_space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/stages.hpp"

namespace attn::grade {

namespace {

// ln of how many values one drawn entry takes: halves k/2 or integers in [lo, hi].
double variant_entry_log(const variant_spec& v) {
    const double count = v.values == "integers" ? std::floor(v.hi) - std::ceil(v.lo) + 1.0
                                                : std::floor(2.0 * v.hi) - std::ceil(2.0 * v.lo) + 1.0;
    return std::log(std::max(1.0, count));
}

// ln of how many [rows, cols] matrices the draw makes: each row any entries but all zeros.
double variant_matrix_log(const matrix& m, double entry_log) {
    const double cols = static_cast<double>(m.shape(1)), rows = static_cast<double>(m.shape(0));
    if (entry_log <= 0.0 || cols == 0.0) return 0.0;
    return rows * (cols * entry_log + std::log1p(-std::exp(-cols * entry_log)));
}

// ln N of a model exercise's tokens: `drawn` from the range, distinct when the block repeats.
double variant_tokens_log(const lessons::model_source& m, const variant_spec& v) {
    const double k = std::floor(v.hi) - std::ceil(v.lo) + 1.0;
    const std::size_t drawn = m.drawn ? m.drawn : m.tokens.size() - std::min(m.keep, m.tokens.size());
    double out = 0.0;
    for (std::size_t i = 0; i < drawn; ++i) out += std::log(std::max(1.0, m.then == "repeat" ? k - static_cast<double>(i) : k));
    return out;
}

// "21", "1,679,616", or "about 10^23" past a million million.
std::string variant_count_words(double log_inputs) {
    if (log_inputs >= std::log(1e12)) return "about 10^" + std::to_string(static_cast<long>(std::floor(log_inputs / std::log(10.0))));
    std::string digits = std::to_string(static_cast<long long>(std::llround(std::exp(log_inputs))));
    for (std::ptrdiff_t at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(static_cast<std::size_t>(at), ",");
    return digits;
}

// "4.8%", "100%", "0.21%": two or three significant digits.
std::string variant_percent_words(double share) {
    char buf[32];
    const double p = 100.0 * share;
    std::snprintf(buf, sizeof buf, p >= 10.0 ? "%.0f%%" : p >= 1.0 ? "%.1f%%" : "%.2f%%", p);
    return buf;
}

}  // namespace

double variant_space_log(const exercise& x) {
    if (!x.variant.enabled) return 0.0;
    double out = x.setup.model ? variant_tokens_log(*x.setup.model, x.variant) : 0.0;
    const double entry = variant_entry_log(x.variant);
    bool tied_drawn = false;  // with tie, q, k and v are one draw (encoder_q its own)
    for (const auto& role : x.variant.vary) {
        const matrix* m = role == stage_word::q() ? &x.setup.q : role == stage_word::k() ? &x.setup.k
                        : role == stage_word::v() ? &x.setup.v : role == "encoder_q" && x.setup.encoder_q ? &*x.setup.encoder_q
                                                                                                         : nullptr;
        if (!m || m->size() == 0) continue;  // "tokens", or a model head's roles (drawn on its shapes)
        if (x.variant.tie && role != "encoder_q") {
            if (tied_drawn) continue;
            tied_drawn = true;
        }
        out += variant_matrix_log(*m, entry);
    }
    return out;
}

double variant_shared_share(double log_inputs, std::size_t students) {
    if (students < 2) return 0.0;
    if (log_inputs <= 0.0) return 1.0;  // one input: everyone shares it
    // 1 − (1 − 1/N)^(C − 1), in logs so that N = 10^23 loses nothing.
    return -std::expm1(static_cast<double>(students - 1) * std::log1p(-std::exp(-log_inputs)));
}

void check_variant_spaces(const std::vector<const exercise*>& xs, std::size_t students, const std::string& insist) {
    std::string problems;
    for (const exercise* x : xs) {
        if (!x || !x->variant.enabled) continue;
        const double log_n = variant_space_log(*x), share = variant_shared_share(log_n, students);
        if (share <= variant_share_limit) continue;
        problems += "\n  " + x->id + ": its numbers are drawn from " + variant_count_words(log_n) + " inputs; in a class of " +
                    variant_count_words(std::log(static_cast<double>(students))) + " about " + variant_percent_words(share) +
                    " of the students would share theirs with a classmate";
    }
    if (problems.empty()) return;
    throw attn::error("variants shared by more than 1% of the class (a copy from a classmate with the same numbers "
                      "earns full marks and cannot be flagged):" + problems +
                      "\nWiden the exercise's [exercise.variant] (lessons/README.md), leave it out of the assignment, or pass " +
                      insist + " to accept the sharing");
}

}  // namespace attn::grade
