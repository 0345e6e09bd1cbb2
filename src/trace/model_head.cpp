// trace/model_head.cpp — a model layer as a trace run (see model_head.hpp).
#include "trace/model_head.hpp"
#include "core/error.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "core/matmul.hpp"

namespace attn::trace {

namespace {

void check_choice(const model::architecture& cfg, std::size_t batch, const model_head_choice& c) {
    const auto refuse = [](const char* flag, std::size_t v, std::size_t n, const char* what) {
        throw attn::error(std::string(flag) + " " + std::to_string(v) + " does not exist: the " +
                                    (std::string(what) == "sequence" ? "batch" : "model") + " has " + std::to_string(n) +
                                    " " + what + (n == 1 ? "" : "s") + " (0.." + std::to_string(n - 1) + ")");
    };
    if (c.layer >= cfg.n_layer) refuse("--layer", c.layer, cfg.n_layer, "layer");
    if (c.head >= cfg.n_head) refuse("--head", c.head, cfg.n_head, "head");
    if (c.batch >= batch) refuse("--batch", c.batch, batch, "sequence");
}

// Rows of head h of a [B, P, H, dh] hook for batch item b, as a [P, dh] matrix.
template <class T>
fast_matrix<T> head_rows(const model::act4<T>& t, std::size_t b, std::size_t h) {
    const std::size_t P = t.shape(1), H = t.shape(2), dh = t.shape(3);
    fast_matrix<T> m = fast_matrix<T>::from_shape({P, dh});
    for (std::size_t i = 0; i < P; ++i)
        for (std::size_t j = 0; j < dh; ++j) m(i, j) = t.data()[((b * P + i) * H + h) * dh + j];
    return m;
}

// The [P, P] map of head h of a [B, H, P, P] hook for batch item b.
template <class T>
fast_matrix<T> head_map(const model::act4<T>& t, std::size_t b, std::size_t h) {
    const std::size_t H = t.shape(1), P = t.shape(2);
    fast_matrix<T> m = fast_matrix<T>::from_shape({P, P});
    const T* src = t.data() + (b * H + h) * P * P;
    std::copy(src, src + P * P, m.data());
    return m;
}

template <class T>
void set_data(trace_run& r, std::shared_ptr<run_data<T>> d);
template <>
void set_data<double>(trace_run& r, std::shared_ptr<run_data<double>> d) {
    r.data64 = std::move(d);
    r.dtype = trace_dtype::float64;
}
template <>
void set_data<float>(trace_run& r, std::shared_ptr<run_data<float>> d) {
    r.data32 = std::move(d);
    r.dtype = trace_dtype::float32;
}

}  // namespace

template <class T>
trace_run model_head_run(const model::forward_acts<T>& a, const model::architecture& cfg, const model_head_choice& c) {
    check_choice(cfg, a.batch, c);
    const model::block_acts<T>& blk = a.blocks[c.layer];
    const std::size_t P = a.n_pos, dh = cfg.d_head();
    trace_run r;
    io::trace_inputs& in = r.inputs;
    in.kind = "causal";
    in.title = c.title;
    in.query_tokens = in.key_tokens = c.tokens;
    in.n_q = in.n_k = P;
    in.d_head = in.d_head_v = dh;
    in.has_mask = true;
    bool_matrix causal = bool_matrix::from_shape({P, P});
    for (std::size_t i = 0; i < P; ++i)
        for (std::size_t j = 0; j < P; ++j) causal(i, j) = j <= i;
    in.attend = {causal};
    r.labels.title = c.title;
    r.labels.query_tokens = r.labels.key_tokens = c.tokens;

    auto d = std::make_shared<run_data<T>>();
    head_data<T> hd;
    // The rows the scores came from: rotated q and k with rotary positions; the query head's
    // key/value head with grouped-query attention (query head h reads h / (H / KV)).
    const bool rotary = blk.rot_q.size() != 0;
    const std::size_t kv_head = c.head / (cfg.n_head / cfg.kv_heads());
    hd.q = head_rows(rotary ? blk.rot_q : blk.q, c.batch, c.head);
    hd.k = head_rows(rotary ? blk.rot_k : blk.k, c.batch, kv_head);
    hd.v = head_rows(blk.v, c.batch, kv_head);
    hd.scale = std::sqrt(static_cast<T>(dh));
    hd.scores_raw = fast_matrix<T>::from_shape({P, P});  // Q Kᵀ, every cell (the model keeps only the causal ones)
    matmul(false, true, P, P, dh, T(1), hd.q.data(), dh, hd.k.data(), dh, T(0), hd.scores_raw.data(), P);
    hd.weights = head_map(blk.pattern, c.batch, c.head);
    hd.z = head_rows(blk.z, c.batch, c.head);
    hd.fully_masked.assign(P, false);  // a causal row always sees its own position
    d->heads.push_back(std::move(hd));
    set_data<T>(r, std::move(d));
    return r;
}

template trace_run model_head_run<float>(const model::forward_acts<float>&, const model::architecture&, const model_head_choice&);
template trace_run model_head_run<double>(const model::forward_acts<double>&, const model::architecture&,
                                          const model_head_choice&);

std::string id_label(int id) { return "#" + std::to_string(id); }

}  // namespace attn::trace
