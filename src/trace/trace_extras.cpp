// trace/trace_extras.cpp — see trace_extras.hpp.
#include "trace/trace_extras.hpp"

#include <cmath>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "trace/number_format.hpp"
#include "trace/table.hpp"
#include "trace/trace_run.hpp"

namespace attn::trace {

namespace {

// [batch, pos, head, d] from one matrix per (batch, head).
template <class Pick>
extra_stage per_position(const trace_run& r, stage id, Pick pick) {
    const matrix& first = pick(0);
    const std::size_t n = first.shape(0), dd = first.shape(1);
    extra_stage s{id, {r.batch, n, r.heads, dd}, {}};
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t h = 0; h < r.heads; ++h)
                for (std::size_t j = 0; j < dd; ++j) s.data.push_back(pick(b * r.heads + h)(i, j));
    return s;
}

// [batch, head, query_pos, last] from one matrix per (batch, head).
template <class Pick>
extra_stage per_head(const trace_run& r, stage id, Pick pick) {
    const matrix& first = pick(0);
    extra_stage s{id, {r.batch, r.heads, first.shape(0), first.shape(1)}, {}};
    for (std::size_t i = 0; i < r.batch * r.heads; ++i) {
        const matrix& m = pick(i);
        s.data.insert(s.data.end(), m.begin(), m.end());
    }
    return s;
}

// tiled_partial_output: [batch, head, block, query_pos, d_head_v], each head's
// [blocks, n_q, d_v] tensor in C order one after the other.
extra_stage per_block(const trace_run& r, const trace_extras& ex) {
    const tensor3& first = ex.tiled(0).partial_output;
    extra_stage s{stage::tiled_partial_output, {r.batch, r.heads, first.shape(0), first.shape(1), first.shape(2)}, {}};
    for (std::size_t i = 0; i < r.batch * r.heads; ++i) s.data.insert(s.data.end(), ex.tiled(i).partial_output.begin(), ex.tiled(i).partial_output.end());
    return s;
}

}  // namespace

bool needs_extras(const io::trace_inputs& in) {
    return in.tile || in.rope_base || in.kv_heads != in.heads || !in.grad_output.empty();
}

recipe_options recipe_options_of(const io::trace_inputs& in, std::size_t b) {
    recipe_options o;
    o.heads = in.heads;
    o.kv_heads = in.kv_heads ? in.kv_heads : in.heads;
    if (in.rope_base) o.rope = rope_option{*in.rope_base};
    if (in.has_mask) o.mask = in.attend[b];
    o.bias = in.bias;
    o.scale_divisor = in.scale;
    o.tile = in.tile;
    if (!in.grad_output.empty()) o.grad_output = in.grad_output[b];
    o.w_o = in.w_o;
    return o;
}

std::vector<extra_stage> extra_stages(const trace_run& r) {
    std::vector<extra_stage> out;
    const trace_extras& ex = r.extras;
    if (ex.has_rope()) {
        out.push_back(per_position(r, stage::rot_q, [&](std::size_t i) -> const matrix& { return ex.rope_q(i).rotated; }));
        out.push_back(per_position(r, stage::rot_k, [&](std::size_t i) -> const matrix& { return ex.rope_k(i).rotated; }));
    }
    if (ex.has_tile()) {
        out.push_back(per_head(r, stage::tiled_running_max, [&](std::size_t i) -> const matrix& { return ex.tiled(i).running_max; }));
        out.push_back(per_head(r, stage::tiled_running_sum, [&](std::size_t i) -> const matrix& { return ex.tiled(i).running_sum; }));
        out.push_back(per_head(r, stage::tiled_correction, [&](std::size_t i) -> const matrix& { return ex.tiled(i).correction; }));
        out.push_back(per_block(r, ex));
        out.push_back(per_position(r, stage::tiled_z, [&](std::size_t i) -> const matrix& { return ex.tiled(i).output; }));
    }
    if (ex.has_backward()) {
        
        out.push_back(per_position(r, stage::grad_z, [&](std::size_t i) -> const matrix& { return ex.grads(i).grad_output; }));
        out.push_back(per_position(r, stage::grad_v, [&](std::size_t i) -> const matrix& { return ex.grads(i).grad_v; }));
        out.push_back(per_head(r, stage::grad_pattern, [&](std::size_t i) -> const matrix& { return ex.grads(i).grad_weights; }));
        out.push_back(per_head(r, stage::grad_attn_scores, [&](std::size_t i) -> const matrix& { return ex.grads(i).grad_scores; }));
        out.push_back(per_head(r, stage::grad_attn_scores_raw, [&](std::size_t i) -> const matrix& { return ex.grads(i).grad_raw; }));
        out.push_back(per_position(r, stage::grad_q, [&](std::size_t i) -> const matrix& { return ex.grads(i).grad_q; }));
        out.push_back(per_position(r, stage::grad_k, [&](std::size_t i) -> const matrix& { return ex.grads(i).grad_k; }));
    }
    return out;
}

std::vector<double> unrotated(const trace_run& r, bool keys) {
    const trace_extras& ex = r.extras;
    if (!ex.has_rope()) return {};
    return per_position(r, keys ? stage::k : stage::q, [&](std::size_t i) -> const matrix& {
               return keys ? ex.rope_k(i).input : ex.rope_q(i).input;
           }).data;
}

std::vector<std::pair<stage, table>> tiled_tables(const trace_run& r, std::size_t b, std::size_t h) {
    const tiled_steps& t = r.extras.tiled(b * r.heads + h);
    const auto& kt = r.labels.key_tokens;
    std::vector<std::string> blocks;  // "cat–sat": the keys of each block
    for (std::size_t k = 0; k < t.blocks; ++k) {
        const std::size_t lo = k * t.tile, hi = std::min(r.n_k(), lo + t.tile) - 1;
        blocks.push_back(lo == hi ? kt[lo] : kt[lo] + "–" + kt[hi]);
    }
    const auto tab = [&](stage s, const std::vector<std::string>& cols, const matrix& m, const std::string& title) {
        const stage_frame f = frame_of(s, r.labels);
        return std::make_pair(s, make_table(title.empty() ? stage_info_of(s).caption : title, f.axes, f.corner, *f.row_labels,
                                            cols, m, stage_info_of(s).decimals));
    };
    std::vector<std::pair<stage, table>> out;
    out.push_back(tab(stage::tiled_running_max, blocks, t.running_max, ""));
    out.push_back(tab(stage::tiled_running_sum, blocks, t.running_sum, ""));
    out.push_back(tab(stage::tiled_correction, blocks, t.correction, ""));
    for (std::size_t k = 0; k < t.blocks; ++k) {  // o after each block: the walk of lesson 16, whole
        const matrix o = xt::view(t.partial_output, k, xt::all(), xt::all());  // [n_q, d_v]
        out.push_back(tab(stage::tiled_partial_output, dimension_labels(o.shape(1)), o,
                          fmt::format("{} after block {} of {} ({})", stage_info_of(stage::tiled_partial_output).caption, k + 1,
                                      t.blocks, blocks[k])));
    }
    out.push_back(tab(stage::tiled_z, dimension_labels(t.output.shape(1)), t.output, ""));
    return out;
}

std::string render_extras(const trace_run& r, std::size_t b, std::size_t h, const style& st,
                          const std::function<bool(stage)>& wanted) {
    const trace_extras& ex = r.extras;
    const std::size_t i = b * r.heads + h;
    const auto& qt = r.labels.query_tokens;
    const auto& kt = r.labels.key_tokens;
    // One extra stage as a table under the vocabulary's caption, when wanted.
    const auto stage_tab = [&](stage s, const std::vector<std::string>& cols, const matrix& m) {
        if (!wanted(s)) return std::string();
        const stage_frame f = frame_of(s, r.labels);
        return render(make_table(stage_info_of(s).caption, f.axes, f.corner, *f.row_labels, cols, m, stage_info_of(s).decimals), st) + "\n";
    };
    const auto dims = [](const matrix& m) { return dimension_labels(m.shape(1)); };
    std::string out;
    if (r.inputs.kv_heads != r.heads)
        out += fmt::format("query head {} reads key/value head {} of {} (kv_heads = {})\n\n", h + 1, ex.group(h) + 1,
                           r.inputs.kv_heads, r.inputs.kv_heads);
    if (ex.has_rope()) {
        const rope_steps& rq = ex.rope_q(i);
        std::vector<std::string> pairs;
        for (std::size_t p = 0; p < rq.angles.shape(1); ++p) pairs.push_back(fmt::format("pair{}", p));
        if (wanted(stage::rot_q))
            out += render(make_table(fmt::format("Rotary angles θ = position · {}^(−2i/d) (radians)", rq.base),
                                     "rows: positions · columns: pairs (d0,d1), (d2,d3), …", "pos", qt, pairs, rq.angles, 4),
                          st) + "\n";
        out += stage_tab(stage::rot_q, dims(rq.rotated), rq.rotated);
        out += stage_tab(stage::rot_k, dims(ex.rope_k(i).rotated), ex.rope_k(i).rotated);
    }
    if (ex.has_tile()) {
        const tiled_steps& t = ex.tiled(i);
        if (wanted(stage::tiled_running_max)) out += fmt::format("Online softmax, {} keys per block\n", t.tile);
        for (const auto& [id, tab] : tiled_tables(r, b, h))
            if (wanted(id)) out += render(tab, st) + "\n";
        if (wanted(stage::tiled_z))
            out += fmt::format("extra memory: {} numbers (running max and sum per query, one block of scores) instead of "
                               "{} × {} = {} scores\n\n", t.extra_values, r.n_q(), r.n_k(), r.n_q() * r.n_k());
    }
    if (ex.has_backward()) {
        const attention_grads& g = ex.grads(i);
        out += stage_tab(stage::grad_z, dims(g.grad_output), g.grad_output);
        out += stage_tab(stage::grad_v, dims(g.grad_v), g.grad_v);
        out += stage_tab(stage::grad_pattern, kt, g.grad_weights);
        out += stage_tab(stage::grad_attn_scores, kt, g.grad_scores);
        out += stage_tab(stage::grad_attn_scores_raw, kt, g.grad_raw);
        out += stage_tab(stage::grad_q, dims(g.grad_q), g.grad_q);
        out += stage_tab(stage::grad_k, dims(g.grad_k), g.grad_k);
    }
    return out;
}

std::string explain_extras_query(const trace_run& r, std::size_t b, std::size_t h, std::size_t row, const style& st) {
    const trace_extras& ex = r.extras;
    const std::size_t i = b * r.heads + h;
    const auto& kt = r.labels.key_tokens;
    const std::string tok = r.labels.query_tokens.at(row);
    std::string out;
    if (ex.has_tile()) {
        const tiled_steps& t = ex.tiled(i);
        table s;
        s.title = fmt::format("Online softmax for '{}', blocks of {}", tok, t.tile);
        s.axes = "rows: key blocks";
        s.corner = "block";
        s.col_labels = {"m", "rescale", "l"};
        s.shape = fmt::format("[{} × 3]", t.blocks);
        for (std::size_t k = 0; k < t.blocks; ++k) {
            const std::size_t lo = k * t.tile, hi = std::min(r.n_k(), lo + t.tile) - 1;
            s.row_labels.push_back(lo == hi ? kt[lo] : kt[lo] + "–" + kt[hi]);
            const double m = t.running_max(row, k);
            s.cells.push_back({std::isfinite(m) ? fixed(m, 4) : "-inf", fixed(t.correction(row, k), 4),
                               fixed(t.running_sum(row, k), 4)});
        }
        out += render(s, st);
        matrix part({t.blocks, t.partial_output.shape(2)});  // [blocks, d_v] this query's o after each block
        for (std::size_t k = 0; k < t.blocks; ++k)
            for (std::size_t c = 0; c < part.shape(1); ++c) part(k, c) = t.partial_output(k, row, c);
        out += render(make_table(fmt::format("Partial output o for '{}' after each block (not yet ÷ l)", tok),
                                 "rows: key blocks · columns: dimensions", "o", s.row_labels,
                                 dimension_labels(part.shape(1)), part, 4),
                      st);
        std::vector<double> o;
        for (std::size_t c = 0; c < t.output.shape(1); ++c) o.push_back(t.output(row, c));
        out += "  m: running max · rescale: exp(m_old − m_new) · l: running sum\n"
               "  o: Σ exp(s − m)·v over the keys so far, rescaled like l\n";
        out += "  o / l = " + bracketed(o, 4) + "\n\n";
    }
    if (ex.has_backward()) {
        const attention_grads& g = ex.grads(i);
        const matrix& a = r.head_steps(b, h).weights;
        table s;
        s.title = fmt::format("Softmax backward for '{}', key by key", tok);
        s.axes = "rows: keys";
        s.corner = "key";
        s.col_labels = {"a", "dA", "a·dA", "dA − Σ", "dS"};
        s.shape = fmt::format("[{} × 5]", r.n_k());
        const std::size_t arow = r.one_query ? 0 : row;
        for (std::size_t j = 0; j < r.n_k(); ++j) {
            s.row_labels.push_back(kt[j]);
            s.cells.push_back({fixed(a(arow, j), 4), fixed(g.grad_weights(row, j), 4),
                               fixed(a(arow, j) * g.grad_weights(row, j), 4), fixed(g.grad_weights(row, j) - g.row_dot(row), 4),
                               fixed(g.grad_scores(row, j), 4)});
        }
        out += render(s, st);
        out += "  Σ = Σ_k a_k·dA_k = " + fixed(g.row_dot(row), 4) + "; dS_j = a_j · (dA_j − Σ)\n\n";
    }
    return out;
}

}  // namespace attn::trace
