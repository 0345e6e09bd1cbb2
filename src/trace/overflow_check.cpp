// trace/overflow_check.cpp — see overflow_check.hpp. One pass per stage in the order
// they are computed, so the message names the first stage that overflowed. The
// scaled and masked scores are not kept by the run: they are derived here from the
// raw scores (raw / scale, + bias) exactly as the run derives them when it prints.
#include "trace/overflow_check.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/terminal_safe.hpp"

namespace attn::trace {

namespace {

// "[0, 2, 1]": the index of flat element k of an array of this shape (C order).
std::string flat_index_text(const std::vector<std::size_t>& shape, std::size_t k) {
    std::vector<std::size_t> idx(shape.size());
    for (std::size_t a = shape.size(); a-- > 0;) {
        idx[a] = shape[a] ? k % shape[a] : 0;
        k = shape[a] ? k / shape[a] : 0;
    }
    return fmt::format("[{}]", fmt::join(idx, ", "));
}

std::string value_word(double x) { return std::isnan(x) ? "not a number" : x > 0 ? "+infinity" : "-infinity"; }

struct place {
    const trace_run& r;
    const run_labels& l;
    std::size_t b, h;

    // The token of row i of stage s (one-query runs keep only that query's row).
    std::string row(stage s, std::size_t i) const {
        if (s == stage::k || s == stage::v) return fmt::format("key '{}' (row {})", l.key_tokens.at(i), i);
        const std::size_t q = r.one_query && s != stage::q ? *r.one_query : i;
        return fmt::format("query '{}' (row {})", l.query_tokens.at(q), q);
    }
    std::string col(stage s, std::size_t j) const {
        if (stage_info_of(s).is_score) return fmt::format("key '{}' (column {})", l.key_tokens.at(j), j);
        return fmt::format("column {}", j);
    }
    [[noreturn]] void fail(stage s, double x, std::size_t i, std::size_t j, const io::source_pos& spec) const {
        const std::string where = (r.batch > 1 ? fmt::format("batch {}, ", b) : "") + (r.heads > 1 ? fmt::format("head {}, ", h + 1) : "");
        throw io::input_error("overflow", spec,
                              fmt::format("{}{} is {} at {}, {}: the inputs are finite but the computation overflows a "
                                          "double (beyond ±1.8e308); scale the inputs down (or check `scale`)",
                                          where, stage_info_of(s).hook, value_word(x), row(s, i), col(s, j)));
    }
};

}  // namespace

namespace {

// Row i of the slice (b, h) of stage s as doubles, read a row at a time: one scratch
// buffer for the whole pass, not one allocation per cell (n = 4096 has 16 M cells).
template <class T>
void read_row(const trace_run& r, stage s, std::size_t b, std::size_t h, std::size_t i, std::vector<T>& scratch,
              std::vector<double>& out) {  // out: [cols(s)]
    scratch.resize(r.cols(s));
    const T* p = stage_row<T>(r, s, b, h, i, scratch.data());
    out.assign(p, p + r.cols(s));
}

struct row_reader {
    const trace_run& r;
    std::vector<double> scratch64;
    std::vector<float> scratch32;
    std::vector<double> row;  // [cols(s)]
    const std::vector<double>& operator()(stage s, std::size_t b, std::size_t h, std::size_t i) {
        if (r.dtype == trace_dtype::float32)
            read_row<float>(r, s, b, h, i, scratch32, row);
        else
            read_row<double>(r, s, b, h, i, scratch64, row);
        return row;
    }
};

}  // namespace

void require_finite_stages(const trace_run& r, const io::source_pos& spec) {
    const run_labels l = labels_on_screen(r.labels);
    const double scale = r.scale();
    row_reader read_row_of{r, {}, {}, {}};
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t h = 0; h < r.heads; ++h) {
            const place at{r, l, b, h};
            for (stage s : {stage::q, stage::k, stage::v, stage::scores_raw, stage::scores_scaled, stage::weights, stage::z}) {
                const stage read = s == stage::scores_scaled ? stage::scores_raw : s;
                for (std::size_t i = 0; i < r.rows(read); ++i) {
                    const std::vector<double>& row = read_row_of(read, b, h, i);
                    for (std::size_t j = 0; j < row.size(); ++j) {
                        const double x = s == stage::scores_scaled ? row[j] / scale : row[j];
                        if (!std::isfinite(x)) at.fail(s, x, i, j, spec);
                    }
                }
            }
            if (r.inputs.bias.empty()) continue;
            for (std::size_t i = 0; i < r.rows(stage::scores_masked); ++i) {
                const std::size_t q = r.one_query ? *r.one_query : i;
                const std::vector<double>& row = read_row_of(stage::scores_masked, b, h, i);
                for (std::size_t j = 0; j < row.size(); ++j)
                    if (r.attends(b, q, j) && !std::isfinite(row[j])) at.fail(stage::scores_masked, row[j], i, j, spec);
            }
        }
    require_finite_extras(r, spec);
}

void require_finite_extras(const trace_run& r, const io::source_pos& spec) {
    for (const extra_stage& e : extra_stages(r))
        for (std::size_t k = 0; k < e.data.size(); ++k) {
            const double x = e.data[k];
            // A running max that has seen only blocked keys is −inf by design (lesson 16).
            if (std::isfinite(x) || (e.id == stage::tiled_running_max && x == -HUGE_VAL)) continue;
            throw io::input_error("overflow", spec,
                                  fmt::format("{} is {} at index {}: the inputs are finite but the computation overflows "
                                              "a double (beyond ±1.8e308); scale the inputs down (or check `scale`)",
                                              stage_info_of(e.id).hook, value_word(x), flat_index_text(e.shape, k)));
        }
}

std::optional<std::string> non_finite_step(const attention_steps& s) {
    const std::pair<stage, const matrix*> all[] = {{stage::q, &s.q},           {stage::k, &s.k},
                                                   {stage::v, &s.v},           {stage::scores_raw, &s.scores_raw},
                                                   {stage::scores_scaled, &s.scores_scaled},
                                                   {stage::scores_masked, &s.scores_masked},
                                                   {stage::weights, &s.weights}, {stage::z, &s.output}};
    for (const auto& [st, m] : all)
        for (std::size_t i = 0; i < m->shape(0); ++i)
            for (std::size_t j = 0; j < m->shape(1); ++j) {
                const double x = (*m)(i, j);
                if (std::isfinite(x)) continue;
                if (st == stage::scores_masked && x == -HUGE_VAL && !s.attend(i, j)) continue;  // blocked: −inf by design
                return fmt::format("{} is {} at row {}, column {}: the numbers are finite but the computation overflows "
                                   "a double (beyond ±1.8e308); use smaller numbers (or check `scale`)",
                                   stage_info_of(st).hook, value_word(x), i, j);
            }
    return std::nullopt;
}

}  // namespace attn::trace
