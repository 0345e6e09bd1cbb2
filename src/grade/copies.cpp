// grade/copies.cpp — the class's copy finder (see class_batch.hpp).
#include "grade/class_batch.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "core/near_index.hpp"
#include "io/value_matrix.hpp"

namespace attn::grade {

namespace sw = stage_word;

namespace {

constexpr std::size_t key_entries = 3;       // entries of a part that make its key
constexpr std::size_t sample_students = 48;  // students whose numbers pick those entries
constexpr std::size_t max_candidates = 32;   // per part: more is a shared answer, not a copy
constexpr double rounding_slack = 0.0051;    // a copy rounded to 2 decimals is still the copy

// One (exercise, part) of the indexes: how it is keyed (the grading tolerance, loosened
// to 2-decimal rounding) and its value on the lesson's own numbers.
struct plan {
    const exercise* x = nullptr;
    const part_spec* p = nullptr;
    near_key key;
    std::optional<matrix> lesson;  // the answer on the lesson's own numbers: not evidence of anything
    std::optional<matrix> of(const stage_values& s) const { return select_stage(s, p->stage, p->rows, p->cols); }
};

// A part answer as the grader read it, in the expected shape; nullopt when unreadable.
std::optional<matrix> answer_of(const exercise& x, const part_spec& p, const submission& sub, const matrix& shape_of) {
    const io::value_node* pa = part_answer(x, p, sub.find(x.id));
    if (!pa || is_unanswered(pa)) return std::nullopt;
    const io::matrix_read rr = io::read_matrix(*pa);
    if (!rr.m) return std::nullopt;
    matrix got = io::conform(*rr.m, shape_of);
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
    explicit impl(const std::vector<std::string>& ids) : students(ids) {}
    grade_options options;
    const std::vector<std::string>& students;  // the class's ids, kept by the caller
    std::vector<plan> plans;
    near_ids expected;      // every student's right answers: (key, student)
    near_values submitted;  // the parts submitted so far, family = plan: 100,000 students stay small
    const exercise* pending_x = nullptr;                 // the exercise index() is filling
    std::vector<std::optional<std::uint64_t>> pending;   // [students, its plans]; none = no such stage
    std::mutex switching;                                // held while index() moves to another exercise

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
        return compute_correct(numbers_for(x, options.request(student)).inputs);
    }
    const stage_values& cached(stage_cache& cache, const exercise* x, std::uint32_t student) const {
        auto it = cache.find({x, student});
        if (it == cache.end()) it = cache.emplace(std::make_pair(x, student), right_for(*x, students[student])).first;
        return it->second;
    }
    void plan_exercise(const exercise& x);
    std::pair<std::size_t, std::size_t> plans_of(const exercise* x) const;
    void flush();
    std::set<std::uint32_t> expected_hits(const plan& pl, const matrix& a, std::uint32_t who, stage_cache& cache) const;
    void weigh_part(std::uint32_t pi, std::uint32_t who, const grade_report& r, const submission& sub, stage_cache& cache,
                    evidence& ev);
    std::optional<copy_match> verdict(const evidence& ev) const;
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
        plan pl{&x, &p, {}, {}};
        pl.lesson = pl.of(own);
        std::vector<matrix> values;
        for (const auto& s : sample)
            if (auto m = pl.of(s)) values.push_back(std::move(*m));
        if (values.size() < 2 || values.size() != sample.size()) continue;
        pl.key = near_key::choose(values, tolerance{p.tol.rtol, std::max(p.tol.atol, rounding_slack)}, key_entries,
                                  mix_hash(std::hash<std::string>{}(x.id), std::hash<std::string>{}(p.id)));
        if (!pl.key.at.empty()) plans.push_back(std::move(pl));
    }
}

// The plans of x: [first, first + m) (m = 0 when x has none).
std::pair<std::size_t, std::size_t> copy_finder::impl::plans_of(const exercise* x) const {
    std::size_t first = 0, m = 0;
    while (first < plans.size() && plans[first].x != x) ++first;
    while (first + m < plans.size() && plans[first + m].x == x) ++m;
    return {first, m};
}

// The keys index() left for pending_x join the index, in student order.
void copy_finder::impl::flush() {
    if (!pending_x) return;
    const std::size_t m = plans_of(pending_x).second;
    for (std::size_t i = 0; i < students.size(); ++i)
        for (std::size_t k = 0; k < m; ++k)
            if (pending[i * m + k]) expected.add(*pending[i * m + k], static_cast<std::uint32_t>(i));
    pending_x = nullptr;
    std::vector<std::optional<std::uint64_t>>().swap(pending);
}

copy_finder::copy_finder(const exercise_set& set, const grade_options& options, const std::vector<std::string>& students)
    : impl_(std::make_unique<impl>(students)) {
    impl_->options = options;
    impl_->options.practice_ok = false;  // classmates' numbers, never the practice variant
    if (options.lesson_numbers || options.secret.empty() || students.size() < 2) return;
    for (const auto& id : options.exercise_ids) {
        const exercise* x = set.find(id);
        if (!x || !x->kind->numbers || !x->variant.enabled || x->setup.student_inputs) continue;
        impl_->plan_exercise(*x);
    }
}

bool copy_finder::indexes(const exercise& x) const { return impl_->plans_of(&x).second > 0; }

void copy_finder::index(const exercise& x, std::size_t who, const exercise_numbers& numbers) {
    impl& d = *impl_;
    const auto [first, m] = d.plans_of(&x);
    if (m == 0) return;
    {
        const std::lock_guard<std::mutex> hold(d.switching);  // the first call for x sets the slots up
        if (d.pending_x != &x) {
            d.flush();
            d.pending_x = &x;
            d.pending.assign(d.students.size() * m, std::nullopt);
        }
    }
    const stage_values& right = correct_of(numbers.inputs);  // the variant check's, on this thread
    for (std::size_t k = 0; k < m; ++k)
        if (auto e = d.plans[first + k].of(right)) d.pending[who * m + k] = d.plans[first + k].key.key(*e);
}

void copy_finder::seal() {
    impl_->flush();
    impl_->expected.seal();
}

copy_finder::~copy_finder() = default;

std::set<std::uint32_t> copy_finder::impl::expected_hits(const plan& pl, const matrix& a, std::uint32_t who,
                                                         stage_cache& cache) const {
    std::set<std::uint32_t> out;
    expected.visit(pl.key, a, max_candidates, [&](std::uint32_t s) {
        if (s == who) return;
        const auto m = pl.of(cached(cache, pl.x, s));
        if (m && m->shape() == a.shape() && all_close(a, *m, pl.key.tol)) out.insert(s);
    });
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
    if (!off || pr->placeholder || pr->own_rows || pr->explained || all_close(*a, *pl.lesson, pl.key.tol)) return;
    const auto mine = pl.of(cached(cache, pl.x, who));
    if (mine && mine->shape() == a->shape() && all_close(*a, *mine, pl.key.tol)) return;  // own numbers, rounded
    if (pr->mistake.empty()) {  // a named mistake is never evidence of a copy
        const auto from_numbers = expected_hits(pl, *a, who, cache);
        std::set<std::uint32_t> sources = from_numbers;
        for (auto t : submitted.close_to(pl.key, *a, pi, who, max_candidates)) sources.insert(t);
        for (auto t : sources) {
            source_tally& c = ev.by_source[t];
            ++c.parts;
            c.numbers += informative_numbers(*a);
            c.from_submission = c.from_submission && !from_numbers.count(t);
            c.exercises.insert(pl.x->id);
        }
    }
    submitted.keep(pl.key, who, pi, *a);
}

// The classmate most parts match (right answers before submissions on a tie), and for a mixed
// copy every other whose matched exercises are none of theirs, on the same evidence.
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
    const auto enough = [](const source_tally& c) { return c.numbers >= 8 && (c.parts >= 2 || (!c.from_submission && c.numbers >= 12)); };
    if (!best || !enough(*best)) return std::nullopt;
    copy_match m{students[best_id], best->from_submission, best->parts, ev.answered, {}};
    std::set<std::string> where = best->exercises;
    for (const auto& [t, c] : ev.by_source)
        if (&c != best && enough(c) && std::none_of(c.exercises.begin(), c.exercises.end(), [&](auto& e) { return where.count(e); })) {
            m.source += ", and of student " + students[t];
            m.parts += c.parts;
            where.insert(c.exercises.begin(), c.exercises.end());
        }
    for (const auto& id : options.exercise_ids)  // every plan's exercise is one of them
        if (where.count(id)) m.exercises.push_back(id);
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
    return fmt::format("{} {}: {} of {} numeric {} ({})",
                       m.from_submission ? "hands in the same numbers as student" : "matches the numbers of student", m.source,
                       m.parts, m.answered, m.answered == 1 ? "part" : "parts", fmt::join(m.exercises, ", "));
}

}  // namespace attn::grade
