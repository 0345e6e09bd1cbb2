// grade/variant_check.cpp — see variant_check.hpp.
#include "grade/variant_check.hpp"

#include "grade/mistakes.hpp"

namespace attn::grade {

namespace {

std::vector<std::size_t> all_or(const std::vector<std::size_t>& idx, std::size_t n) {
    if (!idx.empty()) return idx;
    std::vector<std::size_t> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = i;
    return out;
}

// The part's slice, but only the rows the mistake changes (empty: none of them).
std::vector<std::size_t> changed_rows(const part_spec& p, const std::vector<bool>& changed, std::size_t n_q) {
    std::vector<std::size_t> keep;
    for (std::size_t r : all_or(p.rows, n_q))
        if (changed.empty() || (r < changed.size() && changed[r])) keep.push_back(r);
    return keep;
}

}  // namespace

bool every_mistake_distinguishable(const exercise& x, const pipeline_inputs& in, std::string* which) {
    if (!x.kind->numbers || x.setup.student_inputs) return true;
    const stage_values right = compute_correct(in);
    const std::size_t n_q = in.q.shape(0);
    for (const auto& m : mistake_catalogue()) {
        if (m.rule == mistake_record::redraw::tolerance) continue;
        std::vector<mistake_candidate> forms;
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
                const auto want = select_stage(right, p.stage, rows, p.cols);
                const auto got = select_stage(f.stages, p.stage, rows, p.cols);
                if (!want || !got || got->shape() != want->shape() || !all_close(*got, *want, p.tol, true)) {
                    told_apart = true;
                    break;
                }
                exact = exact && all_close(*got, *want, tolerance{0.0, 1e-12}, true);
            }
            if (asked && !told_apart && !(exact && m.rule == mistake_record::redraw::structural)) {
                if (which) *which = m.id;
                return false;
            }
        }
    }
    return true;
}

}  // namespace attn::grade
