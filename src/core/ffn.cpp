// core/ffn.cpp — two linear layers with a nonlinearity between them.
#include "core/ffn.hpp"

#include <cmath>
#include <string>

#include "core/attention.hpp"
#include "core/shape_error.hpp"

namespace attn {

double apply_activation(activation a, double x) {
    switch (a) {
        case activation::relu:
            return x > 0.0 ? x : 0.0;
        case activation::gelu_tanh: {
            const double k = std::sqrt(2.0 / 3.14159265358979323846);
            return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
        }
    }
    return x;
}

ffn_steps feed_forward(const matrix& x, const ffn_weights& w) {
    auto shapes = [&] {
        return "(X [n=" + std::to_string(x.shape(0)) + ", d=" + std::to_string(x.shape(1)) + "], W_1 [d=" +
               std::to_string(w.w1.shape(0)) + ", d_ff=" + std::to_string(w.w1.shape(1)) + "], W_2 [d_ff=" +
               std::to_string(w.w2.shape(0)) + ", d=" + std::to_string(w.w2.shape(1)) + "])";
    };
    if (w.w1.shape(0) != x.shape(1))
        throw shape_error("W_1 has d = " + std::to_string(w.w1.shape(0)) + " rows but X has d = " +
                          std::to_string(x.shape(1)) + " " + shapes());
    if (w.w2.shape(0) != w.w1.shape(1))
        throw shape_error("W_2 has d_ff = " + std::to_string(w.w2.shape(0)) + " rows but W_1 has d_ff = " +
                          std::to_string(w.w1.shape(1)) + " " + shapes());
    if (w.b1.size() != 0 && w.b1.size() != w.w1.shape(1))
        throw shape_error("b_1 has " + std::to_string(w.b1.size()) + " entries but d_ff = " +
                          std::to_string(w.w1.shape(1)) + " " + shapes());
    if (w.b2.size() != 0 && w.b2.size() != w.w2.shape(1))
        throw shape_error("b_2 has " + std::to_string(w.b2.size()) + " entries but W_2 has " +
                          std::to_string(w.w2.shape(1)) + " columns " + shapes());
    ffn_steps s;
    s.input = x;
    // The same W_1, W_2 act on every row: the FFN mixes features, never tokens.
    s.hidden_pre = matmul(x, w.w1);  // [n, d_ff]
    if (w.b1.size() != 0)
        for (std::size_t i = 0; i < s.hidden_pre.shape(0); ++i)
            for (std::size_t j = 0; j < s.hidden_pre.shape(1); ++j) s.hidden_pre(i, j) += w.b1(j);
    s.hidden = s.hidden_pre;  // [n, d_ff]
    for (double& v : s.hidden) v = apply_activation(w.act, v);
    s.output = matmul(s.hidden, w.w2);  // [n, d_out]
    if (w.b2.size() != 0)
        for (std::size_t i = 0; i < s.output.shape(0); ++i)
            for (std::size_t j = 0; j < s.output.shape(1); ++j) s.output(i, j) += w.b2(j);
    return s;
}

}  // namespace attn
