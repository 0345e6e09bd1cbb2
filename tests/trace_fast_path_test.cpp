// tests/trace_fast_path_test.cpp — `attn trace` computes on the core's fast path
// (trace/trace_run.hpp); the reference path (core/attention.hpp, multi_head.hpp) must
// give the same stages to 1e-12 in float64 on random inputs: self, causal, cross,
// padding, a fully masked row, a batch, several heads with W_O, a bias; float32 to
// float precision; the one-query mode the same row as the full run.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <xtensor/xview.hpp>

#include "core/attention.hpp"
#include "core/mask.hpp"
#include "core/multi_head.hpp"
#include "core/prng.hpp"
#include "core/random_tensors.hpp"
#include "io/trace_spec.hpp"
#include "trace/export.hpp"
#include "trace/trace_run.hpp"

using namespace attn;
using Catch::Matchers::WithinAbs;

namespace {

struct fast_case {
    std::string name;
    std::string kind;
    std::size_t batch, heads, n_q, n_k, d_head;
    bool causal, padding, fully_masked_row, projected_with_w_o, bias;
};

// Random inputs of one case, as resolve_trace_inputs would hand them over.
io::trace_inputs make_inputs(const fast_case& c, prng& g) {
    io::trace_inputs in;
    in.kind = c.kind;
    in.title = c.name;
    in.batch = c.batch;
    in.heads = in.kv_heads = c.heads;
    in.n_q = c.n_q;
    in.n_k = c.n_k;
    in.d_head = in.d_head_v = c.d_head;
    for (std::size_t i = 0; i < c.n_q; ++i) in.query_tokens.push_back("q" + std::to_string(i));
    for (std::size_t j = 0; j < c.n_k; ++j) in.key_tokens.push_back("k" + std::to_string(j));
    const std::size_t hd = c.heads * c.d_head, d_model = 6;
    for (std::size_t b = 0; b < c.batch; ++b) {
        if (c.projected_with_w_o) {
            in.x.push_back(normal_matrix(g, c.n_q, d_model));
            if (c.kind == "cross") in.x_src.push_back(normal_matrix(g, c.n_k, d_model));
        } else {
            in.q.push_back(normal_matrix(g, c.n_q, hd));
            in.k.push_back(normal_matrix(g, c.n_k, hd));
            in.v.push_back(normal_matrix(g, c.n_k, hd));
        }
        bool_matrix attend = c.causal ? causal_mask(c.n_q, c.n_k) : bool_matrix(xt::ones<bool>({c.n_q, c.n_k}));
        if (c.padding)
            for (std::size_t i = 0; i < c.n_q; ++i) attend(i, c.n_k - 1 - b) = false;  // a different padded key per item
        if (c.fully_masked_row)
            for (std::size_t j = 0; j < c.n_k; ++j) attend(1, j) = false;
        in.attend.push_back(attend);
    }
    in.has_mask = c.causal || c.padding || c.fully_masked_row;
    if (c.projected_with_w_o) {
        in.projected = true;
        in.w_q = normal_matrix(g, d_model, hd);
        in.w_k = normal_matrix(g, d_model, hd);
        in.w_v = normal_matrix(g, d_model, hd);
        in.w_o = normal_matrix(g, hd, d_model);
    }
    if (c.bias)
        for (std::size_t h = 0; h < c.heads; ++h) in.bias.push_back(normal_matrix(g, c.n_q, c.n_k));
    return in;
}

double close(double got, double want) {  // |got − want|, 0 when both are the same infinity
    if (std::isinf(want) && got == want) return 0.0;
    return std::fabs(got - want);
}

}  // namespace

TEST_CASE("the fast path of attn trace agrees with the reference path to 1e-12 in float64", "[trace][fast]") {
    const fast_case c = GENERATE(values<fast_case>({
        {"self", "self", 1, 1, 7, 7, 4, false, false, false, false, false},
        {"causal", "causal", 1, 1, 9, 9, 3, true, false, false, false, false},
        {"cross", "cross", 1, 1, 5, 11, 4, false, false, false, false, false},
        {"padding and bias", "cross", 1, 1, 6, 8, 4, false, true, false, false, true},
        {"fully masked row", "self", 1, 1, 6, 6, 4, false, false, true, false, false},
        {"batch of 3", "self", 3, 1, 5, 5, 2, false, true, false, false, false},
        {"4 heads with W_O", "causal", 2, 4, 6, 6, 3, true, false, false, true, false},
        {"cross heads with W_O", "cross", 1, 2, 4, 9, 3, false, true, true, true, false},
    }));
    prng g(hash64("fast path " + c.name));
    const io::trace_inputs in = make_inputs(c, g);
    const trace::trace_run run = trace::run_trace(in);
    INFO(c.name);
    for (std::size_t b = 0; b < c.batch; ++b) {
        matrix q, k, v;  // [n, H·d]
        if (in.projected) {
            q = matmul(in.x[b], in.w_q);
            const matrix& src = c.kind == "cross" ? in.x_src[b] : in.x[b];
            k = matmul(src, in.w_k);
            v = matmul(src, in.w_v);
        } else {
            q = in.q[b], k = in.k[b], v = in.v[b];
        }
        matrix sum = xt::zeros<double>({c.n_q, in.w_o ? in.w_o->shape(1) : std::size_t(0)});  // [n_q, d_model]
        for (std::size_t h = 0; h < c.heads; ++h) {
            attention_options o;
            if (in.has_mask) o.mask = in.attend[b];
            if (c.bias) o.bias = in.bias[h];
            const attention_steps ref = scaled_dot_product_attention(head_columns(q, h, c.heads), head_columns(k, h, c.heads),
                                                                     head_columns(v, h, c.heads), o);
            for (const auto& si : head_stages()) {
                const matrix& want = stage_matrix(ref, si.id);
                double worst = 0.0;
                for (std::size_t i = 0; i < want.shape(0); ++i)
                    for (std::size_t j = 0; j < want.shape(1); ++j)
                        worst = std::max(worst, close(run.value(si.id, b, h, i, j), want(i, j)));
                INFO(si.hook << " batch " << b << " head " << h);
                CHECK(worst <= 1e-12);
            }
            for (std::size_t i = 0; i < c.n_q; ++i) CHECK(run.row_fully_masked(b, h, i) == ref.row_fully_masked[i]);
            if (in.w_o) {
                const matrix res = matmul(ref.output, head_rows(*in.w_o, h, c.heads));  // [n_q, d_model]
                sum += res;
                for (std::size_t i = 0; i < c.n_q; ++i)
                    for (std::size_t j = 0; j < res.shape(1); ++j)
                        CHECK_THAT(run.value(stage::result, b, h, i, j), WithinAbs(res(i, j), 1e-12));
            }
        }
        if (in.w_o) {
            // hook_attn_out is the multi-head output of the core's multi_head_attention.
            attention_options o;
            if (in.has_mask) o.mask = in.attend[b];
            const multi_head_steps m = multi_head_attention(in.x[b], c.kind == "cross" ? in.x_src[b] : in.x[b],
                                                            {in.w_q, in.w_k, in.w_v, *in.w_o, c.heads}, o);
            for (std::size_t i = 0; i < c.n_q; ++i)
                for (std::size_t j = 0; j < sum.shape(1); ++j) {
                    CHECK_THAT(run.value(stage::attn_out, b, 0, i, j), WithinAbs(sum(i, j), 1e-12));
                    CHECK_THAT(run.value(stage::attn_out, b, 0, i, j), WithinAbs(m.output(i, j), 1e-12));
                }
        }
    }
}

TEST_CASE("float32 traces agree with float64 to float precision and export float32", "[trace][fast]") {
    prng g(hash64("float32 trace"));
    const io::trace_inputs in = make_inputs({"f32", "causal", 1, 2, 16, 16, 8, true, false, false, true, false}, g);
    trace::trace_run_options o32;
    o32.dtype = trace::trace_dtype::float32;
    const trace::trace_run r64 = trace::run_trace(in), r32 = trace::run_trace(in, o32);
    for (const auto& si : all_stages()) {
        if (!trace::stage_available(r64, si.id)) continue;
        INFO(si.hook);
        double worst = 0.0;
        for (std::size_t h = 0; h < (si.id == stage::attn_out ? 1 : 2); ++h)
            for (std::size_t i = 0; i < r64.rows(si.id); ++i)
                for (std::size_t j = 0; j < r64.cols(si.id); ++j)
                    worst = std::max(worst, close(r32.value(si.id, 0, h, i, j), r64.value(si.id, 0, h, i, j)));
        CHECK(worst < 1e-4);
    }
    CHECK(trace::to_json(r32).find("\"dtype\": \"float32\"") != std::string::npos);
}

TEST_CASE("the one-query mode keeps one row and gives that row of the full run to 1e-12", "[trace][fast]") {
    prng g(hash64("one query"));
    const io::trace_inputs in = make_inputs({"one", "causal", 2, 2, 12, 12, 4, true, true, false, false, true}, g);
    trace::trace_run_options one;
    one.one_query = 7;
    const trace::trace_run full = trace::run_trace(in), row = trace::run_trace(in, one);
    CHECK(row.rows(stage::weights) == 1);
    CHECK(row.rows(stage::q) == 12);
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t h = 0; h < 2; ++h)
            for (stage s : {stage::scores_raw, stage::scores_masked, stage::weights, stage::z})
                for (std::size_t j = 0; j < row.cols(s); ++j)
                    CHECK(close(row.value(s, b, h, 0, j), full.value(s, b, h, 7, j)) <= 1e-12);  // gemv, not gemm: rounding differs
    const attention_steps s = row.head_steps(1, 1);
    CHECK(s.weights.shape(0) == 1);
    CHECK(s.attend(0, 8) == full.attends(1, 7, 8));
}
