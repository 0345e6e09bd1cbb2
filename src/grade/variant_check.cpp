// grade/variant_check.cpp — see variant_check.hpp.
#include "grade/variant_check.hpp"

#include <algorithm>
#include <tuple>

#include <xtensor/xview.hpp>

#include "grade/mistakes.hpp"

namespace attn::grade {

namespace sw = stage_word;

matrix average_keys(const pipeline_inputs& in, bool of_v, bool only_visible) {
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
    matrix g({n_q, of_v ? in.v.shape(1) : n_k}, 0.0);  // [n_q, n_k or d_v]
    for (std::size_t i = 0; i < n_q; ++i) {
        for (std::size_t j = 0; j < n_k; ++j)
            for (std::size_t c = 0; c < g.shape(1) && (!only_visible || !in.mask || (*in.mask)(i, j)); ++c)
                g(i, c) += of_v ? in.v(j, c) : double(j == c);
        const std::size_t seen = only_visible ? visible_keys(in, i) : n_k;
        if (seen > 0) xt::row(g, i) /= static_cast<double>(seen);
    }
    return g;
}

namespace {

// The part's slice, but only the rows the mistake changes (empty: none of them).
std::vector<std::size_t> changed_rows(const part_spec& p, const std::vector<bool>& changed, std::size_t n_q) {
    std::vector<std::size_t> keep;
    for (std::size_t r : all_or(p.rows, n_q))
        if (changed.empty() || (r < changed.size() && changed[r])) keep.push_back(r);
    return keep;
}

// Every answer written without computing, at the stage's full shape (full): zeros and the averages held in `held`.
std::vector<std::pair<const char*, const matrix*>> guesses(const std::string& stage, const matrix& full, const matrix& lesson,
                                                          const pipeline_inputs& in, std::vector<matrix>& held) {
    held.assign(1, matrix(full.shape(), 0.0));
    for (bool visible : {false, true})
        if (stage == sw::weights() || stage == sw::output()) held.push_back(average_keys(in, stage == sw::output(), visible));
    std::vector<std::pair<const char*, const matrix*>> out{{"zeros", &held[0]}, {"the lesson's numbers", &lesson}};
    for (std::size_t i = 1; i < held.size(); ++i) out.push_back({"uniform weights or the mean of V", &held[i]});
    for (const auto* m : {&in.q, &in.k, &in.v, in.encoder_q ? &*in.encoder_q : nullptr})
        if (m && m->shape() == full.shape()) out.push_back({"an input copied", m});
    return out;
}

// The whole stage a part asks of s, not copied; scale and argmax (the key each query attends to most,
// [n_q, 1], the first of a tie: "always the first key" is then the zeros guess) made in `held`.
const matrix* stage_or_most(const stage_values& s, const std::string& stage, matrix& held) {
    if (stage == sw::scale()) return &(held = matrix({1, 1}, s.scale));
    if (stage != sw::argmax()) return stage_ref(s, stage);
    held = matrix({s.weights.shape(0), 1}, 0.0);  // [n_q, 1]
    for (std::size_t i = 0; i < s.weights.shape(0); ++i)
        held(i, 0) = static_cast<double>(row_argmax(s.weights, i));
    return &held;
}

// select_stage's slices of got and right on rows × cols, compared in place: false when an entry is outside either.
bool slice_close(const matrix& got, const matrix& right, const std::vector<std::size_t>& rows,
                 const std::vector<std::size_t>& cols, const tolerance& tol) {
    if (cols.empty() && got.shape(1) != right.shape(1)) return false;
    for (std::size_t r : rows)
        for (std::size_t b = 0; b < (cols.empty() ? right.shape(1) : cols.size()); ++b) {
            const std::size_t c = cols.empty() ? b : cols[b];
            if (r >= got.shape(0) || r >= right.shape(0) || c >= got.shape(1) || c >= right.shape(1) ||
                !is_close(got(r, c), right(r, c), tol, true))
                return false;
        }
    return true;
}

// The rows of a part the numbers decide: a row equal to the lesson's is the same for every
// draw, and so is a weights, output or most-attended row that sees one key or none.
std::vector<std::size_t> decided_rows(const part_spec& p, const matrix& full, const matrix& lesson, const pipeline_inputs& in) {
    const bool per_query =
        p.stage == sw::weights() || p.stage == sw::output() || p.stage == sw::argmax();
    std::vector<std::size_t> rows;
    for (std::size_t r : all_or(p.rows, full.shape(0))) {
        if (r >= full.shape(0) || (per_query && visible_keys(in, r) < 2)) continue;
        bool same = true;
        for (std::size_t c = 0; c < full.shape(1) && same; ++c) same = full(r, c) == lesson(r, c);
        if (!same) rows.push_back(r);
    }
    return rows;
}

// Every stage of the lesson's own numbers (x's q, k, v, encoder_q) under the draw's other
// options. The same for every draw whose options match the last one's on this thread
// (most exercises: the mask and scale are the lesson's), so computed again only then.
const stage_values& lesson_stages(const exercise& x, const pipeline_inputs& in) {
    // Keyed by the lesson's numbers, not the exercise's address (a freed one's memory is reused).
    thread_local struct { pipeline_inputs seeds; stage_values stages; bool set = false; } last;
    const auto& s = x.setup;
    if (last.set && same_options(last.seeds, in) && last.seeds.q == s.q && last.seeds.k == s.k &&
        last.seeds.v == s.v && last.seeds.encoder_q == s.encoder_q)
        return last.stages;
    pipeline_inputs seeds = in;  // the lesson's own numbers in every role a variant draws
    std::tie(seeds.q, seeds.k, seeds.v, seeds.encoder_q) = std::tie(s.q, s.k, s.v, s.encoder_q);
    last.set = false;  // until the stages are in
    last.stages = compute_correct(seeds);
    last.seeds = std::move(seeds);
    last.set = true;
    return last.stages;
}

// The first part of x on which a placeholder is right (see variant_fault).
std::optional<std::string> placeholder_fault(const exercise& x, const pipeline_inputs& in,
                                             const stage_values& right) {
    const stage_values& lesson = lesson_stages(x, in);
    matrix held_full, held_same;
    std::vector<matrix> held;
    for (const auto& p : x.parts) {
        const matrix *full = stage_or_most(right, p.stage, held_full), *same = stage_or_most(lesson, p.stage, held_same);
        if (sw::is_input(p.stage) || !full || !same || same->shape() != full->shape()) continue;
        const auto rows = decided_rows(p, *full, *same, in);
        if (rows.empty() || std::any_of(p.cols.begin(), p.cols.end(), [&](std::size_t c) { return c >= full->shape(1); }))
            continue;
        for (const auto& [strategy, g] : guesses(p.stage, *full, *same, in, held))
            if (slice_close(*g, *full, rows, p.cols, p.tol)) return p.id + ": " + strategy;
    }
    return std::nullopt;
}

// The first catalogued mistake whose form x does not tell apart (see variant_fault).
std::optional<std::string> mistake_fault(const exercise& x, const pipeline_inputs& in,
                                         const stage_values& right) {
    const std::size_t n_q = in.q.shape(0);
    std::vector<mistake_candidate> forms;  // [forms of one mistake] reused for every mistake
    forms.reserve(8);
    for (const auto& m : mistake_catalogue()) {
        if (m.rule == mistake_record::redraw::tolerance ||
            std::none_of(x.parts.begin(), x.parts.end(), [&](const part_spec& p) { return stage_rank(p.stage) >= stage_rank(m.first_stage); }))
            continue;  // no part x asks at or after its first stage: its forms are never compared
        forms.clear();
        m.compute(in, right, forms);
        if (forms.empty()) continue;
        const std::vector<bool> changed = m.rows ? m.rows(in, right) : std::vector<bool>{};
        for (const auto& f : forms) {
            bool asked = false, told_apart = false, exact = true;
            for (const auto& p : x.parts) {
                if (stage_rank(p.stage) < stage_rank(m.first_stage)) continue;
                const auto rows = changed_rows(p, changed, n_q);
                if (rows.empty()) continue;
                asked = true;
                const matrix *got = stage_ref(f.stages, p.stage), *want = stage_ref(right, p.stage);  // raw … output
                if ((told_apart = !got || !want || !slice_close(*got, *want, rows, p.cols, p.tol))) break;
                exact = exact && slice_close(*got, *want, rows, p.cols, tolerance{0.0, 1e-12});
            }
            if (asked && !told_apart && !(exact && m.rule == mistake_record::redraw::structural)) return m.id;
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> variant_fault(const exercise& x, const pipeline_inputs& in) {
    if (x.kind->input_fault) return x.kind->input_fault(x, in.model_tokens);  // lessons 24–26: the kind's own check
    if (!x.kind->numbers || x.setup.student_inputs) return std::nullopt;
    const stage_values& right = correct_of(in);  // once per draw: both checks and the copy index read it
    if (auto mistake = mistake_fault(x, in, right)) return mistake;
    return x.variant.enabled ? placeholder_fault(x, in, right) : std::nullopt;
}

}  // namespace attn::grade
