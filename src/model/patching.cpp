// model/patching.cpp — activation patching and head ablation through train_forward's
// stage_patch: one forward per intervention, each measured by the metric.
#include "model/patching.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace attn::model {

namespace {

// log Σ exp(row) in float64, from the row's maximum.
template <class T>
double log_sum_exp(const T* row, std::size_t n) {
    double mx = static_cast<double>(row[0]);
    for (std::size_t i = 1; i < n; ++i) mx = std::max(mx, static_cast<double>(row[i]));
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += std::exp(static_cast<double>(row[i]) - mx);
    return mx + std::log(s);
}

std::string block(std::size_t l) { return "blocks." + std::to_string(l) + "."; }

void check_inputs(const architecture& c, const std::vector<int>& clean, const std::vector<int>& corrupt, const patch_metric& m) {
    if (clean.size() != corrupt.size())
        throw attn::error(fmt::format("the clean input has {} tokens and the corrupted one {}: patching needs inputs of one token length",
                                      clean.size(), corrupt.size()));
    for (int t : {m.a, m.b})
        if (t >= 0 && static_cast<std::size_t>(t) >= c.vocab_size)
            throw attn::error(fmt::format("--metric: token id {} is not in the vocabulary (ids 0..{})", t, c.vocab_size - 1));
    if (m.kind == metric_kind::loss && m.from + 1 >= clean.size())
        throw attn::error(fmt::format("--metric loss:{}: the input's {} tokens leave no next token to predict from position {}",
                                      m.from, clean.size(), m.from));
}

}  // namespace

template <class T>
double metric_value(const patch_metric& m, const forward_record<T>& run, const std::vector<std::int32_t>& clean_tokens,
                    const architecture& c) {
    const std::size_t P = run.tokens.size(), V = c.vocab_size;
    const T* logits = stage_of(c, run.acts, "logits").data;  // [P, V]
    const T* last = logits + (P - 1) * V;
    switch (m.kind) {
        case metric_kind::logit_diff:
            return static_cast<double>(last[m.a]) - static_cast<double>(last[m.b]);
        case metric_kind::prob:
            return std::exp(static_cast<double>(last[m.a]) - log_sum_exp(last, V));
        case metric_kind::loss: break;
    }
    double sum = 0;
    for (std::size_t i = m.from; i + 1 < P; ++i)
        sum += log_sum_exp(logits + i * V, V) - static_cast<double>(logits[i * V + static_cast<std::size_t>(clean_tokens[i + 1])]);
    return sum / static_cast<double>(P - 1 - m.from);
}

namespace {

// One intervention: the run of `tokens` with `patch`, measured.
template <class T>
double measured(const model_params<T>& p, const std::vector<int>& tokens, const stage_patch<T>& patch, const patch_metric& m,
                const std::vector<std::int32_t>& clean_tokens) {
    return metric_value(m, record_run(p, tokens, &patch), clean_tokens, p.config);
}

// Head h's columns of hook_z [P, H·hs] set from `from` ([P, H·hs]) at every position.
template <class T>
stage_patch<T> head_from(const std::string& stage, const std::vector<T>& from, std::size_t h, std::size_t hs, std::size_t C) {
    return [stage, &from, h, hs, C](const std::string& s, T* data) {
        if (s != stage) return;
        for (std::size_t pos = 0; pos * C < from.size(); ++pos)
            std::copy_n(from.data() + pos * C + h * hs, hs, data + pos * C + h * hs);
    };
}

// Head h's hook_z [P, C] in every row replaced by one value per column: its mean over
// positions (mean ablation) or zero.
template <class T>
std::vector<T> head_filled(const T* z, std::size_t P, std::size_t C, std::size_t h, std::size_t hs, bool mean) {
    std::vector<T> out(z, z + P * C);  // [P, C]
    for (std::size_t e = 0; e < hs; ++e) {
        double s = 0;
        for (std::size_t pos = 0; pos < P; ++pos) s += static_cast<double>(z[pos * C + h * hs + e]);
        const T v = mean ? static_cast<T>(s / static_cast<double>(P)) : T(0);
        for (std::size_t pos = 0; pos < P; ++pos) out[pos * C + h * hs + e] = v;
    }
    return out;
}

}  // namespace

template <class T>
patching_result run_patching(const model_params<T>& p, const std::vector<int>& clean, const std::vector<int>& corrupt,
                             const patch_metric& m) {
    const architecture& c = p.config;
    check_inputs(c, clean, corrupt, m);
    const std::size_t P = clean.size(), C = c.n_embd, hs = c.d_head();
    const auto rc = record_run(p, clean), rx = record_run(p, corrupt);
    patching_result out;
    out.clean = metric_value(m, rc, rc.tokens, c);
    out.corrupt = metric_value(m, rx, rc.tokens, c);
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        const std::string zname = block(l) + "attn.hook_z", rname = block(l) + "hook_resid_pre";
        const T* zc = stage_of(c, rc.acts, zname).data;  // [P, C]
        const std::vector<T> clean_z(zc, zc + P * C);    // [P, C]
        out.head_patch.emplace_back();
        out.zero_ablation.emplace_back();
        out.mean_ablation.emplace_back();
        for (std::size_t h = 0; h < c.n_head; ++h) {
            out.head_patch.back().push_back(measured(p, corrupt, head_from(zname, clean_z, h, hs, C), m, rc.tokens));
            const auto zero = head_filled(zc, P, C, h, hs, false), mean = head_filled(zc, P, C, h, hs, true);  // [P, C]
            out.zero_ablation.back().push_back(measured(p, clean, head_from(zname, zero, h, hs, C), m, rc.tokens));
            out.mean_ablation.back().push_back(measured(p, clean, head_from(zname, mean, h, hs, C), m, rc.tokens));
        }
        const T* resid = stage_of(c, rc.acts, rname).data;  // [P, C]
        out.resid_patch.emplace_back();
        for (std::size_t pos = 0; pos < P; ++pos) {
            const stage_patch<T> patch = [&](const std::string& s, T* data) {
                if (s == rname) std::copy_n(resid + pos * C, C, data + pos * C);
            };
            out.resid_patch.back().push_back(measured(p, corrupt, patch, m, rc.tokens));
        }
    }
    return out;
}

#define ATTN_PATCHING(T)                                                                                              \
    template double metric_value<T>(const patch_metric&, const forward_record<T>&, const std::vector<std::int32_t>&,   \
                                    const architecture&);                                                             \
    template patching_result run_patching<T>(const model_params<T>&, const std::vector<int>&, const std::vector<int>&, \
                                             const patch_metric&);

ATTN_PATCHING(float)
ATTN_PATCHING(double)

}  // namespace attn::model
