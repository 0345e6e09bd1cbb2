// trace/trace_run.cpp — see trace_run.hpp. X·W inputs go through the core's
// multi_head_attention (one call per batch item); direct Q, K, V inputs and
// per-head biases (which multi_head_attention does not take) call the core's
// attention once per head on that head's columns.
#include "trace/trace_run.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <xtensor/xview.hpp>

#include "core/multi_head.hpp"

namespace attn::trace {

trace_run run_trace(const io::trace_inputs& in) {
    trace_run r;
    r.inputs = in;
    r.batch = in.batch;
    r.heads = in.heads;
    r.labels.title = in.title;
    r.labels.query_tokens = in.query_tokens;
    r.labels.key_tokens = in.key_tokens;
    if (in.kind == "cross") {
        r.labels.query_side = "queries (target)";
        r.labels.key_side = "keys (source)";
    }
    r.has_result = in.w_o.has_value();
    const bool per_head_bias = in.bias.size() > 1;
    for (std::size_t b = 0; b < in.batch; ++b) {
        if (in.projected && !per_head_bias && !needs_extras(in)) {
            attention_options o;
            if (in.has_mask) o.mask = in.attend[b];
            if (!in.bias.empty()) o.bias = in.bias[0];
            o.scale_divisor = in.scale;
            // Without W_O the identity keeps concat as the output; results are not exported then.
            const std::size_t hv = in.heads * in.d_head_v;
            const multi_head_weights w{in.w_q, in.w_k, in.w_v, in.w_o ? *in.w_o : matrix(xt::eye<double>(hv)), in.heads};
            multi_head_steps m = multi_head_attention(in.x[b], in.kind == "cross" ? in.x_src[b] : in.x[b], w, o);
            for (std::size_t h = 0; h < in.heads; ++h) {
                r.steps.push_back(std::move(m.head[h]));
                if (r.has_result) r.result.push_back(xt::view(m.head_results, h, xt::all(), xt::all()));
            }
            if (r.has_result) r.attn_out.push_back(m.output);
            continue;
        }
        matrix q, k, v;  // [n_q, H·d_head], [n_k, H·d_head], [n_k, H·d_head_v]
        if (in.projected) {
            const matrix& src = in.kind == "cross" ? in.x_src[b] : in.x[b];
            q = matmul(in.x[b], in.w_q);
            k = matmul(src, in.w_k);
            v = matmul(src, in.w_v);
        } else {
            q = in.q[b];
            k = in.k[b];
            v = in.v[b];
        }
        matrix out_sum;  // [n_q, d_out]
        for (std::size_t h = 0; h < in.heads; ++h) {
            attention_options o;
            if (in.has_mask) o.mask = in.attend[b];
            if (!in.bias.empty()) o.bias = in.bias[h];
            o.scale_divisor = in.scale;
            const head_inputs hi = prepare_head(in, q, k, v, h, r.extras);  // the group's K/V, rotated with rope
            r.steps.push_back(scaled_dot_product_attention(hi.q, hi.k, hi.v, o));
            finish_head(in, b, h, hi, r.steps.back(), o, r.extras);
            if (r.has_result) {
                const matrix w_o_h = xt::view(*in.w_o, xt::range(h * in.d_head_v, (h + 1) * in.d_head_v), xt::all());
                matrix res = matmul(r.steps.back().output, w_o_h);  // [n_q, d_out]
                if (h == 0) out_sum = res;
                else out_sum += res;
                r.result.push_back(std::move(res));
            }
        }
        if (r.has_result) r.attn_out.push_back(out_sum);
    }
    return r;
}

bool stage_available(const trace_run& r, stage s) {
    switch (info(s).needs) {
        case stage_needs::nothing: return true;
        case stage_needs::w_o: return r.has_result;
        case stage_needs::rope: return !r.extras.rope_q.empty();
        case stage_needs::tile: return !r.extras.tiled.empty();
        case stage_needs::backward: return !r.extras.grads.empty();
    }
    return false;
}

void check_available(const trace_run& r, stage s, const char* flag) {
    if (stage_available(r, s)) return;
    const char* key = "";
    switch (info(s).needs) {
        case stage_needs::nothing: return;
        case stage_needs::w_o: key = "W_O"; break;
        case stage_needs::rope: key = "rope"; break;
        case stage_needs::tile: key = "tile"; break;
        case stage_needs::backward: key = "backward"; break;
    }
    throw std::invalid_argument(std::string(flag) + " " + info(s).hook + ": the spec has no " + key + ", so there is no " +
                                info(s).hook);
}

std::size_t find_query_row(const run_labels& labels, const std::string& token) {
    const auto& toks = labels.query_tokens;
    auto it = std::find(toks.begin(), toks.end(), token);
    if (it != toks.end()) return static_cast<std::size_t>(it - toks.begin());
    if (!token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const std::size_t i = std::stoul(token);
        if (i < toks.size()) return i;
    }
    std::string have;
    for (std::size_t i = 0; i < toks.size(); ++i) have += (i ? ", " : "") + toks[i];
    throw std::invalid_argument("--query '" + token + "' is not a query token (queries: " + have + "; or an index 0.." +
                                std::to_string(toks.size() - 1) + ")");
}

}  // namespace attn::trace
