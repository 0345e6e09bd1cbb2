// trace/trace_extras.cpp — see trace_extras.hpp.
#include "trace/trace_extras.hpp"

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "core/grouped_query.hpp"
#include "trace/table.hpp"
#include "trace/trace_run.hpp"

namespace attn::trace {

namespace {

// Columns [h·d, (h+1)·d) of m, materialised.  // [rows, d]
matrix columns_of_head(const matrix& m, std::size_t h, std::size_t d) {
    return xt::view(m, xt::all(), xt::range(h * d, (h + 1) * d));
}

// [batch, pos, head, d] from one matrix per (batch, head).
template <class Pick>
extra_stage per_position(const trace_run& r, const std::string& name, const char* pos, const char* d, Pick pick) {
    const matrix& first = pick(0);
    const std::size_t n = first.shape(0), dd = first.shape(1);
    extra_stage s{name, {"batch", pos, "head", d}, {r.batch, n, r.heads, dd}, {}};
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t h = 0; h < r.heads; ++h)
                for (std::size_t j = 0; j < dd; ++j) s.data.push_back(pick(b * r.heads + h)(i, j));
    return s;
}

// [batch, head, query_pos, last] from one matrix per (batch, head).
template <class Pick>
extra_stage per_head(const trace_run& r, const std::string& name, const char* last, Pick pick) {
    const matrix& first = pick(0);
    extra_stage s{name, {"batch", "head", "query_pos", last}, {r.batch, r.heads, first.shape(0), first.shape(1)}, {}};
    for (std::size_t i = 0; i < r.batch * r.heads; ++i) {
        const matrix& m = pick(i);
        s.data.insert(s.data.end(), m.begin(), m.end());
    }
    return s;
}

}  // namespace

bool needs_extras(const io::trace_inputs& in) {
    return in.tile || in.rope_base || in.kv_heads != in.heads || !in.grad_output.empty();
}

head_inputs prepare_head(const io::trace_inputs& in, const matrix& q, const matrix& k, const matrix& v, std::size_t h,
                         trace_extras& ex) {
    const std::size_t kv = in.kv_heads ? in.kv_heads : in.heads;
    const std::size_t g = kv_group_of(h, in.heads, kv);
    if (ex.group.size() < in.heads) ex.group.push_back(g);
    head_inputs hi{columns_of_head(q, h, in.d_head), columns_of_head(k, g, in.d_head), columns_of_head(v, g, in.d_head_v)};
    if (in.rope_base) {
        ex.rope_q.push_back(rotary_embed(hi.q, *in.rope_base));
        ex.rope_k.push_back(rotary_embed(hi.k, *in.rope_base));
        hi.q = ex.rope_q.back().rotated;
        hi.k = ex.rope_k.back().rotated;
    }
    return hi;
}

void finish_head(const io::trace_inputs& in, std::size_t b, std::size_t h, const head_inputs& hi,
                 const attention_steps& forward, const attention_options& o, trace_extras& ex) {
    if (in.tile) {
        tiled_options t;
        t.tile = *in.tile;
        t.mask = o.mask;
        t.bias = o.bias;
        t.scale_divisor = o.scale_divisor;
        ex.tiled.push_back(tiled_attention(hi.q, hi.k, hi.v, t));
    }
    if (!in.grad_output.empty())
        ex.grads.push_back(attention_backward(forward, columns_of_head(in.grad_output[b], h, in.d_head_v)));
}

std::vector<extra_stage> extra_stages(const trace_run& r) {
    std::vector<extra_stage> out;
    const trace_extras& ex = r.extras;
    if (!ex.rope_q.empty()) {
        out.push_back(per_position(r, "hook_rot_q", "query_pos", "d_head", [&](std::size_t i) -> const matrix& { return ex.rope_q[i].rotated; }));
        out.push_back(per_position(r, "hook_rot_k", "key_pos", "d_head", [&](std::size_t i) -> const matrix& { return ex.rope_k[i].rotated; }));
    }
    if (!ex.tiled.empty()) {
        out.push_back(per_head(r, "tiled_running_max", "block", [&](std::size_t i) -> const matrix& { return ex.tiled[i].running_max; }));
        out.push_back(per_head(r, "tiled_running_sum", "block", [&](std::size_t i) -> const matrix& { return ex.tiled[i].running_sum; }));
        out.push_back(per_head(r, "tiled_correction", "block", [&](std::size_t i) -> const matrix& { return ex.tiled[i].correction; }));
        out.push_back(per_position(r, "tiled_z", "query_pos", "d_head_v", [&](std::size_t i) -> const matrix& { return ex.tiled[i].output; }));
    }
    if (!ex.grads.empty()) {
        const auto& g = ex.grads;
        out.push_back(per_position(r, "grad_z", "query_pos", "d_head_v", [&](std::size_t i) -> const matrix& { return g[i].grad_output; }));
        out.push_back(per_position(r, "grad_v", "key_pos", "d_head_v", [&](std::size_t i) -> const matrix& { return g[i].grad_v; }));
        out.push_back(per_head(r, "grad_pattern", "key_pos", [&](std::size_t i) -> const matrix& { return g[i].grad_weights; }));
        out.push_back(per_head(r, "grad_attn_scores", "key_pos", [&](std::size_t i) -> const matrix& { return g[i].grad_scores; }));
        out.push_back(per_head(r, "grad_attn_scores_raw", "key_pos", [&](std::size_t i) -> const matrix& { return g[i].grad_raw; }));
        out.push_back(per_position(r, "grad_q", "query_pos", "d_head", [&](std::size_t i) -> const matrix& { return g[i].grad_q; }));
        out.push_back(per_position(r, "grad_k", "key_pos", "d_head", [&](std::size_t i) -> const matrix& { return g[i].grad_k; }));
    }
    return out;
}

std::vector<double> unrotated(const trace_run& r, bool keys) {
    if (r.extras.rope_q.empty()) return {};
    const auto& rs = keys ? r.extras.rope_k : r.extras.rope_q;
    return per_position(r, "", "pos", "d", [&](std::size_t i) -> const matrix& { return rs[i].input; }).data;
}

std::string render_extras(const trace_run& r, std::size_t b, std::size_t h, const style& st) {
    const trace_extras& ex = r.extras;
    const std::size_t i = b * r.heads + h;
    const auto& qt = r.labels.query_tokens;
    const auto& kt = r.labels.key_tokens;
    std::string out;
    if (r.inputs.kv_heads != r.heads)
        out += fmt::format("query head {} reads key/value head {} of {} (kv_heads = {})\n\n", h, ex.group.at(h),
                           r.inputs.kv_heads, r.inputs.kv_heads);
    if (!ex.rope_q.empty()) {
        const rope_steps& rq = ex.rope_q[i];
        std::vector<std::string> pairs;
        for (std::size_t p = 0; p < rq.angles.shape(1); ++p) pairs.push_back(fmt::format("pair{}", p));
        out += render(make_table(fmt::format("Rotary angles θ = position · {}^(−2i/d) (radians)", rq.base),
                                 "rows: positions · columns: pairs (d0,d1), (d2,d3), …", "pos", qt, pairs, rq.angles, 4),
                      st) + "\n";
        out += render(make_table("hook_rot_q (q turned by its angles)", "rows: queries · columns: dimensions", "Q",
                                 qt, dimension_labels(rq.rotated.shape(1)), rq.rotated, 4), st) + "\n";
        out += render(make_table("hook_rot_k (k turned by its angles)", "rows: keys · columns: dimensions", "K", kt,
                                 dimension_labels(ex.rope_k[i].rotated.shape(1)), ex.rope_k[i].rotated, 4), st) + "\n";
    }
    if (!ex.tiled.empty()) {
        const tiled_steps& t = ex.tiled[i];
        std::vector<std::string> blocks;
        for (std::size_t k = 0; k < t.blocks; ++k) {
            const std::size_t lo = k * t.tile, hi = std::min(r.n_k(), lo + t.tile) - 1;
            blocks.push_back(lo == hi ? kt[lo] : kt[lo] + "–" + kt[hi]);
        }
        out += render(make_table(fmt::format("Online softmax, {} keys per block: running max m", t.tile),
                                 "rows: queries · columns: after each key block", "m", qt, blocks, t.running_max, 4), st) + "\n";
        out += render(make_table("Online softmax: running sum l", "rows: queries · columns: after each key block", "l", qt,
                                 blocks, t.running_sum, 4), st) + "\n";
        out += render(make_table("Tiled output o / l (tiled_z)", "rows: queries · columns: dimensions", "O", qt,
                                 dimension_labels(t.output.shape(1)), t.output, 4), st);
        out += fmt::format("extra memory: {} numbers (running max and sum per query, one block of scores) instead of "
                           "{} × {} = {} scores\n\n", t.extra_values, r.n_q(), r.n_k(), r.n_q() * r.n_k());
    }
    if (!ex.grads.empty()) {
        const attention_grads& g = ex.grads[i];
        const std::string sc = "rows: queries · columns: keys";
        out += render(make_table("dL/dO (grad_z, given)", "rows: queries · columns: dimensions", "dO", qt,
                                 dimension_labels(g.grad_output.shape(1)), g.grad_output, 4), st) + "\n";
        out += render(make_table("dV = Aᵀ dO (grad_v)", "rows: keys · columns: dimensions", "dV", kt,
                                 dimension_labels(g.grad_v.shape(1)), g.grad_v, 4), st) + "\n";
        out += render(make_table("dA = dO Vᵀ (grad_pattern)", sc, "dA", qt, kt, g.grad_weights, 4), st) + "\n";
        out += render(make_table("dS = A ⊙ (dA − Σ_k A dA) (grad_attn_scores)", sc, "dS", qt, kt, g.grad_scores, 4), st) + "\n";
        out += render(make_table("dQ = dS K / scale (grad_q)", "rows: queries · columns: dimensions", "dQ", qt,
                                 dimension_labels(g.grad_q.shape(1)), g.grad_q, 4), st) + "\n";
        out += render(make_table("dK = dSᵀ Q / scale (grad_k)", "rows: keys · columns: dimensions", "dK", kt,
                                 dimension_labels(g.grad_k.shape(1)), g.grad_k, 4), st) + "\n";
    }
    return out;
}

}  // namespace attn::trace
