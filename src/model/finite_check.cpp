// model/finite_check.cpp — see finite_check.hpp.
#include "model/finite_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/error.hpp"

namespace attn::model {

namespace {

bool is_scores(const std::string& name) {
    const std::string tail = "attn.hook_attn_scores";
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

// "blocks.3.mlp.hook_post" → " (layer 3)"; a model-wide stage → "".
std::string layer_words(const std::string& name) {
    if (name.rfind("blocks.", 0) != 0) return "";
    const std::size_t dot = name.find('.', 7);
    return " (layer " + name.substr(7, dot - 7) + ")";
}

// The index of the first non-finite number of stage s, or npos. Scores above the
// diagonal (key after query) are the mask's −inf and are skipped: a score grid is scanned
// row by row over keys 0 … query.
template <class T>
std::size_t first_bad(const train_stage<T>& s) {
    if (s.data == nullptr) return s.fault;  // computed but not kept: judged as it was made
    std::size_t n = 1;
    for (std::size_t d : s.shape) n *= d;
    if (!(is_scores(s.name) && s.shape.size() == 4)) return first_nonfinite(s.data, n);
    const std::size_t Tn = s.shape[3];
    for (std::size_t row = 0; Tn != 0 && row < n / Tn; ++row)
        if (const std::size_t u = first_nonfinite(s.data + row * Tn, row % Tn + 1); u != std::string::npos)
            return row * Tn + u;
    return std::string::npos;
}

// "sequence 0, position 3" of a stage whose first two axes are [batch, pos] (or
// [batch, head, query, key] for the attention grids).
std::string place_of(const std::string& name, const std::vector<std::size_t>& shape, std::size_t i) {
    std::vector<std::size_t> at(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) at[k] = i % shape[k], i /= shape[k];
    if (shape.size() == 4 && (is_scores(name) || name.find("hook_pattern") != std::string::npos))
        return "sequence " + std::to_string(at[0]) + ", head " + std::to_string(at[1]) + ", query " + std::to_string(at[2]) +
               ", key " + std::to_string(at[3]);
    if (shape.size() >= 2) return "sequence " + std::to_string(at[0]) + ", position " + std::to_string(at[1]);
    return "element " + std::to_string(i);
}

}  // namespace

template <class T>
std::size_t first_nonfinite(const T* x, std::size_t n) {
    using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    constexpr bits_t exponent = sizeof(T) == 8 ? bits_t(0x7FF0000000000000ull) : bits_t(0x7F800000u);
    constexpr std::size_t lanes = 16;  // values per step: a fixed count, so -O2 vectorises the step
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
        bits_t b[lanes];
        std::memcpy(b, x + i, sizeof b);
        bits_t bad = 0;  // any of the 16 with every exponent bit set (±∞, NaN)
        for (std::size_t j = 0; j < lanes; ++j) bad |= static_cast<bits_t>((b[j] & exponent) == exponent);
        if (bad != 0) break;  // the first fault is in this step: found below
    }
    for (; i < n; ++i)
        if (!std::isfinite(x[i])) return i;
    return std::string::npos;
}

template <class T>
void check_finite_forward(const architecture& c, const train_acts<T>& acts) {
    check_finite_stages(list_stages(c, acts));
}

template <class T>
void check_finite_stages(const std::vector<train_stage<T>>& stages) {
    for (const auto& s : stages) {
        const std::size_t bad = first_bad(s);
        if (bad == std::string::npos) continue;
        const bool f32 = std::is_same_v<T, float>;
        throw attn::error(
            "not-finite", source_pos{},
            std::string("the ") + (f32 ? "float32" : "float64") + " forward overflows at " + s.name + layer_words(s.name) +
                ", " + place_of(s.name, s.shape, bad) + ": a number there is not finite, so nothing after it would mean anything" +
                (f32 ? "; run it with --dtype float64" : "; the checkpoint's weights are too large for this input"));
    }
}

template <class T>
void check_finite_step(const T* data, std::size_t n, std::size_t layer, const char* stage, std::size_t position) {
    std::size_t bad = 0;
    while (bad < n && std::isfinite(static_cast<double>(data[bad]))) ++bad;
    if (bad == n) return;
    const bool f32 = std::is_same_v<T, float>;
    const std::string name = layer == finite_model_wide ? std::string(stage) : "blocks." + std::to_string(layer) + "." + stage;
    throw attn::error("not-finite", source_pos{},
                      std::string("the ") + (f32 ? "float32" : "float64") + " decode overflows at " + name + layer_words(name) +
                          ", position " + std::to_string(position) + " (entry " + std::to_string(bad) +
                          "): a number there is not finite, so no token after it would mean anything" +
                          (f32 ? "; run it with --dtype float64" : "; the checkpoint's weights are too large for this input"));
}

template std::size_t first_nonfinite<float>(const float*, std::size_t);
template std::size_t first_nonfinite<double>(const double*, std::size_t);
template void check_finite_forward<float>(const architecture&, const train_acts<float>&);
template void check_finite_forward<double>(const architecture&, const train_acts<double>&);
template void check_finite_stages<float>(const std::vector<train_stage<float>>&);
template void check_finite_stages<double>(const std::vector<train_stage<double>>&);
template void check_finite_step<float>(const float*, std::size_t, std::size_t, const char*, std::size_t);
template void check_finite_step<double>(const double*, std::size_t, std::size_t, const char*, std::size_t);

}  // namespace attn::model
