// trace/overflow_check.cpp — see overflow_check.hpp. One pass per stage in the order
// they are computed, so the message names the first stage that overflowed.
#include "trace/overflow_check.hpp"

#include <cmath>

#include <fmt/format.h>

#include "io/terminal_safe.hpp"

namespace attn::trace {

namespace {

struct stage_check {
    stage id;
    bool score_shaped;  // [n_q, n_k]: columns are keys
};

std::string value_word(double x) { return std::isnan(x) ? "not a number" : x > 0 ? "+infinity" : "-infinity"; }

}  // namespace

void require_finite_stages(const trace_run& r, const io::source_pos& spec) {
    static const stage_check checks[] = {{stage::q, false},           {stage::k, false},
                                         {stage::v, false},           {stage::scores_raw, true},
                                         {stage::scores_scaled, true}, {stage::scores_masked, true},
                                         {stage::weights, true},      {stage::z, false}};
    const run_labels l = terminal_safe_labels(r.labels);
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t h = 0; h < r.heads; ++h) {
            const attention_steps& s = r.at(b, h);
            for (const stage_check& c : checks) {
                const matrix& m = stage_matrix(s, c.id);
                const bool keys_side = c.id == stage::k || c.id == stage::v;
                for (std::size_t i = 0; i < m.shape(0); ++i)
                    for (std::size_t j = 0; j < m.shape(1); ++j) {
                        const double x = m(i, j);
                        if (std::isfinite(x) || (c.id == stage::scores_masked && !s.attend(i, j))) continue;
                        const std::string where_b = r.batch > 1 ? fmt::format("batch {}, ", b) : "";
                        const std::string where_h = r.heads > 1 ? fmt::format("head {}, ", h) : "";
                        const std::string row = keys_side ? fmt::format("key '{}' (row {})", l.key_tokens.at(i), i)
                                                          : fmt::format("query '{}' (row {})", l.query_tokens.at(i), i);
                        const std::string col = c.score_shaped ? fmt::format("key '{}' (column {})", l.key_tokens.at(j), j)
                                                               : fmt::format("column {}", j);
                        throw io::input_error(
                            "overflow", spec,
                            fmt::format("{}{}{} is {} at {}, {}: the inputs are finite but the computation overflows "
                                        "a double (beyond ±1.8e308); scale the inputs down (or check `scale`)",
                                        where_b, where_h, info(c.id).hook, value_word(x), row, col));
                    }
            }
        }
}

}  // namespace attn::trace
