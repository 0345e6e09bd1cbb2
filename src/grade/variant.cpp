// grade/variant.cpp — see variant.hpp.
#include "grade/variant.hpp"

#include <algorithm>
#include <cmath>

#include "core/keyed_hash.hpp"
#include "core/parallel_for.hpp"
#include "core/prng.hpp"
#include "grade/variant_check.hpp"
#include "io/text_fold.hpp"

namespace attn::grade {

namespace sw = stage_word;

std::string normalize_student_id(const std::string& id) { return io::ascii_lower(io::trimmed(id, " \t\r\n\v\f")); }

namespace {

// course_key(secret), kept per thread for the next call with the same secret (a class asks
// for it twice per student and exercise: seed and code).
const std::array<unsigned char, 32>& variant_key(const std::string& secret) {
    thread_local std::string last_secret;
    thread_local std::array<unsigned char, 32> last_key{};
    thread_local bool known = false;
    if (!known || last_secret != secret) {
        last_key = course_key(secret);
        last_secret = secret;
        known = true;
    }
    return last_key;
}

}  // namespace

std::uint64_t variant_seed(const std::string& secret, const std::string& student, const std::string& exercise_id) {
    return first_u64(keyed_hash(variant_key(secret), {"attn-variant-seed-v2", exercise_id, normalize_student_id(student)}));
}

std::string variant_code(const std::string& secret, const std::string& student, const std::string& exercise_id) {
    return base32(keyed_hash(variant_key(secret), {"attn-variant-code-v2", exercise_id, normalize_student_id(student)}), 6);
}

namespace {

std::uint64_t practice_seed(const std::string& exercise_id) {  // a public key: anyone may compute them, which is the point
    const char* practice_key = "attn practice variants (public, not a course secret)";
    return first_u64(keyed_hash(course_key(practice_key), {"attn-practice-seed-v2", exercise_id}));
}

// Row-major draws; a row of all zeros is drawn again (a zero query or key makes
// every score 0 and hides most mistakes), deterministically from the same stream.
void redraw(matrix& m, prng& rng, const variant_spec& v) {
    for (std::size_t i = 0; i < m.shape(0); ++i) {
        for (int attempt = 0; attempt < 16; ++attempt) {
            bool any = false;
            for (std::size_t j = 0; j < m.shape(1); ++j) {
                m(i, j) = v.values == "integers"
                              ? static_cast<double>(rng.uniform_int(static_cast<std::int64_t>(std::ceil(v.lo)),
                                                                    static_cast<std::int64_t>(std::floor(v.hi))))
                              : rng.pick_halves(v.lo, v.hi);
                any = any || m(i, j) != 0.0;
            }
            if (any) break;
        }
    }
}

// Lessons 20–22: a trained head on the sequence ids (lessons/model_head_inputs.hpp),
// kept for the next student when the exercise's inputs repeat in a class.
void model_inputs(const lessons::model_source& m, const std::vector<int>& ids, exercise_numbers& n, bool keep = true) {
    lessons::head_numbers h = lessons::model_head_numbers(m, ids, keep);
    std::tie(n.inputs.q, n.inputs.k, n.inputs.v, n.inputs.mask, n.inputs.other_heads) = std::tie(h.q, h.k, h.v, h.attend, h.others);
    n.inputs.model_tokens = ids;
    n.query_tokens = n.key_tokens = h.labels;
}

// Whether a model exercise's draws repeat in a class: lessons 20 and 22 draw 6 digits of
// {0, 1, 2} (729 sequences) and keep their heads' numbers; lesson 21's space is too large
// for any student's to come again.
bool inputs_repeat(const exercise& x) {
    const auto& m = *x.setup.model;
    const double drawn = static_cast<double>(m.drawn ? m.drawn : m.tokens.size() - m.keep);
    return std::pow(std::floor(x.variant.hi) - std::ceil(x.variant.lo) + 1.0, drawn) <= 4096.0;
}

// Lessons 20–22: the input ids told apart by every exercise drawn on it with x
// (exercise::same_input), each on its own head.
bool partners_distinguishable(const exercise& x, const std::vector<int>& ids) {
    exercise_numbers pn;
    for (const exercise& p : x.same_input)
        if (pn.inputs = p.setup, model_inputs(*p.setup.model, ids, pn, inputs_repeat(x)); variant_fault(p, pn.inputs))
            return false;
    return true;
}

// Whether x draws numbers into q, k, v or encoder_q (a model exercise draws its tokens only).
bool draws_roles(const exercise& x) {
    return std::any_of(x.variant.vary.begin(), x.variant.vary.end(), [](const std::string& role) {
        return role == sw::q() || role == sw::k() || role == sw::v() || role == "encoder_q";
    });
}

// Draws from one PRNG stream until no catalogued mistake that applies gives the
// right answer of a part (then a wrong method could score full marks); bounded. With
// the draw count known (a class's memo), the same stream is replayed unchecked.
void draw_distinguishable(const exercise& x, std::uint64_t seed, exercise_numbers& n,
                          const std::optional<variant_draws>& known = std::nullopt) {
    prng rng(seed);
    const bool roles = draws_roles(x);
    for (int attempt = 0;; ++attempt) {
        // A draw the class's memo says was refused is only read off the stream again: its
        // head's numbers are needed only when roles are drawn on their shapes.
        const bool replayed = known && attempt < known->redraws;
        if (x.setup.model) {
            const std::vector<int> ids = lessons::draw_model_input(*x.setup.model, rng, x.variant.lo, x.variant.hi);
            if (!replayed || roles) model_inputs(*x.setup.model, ids, n, inputs_repeat(x));
        }
        const matrix* first = nullptr;  // with tie, every role copies the first one drawn
        for (const auto& role : x.variant.vary) {  // in the teacher's order: the order is part of the variant
            matrix* m = role == sw::q() ? &n.inputs.q : role == sw::k() ? &n.inputs.k : role == sw::v() ? &n.inputs.v
                      : role == "encoder_q" && n.inputs.encoder_q ? &*n.inputs.encoder_q : nullptr;
            if (!m) continue;
            if (x.variant.tie && first && role != "encoder_q") {
                *m = *first;
                continue;
            }
            redraw(*m, rng, x.variant);
            if (x.variant.tie && role != "encoder_q") first = m;
        }
        if (replayed) {
            ++n.redraws;
            continue;
        }
        n.distinguishable = known ? known->distinguishable
                                  : !variant_fault(x, n.inputs) && partners_distinguishable(x, n.inputs.model_tokens);
        if (attempt >= 63 || n.distinguishable || known) return;
        ++n.redraws;
    }
}

// The id a variant's seed is drawn under: the exercise's own, or (lessons 20–22) the one
// whose input it shares (model_source::same_input_as).
const std::string& seed_id(const exercise& x) {
    return x.setup.model && !x.setup.model->same_input_as.empty() ? x.setup.model->same_input_as : x.id;
}

}  // namespace

exercise_numbers numbers_for(const exercise& x, const variant_request& request) {
    exercise_numbers n;
    n.student = normalize_student_id(request.student);
    n.inputs = x.setup;  // its pipeline_inputs part
    n.inputs.cross = x.setup.run_kind == "cross";
    n.query_tokens = x.setup.query_tokens;
    n.key_tokens = x.setup.key_tokens;
    n.parameters = "the lesson's own numbers";
    if (!x.variant.enabled || request.lesson_numbers) {
        // Lessons 20–22: the head on the lesson's own sequence (a drawn one is run only once, below).
        if (x.setup.model) model_inputs(*x.setup.model, x.setup.model->tokens, n);
        return n;
    }
    if (request.seed) {
        if (request.secret.empty())
            throw variant_error("--seed regenerates a student's numbers only together with the course secret "
                                "(--secret-file FILE or ATTN_COURSE_SECRET)");
        n.seed = *request.seed;
        n.personal = true;
    } else if (!request.secret.empty() && !n.student.empty()) {
        n.seed = variant_seed(request.secret, n.student, seed_id(x));
        n.code = variant_code(request.secret, n.student, seed_id(x));
        n.personal = true;
    } else if (request.practice_ok) {
        n.seed = practice_seed(seed_id(x));
        n.code = "practice";
        n.practice = true;
    } else {
        throw variant_error("exercise " + x.id + " gives every student their own numbers, which needs the course secret: "
                            "pass --secret-file FILE or set ATTN_COURSE_SECRET (or --no-variants for the lesson's numbers)");
    }
    n.parameters = n.practice ? "practice variant, " + x.variant.describe() : x.variant.describe();
    const bool learnt = request.memo && !request.seed && n.personal;
    draw_distinguishable(x, n.seed, n, learnt ? request.memo->find(x.id, n.seed) : std::nullopt);
    return n;
}

// The class's memo: see variant.hpp.
constexpr std::uint8_t not_distinguishable = 0x80;  // in a draws byte

namespace {

// Whether x and p (same_input_as partners) read one stream of token draws alike: one
// seed, the same drawing rules, no roles drawn on the heads' shapes, and a continuation
// that does not depend on which model runs it.
bool draws_alike(const exercise& x, const exercise& p) {
    if (!x.setup.model || !p.setup.model || seed_id(x) != seed_id(p) || draws_roles(x) || draws_roles(p)) return false;
    const auto &a = *x.setup.model, &b = *p.setup.model;
    return a.tokens == b.tokens && a.keep == b.keep && a.drawn == b.drawn && a.then == b.then &&
           (a.then != "greedy" || a.model == b.model) && x.variant.lo == p.variant.lo && x.variant.hi == p.variant.hi;
}

}  // namespace

// A draw of x is kept when neither x's check nor any partner's refuses it (draw_distinguishable):
// a partner learnt with the same set of checks and the same draws has x's table already.
const variant_memo::table* variant_memo::partner_table(const exercise& x, const std::vector<std::string>& checked) const {
    for (const exercise& p : x.same_input) {
        const auto it = by_exercise_.find(p.id);
        if (it != by_exercise_.end() && it->second.checked == checked && draws_alike(x, p)) return &it->second;
    }
    return nullptr;
}

void variant_memo::learn(const exercise& x, const std::string& secret, const std::vector<std::string>& students,
                         const learnt_numbers& each) {
    if (secret.empty() || !x.variant.enabled) return;
    std::vector<std::string> checked{x.id};
    for (const exercise& p : x.same_input) checked.push_back(p.id);
    std::sort(checked.begin(), checked.end());
    const table* shared = partner_table(x, checked);  // lessons 20–22: drawn and checked with its partner already
    if (shared) by_exercise_[x.id] = table(*shared);
    if (shared && !each) return;
    std::vector<std::pair<std::uint64_t, std::uint8_t>> learnt(students.size());  // [students] (seed, draws)
    parallel_for(students.size(), threads_from_env("ATTN_GRADE_THREADS"), [&](std::size_t i) {
        variant_request req;  // with a partner's table: x's own numbers on the kept draws, replayed unchecked
        std::tie(req.student, req.secret, req.practice_ok, req.memo) = std::make_tuple(students[i], secret, false, shared ? this : nullptr);
        const exercise_numbers n = numbers_for(x, req);
        learnt[i] = {n.seed, static_cast<std::uint8_t>(std::min(n.redraws, 0x7f) | (n.distinguishable ? 0 : not_distinguishable))};
        if (each) each(i, n);
    });
    if (shared) return;
    std::sort(learnt.begin(), learnt.end());  // by seed, for the binary search in find()
    table t;
    t.checked = std::move(checked);
    for (const auto& [seed, d] : learnt) t.seeds.push_back(seed), t.draws.push_back(d);
    by_exercise_[x.id] = std::move(t);
}

std::optional<variant_draws> variant_memo::find(const std::string& exercise_id, std::uint64_t seed) const {
    const auto it = by_exercise_.find(exercise_id);
    if (it == by_exercise_.end()) return std::nullopt;
    const table& t = it->second;
    const auto at = std::lower_bound(t.seeds.begin(), t.seeds.end(), seed);
    if (at == t.seeds.end() || *at != seed) return std::nullopt;
    const std::uint8_t d = t.draws[static_cast<std::size_t>(at - t.seeds.begin())];
    return variant_draws{d & 0x7f, (d & not_distinguishable) == 0};
}

}  // namespace attn::grade
