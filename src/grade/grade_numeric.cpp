// grade/grade_numeric.cpp — numeric parts: read the student's numbers, check the
// shape, then the values within tolerance; credit a part that follows from the
// student's own earlier answer; name the catalogued mistake a wrong answer matches.
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <xtensor/xview.hpp>

#include "io/value_matrix.hpp"
#include "grade/grader.hpp"
#include "grade/mistakes.hpp"
#include "grade/variant_check.hpp"
#include "io/text_fold.hpp"
#include "trace/number_format.hpp"
#include "core/stages.hpp"

namespace attn::grade {

namespace sw = stage_word;

namespace {

std::string dims(std::size_t r, std::size_t c) { return std::to_string(r) + " × " + std::to_string(c); }

// A row or column named by its token in quotes, or by its index when it has none.
std::string token_label(const std::vector<std::string>& tokens, std::size_t i) {
    return i < tokens.size() ? "'" + tokens[i] + "'" : std::to_string(i);
}

bool is_score_stage(const std::string& s) { return s == sw::raw() || s == sw::scaled() || s == sw::masked() || s == sw::weights(); }

struct labeller {
    const exercise_numbers& n;
    const part_spec& p;
    std::string row(std::size_t r) const {  // a query row (inputs, with key rows, are never labelled here)
        const auto idx = all_or(p.rows, n.inputs.q.shape(0));
        return r < idx.size() && idx[r] < n.query_tokens.size() ? token_label(n.query_tokens, idx[r]) : std::to_string(r);
    }
    std::string col(std::size_t c) const {
        if (is_score_stage(p.stage)) {
            const auto idx = all_or(p.cols, n.inputs.k.shape(0));
            if (c < idx.size() && idx[c] < n.key_tokens.size()) return token_label(n.key_tokens, idx[c]);
        }
        // The asked columns, or all of them: column c is dimension c (no index list to build).
        const std::size_t dim = p.cols.empty() ? c : (c < p.cols.size() ? p.cols[c] : c);
        return "d" + std::to_string(dim);
    }
    std::string entry(std::size_t flat, std::size_t n_cols) const {
        return p.stage == sw::scale() ? "the value" : "row " + row(flat / n_cols) + ", column " + col(flat % n_cols);
    }
};

std::string value_str(double x) { return std::isnan(x) ? "not a number" : trace::fixed(x, 4); }  // a NaN said in words

// An earlier part as graded: what a later part's stage may be computed from. Its result
// says whether it was a placeholder, other rows of the student's own stage or a named
// mistake (or carried from one).
struct earlier_answer {
    const part_spec* p;
    matrix got;
    part_result r;
    bool genuine = false;  // close to the reference or to a catalogued mistake: may carry credit
    bool own = false;      // worked from the student's own numbers (a named mistake, another query row)
};

// Lesson 03 teaches that a large negative constant works as −∞ in double precision: a
// finite −1e9 or below where −∞ is expected reads as −∞ (a query that sees no key is
// another matter: its weights then differ, and finite_fill names that).
constexpr double taught_minus_infinity = -1e9;
matrix as_taught(matrix got, const matrix& expected) {
    if (got.shape() != expected.shape()) return got;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::isinf(expected.flat(i)) && expected.flat(i) < 0 && std::isfinite(got.flat(i)) && got.flat(i) <= taught_minus_infinity)
            got.flat(i) = expected.flat(i);
    return got;
}

// Every row of got is, within the tolerance, some row of the student's own stage: the
// wrong query row, not someone else's numbers.
bool rows_of_own_stage(const matrix& got, const stage_values& right, const part_spec& p) {
    const auto all = select_stage(right, p.stage, {}, p.cols);
    return all && rows_among(got, *all, p.tol, true);
}

// ── fair credit (lessons/README.md, "Fair credit") ──

constexpr double carried_fraction = 0.5;  // a part right given the student's own (genuine, wrong) earlier part
constexpr double named_mistake_fraction = 0.5;  // what an exercise whose only errors are one named mistake earns

struct credit_count {
    std::size_t informative = 0, close = 0;
    std::vector<std::size_t> bad;  // flat indices of every entry that is off (each counts)
};

// The entries of the part's slice within the tolerance, among those some answer could get wrong: blocked cells of the
// masked scores (−inf) and of the weights (0), the output of a query that sees no key (0), and those within twice the tolerance
// of `common` (a trained head's lesson answer: nearly every input's; within that, one answer fits both) earn nothing alone.
credit_count count_credit(const part_spec& p, const pipeline_inputs& in, const stage_values& right, const matrix& got,
                          const matrix& expected, const std::optional<matrix>& common) {
    const bool cells = p.stage == sw::masked() || p.stage == sw::weights();
    const bool fixed_by_mask = in.mask && (cells || p.stage == sw::output());
    const auto rows = all_or(p.rows, in.q.shape(0));
    const auto cols = all_or(p.cols, cells ? in.k.shape(0) : in.v.shape(1));
    const auto informative = [&](std::size_t r, std::size_t c) {  // of the slice's entry [r, c]
        if (!fixed_by_mask || r >= rows.size() || c >= cols.size()) return true;
        if (cells) return cols[c] < in.mask->shape(1) && (*in.mask)(rows[r], cols[c]);
        return !(rows[r] < right.row_fully_masked.size() && right.row_fully_masked[rows[r]]);
    };
    credit_count count;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const bool ok = is_close(got.flat(i), expected.flat(i), p.tol);
        const bool shared = common && is_close(common->flat(i), expected.flat(i), {2.0 * p.tol.rtol, 2.0 * p.tol.atol});
        if (ok && (!informative(i / got.shape(1), i % got.shape(1)) || shared)) continue;
        ++count.informative;
        if (ok) ++count.close;
        else count.bad.push_back(i);
    }
    return count;
}

// Placeholder answers a student can write without computing anything: a constant
// (zeros for the scores …), uniform weights (over all keys or the visible ones), the
// mean of V (over all keys or the visible ones). They earn no per-entry credit.
bool is_placeholder(const matrix& got, const part_spec& p, const pipeline_inputs& in, const tolerance& tol) {
    bool constant = got.size() > 1;
    for (double e : got) constant = constant && e == got.flat(0);
    if (constant || (p.stage != sw::weights() && p.stage != sw::output())) return constant;
    for (bool only_visible : {false, true}) {
        const auto guess = submatrix(average_keys(in, p.stage == sw::output(), only_visible), p.rows, p.cols);
        if (guess && guess->shape() == got.shape() && all_close(got, *guess, tol)) return true;
    }
    return false;
}

// Weights of 0s and one 1 a row guess the largest weight: a mistake only near them is not named.
bool one_hot(const matrix& got, const part_spec& p) {
    return p.stage == sw::weights() && xt::all(xt::equal(got, 0.0) || xt::equal(got, 1.0)) && xt::all(xt::equal(xt::sum(got, {1}), 1.0));
}

std::optional<matrix> follow_from(const part_spec& p, const earlier_answer& e, const pipeline_inputs& in, double scale) {
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
    const auto rows = all_or(p.rows, n_q);
    const part_spec& ep = *e.p;
    if (all_or(ep.rows, n_q) != rows) return std::nullopt;
    if (p.stage == sw::scaled() && ep.stage == sw::raw() && ep.cols == p.cols) return matrix(e.got / scale);
    // The rest need the earlier stage whole: every key of the part's rows.
    if (all_or(ep.cols, n_k) != all_or({}, n_k) || e.got.shape() != std::array<std::size_t, 2>{rows.size(), n_k})
        return std::nullopt;
    pipeline_inputs sub = in;  // the mask and bias cut to the part's rows
    if (in.mask) sub.mask = bool_matrix(xt::view(*in.mask, xt::keep(rows), xt::all()));  // [rows, n_k]
    const matrix scores = in.bias ? matrix(e.got + xt::view(*in.bias, xt::keep(rows), xt::all())) : e.got;
    if (p.stage == sw::masked() && ep.stage == sw::scaled())
        return submatrix(sub.mask ? matrix(xt::where(*sub.mask, scores, in.masked_fill)) : scores, {}, p.cols);
    if (p.stage == sw::weights() && ep.stage == sw::masked()) {  // the student's own masked scores, as they masked them
        pipeline_inputs unmasked = sub;
        unmasked.mask.reset();
        return submatrix(weights_from_scores(e.got, unmasked), {}, p.cols);
    }
    if (p.stage == sw::weights() && ep.stage == sw::scaled())
        return submatrix(weights_from_scores(scores, sub), {}, p.cols);
    if (p.stage == sw::output() && ep.stage == sw::weights()) return submatrix(matmul(e.got, in.v), {}, p.cols);
    return std::nullopt;
}

std::string predecessor_of(const std::string& stage, bool has_mask) {
    if (stage == sw::weights()) return has_mask ? sw::masked() : sw::scaled();
    return stage == sw::scaled() ? sw::raw() : stage == sw::masked() ? sw::scaled() : stage == sw::output() ? sw::weights() : "";
}

std::string stage_words(const std::string& stage) {  // weights, output, scale: the word itself
    static const std::map<std::string, std::string> words{
        {sw::raw(), "raw scores"}, {sw::scaled(), "scaled scores"}, {sw::masked(), "masked scores"}, {sw::grad_q(), "gradient dQ"},
        {sw::grad_k(), "gradient dK"}, {sw::grad_v(), "gradient dV"}, {sw::grad_weights(), "gradient of the weights"},
        {sw::grad_scores(), "gradient of the scores"}, {sw::rot_q(), "rotated Q"}, {sw::rot_k(), "rotated K"},
        {sw::running_max(), "running maximum"}, {sw::running_sum(), "running sum"}};
    const auto it = words.find(stage);
    return it == words.end() ? stage : it->second;
}

// Argmax parts: per row, the key (index or token) with the largest weight; ties all count.
part_result grade_argmax(const part_spec& p, const io::value_node& a, const stage_values& right, const exercise_numbers& n,
                         part_result r) {
    const auto rows = all_or(p.rows, right.weights.shape(0));
    if (a.length() != rows.size()) {  // counted first: a packed array of numbers has no nodes (io/value_tree)
        r.status = part_status::wrong;
        r.feedback = a.where.str() + ": expected " + std::to_string(rows.size()) + " answer(s), one per query row, found " +
                     std::to_string(a.length());
        return r;
    }
    std::vector<io::value_node> given;  // [rows] one answer per query row
    for (std::size_t k = 0; k < rows.size(); ++k) given.push_back(a.entry_at(k));
    std::size_t ok = 0;
    std::string first_bad, wrong_queries;  // full feedback; the queries only (no expected key)
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const double best = right.weights(rows[k], row_argmax(right.weights, rows[k]));  // the largest weight
        const std::size_t most = row_argmax(right.weights, rows[k], 1e-9);  // the first key within 1e-9 of it
        std::optional<std::size_t> pick;
        const io::value_node& g = given[k];
        if (g.is_number() && g.number >= 0 && g.number == std::floor(g.number)) pick = static_cast<std::size_t>(g.number);
        if (g.is_string())
            for (std::size_t j = 0; j < n.key_tokens.size(); ++j)
                if (io::folded_words(n.key_tokens[j]) == io::folded_words(g.text)) pick = j;
        const bool right_pick = pick && *pick < right.weights.shape(1) && right.weights(rows[k], *pick) >= best - 1e-9;
        if (right_pick) {
            ++ok;
            continue;
        }
        wrong_queries += (wrong_queries.empty() ? "" : ", ") + token_label(n.query_tokens, rows[k]);
        if (first_bad.empty())
            first_bad = "query " + token_label(n.query_tokens, rows[k]) + " attends most to " +
                        token_label(n.key_tokens, most) + " (index " + std::to_string(most) + ", weight " +
                        trace::fixed(best, 4) + ")";
    }
    r.score = r.max * static_cast<double>(ok) / static_cast<double>(rows.size());
    r.status = ok == rows.size() ? part_status::correct : ok ? part_status::partial : part_status::wrong;
    if (ok == rows.size()) {
        r.feedback = "correct";
        return r;
    }
    r.feedback = std::to_string(ok) + " of " + std::to_string(rows.size()) + " right; ";
    r.feedback.full_only(first_bad);  // names the key it should attend to most
    r.feedback.mistakes_only("wrong for query " + wrong_queries);
    return r;
}

// Which entries are off, named but never valued (the mistakes feedback level): the
// first few, then how many more.
std::string entry_list(const labeller& lab, const std::vector<std::size_t>& bad, std::size_t n_cols, std::size_t informative) {
    constexpr std::size_t shown = 4;
    if (bad.size() > 1 && bad.size() == informative) return "all of them";
    std::string out;
    for (std::size_t i = 0; i < bad.size() && i < shown; ++i) out += (i ? "; " : "") + lab.entry(bad[i], n_cols);
    if (bad.size() > shown) out += " and " + std::to_string(bad.size() - shown) + " more";
    return out;
}

std::string points_pct(double f) { return std::to_string(static_cast<int>(std::lround(f * 100.0))) + "%"; }

// One named mistake costs the same fraction of an exercise everywhere: when every part that lost
// points is explained by named mistakes (the part that shows one, or one carried from it), the
// exercise earns (1 − 0.5·k) of its points for k distinct mistakes; with other errors too, at
// most that. The cost never lands on a right part (the exercise earns more if they hold more).
void apply_named_mistake_cost(std::vector<part_result>& parts) {
    std::vector<std::string> named;
    bool only_named = true;
    double max = 0.0, score = 0.0, right = 0.0;
    for (const auto& p : parts) {
        max += p.max;
        score += p.score;
        if (p.status == part_status::correct) right += p.max;
        if (!p.mistake.empty() && !p.mistake_by_property) {
            if (std::find(named.begin(), named.end(), p.mistake) == named.end()) named.push_back(p.mistake);
        } else if (p.status != part_status::correct && p.status != part_status::carried) {
            only_named = false;
        }
    }
    if (named.empty() || max <= 0.0) return;
    const double cap = std::max(0.0, 1.0 - named_mistake_fraction * static_cast<double>(named.size())) * max;
    const double held = (only_named ? max : score) - right;  // what the other parts hold (only named: all their points)
    const double share = held > 0.0 ? std::max(0.0, (only_named ? cap : std::min(score, cap)) - right) / held : 0.0;
    for (auto& p : parts) {
        if (p.status != part_status::correct) p.score = (only_named ? p.max : p.score) * share;
        if (!p.mistake.empty() && !p.mistake_by_property)
            p.feedback += ". A named mistake costs " + points_pct(named_mistake_fraction) + " of the exercise, once, whatever it touches";
    }
}

// One exercise's numeric parts graded in order: each part may lean on the earlier ones
// (`seen`), and the catalogue of mistakes is computed once, on the first wrong answer.
struct numeric_grading {
    const exercise& x;
    const exercise_numbers& numbers;
    pipeline_inputs in;
    std::map<std::string, part_result> own_inputs;  // by part id, read before the rest
    std::set<std::string> unusable;                 // the student's own inputs that cannot be used: q, k, v
    stage_values right;
    // The catalogue's forms computed so far, in its order (mistake_candidates' list, a
    // record at a time): a wrong answer computes only the records up to the one it
    // matches, right answers none. A deque: a form's address stays while more are added.
    struct computed_forms {
        std::deque<mistake_candidate> forms;
        std::size_t next_record = 0;  // the first record of mistake_catalogue() not computed yet
    } candidates;
    std::vector<earlier_answer> seen;
    bool genuine_chain = true;
    std::vector<part_result> out;
    std::vector<std::size_t> credited;  // parts of `out` carried from a genuine attempt: their share is said at the end

    // The catalogue's i-th form (as mistake_candidates(in, right) lists them); nullptr past its end.
    const mistake_candidate* catalogue_form(std::size_t i) {
        const auto& records = mistake_catalogue();
        while (candidates.forms.size() <= i && candidates.next_record < records.size()) {
            const mistake_record& m = records[candidates.next_record++];
            if (x.setup.model) add_model_mistake_heads(m, *x.setup.model, in);
            mistake_forms some;
            m.compute(in, right, some);
            for (auto& f : some) {
                f.record = &m;
                candidates.forms.push_back(std::move(f));
            }
        }
        return i < candidates.forms.size() ? &candidates.forms[i] : nullptr;
    }

    // A part answered by the student's own Q, K or V (image-patch style exercises), read
    // into `in` when it can be used: the later parts are graded for consistency with it,
    // whatever numbers were chosen.
    void own_input(const part_spec& p, const io::value_node* a) {
        part_result r = start_part(p, p.stage, a);
        matrix& role = p.stage == sw::q() ? in.q : p.stage == sw::k() ? in.k : in.v;  // zeros of the asked shape
        const std::string want = dims(role.shape(0), role.shape(1));
        const io::matrix_read rr = is_unanswered(a) ? io::matrix_read{} : io::read_matrix(*a);
        std::string problem = rr.m ? "" : rr.error;
        if (rr.m && rr.m->shape() != role.shape())
            problem = a->where.str() + ": expected " + want + ", found " + dims(rr.m->shape(0), rr.m->shape(1));
        else if (rr.m && !xt::all(xt::isfinite(*rr.m)))
            problem = a->where.str() + ": the entries must be finite numbers";
        if (rr.m && problem.empty()) {
            role = *rr.m;
            r.status = part_status::correct;
            r.score = r.max;
            r.feedback = "a " + want + " matrix of your choice; the later parts are checked against it";
        } else {
            unusable.insert(p.stage);
            if (!is_unanswered(a)) {
                r.status = part_status::wrong;
                r.feedback = problem;
            }
        }
        own_inputs[p.id] = r;
    }

    // An answer of another shape: said, and matched against the catalogue's shapes.
    void wrong_shape(const part_spec& p, const matrix& got, const matrix& expected, part_result& r) {
        r.status = part_status::wrong;
        r.feedback = "expected a " + dims(expected.shape(0), expected.shape(1)) + " answer, found " + dims(got.shape(0), got.shape(1));
        if (is_score_stage(p.stage)) r.feedback += "; rows are the " + x.setup.query_side + ", columns the " + x.setup.key_side;
        if (got.shape(0) == expected.shape(1) && got.shape(1) == expected.shape(0) && got.shape(0) != got.shape(1))
            r.feedback += " — the transpose of the expected shape";
        if (const mistake_candidate* c = matching_mistake(p, got, nullptr)) say_mistake(p, *c, r);
        out.push_back(r);
        seen.push_back({&p, got, r, !r.mistake.empty()});
    }

    // Right given the student's own earlier answer? Then the error counts once.
    bool carried(const part_spec& p, const matrix& got, part_result& r) {
        const std::string prev = predecessor_of(p.stage, in.mask.has_value());
        for (auto e = seen.rbegin(); e != seen.rend(); ++e) {
            const std::string& from = e->p->stage;
            if (from != prev && !(p.stage == sw::weights() && from == sw::scaled())) continue;
            if (e->r.status == part_status::correct) break;
            auto follow = follow_from(p, *e, in, right.scale);
            if (!follow || follow->shape() != got.shape() || !all_close(got, *follow, p.tol)) continue;
            r.status = part_status::carried;
            r.score = e->genuine ? r.max * carried_fraction : 0.0;
            if (e->genuine) credited.push_back(out.size());  // its share is said once the exercise's cost is taken
            r.feedback = e->genuine ? "right given your own " + stage_words(from) + " above (within " + p.tol.str() + ")"
                    : "follows from your own " + stage_words(from) + " above, which are " +
                          (e->own ? "another row of your numbers" : "not an attempt at your numbers") + ": no credit carries";
            genuine_chain = genuine_chain && e->genuine;
            // Not genuine and not a placeholder: computed, but from other numbers than the student's.
            r.other_numbers = !e->genuine && !e->r.placeholder && !e->own;
            r.own_rows = e->r.own_rows;
            r.explained = e->r.explained;
            r.placeholder = e->r.placeholder;
            const bool from_own = e->own;  // read before seen grows (e points into it)
            out.push_back(r);
            seen.push_back({&p, got, r, genuine_chain, from_own});
            return true;
        }
        return false;
    }

    // The catalogued mistake the answer matches (never for a placeholder or rounding:
    // on some draws a mistake's answer is itself a constant — no softmax gives 0 where a
    // score is 0 — and naming it would hand the placeholder the named-mistake credit,
    // 03-blind, tests/grade_blind_test.cpp).
    bool name_mistake(const part_spec& p, const matrix& got, const matrix& expected, part_result& r) {
        const mistake_candidate* c = matching_mistake(p, got, &expected);
        if (!c) return false;
        say_mistake(p, *c, r);
        r.score = 0.0;  // the mistake's cost is taken once, for the exercise (apply_named_mistake_cost)
        r.status = part_status::wrong;
        return true;
    }

    // The first catalogued mistake whose answer to this part is got, within the
    // tolerance; one indistinguishable here from `right` (when given) is passed over.
    const mistake_candidate* matching_mistake(const part_spec& p, const matrix& got, const matrix* right_answer) {
        const bool guess = one_hot(got, p);  // named only for a mistake that gives exactly it (a window of 0)
        for (std::size_t i = 0; const mistake_candidate* c = catalogue_form(i); ++i) {
            const auto m = select_stage(c->stages, p.stage, p.rows, p.cols);
            if (!m || m->shape() != got.shape()) continue;
            if (right_answer && all_close(*m, *right_answer, p.tol, true)) continue;
            if (all_close(got, *m, guess ? tolerance{0.0, 1e-12} : p.tol, true)) return c;
        }
        return nullptr;
    }

    // "Your weights match the mistake "no scaling": why (every entry within …)"; the
    // explanation may name expected numbers (full only).
    static void say_mistake(const part_spec& p, const mistake_candidate& c, part_result& r) {
        r.mistake = c.record->id;
        r.mistake_name = c.record->name;
        const std::string words = stage_words(p.stage);  // the verb agrees: "weights match", "scale matches"
        r.feedback += ". Your " + words + (words.back() == 's' ? " match" : " matches") + " the mistake \"" +
                      r.mistake_name + "\"";
        r.feedback.full_only(": " + c.explanation);
        r.feedback += " (every entry within " + p.tol.str() + ")";
    }

    // Wrong values of the right shape: credit for the informative entries within the
    // tolerance, unless a placeholder; rounding recognised; the mistake named.
    void partial(const part_spec& p, const matrix& got, const matrix& expected, const closeness& c, part_result& r) {
        const labeller lab{numbers, p};
        const auto lesson = x.setup.model && numbers.personal ? select_stage(forward_of(x.setup), p.stage, p.rows, p.cols) : std::nullopt;
        const credit_count cc = count_credit(p, in, right, got, expected, lesson && lesson->shape() == got.shape() ? lesson : std::nullopt);
        const std::size_t first_bad = cc.bad.empty() ? 0 : cc.bad.front();
        const bool placeholder = is_placeholder(got, p, in, p.tol);
        r.placeholder = placeholder;
        r.score = placeholder || cc.informative == 0 ? 0.0 : r.max * static_cast<double>(cc.close) / static_cast<double>(cc.informative);
        r.status = r.score > 0.0 ? part_status::partial : part_status::wrong;
        r.feedback = std::to_string(cc.close) + " of " + std::to_string(cc.informative) + " entries within " + p.tol.str();
        r.feedback.full_only((cc.informative < c.total ? " (the " + std::to_string(c.total - cc.informative) +
                                                             " right entries fixed by the mask earn nothing by themselves)"
                                                       : std::string()) +
                             "; first off: " + lab.entry(first_bad, got.shape(1)) + ", expected " +
                             value_str(expected.flat(first_bad)) + ", found " + value_str(got.flat(first_bad)));
        r.feedback.mistakes_only("; off: " + entry_list(lab, cc.bad.empty() ? std::vector<std::size_t>{first_bad} : cc.bad,
                                                        got.shape(1), cc.informative));
        if (placeholder)
            r.feedback += ". This looks like a placeholder (a constant, uniform weights or the mean of V), not a computation: no credit";
        bool genuine = !placeholder && cc.informative > 0 && 2 * cc.close >= cc.informative;
        // The right numbers rounded to k decimals: only the entries rounding moved beyond
        // the tolerance cost anything, in this part only; no mistake is named.
        const int rounded = placeholder ? 0 : rounded_decimals(got, expected, 3);
        if (rounded > 0) {
            r.feedback += ". These are your right numbers rounded to " + std::to_string(rounded) + " decimal" + (rounded > 1 ? "s" : "") +
                          ": only the entries rounding moved beyond the tolerance cost points; give 4 decimals";
            genuine = true;
        }
        if (!placeholder && rounded == 0 && name_mistake(p, got, expected, r)) genuine = true;
        if (r.mistake.empty() && p.stage == sw::weights() && in.softmax && !placeholder &&
            rows_not_normalised(got, 10 * p.tol.atol + 1e-9)) {
            r.feedback += ". Each row of your weights should sum to 1 (or be all 0 for a query that sees no key)";
            r.mistake = "rows_not_normalised";
            r.mistake_name = find_mistake(r.mistake)->name;
            r.mistake_by_property = true;  // a diagnosis, not a recomputed method: no named-mistake credit
        }
        out.push_back(r);
        r.own_rows = rows_of_own_stage(got, right, p);
        const bool own = genuine || !r.mistake.empty() || r.own_rows;
        r.explained = !r.mistake.empty();
        seen.push_back({&p, got, r, genuine, own});
    }

    // A part whose answer is a matrix of the asked stage.
    void matrix_part(const part_spec& p, const io::value_node& a, part_result& r) {
        const std::optional<matrix> expected = select_stage(right, p.stage, p.rows, p.cols);
        if (!expected) {  // a lesson problem, not the student's
            r.status = part_status::invalid;
            r.feedback = "this part cannot be computed (stage " + p.stage + " is empty); tell your teacher";
            return out.push_back(r);
        }
        io::matrix_read rr = io::read_matrix(a);
        if (!rr.m) {
            r.status = part_status::invalid;
            r.feedback = rr.error;
            return out.push_back(r);
        }
        const matrix got = as_taught(io::conform(*rr.m, *expected), *expected);
        if (got.shape() != expected->shape()) return wrong_shape(p, got, *expected, r);
        const closeness c = compare(got, *expected, p.tol);
        if (c.all()) {
            r.status = part_status::correct;
            r.score = r.max;
            r.feedback = "correct (" + std::to_string(c.total) + " of " + std::to_string(c.total) + " within " + p.tol.str() + ")";
            out.push_back(r);
            seen.push_back({&p, got, r, true});
            return;
        }
        if (!carried(p, got, r)) partial(p, got, *expected, c, r);
    }

    void part(const part_spec& p, const io::value_node* a) {
        part_result r = start_part(p, p.stage, a);
        if (sw::is_input(p.stage)) return out.push_back(own_inputs.at(p.id));
        if (is_unanswered(a)) return out.push_back(r);
        if (!unusable.empty()) {
            r.status = part_status::wrong;
            std::string which;
            for (const auto& role : unusable) which += (which.empty() ? "" : ", ") + role;
            r.feedback = "cannot be checked until your own " + which + " (asked above) are there with the asked shapes";
            return out.push_back(r);
        }
        if (p.stage == sw::argmax()) return argmax_part(p, *a, r);
        matrix_part(p, *a, r);
    }

    // An argmax part wrong for the right weights but right for the student's own earlier
    // weights (or scores) — a genuine attempt such as a named mistake or a part carried from
    // one — carries like any other part: the error counts once (issue 36: the argmax that
    // followed from the student's own weights was not carried, so a named mistake cost 100%).
    void argmax_part(const part_spec& p, const io::value_node& a, part_result r) {
        part_result graded = grade_argmax(p, a, right, numbers, r);
        if (graded.status != part_status::correct)
            if (const std::optional<stage_values> own = own_weights(p)) {
                const part_result mine = grade_argmax(p, a, *own, numbers, r);
                if (mine.status == part_status::correct) {
                    graded.status = part_status::carried;
                    graded.score = graded.max * carried_fraction;
                    graded.feedback = "the key your own weights above weight most";
                    credited.push_back(out.size());
                }
            }
        // A trained head's argmax is nearly every input's: it counts only beside an attempt at the stages above.
        if (x.setup.model && !seen.empty() && std::none_of(seen.begin(), seen.end(), [](const auto& e) { return e.genuine; })) {
            graded.score = 0.0;
            graded.feedback += "; no credit alone: a trained head weights much the same key on every input";
        }
        out.push_back(graded);
    }

    // The right values with the argmax part's rows replaced by the student's own weights
    // (or, without them, own scores: the softmax keeps their order), from the latest earlier
    // part on exactly those rows that is wrong but a genuine attempt; blocked keys never win.
    std::optional<stage_values> own_weights(const part_spec& p) {
        const auto rows = all_or(p.rows, right.weights.shape(0));
        for (auto e = seen.rbegin(); e != seen.rend(); ++e) {
            const std::string& from = e->p->stage;
            if (from != sw::weights() && from != sw::scaled() && from != sw::masked()) continue;
            if (all_or(e->p->rows, right.weights.shape(0)) != rows || e->got.shape(0) != rows.size()) continue;
            if (e->r.status == part_status::correct || !e->genuine) return std::nullopt;
            const auto cols = all_or(e->p->cols, right.weights.shape(1));
            if (e->got.shape(1) != cols.size()) return std::nullopt;
            stage_values own = right;
            for (std::size_t k = 0; k < rows.size(); ++k) {
                for (std::size_t j = 0; j < own.weights.shape(1); ++j) own.weights(rows[k], j) = -std::numeric_limits<double>::infinity();
                for (std::size_t c = 0; c < cols.size(); ++c) {
                    const bool blocked = in.mask && !(*in.mask)(rows[k], cols[c]);
                    const double v = e->got(k, c);
                    if (!blocked && std::isfinite(v)) own.weights(rows[k], cols[c]) = v;
                }
            }
            return own;
        }
        return std::nullopt;
    }
};

}  // namespace

std::vector<part_result> grade_numeric_parts(const exercise& x, const exercise_numbers& numbers,
                                             const io::value_node* exercise_answer) {
    numeric_grading g{x, numbers, numbers.inputs, {}, {}, {}, {}, {}, true, {}, {}};
    for (const auto& p : x.parts)
        if (sw::is_input(p.stage)) g.own_input(p, part_answer(x, p, exercise_answer));
    g.right = compute_correct(g.in);
    for (const auto& p : x.parts) g.part(p, part_answer(x, p, exercise_answer));
    apply_named_mistake_cost(g.out);
    for (auto i : g.credited) g.out[i].feedback += ": " + points_pct(g.out[i].score / std::max(g.out[i].max, 1e-300)) + " of this part's points";
    return g.out;
}

}  // namespace attn::grade
