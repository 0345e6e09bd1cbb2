// grade/variant.cpp — see variant.hpp.
#include "grade/variant.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "core/keyed_hash.hpp"
#include "core/prng.hpp"
#include "grade/secret.hpp"
#include "grade/variant_check.hpp"
#include "grade/variant_memo.hpp"
#include "io/input_read.hpp"
#include "grade/stage_words.hpp"

namespace attn::grade {

namespace sw = stage_word;

namespace {

std::string trim(const std::string& s, const char* ws) {
    const auto b = s.find_first_not_of(ws);
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// Refuses a secret that is guessable, unless the teacher accepts the risk (secret.hpp).
std::string checked_secret(std::string s, const std::string& from, bool guessable_ok) {
    const char* env = std::getenv("ATTN_ALLOW_GUESSABLE_SECRET");
    if (s.empty() || guessable_ok || (env && std::string(env) == "1")) return s;
    const std::string why = secret_weakness(s);
    if (!why.empty()) throw variant_error(from + ": " + why);
    return s;
}

}  // namespace

std::string exercise_numbers::seed_hex() const {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(seed));
    return buf;
}

std::string secret_from_text(const std::string& text) {
    return trim(text.substr(0, text.find('\n')), " \t\r\n");
}

std::string course_secret(const std::string& secret_file, bool guessable_ok) {
    if (!secret_file.empty()) {
        io::input_limits limits;
        limits.max_bytes = 64 * 1024;  // a secret is one line
        limits.what = "course secret file";
        const std::string text = io::read_input_file(secret_file, limits);
        const std::string bad = secret_encoding_problem(text);
        if (!bad.empty()) throw variant_error("the course secret file " + secret_file + " cannot be used: " + bad);
        const std::string s = secret_from_text(text);
        if (s.empty()) throw variant_error("the course secret file " + secret_file + " is empty (its first line is the secret)");
        return checked_secret(s, "the course secret file " + secret_file, guessable_ok);
    }
    const char* env = std::getenv("ATTN_COURSE_SECRET");
    return env ? checked_secret(secret_from_text(env), "ATTN_COURSE_SECRET", guessable_ok) : std::string();
}

std::string secret_fingerprint(const std::string& secret) {
    if (secret.empty()) return "";
    const std::string b = base32(keyed_hash(course_key(secret), {"attn-secret-fingerprint-v2"}), 8);
    return b.substr(0, 4) + "-" + b.substr(4);
}

std::string normalize_student_id(const std::string& id) {
    std::string s = trim(id, " \t\r\n\v\f");
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

std::uint64_t variant_seed(const std::string& secret, const std::string& student, const std::string& exercise_id) {
    return first_u64(keyed_hash(course_key(secret), {"attn-variant-seed-v2", exercise_id, normalize_student_id(student)}));
}

std::string variant_code(const std::string& secret, const std::string& student, const std::string& exercise_id) {
    return base32(keyed_hash(course_key(secret), {"attn-variant-code-v2", exercise_id, normalize_student_id(student)}), 6);
}

std::uint64_t practice_seed(const std::string& exercise_id) {  // a public key: anyone may compute them, which is the point
    const char* practice_key = "attn practice variants (public, not a course secret)";
    return first_u64(keyed_hash(course_key(practice_key), {"attn-practice-seed-v2", exercise_id}));
}

namespace {

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

// Lessons 20–22: a trained head on the sequence ids (lessons/model_head_inputs.hpp).
void model_inputs(const lessons::model_source& m, const std::vector<int>& ids, exercise_numbers& n) {
    lessons::head_numbers h = lessons::model_head_numbers(m, ids);
    std::tie(n.inputs.q, n.inputs.k, n.inputs.v, n.inputs.mask, n.inputs.other_heads) = std::tie(h.q, h.k, h.v, h.attend, h.others);
    n.inputs.model_tokens = ids;
    n.query_tokens = n.key_tokens = h.labels;
}

void lesson_inputs(const exercise& x, exercise_numbers& n) {
    const numeric_setup& s = x.setup;
    pipeline_inputs& in = n.inputs;
    in.q = s.q;
    in.k = s.k;
    in.v = s.v;
    in.encoder_q = s.encoder_q;
    in.mask = s.mask;
    in.bias = s.bias;
    in.masked_fill = s.masked_fill;
    in.scale = s.scale;
    in.softmax = s.softmax;
    in.cross = s.run_kind == "cross";
    in.window = s.window;
    in.window_causal = s.window_causal;
    in.grad_output = s.grad_output;  // lessons 15–19
    in.tile = s.tile;
    in.rope_base = s.rope_base;
    n.query_tokens = s.query_tokens;
    n.key_tokens = s.key_tokens;
    if (s.model) model_inputs(*s.model, s.model->tokens, n);  // lessons 20–22: the other heads too
}

// Draws from one PRNG stream until no catalogued mistake that applies gives the
// right answer of a part (then a wrong method could score full marks); bounded. With
// the draw count known (a class's memo), the same stream is replayed unchecked.
void draw_distinguishable(const exercise& x, std::uint64_t seed, exercise_numbers& n,
                          const std::optional<variant_draws>& known = std::nullopt) {
    prng rng(seed);
    for (int attempt = 0;; ++attempt) {
        if (x.setup.model) model_inputs(*x.setup.model, lessons::draw_model_input(*x.setup.model, rng, x.variant.lo, x.variant.hi), n);
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
        if (known && attempt < known->redraws) {
            ++n.redraws;
            continue;
        }
        n.distinguishable = known ? known->distinguishable
                                  : every_mistake_distinguishable(x, n.inputs) && !placeholder_right(x, n.inputs);
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

void draw_variant(const exercise& x, std::uint64_t seed, exercise_numbers& n) {
    lesson_inputs(x, n);
    draw_distinguishable(x, seed, n);
}

exercise_numbers numbers_for(const exercise& x, const variant_request& request) {
    exercise_numbers n;
    n.student = normalize_student_id(request.student);
    lesson_inputs(x, n);
    n.parameters = "the lesson's own numbers";
    if (!x.variant.enabled || request.lesson_numbers) return n;
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

}  // namespace attn::grade
