// grade/copies.cpp — see copies.hpp.
#include "grade/copies.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "core/parallel_for.hpp"
#include "core/prng.hpp"
#include "grade/answer_matrix.hpp"
#include "grade/grade_parts.hpp"
#include "grade/pipeline.hpp"
#include "trace/stage_words.hpp"

namespace attn::grade {

namespace sw = trace::stage_word;

namespace {

constexpr std::size_t key_entries = 3;       // entries of a part that make its key
constexpr std::size_t sample_students = 48;  // students whose numbers pick those entries
constexpr std::size_t max_candidates = 32;   // per part: more is a shared answer, not a copy
constexpr double rounding_slack = 0.0051;    // a copy rounded to 2 decimals is still the copy

// One (exercise, part) of the index: which entries key it and how coarsely.
struct plan {
    const exercise* x = nullptr;
    const part_spec* p = nullptr;
    std::vector<std::size_t> at;    // flat positions keyed (≤ key_entries)
    double width = 1.0;             // bucket width (≥ twice the copy tolerance)
    tolerance tol;                  // the grading tolerance, loosened to 2-decimal rounding
    std::optional<matrix> lesson;   // the answer on the lesson's own numbers: not evidence of anything
    std::uint64_t salt = 0;
};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {  // splitmix64 finaliser over h ^ v
    std::uint64_t state = h ^ v;
    return splitmix64_next(state);
}

std::int64_t bucket(double v, double width) {
    if (std::isnan(v)) return INT64_MIN;
    if (std::isinf(v)) return v > 0 ? INT64_MAX : INT64_MIN + 1;
    return static_cast<std::int64_t>(std::floor(v / width));
}

// The buckets an expected value within the tolerance of a may lie in (1 to 3 of them).
std::vector<std::int64_t> reach(double a, const plan& pl) {
    if (!std::isfinite(a)) return {bucket(a, pl.width)};
    const double d = (pl.tol.atol + pl.tol.rtol * std::fabs(a)) / (1.0 - pl.tol.rtol) * 1.000001;
    const std::int64_t lo = bucket(a - d, pl.width), hi = std::min(bucket(a + d, pl.width), lo + 2);
    std::vector<std::int64_t> out;
    for (std::int64_t b = lo; b <= hi; ++b) out.push_back(b);
    return out;
}

// Every key an answer may have been stored under, given noise below the tolerance.
std::vector<std::uint64_t> keys_near(const matrix& m, const plan& pl) {
    std::vector<std::uint64_t> keys{pl.salt};
    for (std::size_t j : pl.at) {
        std::vector<std::uint64_t> next;
        for (std::int64_t b : reach(m.flat(j), pl))
            for (std::uint64_t k : keys) next.push_back(mix(k, static_cast<std::uint64_t>(b)));
        keys.swap(next);
    }
    return keys;
}

std::uint64_t key_of(const matrix& m, const plan& pl) {
    std::uint64_t k = pl.salt;
    for (std::size_t j : pl.at) k = mix(k, static_cast<std::uint64_t>(bucket(m.flat(j), pl.width)));
    return k;
}

// The entries that differ most from student to student over the sample; none when the
// part is (nearly) the same for everyone — then matching it proves nothing.
void choose_entries(plan& pl, const std::vector<matrix>& sample) {
    double biggest = 0.0;
    for (const auto& m : sample)
        for (double v : m)
            if (std::isfinite(v)) biggest = std::max(biggest, std::fabs(v));
    pl.width = std::max(2.0 * (pl.tol.atol + pl.tol.rtol * biggest), 1e-9);
    const std::size_t n = sample.front().size();
    std::vector<std::pair<std::size_t, std::size_t>> spread;  // (distinct buckets, position)
    for (std::size_t j = 0; j < n; ++j) {
        std::set<std::int64_t> seen;
        for (const auto& m : sample) seen.insert(bucket(m.flat(j), pl.width));
        spread.push_back({seen.size(), j});
    }
    std::stable_sort(spread.begin(), spread.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::size_t need = std::max<std::size_t>(2, sample.size() / 4);
    for (const auto& [distinct, j] : spread)
        if (distinct >= need && pl.at.size() < key_entries) pl.at.push_back(j);
}

// A part answer as the grader read it, in the expected shape; nullopt when unreadable.
std::optional<matrix> answer_of(const exercise& x, const part_spec& p, const submission& sub, const matrix& shape_of) {
    const answer_value* pa = part_answer(x, p, sub.find(x.id));
    if (!pa || is_unanswered(pa)) return std::nullopt;
    const read_result rr = read_matrix(*pa);
    if (!rr.m) return std::nullopt;
    matrix got = conform(*rr.m, shape_of);
    if (got.shape() != shape_of.shape()) return std::nullopt;
    return got;
}

const part_result* result_of(const grade_report& r, const std::string& ex, const std::string& part) {
    for (const auto& x : r.exercises)
        if (x.id == ex)
            for (const auto& p : x.parts)
                if (p.id == part) return &p;
    return nullptr;
}

// Entries that say something about whose numbers these are: finite, and not the 0 and 1
// a mask or a one-key row fixes for everyone.
std::size_t informative_numbers(const matrix& m) {
    std::size_t n = 0;
    for (double v : m) n += std::isfinite(v) && v != 0.0 && std::fabs(v) != 1.0 ? 1 : 0;
    return n;
}

}  // namespace

struct copy_finder::impl {
    // A submitted part kept for those graded after: its numbers as floats in one arena
    // (float's 7 digits are far below any tolerance), chained to the earlier part with
    // the same key. 16 bytes + 4 per number: 100,000 students stay small.
    struct held {
        std::uint32_t student = 0;
        std::uint32_t plan = 0;
        std::uint32_t at = 0;                  // first number in arena
        std::uint32_t next = UINT32_MAX;       // earlier held part with the same key
    };
    explicit impl(const std::vector<std::string>& ids) : students(ids) {}
    grade_options options;
    const std::vector<std::string>& students;  // the class's ids, kept by the caller
    std::vector<plan> plans;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> expected;  // (key's low 32 bits, student), sorted: 8 bytes
    std::unordered_map<std::uint64_t, std::uint32_t> submitted;  // key → the latest held part with it
    std::vector<held> kept;
    std::vector<float> arena;  // every held part's numbers, row-major

    void keep(std::uint32_t who, std::uint32_t pi, const matrix& a) {
        const auto k = key_of(a, plans[pi]);
        const auto found = submitted.find(k);
        kept.push_back({who, pi, static_cast<std::uint32_t>(arena.size()), found == submitted.end() ? UINT32_MAX : found->second});
        for (double v : a) arena.push_back(static_cast<float>(v));
        submitted[k] = static_cast<std::uint32_t>(kept.size() - 1);
    }
    bool held_close(const held& h, const matrix& a) const {
        const tolerance& tol = plans[h.plan].tol;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!is_close(a.flat(i), static_cast<double>(arena[h.at + i]), tol)) return false;
        return true;
    }

    using stage_cache = std::map<std::pair<const exercise*, std::uint32_t>, stage_values>;
    struct source_tally {
        std::size_t parts = 0, numbers = 0;
        bool from_submission = true;  // every matched part matched a submission, none a right answer
        std::set<std::string> exercises;
    };
    struct evidence {
        std::map<std::uint32_t, source_tally> by_source;
        std::size_t answered = 0;
    };

    stage_values right_for(const exercise& x, const std::string& student) const {
        variant_request req;
        req.student = student;
        req.secret = options.secret;
        req.practice_ok = false;
        req.memo = options.variants.get();
        return compute_correct(numbers_for(x, req).inputs);
    }
    const stage_values& cached(stage_cache& cache, const exercise* x, std::uint32_t student) const {
        auto it = cache.find({x, student});
        if (it == cache.end()) it = cache.emplace(std::make_pair(x, student), right_for(*x, students[student])).first;
        return it->second;
    }
    void plan_exercise(const exercise& x);
    void index_exercise(std::size_t first_plan);
    std::set<std::uint32_t> expected_hits(const plan& pl, const matrix& a, std::uint32_t who, stage_cache& cache) const;
    void weigh_part(std::uint32_t pi, std::uint32_t who, const grade_report& r, const submission& sub, stage_cache& cache,
                    evidence& ev);
    std::optional<copy_match> verdict(const evidence& ev) const;
    std::set<std::uint32_t> submitted_hits(std::uint32_t pi, const matrix& a, std::uint32_t who) const;
};

void copy_finder::impl::plan_exercise(const exercise& x) {
    const std::size_t n = std::min(sample_students, students.size());
    std::vector<stage_values> sample;
    for (std::size_t i = 0; i < n; ++i) sample.push_back(right_for(x, students[i]));
    variant_request lesson;
    lesson.lesson_numbers = true;
    const stage_values own = compute_correct(numbers_for(x, lesson).inputs);
    for (const auto& p : x.parts) {
        if (p.stage == sw::argmax()) continue;
        plan pl;
        pl.x = &x;
        pl.p = &p;
        pl.tol = tolerance{p.tol.rtol, std::max(p.tol.atol, rounding_slack)};
        pl.lesson = select_stage(own, p.stage, p.rows, p.cols);
        pl.salt = mix(std::hash<std::string>{}(x.id), std::hash<std::string>{}(p.id));
        std::vector<matrix> values;
        for (const auto& s : sample)
            if (auto m = select_stage(s, p.stage, p.rows, p.cols)) values.push_back(std::move(*m));
        if (values.size() < 2 || values.size() != sample.size()) continue;
        choose_entries(pl, values);
        if (!pl.at.empty()) plans.push_back(std::move(pl));
    }
}

void copy_finder::impl::index_exercise(std::size_t first_plan) {
    if (first_plan == plans.size()) return;
    const exercise& x = *plans[first_plan].x;
    const std::size_t m = plans.size() - first_plan;
    std::vector<std::uint64_t> keys(students.size() * m, 0);  // [student, plan]; 0 = no such stage
    std::vector<char> has(students.size() * m, 0);
    parallel_for(students.size(), threads_from_env("ATTN_GRADE_THREADS"), [&](std::size_t i) {
        const stage_values right = right_for(x, students[i]);
        for (std::size_t k = 0; k < m; ++k) {
            const plan& pl = plans[first_plan + k];
            if (auto e = select_stage(right, pl.p->stage, pl.p->rows, pl.p->cols)) {
                keys[i * m + k] = key_of(*e, pl);
                has[i * m + k] = 1;
            }
        }
    });
    for (std::size_t i = 0; i < students.size(); ++i)
        for (std::size_t k = 0; k < m; ++k)
            if (has[i * m + k]) expected.push_back({static_cast<std::uint32_t>(keys[i * m + k]), static_cast<std::uint32_t>(i)});
}

copy_finder::copy_finder(const exercise_set& set, const std::vector<std::string>& exercise_ids, const grade_options& options,
                         const std::vector<std::string>& students)
    : impl_(std::make_unique<impl>(students)) {
    impl_->options = options;
    if (options.lesson_numbers || options.secret.empty() || students.size() < 2) return;
    for (const auto& id : exercise_ids) {
        const exercise* x = set.find(id);
        if (!x || !x->kind->numbers || !x->variant.enabled || x->setup.student_inputs) continue;
        const std::size_t first = impl_->plans.size();
        impl_->plan_exercise(*x);
        impl_->index_exercise(first);
    }
    std::sort(impl_->expected.begin(), impl_->expected.end());
}

copy_finder::~copy_finder() = default;

std::set<std::uint32_t> copy_finder::impl::expected_hits(const plan& pl, const matrix& a, std::uint32_t who,
                                                         stage_cache& cache) const {
    std::set<std::uint32_t> out;
    std::size_t tried = 0;
    for (std::uint64_t k : keys_near(a, pl)) {
        const auto k32 = static_cast<std::uint32_t>(k);  // a stray match of these bits is refused below
        auto lo = std::lower_bound(expected.begin(), expected.end(), std::make_pair(k32, std::uint32_t{0}));
        for (auto it = lo; it != expected.end() && it->first == k32 && tried < max_candidates; ++it, ++tried) {
            if (it->second == who) continue;
            const auto m = select_stage(cached(cache, pl.x, it->second), pl.p->stage, pl.p->rows, pl.p->cols);
            if (m && m->shape() == a.shape() && all_close(a, *m, pl.tol)) out.insert(it->second);
        }
    }
    return out;
}

std::set<std::uint32_t> copy_finder::impl::submitted_hits(std::uint32_t pi, const matrix& a, std::uint32_t who) const {
    std::set<std::uint32_t> out;
    std::size_t tried = 0;
    for (std::uint64_t k : keys_near(a, plans[pi])) {
        const auto head = submitted.find(k);
        for (std::uint32_t i = head == submitted.end() ? UINT32_MAX : head->second; i != UINT32_MAX && tried < max_candidates;
             i = kept[i].next, ++tried) {
            const held& h = kept[i];  // a plan's parts all have one shape (variants change numbers, never shapes)
            if (h.plan == pi && h.student != who && held_close(h, a)) out.insert(h.student);
        }
    }
    return out;
}

// One part of who's submission: counted, weighed as evidence, remembered for later ones.
void copy_finder::impl::weigh_part(std::uint32_t pi, std::uint32_t who, const grade_report& r, const submission& sub,
                                   stage_cache& cache, evidence& ev) {
    const plan& pl = plans[pi];
    const part_result* pr = result_of(r, pl.x->id, pl.p->id);
    if (!pr || !pl.lesson) return;
    const auto a = answer_of(*pl.x, *pl.p, sub, *pl.lesson);
    if (!a) return;
    ++ev.answered;
    const bool off = pr->status == part_status::wrong || pr->status == part_status::partial || pr->status == part_status::carried;
    if (!off || pr->placeholder || pr->own_rows || pr->explained || all_close(*a, *pl.lesson, pl.tol)) return;
    const auto mine = select_stage(cached(cache, pl.x, who), pl.p->stage, pl.p->rows, pl.p->cols);
    if (mine && mine->shape() == a->shape() && all_close(*a, *mine, pl.tol)) return;  // own numbers, rounded
    if (pr->mistake.empty()) {  // a named mistake is never evidence of a copy
        const auto from_numbers = expected_hits(pl, *a, who, cache);
        std::set<std::uint32_t> sources = from_numbers;
        for (auto t : submitted_hits(pi, *a, who)) sources.insert(t);
        for (auto t : sources) {
            source_tally& c = ev.by_source[t];
            ++c.parts;
            c.numbers += informative_numbers(*a);
            c.from_submission = c.from_submission && !from_numbers.count(t);
            c.exercises.insert(pl.x->id);
        }
    }
    keep(who, pi, *a);
}

// The classmate most parts match (right answers before submissions on a tie).
std::optional<copy_match> copy_finder::impl::verdict(const evidence& ev) const {
    const source_tally* best = nullptr;
    std::uint32_t best_id = 0;
    for (const auto& [t, c] : ev.by_source)
        if (!best || c.parts > best->parts || (c.parts == best->parts && !c.from_submission && best->from_submission)) {
            best = &c;
            best_id = t;
        }
    // Two parts with eight informative numbers between them, or one part with twelve: single
    // low-information parts (a causal row of two weights) collide by chance among 10,000.
    // Submissions alike need two parts: a shared wrong strategy is not a copy's proof.
    if (!best || best->numbers < 8 || (best->parts < 2 && (best->from_submission || best->numbers < 12))) return std::nullopt;
    copy_match m;
    m.source = students[best_id];
    m.from_submission = best->from_submission;
    m.parts = best->parts;
    m.answered = ev.answered;
    for (const auto& id : options.exercise_ids)
        if (best->exercises.count(id)) m.exercises.push_back(id);
    for (const auto& id : best->exercises)
        if (std::find(m.exercises.begin(), m.exercises.end(), id) == m.exercises.end()) m.exercises.push_back(id);
    return m;
}

std::optional<copy_match> copy_finder::check(std::size_t who, const grade_report& r, const submission& sub) {
    impl::stage_cache cache;
    impl::evidence ev;
    for (std::uint32_t pi = 0; pi < impl_->plans.size(); ++pi)
        impl_->weigh_part(pi, static_cast<std::uint32_t>(who), r, sub, cache, ev);
    return impl_->verdict(ev);
}

std::string copy_finder::flag(const copy_match& m) {
    std::string where;
    for (const auto& id : m.exercises) where += (where.empty() ? "" : ", ") + id;
    return fmt::format("{} {}: {} of {} numeric {} ({})",
                       m.from_submission ? "hands in the same numbers as student" : "matches the numbers of student", m.source,
                       m.parts, m.answered, m.answered == 1 ? "part" : "parts", where);
}

}  // namespace attn::grade
