// grade/variant.cpp — see variant.hpp.
#include "grade/variant.hpp"

#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "core/prng.hpp"

namespace attn::grade {

std::string exercise_numbers::seed_hex() const {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(seed));
    return buf;
}

std::string course_secret(const std::string& secret_file) {
    if (!secret_file.empty()) {
        std::ifstream in(secret_file, std::ios::binary);
        if (!in) throw variant_error("cannot read the course secret file " + secret_file);
        std::string line;
        std::getline(in, line);
        const auto b = line.find_first_not_of(" \t\r\n");
        const auto e = line.find_last_not_of(" \t\r\n");
        if (b == std::string::npos) throw variant_error("the course secret file " + secret_file + " is empty (its first line is the secret)");
        return line.substr(b, e - b + 1);
    }
    const char* env = std::getenv("ATTN_COURSE_SECRET");
    return env ? std::string(env) : std::string();
}

std::uint64_t variant_seed(const std::string& secret, const std::string& student, const std::string& exercise_id) {
    return combine_seed({secret, student, exercise_id});
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

}  // namespace

exercise_numbers numbers_for(const exercise& x, const variant_request& request) {
    exercise_numbers n;
    n.student = request.student;
    const numeric_setup& s = x.setup;
    n.inputs.q = s.q;
    n.inputs.k = s.k;
    n.inputs.v = s.v;
    n.inputs.encoder_q = s.encoder_q;
    n.inputs.mask = s.mask;
    n.inputs.bias = s.bias;
    n.inputs.masked_fill = s.masked_fill;
    n.inputs.scale = s.scale;
    n.inputs.softmax = s.softmax;
    n.inputs.cross = s.run_kind == "cross";
    n.inputs.grad_output = s.grad_output;  // lessons 15–19
    n.inputs.tile = s.tile;
    n.inputs.rope_base = s.rope_base;
    n.inputs.window = s.window;
    n.inputs.window_causal = s.window_causal;
    n.query_tokens = s.query_tokens;
    n.key_tokens = s.key_tokens;
    n.parameters = "the lesson's own numbers";
    if (!x.variant.enabled || request.lesson_numbers) return n;
    if (!request.seed && request.student.empty()) return n;
    if (!request.seed && request.secret.empty())
        throw variant_error("exercise " + x.id + " gives every student their own numbers, which needs the course secret: "
                            "pass --secret-file FILE or set ATTN_COURSE_SECRET (or --no-variants for the lesson's numbers)");
    n.seed = request.seed ? *request.seed : variant_seed(request.secret, request.student, x.id);
    n.personal = true;
    n.parameters = x.variant.describe();
    prng rng(n.seed);
    const matrix* first = nullptr;  // with tie, every role copies the first one drawn
    for (const auto& role : x.variant.vary) {  // in the teacher's order: the order is part of the variant
        matrix* m = role == "q" ? &n.inputs.q : role == "k" ? &n.inputs.k : role == "v" ? &n.inputs.v : nullptr;
        if (x.variant.tie && first && m) {
            *m = *first;
            continue;
        }
        if (m && x.variant.tie) {
            redraw(*m, rng, x.variant);
            first = m;
            continue;
        }
        if (role == "q") redraw(n.inputs.q, rng, x.variant);
        else if (role == "k") redraw(n.inputs.k, rng, x.variant);
        else if (role == "v") redraw(n.inputs.v, rng, x.variant);
        else if (role == "encoder_q" && n.inputs.encoder_q) redraw(*n.inputs.encoder_q, rng, x.variant);
    }
    return n;
}

}  // namespace attn::grade
