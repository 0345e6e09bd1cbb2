// trace/trace_run.cpp — see trace_run.hpp. Per batch item: the recipe's projections
// (X·W in double, as the reference does) and its fast path over every head
// (core/recipe.hpp); then the stages read back row by row.
#include "trace/trace_run.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include <xtensor/xview.hpp>

#include "core/error.hpp"
#include "core/internal_error.hpp"
#include "io/terminal_safe.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

namespace {

template <class T>
const run_data<T>& data_of(const trace_run& r);
template <>
const run_data<double>& data_of<double>(const trace_run& r) {
    if (!r.data64) throw internal_error("trace run: read as float64 but computed in float32");
    return *r.data64;
}
template <>
const run_data<float>& data_of<float>(const trace_run& r) {
    if (!r.data32) throw internal_error("trace run: read as float32 but computed in float64");
    return *r.data32;
}

// Every head of one batch item through the recipe's fast path; appends to d.heads
// (and d.attn_out) and to the run's extras.
template <class T>
void run_batch_item(trace_run& r, std::size_t b, const trace_run_options& opt, fast_steps<T>& ws, run_data<T>& d) {
    const io::trace_inputs& in = r.inputs;
    projected_qkv p;  // [n_q, H·d_head], [n_k, G·d_head], [n_k, G·d_head_v]
    if (in.projected) p = project_qkv(in.x[b], in.kind == "cross" ? in.x_src[b] : in.x[b], in.w_q, in.w_k, in.w_v);
    else p = {in.q[b], in.k[b], in.v[b]};
    fast_recipe_options f;
    f.keep = opt.one_query ? keep_mode::one_query : keep_mode::all_stages;
    f.query = opt.one_query.value_or(0);
    f.threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    fast_matrix<T> out_sum;  // [n_q, d_model]
    fast_recipe(p.q, p.k, p.v, recipe_options_of(in, b), f, ws, d.heads, r.extras.heads, out_sum);
    if (r.has_result) d.attn_out.push_back(std::move(out_sum));
}

template <class T>
void run_all(trace_run& r, const trace_run_options& opt, std::shared_ptr<run_data<T>>& slot) {
    slot = std::make_shared<run_data<T>>();
    slot->heads.reserve(r.batch * r.heads);
    fast_steps<T> ws;  // one workspace for every head
    for (std::size_t b = 0; b < r.batch; ++b) run_batch_item(r, b, opt, ws, *slot);
}

template <class T>
double value_of(const trace_run& r, stage s, std::size_t b, std::size_t h, std::size_t i, std::size_t j) {
    std::vector<T> scratch(r.cols(s));
    return static_cast<double>(stage_row<T>(r, s, b, h, i, scratch.data())[j]);
}

template <class T>
attention_steps steps_of(const trace_run& r, std::size_t b, std::size_t h) {
    const head_data<T>& hd = data_of<T>(r).heads.at(b * r.heads + h);
    const std::size_t rows = hd.scores_raw.shape(0), n_k = r.n_k();
    const std::size_t first = r.one_query.value_or(0);
    attention_steps s;
    s.q = xt::cast<double>(r.one_query ? fast_matrix<T>(xt::view(hd.q, xt::range(first, first + 1), xt::all())) : hd.q);
    s.k = xt::cast<double>(hd.k);
    s.v = xt::cast<double>(hd.v);
    s.scale = static_cast<double>(hd.scale);
    s.scores_raw = xt::cast<double>(hd.scores_raw);
    s.weights = xt::cast<double>(hd.weights);
    s.output = xt::cast<double>(hd.z);
    s.row_fully_masked = hd.fully_masked;
    s.scores_scaled = matrix({rows, n_k});
    s.scores_masked = matrix({rows, n_k});
    s.attend = bool_matrix({rows, n_k});
    std::vector<T> scratch(n_k);
    for (std::size_t i = 0; i < rows; ++i) {
        const T* sc = stage_row<T>(r, stage::scores_scaled, b, h, i, scratch.data());
        for (std::size_t j = 0; j < n_k; ++j) s.scores_scaled(i, j) = static_cast<double>(sc[j]);
        const T* m = stage_row<T>(r, stage::scores_masked, b, h, i, scratch.data());
        for (std::size_t j = 0; j < n_k; ++j) {
            s.scores_masked(i, j) = static_cast<double>(m[j]);
            s.attend(i, j) = r.attends(b, first + i, j);
        }
    }
    return s;
}

}  // namespace

trace_run run_trace(const io::trace_inputs& in, const trace_run_options& opt) {
    trace_run r;
    r.inputs = in;
    r.batch = in.batch;
    r.heads = in.heads;
    r.dtype = opt.dtype;
    r.one_query = opt.one_query;
    r.labels.title = in.title;
    r.labels.query_tokens = in.query_tokens;
    r.labels.key_tokens = in.key_tokens;
    if (in.kind == "cross") {
        r.labels.query_side = "queries (target)";
        r.labels.key_side = "keys (source)";
    }
    r.has_result = in.w_o.has_value();
    if (opt.dtype == trace_dtype::float64) run_all(r, opt, r.data64);
    else run_all(r, opt, r.data32);
    return r;
}

template <class T>
const T* stage_row(const trace_run& r, stage s, std::size_t b, std::size_t h, std::size_t i, T* scratch) {
    const run_data<T>& d = data_of<T>(r);
    const head_data<T>& hd = d.heads[b * r.heads + h];
    const std::size_t n_k = r.n_k();
    switch (s) {
        case stage::q: return hd.q.data() + i * hd.q.shape(1);
        case stage::k: return hd.k.data() + i * hd.k.shape(1);
        case stage::v: return hd.v.data() + i * hd.v.shape(1);
        case stage::scores_raw: return hd.scores_raw.data() + i * n_k;
        case stage::scores_scaled: {
            const T* raw = hd.scores_raw.data() + i * n_k;
            for (std::size_t j = 0; j < n_k; ++j) scratch[j] = raw[j] / hd.scale;
            return scratch;
        }
        case stage::scores_masked: {
            // As fast_steps::masked and the reference: scaled + bias, −inf where blocked.
            const std::size_t qi = r.one_query.value_or(0) + i;
            const T* raw = hd.scores_raw.data() + i * n_k;
            const bool* attend = r.inputs.has_mask ? r.inputs.attend[b].data() + qi * n_k : nullptr;
            const T* bias = hd.bias.size() ? hd.bias.data() + qi * n_k : nullptr;
            for (std::size_t j = 0; j < n_k; ++j) {
                if (attend && !attend[j]) {
                    scratch[j] = -std::numeric_limits<T>::infinity();
                    continue;
                }
                T x = raw[j] / hd.scale;
                if (bias) x += bias[j];
                scratch[j] = x;
            }
            return scratch;
        }
        case stage::weights: return hd.weights.data() + i * n_k;
        case stage::z: return hd.z.data() + i * hd.z.shape(1);
        case stage::result: return hd.result.data() + i * hd.result.shape(1);
        case stage::attn_out: return d.attn_out.at(b).data() + i * d.attn_out[b].shape(1);
        case stage::rot_q: case stage::rot_k: case stage::tiled_running_max: case stage::tiled_running_sum:
        case stage::tiled_correction: case stage::tiled_partial_output: case stage::tiled_z: case stage::grad_z:
        case stage::grad_v:
        case stage::grad_pattern: case stage::grad_attn_scores: case stage::grad_attn_scores_raw: case stage::grad_q:
        case stage::grad_k:
            break;  // the extras keep their own matrices (trace_extras.hpp)
    }
    throw internal_error(std::string("stage_row: ") + stage_info_of(s).hook + " is not a forward stage");
}

template const double* stage_row<double>(const trace_run&, stage, std::size_t, std::size_t, std::size_t, double*);
template const float* stage_row<float>(const trace_run&, stage, std::size_t, std::size_t, std::size_t, float*);

double trace_run::scale() const {
    return data64 ? data64->heads.at(0).scale : static_cast<double>(data32->heads.at(0).scale);
}

bool trace_run::attends(std::size_t b, std::size_t query, std::size_t key) const {
    return !inputs.has_mask || inputs.attend[b](query, key);
}

bool trace_run::row_fully_masked(std::size_t b, std::size_t h, std::size_t query) const {
    const std::size_t row = query - one_query.value_or(0);
    return data64 ? data64->heads.at(b * heads + h).fully_masked.at(row) : data32->heads.at(b * heads + h).fully_masked.at(row);
}

std::size_t trace_run::rows(stage s) const {
    const std::size_t kept = one_query ? 1 : n_q();
    switch (stage_info_of(s).layout) {
        case stage_layout::per_position: return s == stage::k || s == stage::v ? n_k() : s == stage::q ? n_q() : kept;
        case stage_layout::per_head:
        case stage_layout::per_block:
        case stage_layout::summed_heads: return kept;
    }
    return kept;
}

std::size_t trace_run::cols(stage s) const {
    if (stage_info_of(s).layout == stage_layout::per_head) return n_k();
    if (s == stage::q || s == stage::k) return inputs.d_head;
    if (s == stage::v || s == stage::z || s == stage::tiled_partial_output) return inputs.d_head_v;
    return d_model();
}

double trace_run::value(stage s, std::size_t b, std::size_t h, std::size_t i, std::size_t j) const {
    return data64 ? value_of<double>(*this, s, b, h, i, j) : value_of<float>(*this, s, b, h, i, j);
}

attention_steps trace_run::head_steps(std::size_t b, std::size_t h) const {
    return data64 ? steps_of<double>(*this, b, h) : steps_of<float>(*this, b, h);
}

bool stage_available(const trace_run& r, stage s) {
    switch (stage_info_of(s).needs) {
        case stage_needs::nothing: return true;
        case stage_needs::w_o: return r.has_result;
        case stage_needs::rope: return r.extras.has_rope();
        case stage_needs::tile: return r.extras.has_tile();
        case stage_needs::backward: return r.extras.has_backward();
    }
    return false;
}

void check_available(const trace_run& r, stage s, const char* flag) {
    if (stage_available(r, s)) return;
    const char* key = "";
    switch (stage_info_of(s).needs) {
        case stage_needs::nothing: return;
        case stage_needs::w_o: key = "W_O"; break;
        case stage_needs::rope: key = "rope"; break;
        case stage_needs::tile: key = "tile"; break;
        case stage_needs::backward: key = "backward"; break;
    }
    throw attn::error(std::string(flag) + " " + stage_info_of(s).hook + ": the spec has no " + key + ", so there is no " +
                                stage_info_of(s).hook);
}

std::size_t find_query_row(const run_labels& labels, const std::string& token) {
    const auto& toks = labels.query_tokens;
    std::vector<std::size_t> at;  // the positions of that token
    for (std::size_t i = 0; i < toks.size(); ++i)
        if (toks[i] == token) at.push_back(i);
    if (at.size() == 1) return at[0];
    const std::vector<std::string> shown_as = labels_on_screen(labels).query_tokens;  // "the₄" for a repeated "the"
    if (at.size() > 1) {
        std::string which;
        for (std::size_t k = 0; k < at.size() && k < 8; ++k) which += (k ? ", " : "") + shown_as[at[k]];
        throw error("--query '" + shorten(io::terminal_safe(token), max_label_columns) + "' is at " +
                    std::to_string(at.size()) + " positions: give one as the tables label it (" + which +
                    (at.size() > 8 ? ", …" : "") + ") or its index");
    }
    const auto it = std::find(shown_as.begin(), shown_as.end(), token);
    if (it != shown_as.end()) return static_cast<std::size_t>(it - shown_as.begin());
    if (!token.empty() && token.size() <= 18 &&
        std::all_of(token.begin(), token.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const std::size_t i = std::stoul(token);
        if (i < toks.size()) return i;
    }
    std::vector<std::string> shown;  // the message names at most 16 queries, each shortened
    for (const auto& t : toks) shown.push_back(shorten(io::terminal_safe(t), max_label_columns));
    std::string have;
    for (const auto& t : elide_items(shown, 8, 7, false)) have += (have.empty() ? "" : ", ") + t;
    throw error("--query '" + shorten(io::terminal_safe(token), max_label_columns) + "' is not a query token (queries: " +
                have + "; or an index 0.." + std::to_string(toks.size() - 1) + ")");
}

}  // namespace attn::trace
