// trace/trace_run.cpp — see trace_run.hpp. Projections and W_O go through the
// core's BLAS matmul; each head is one call of the core's attention.
#include "trace/trace_run.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <xtensor/xview.hpp>

namespace attn::trace {

namespace {

// Columns [h·d, (h+1)·d) of m, materialised.  // [rows, d]
matrix head_columns(const matrix& m, std::size_t h, std::size_t d) {
    return xt::view(m, xt::all(), xt::range(h * d, (h + 1) * d));
}

}  // namespace

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
    for (std::size_t b = 0; b < in.batch; ++b) {
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
            r.steps.push_back(scaled_dot_product_attention(head_columns(q, h, in.d_head), head_columns(k, h, in.d_head),
                                                           head_columns(v, h, in.d_head_v), o));
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
