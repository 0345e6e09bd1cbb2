// tests/consumer/main.cpp — computes one attention row through an installed attn::core
// and checks it against the same row worked out here by hand (std::exp, no attn code);
// lists the lessons built into the installed attn::lessons. Exit 0 when both hold.
#include <cmath>
#include <cstdio>

#include "core/attention.hpp"
#include "lessons/lesson_loader.hpp"

int main() {
    // One query against two keys, d_k = 2.
    const attn::matrix q = {{1.0, 0.0}};              // [n_q = 1, d_k = 2]
    const attn::matrix k = {{1.0, 0.0}, {0.0, 1.0}};  // [n_k = 2, d_k = 2]
    const attn::matrix v = {{1.0, 2.0}, {3.0, 4.0}};  // [n_k = 2, d_v = 2]
    const attn::attention_steps s = attn::scaled_dot_product_attention(q, k, v);

    // By hand: scores q·k_j = (1, 0), ÷ √2, softmax, then the weighted sum of V's rows.
    const double e0 = std::exp(1.0 / std::sqrt(2.0)), e1 = std::exp(0.0);
    const double w[2] = {e0 / (e0 + e1), e1 / (e0 + e1)};
    const double out[2] = {w[0] * 1.0 + w[1] * 3.0, w[0] * 2.0 + w[1] * 4.0};

    int bad = 0;
    for (int j = 0; j < 2; ++j) {
        if (std::fabs(s.weights(0, j) - w[j]) > 1e-12) ++bad;
        if (std::fabs(s.output(0, j) - out[j]) > 1e-12) ++bad;
    }
    std::printf("weights %.6f %.6f  output %.6f %.6f\n", s.weights(0, 0), s.weights(0, 1), s.output(0, 0), s.output(0, 1));

    const auto lessons = attn::lessons::list_lessons(attn::lessons::built_in_lessons);
    std::printf("%zu lessons built in; the first: %s\n", lessons.size(), lessons.empty() ? "-" : lessons[0].title.c_str());
    if (lessons.empty()) ++bad;
    return bad == 0 ? 0 : 1;
}
