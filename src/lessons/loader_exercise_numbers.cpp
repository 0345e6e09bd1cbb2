// lessons/loader_exercise_numbers.cpp — where a numeric exercise's numbers come from
// (lessons/exercise_numbers.hpp): which run or matrices, the changes it makes to them
// (rows, masks, scale, no softmax, lessons 15–19's extras), a trained head, and how
// per-student variants are drawn. Read when the exercise names them, whatever its kind;
// a numeric exercise without them is the grader's error (grade/exercise.cpp).
#include <cmath>

#include "core/mask.hpp"
#include "core/window.hpp"
#include "lessons/loader_internal.hpp"
#include "lessons/model_source_reader.hpp"
#include "core/stages.hpp"

namespace attn::lessons::detail {

namespace sw = stage_word;

const matrix* exercise_reader::named_matrix(const toml::table& t, const std::string& key) {
    auto name = rd.string(t, key, false);
    if (!name) return nullptr;
    auto it = l.matrices.find(*name);
    if (it == l.matrices.end()) {
        rd.fail(t.get(key), "'" + key + "' names matrix '" + *name + "', which the lesson does not define");
        return nullptr;
    }
    return &it->second;
}

// student_inputs = true: the student picks Q, K and V of the asked shapes.
bool exercise_reader::read_student_inputs(const toml::table& t, numeric_setup& s) {
    const std::size_t before = rd.problems->size();
    const toml::node* sh = t.get("shapes");
    const toml::table* st = sh ? sh->as_table() : nullptr;
    if (!st) {
        rd.fail(sh ? sh : &t,
                "student_inputs needs [exercise.shapes] with q = [n_q, d_k], k = [n_k, d_k], v = [n_k, d_v]");
        return false;
    }
    for (const std::string& role : {sw::q(), sw::k(), sw::v()}) {
        const toml::node* n = st->get(role);
        auto dims = n ? rd.numbers(n, std::string("shapes.") + role) : std::nullopt;
        if (!n) rd.fail(st, std::string("shapes.") + role + " is missing (expected [rows, columns])");
        if (!dims) continue;
        if (dims->size() != 2 || (*dims)[0] < 1 || (*dims)[1] < 1 || (*dims)[0] > 64 || (*dims)[1] > 64) {
            rd.fail(n, std::string("shapes.") + role + " must be [rows, columns] with sizes 1..64");
            continue;
        }
        s.input_shapes[role] = {static_cast<std::size_t>((*dims)[0]), static_cast<std::size_t>((*dims)[1])};
    }
    if (s.input_shapes.size() == 3) {
        const auto &q = s.input_shapes[sw::q()], &k = s.input_shapes[sw::k()], &v = s.input_shapes[sw::v()];
        if (q[1] != k[1]) rd.fail(st, "shapes: q and k must have the same number of columns (d_k)");
        if (k[0] != v[0]) rd.fail(st, "shapes: k and v must have the same number of rows (n_k)");
        s.q = matrix({q[0], q[1]}, 0.0);  // [n_q, d_k], zeros until the student's own are read
        s.k = matrix({k[0], k[1]}, 0.0);  // [n_k, d_k]
        s.v = matrix({v[0], v[1]}, 0.0);  // [n_k, d_v]
    }
    s.query_tokens = rd.strings(t, "query_tokens", false).value_or(std::vector<std::string>{});
    s.key_tokens = rd.strings(t, "key_tokens", false).value_or(std::vector<std::string>{});
    if (!s.query_tokens.empty() && s.query_tokens.size() != s.q.shape(0))
        rd.fail(t.get("query_tokens"), "query_tokens must name one token per row of q");
    if (!s.key_tokens.empty() && s.key_tokens.size() != s.k.shape(0))
        rd.fail(t.get("key_tokens"), "key_tokens must name one token per row of k");
    s.run_kind = rd.string(t, "attention", false).value_or("cross");
    return rd.problems->size() == before;
}

// run = "name": a run of the lesson, with everything the loader computed it with.
bool exercise_reader::read_run(const toml::table& t, const std::string& run, numeric_setup& s) {
    auto it = l.runs.find(run);
    if (it == l.runs.end()) {
        std::string have;
        for (const auto& r : l.run_order) have += (have.empty() ? "" : ", ") + r;
        rd.fail(t.get("run"), "'run' names run '" + run + "', which the lesson does not have (runs: " + have + ")");
        return false;
    }
    const attention_run& r = it->second;
    s.run = run;
    s.run_kind = r.kind;
    s.q = r.steps.q;
    s.k = r.steps.k;
    s.v = r.steps.v;
    bool any_blocked = false;
    for (bool b : r.steps.attend) any_blocked = any_blocked || !b;
    if (any_blocked) s.mask = r.steps.attend;
    static_cast<trace::run_labels&>(s) = r.labels;
    // What the loader applied beyond the mask (which steps.attend already holds).
    s.masked_fill = r.options.masked_fill;
    if (r.options.scale_divisor) s.scale = r.steps.scale;
    s.bias = r.options.bias;
    return true;
}

// q, k and v named among the lesson's matrices; absent when they are not all named.
setup_state exercise_reader::read_named_inputs(const toml::table& t, numeric_setup& s, std::size_t before) {
    const matrix* q = named_matrix(t, sw::q());
    const matrix* k = named_matrix(t, sw::k());
    const matrix* v = named_matrix(t, sw::v());
    if (!q || !k || !v) return rd.problems->size() == before ? setup_state::absent : setup_state::broken;
    s.q = *q;
    s.k = *k;
    s.v = *v;
    s.run_kind = rd.string(t, "attention", false).value_or("self");
    for (std::size_t i = 0; i < s.q.shape(0); ++i) s.query_tokens.push_back("t" + std::to_string(i));
    for (std::size_t i = 0; i < s.k.shape(0); ++i) s.key_tokens.push_back("t" + std::to_string(i));
    return setup_state::read;
}

// Read whatever the exercise's kind: the grader refuses a numeric exercise whose
// numbers are absent or broken, and ignores them on the other kinds.
setup_state exercise_reader::read_setup(const toml::table& t, numeric_setup& s) {
    const std::size_t before = rd.problems->size();
    const auto state = [&] { return rd.problems->size() == before ? setup_state::read : setup_state::broken; };
    if (auto si = rd.boolean(t, "student_inputs", false)) s.student_inputs = *si;
    if (s.student_inputs) return read_student_inputs(t, s) ? setup_state::read : setup_state::broken;
    if (t.get("model"))  // lessons 20–22: a trained head
        return read_model(t, s) ? setup_state::read : setup_state::broken;
    if (auto run = rd.string(t, "run", false)) {
        if (!read_run(t, *run, s)) return setup_state::broken;
    } else if (const setup_state named = read_named_inputs(t, s, before); named != setup_state::read) {
        return named;
    }
    if (s.q.shape(1) != s.k.shape(1) || s.k.shape(0) != s.v.shape(0)) {
        rd.fail(&t, "q, k and v do not chain: q " + std::to_string(s.q.shape(0)) + "×" + std::to_string(s.q.shape(1)) +
                        ", k " + std::to_string(s.k.shape(0)) + "×" + std::to_string(s.k.shape(1)) + ", v " +
                        std::to_string(s.v.shape(0)) + "×" + std::to_string(s.v.shape(1)));
        return setup_state::broken;
    }
    if (auto toks = rd.strings(t, "query_tokens", false)) s.query_tokens = *toks;
    if (auto toks = rd.strings(t, "key_tokens", false)) s.key_tokens = *toks;
    if (const matrix* eq = named_matrix(t, "encoder_q")) {
        if (eq->shape(1) != s.k.shape(1) || eq->shape(0) != s.k.shape(0))
            rd.fail(t.get("encoder_q"), "encoder_q must have the shape of k (one query per encoder token)");
        else s.encoder_q = *eq;
    }
    read_overrides(t, s);
    read_extras(t, s);  // lessons 15–19: grad, tile, rope, window
    if (s.query_tokens.size() != s.q.shape(0)) s.query_tokens.resize(s.q.shape(0), "?");
    if (s.key_tokens.size() != s.k.shape(0)) s.key_tokens.resize(s.k.shape(0), "?");
    return state();
}

// q_rows: a subset of the queries (their mask and bias rows with them).
void exercise_reader::keep_rows(const std::vector<std::size_t>& rows, numeric_setup& s) {
    matrix q({rows.size(), s.q.shape(1)});  // [len(rows), d_k]
    std::vector<std::string> toks;
    std::optional<bool_matrix> mask;
    if (s.mask) mask = bool_matrix({rows.size(), s.k.shape(0)});  // [len(rows), n_k]
    std::optional<matrix> bias;
    if (s.bias) bias = matrix({rows.size(), s.k.shape(0)});  // [len(rows), n_k]
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::size_t i = rows[r];
        for (std::size_t j = 0; j < s.q.shape(1); ++j) q(r, j) = s.q(i, j);
        for (std::size_t j = 0; j < s.k.shape(0); ++j) {
            if (mask) (*mask)(r, j) = (*s.mask)(i, j);
            if (bias) (*bias)(r, j) = (*s.bias)(i, j);
        }
        if (i < s.query_tokens.size()) toks.push_back(s.query_tokens[i]);
    }
    s.q = q;
    s.mask = mask;
    s.bias = bias;
    s.query_tokens = toks;
}

// Overrides of the run: a subset of queries, extra masks, the scale, no softmax.
void exercise_reader::read_overrides(const toml::table& t, numeric_setup& s) {
    if (auto rows = rd.indices(t, "q_rows", s.q.shape(0), s.query_tokens); rows && !rows->empty()) keep_rows(*rows, s);
    if (auto pads = rd.indices(t, "pad_keys", s.k.shape(0), s.key_tokens); pads && !pads->empty()) {
        std::vector<bool> is_pad(s.k.shape(0), false);  // [n_k]
        for (auto j : *pads) is_pad[j] = true;
        const bool_matrix pm = padding_mask(s.q.shape(0), is_pad);
        s.mask = s.mask ? combine_masks(*s.mask, pm) : pm;
    }
    if (auto padq = rd.indices(t, "pad_queries", s.q.shape(0), s.query_tokens); padq && !padq->empty()) {
        // A padding query may see no key at all: its row is fully blocked (weights 0, never NaN).
        bool_matrix m = s.mask ? *s.mask : full_mask(s.q.shape(0), s.k.shape(0));
        for (auto i : *padq)
            for (std::size_t j = 0; j < s.k.shape(0); ++j) m(i, j) = false;
        s.mask = m;
    }
    if (auto c = rd.boolean(t, "causal", false); c && *c) {
        const bool_matrix cm = causal_mask(s.q.shape(0), s.k.shape(0));
        s.mask = s.mask ? combine_masks(*s.mask, cm) : cm;
    }
    if (auto sc = rd.number(t, sw::scale(), false)) {
        if (*sc <= 0) rd.fail(t.get(sw::scale()), "'scale' must be positive (1 = no scaling)");
        else s.scale = *sc;
    }
    if (auto sm = rd.boolean(t, "softmax", false)) s.softmax = *sm;
}

void exercise_reader::read_extras(const toml::table& t, numeric_setup& s) {
    if (const matrix* g = named_matrix(t, "grad")) {
        if (g->shape(0) != s.q.shape(0) || g->shape(1) != s.v.shape(1))
            rd.fail(t.get("grad"), "'grad' (dL/dO) must have the output's shape " + std::to_string(s.q.shape(0)) + "×" +
                                       std::to_string(s.v.shape(1)));
        else s.grad_output = *g;
    }
    if (auto n = rd.integer(t, "tile", false, 1, 4096)) s.tile = static_cast<std::size_t>(*n);  // keys per block
    if (const toml::node* r = t.get("rope")) {
        if (r->is_boolean() && *r->value<bool>()) s.rope_base = 10000.0;
        else if (r->is_number() && io::toml_number(*r) > 1.0) s.rope_base = io::toml_number(*r);
        else rd.fail(r, "'rope' must be true (base 10000) or the base, a number > 1");
        if (s.q.shape(1) % 2 != 0) rd.fail(r, "'rope' turns pairs of columns: d_k must be even");
    }
    if (auto w = rd.integer(t, "window", false, 0, 4096)) {
        s.window = static_cast<std::size_t>(*w);
        s.window_causal = s.run_kind == "causal" || rd.boolean(t, "causal", false).value_or(false);
        const bool_matrix wm = window_mask(s.q.shape(0), s.k.shape(0), *s.window, s.window_causal);
        s.mask = s.mask ? combine_masks(*s.mask, wm) : wm;
    }
}

bool exercise_reader::read_model(const toml::table& t, numeric_setup& s) {
    if (!(s.model = read_model_source(t, rd))) return false;
    const head_numbers h = model_head_numbers(*s.model, s.model->tokens);
    std::tie(s.q, s.k, s.v, s.mask, s.query_tokens, s.key_tokens, s.run_kind) =
        std::tie(h.q, h.k, h.v, h.attend, h.positions, h.positions, "causal");  // a student's labels differ
    s.rope_base = h.rope_base;  // a rotary head: the student turns q and k (lesson 23)
    return true;
}

void exercise_reader::read_variant(const toml::table& t, exercise_decl& x) {
    const toml::node* n = t.get("variant");
    if (!n) return;
    const toml::table* vt = n->as_table();
    if (!vt) return rd.fail(n, "'variant' must be a table ([exercise.variant])");
    variant_spec& v = x.variant;
    v.enabled = true;  // only numeric exercises on lesson numbers have one (the grader says so to the others)
    if (x.numbers != setup_state::read || x.setup.student_inputs) return;
    v.vary = rd.strings(*vt, "vary", true).value_or(std::vector<std::string>{});
    for (const auto& role : v.vary)
        if (role == "tokens" && x.setup.model) continue;  // the model's input (lessons/model_head_inputs.hpp)
        else if (role != sw::q() && role != sw::k() && role != sw::v() && role != "encoder_q")
            rd.fail(vt->get("vary"), "'vary' entries are q, k, v or encoder_q, found '" + role + "'");
        else if (role == "encoder_q" && !x.setup.encoder_q)
            rd.fail(vt->get("vary"), "'vary' names encoder_q but the exercise has no encoder_q matrix");
    v.tie = rd.boolean(*vt, "tie", false).value_or(false);
    if (v.tie) {
        const auto& s = x.setup;
        for (const auto& role : v.vary) {
            const matrix& m = role == sw::q() ? s.q : role == sw::k() ? s.k : role == sw::v() ? s.v : s.q;
            if (m.shape() != s.q.shape()) rd.fail(vt->get("tie"), "'tie' needs every varied matrix to have one shape");
        }
    }
    v.values = rd.string(*vt, "values", false).value_or("halves");
    if (v.values != "halves" && v.values != "integers")
        rd.fail(vt->get("values"), "'values' must be halves or integers, found '" + v.values + "'");
    if (const toml::node* r = vt->get("range")) {
        auto lohi = rd.numbers(r, "'range'");
        if (lohi && (lohi->size() != 2 || (*lohi)[0] > (*lohi)[1] || (*lohi)[1] - (*lohi)[0] > 20))
            rd.fail(r, "'range' must be [lo, hi] with lo ≤ hi and hi − lo ≤ 20 "
                       "(small numbers keep hand work tractable)");
        else if (lohi) {
            v.lo = (*lohi)[0];
            v.hi = (*lohi)[1];
        }
    }
}

}  // namespace attn::lessons::detail
