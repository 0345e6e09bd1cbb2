// Training's backward, optimiser and tasks, checked against finite differences and
// by hand (the PyTorch autograd references are in tests/python/test_model_train*.py).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/adamw.hpp"
#include "model/traced_forward.hpp"
#include "model/init.hpp"
#include "model/tasks.hpp"
#include "model/train_step.hpp"
#include "support/model_random.hpp"

using namespace attn::model;
using attn::testing::perturbed_params;

namespace {

architecture tiny_train_config(bool mlp, bool tied) {
    architecture c;
    c.n_layer = 2;
    c.n_head = 2;
    c.n_embd = 8;
    c.vocab_size = 7;
    c.n_positions = 6;
    c.mlp = mlp ? mlp_kind::gelu_tanh : mlp_kind::none;
    c.tied = tied;
    return c;
}

struct tiny_batch {
    std::vector<std::int32_t> tokens{1, 3, 0, 6, 2, 2, 5, 4, 4, 1, 0, 3};   // [2, 6]
    std::vector<std::int32_t> targets{3, 0, -1, 2, 2, 5, 4, 4, -1, -1, 3, 6};  // [2, 6]
};

}  // namespace

TEST_CASE("Every parameter gradient matches central finite differences in float64", "[model][train]") {
    const bool mlp = GENERATE(true, false);
    const bool tied = GENERATE(true, false);
    const auto c = tiny_train_config(mlp, tied);
    auto p = perturbed_params<double>(c, 7, 0.3);
    auto grads = zero_params<double>(c);
    auto acts = make_train_acts<double>(c, 2, 6);
    auto gacts = make_train_acts<double>(c, 2, 6);
    const tiny_batch batch;
    train_forward(p, acts, batch.tokens.data(), batch.targets.data());
    train_backward(p, grads, acts, gacts, batch.tokens.data(), batch.targets.data());

    // A few entries of every parameter: first, middle, last.
    std::vector<double*> values;
    std::vector<double> analytic;
    std::vector<std::string> names;
    auto gr = grads;  // same order as p
    std::vector<const double*> gdata;
    for_each_param(gr, [&](const std::string&, param_kind, auto& t) { gdata.push_back(t.data()); });
    std::size_t k = 0;
    for_each_param(p, [&](const std::string& name, param_kind, auto& t) {
        for (std::size_t j : {std::size_t{0}, t.size() / 2, t.size() - 1}) {
            values.push_back(t.data() + j);
            analytic.push_back(gdata[k][j]);
            names.push_back(name + "[" + std::to_string(j) + "]");
        }
        ++k;
    });
    const double h = 1e-5;
    double largest = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double keep = *values[i];
        *values[i] = keep + h;
        const double up = train_forward(p, acts, batch.tokens.data(), batch.targets.data());
        *values[i] = keep - h;
        const double down = train_forward(p, acts, batch.tokens.data(), batch.targets.data());
        *values[i] = keep;
        const double numeric = (up - down) / (2 * h);
        INFO(names[i] << " analytic " << analytic[i] << " numeric " << numeric);
        CHECK(analytic[i] == Approx(numeric).margin(1e-7));
        largest = std::max(largest, std::fabs(analytic[i]));
    }
    CHECK(largest > 1e-3);  // the gradients are not all zero
}

TEST_CASE("The attention pattern rows sum to one and the future gets no weight", "[model][train]") {
    const auto c = tiny_train_config(true, false);
    auto p = perturbed_params<double>(c, 3, 0.3);
    auto acts = make_train_acts<double>(c, 2, 6);
    const tiny_batch batch;
    const double loss = train_forward(p, acts, batch.tokens.data(), batch.targets.data());
    CHECK(std::isfinite(loss));
    const auto& pat = acts.blocks[1].pattern;  // [2, 2, 6, 6]
    for (std::size_t r = 0; r < 2 * 2 * 6; ++r) {
        const std::size_t q = r % 6;
        double sum = 0;
        for (std::size_t k = 0; k < 6; ++k) {
            sum += pat[r * 6 + k];
            if (k > q) CHECK(pat[r * 6 + k] == 0.0);
        }
        CHECK(sum == Approx(1.0).epsilon(1e-12));
    }
    // The mean loss over the 9 scored positions, by hand from the kept losses.
    double total = 0;
    for (double l : acts.losses) total += l;
    CHECK(loss == Approx(total / 9).epsilon(1e-12));
}

TEST_CASE("AdamW's first step moves every parameter by about lr against its gradient sign", "[model][train]") {
    // With m and v from one gradient, m̂/√v̂ = g/|g| (up to ε): each entry moves by lr.
    const auto c = tiny_train_config(true, false);
    auto p = perturbed_params<double>(c, 5, 0.3);
    auto before = p;
    auto grads = zero_params<double>(c);
    attn::prng g(9);
    for_each_param(grads, [&](const std::string&, param_kind, auto& t) {
        for (auto& x : t) x = g.normal(0.0, 1e-3);  // small: no clipping
    });
    adamw_config ac;
    ac.lr = 1e-2;
    ac.weight_decay = 0.5;
    adamw<double> opt(ac, c);
    const auto gcopy = grads;
    opt.step(p, grads);
    std::vector<const double*> gd, bd;
    for_each_param(gcopy, [&](const std::string&, param_kind, auto& t) { gd.push_back(t.data()); });
    for_each_param(before, [&](const std::string&, param_kind, auto& t) { bd.push_back(t.data()); });
    std::size_t k = 0;
    for_each_param(p, [&](const std::string& name, param_kind kind, auto& t) {
        const double decay = kind == param_kind::linear ? 1 - ac.lr * ac.weight_decay : 1.0;
        for (std::size_t j = 0; j < t.size(); ++j) {
            const double gj = gd[k][j];
            const double expect = bd[k][j] * decay - ac.lr * gj / (std::fabs(gj) + 1e-8);
            INFO(name << "[" << j << "]");
            REQUIRE(t.data()[j] == Approx(expect).margin(1e-12));
        }
        ++k;
    });
}

TEST_CASE("Clipping scales every gradient so the global norm is the clip", "[model][train]") {
    const auto c = tiny_train_config(false, true);
    auto p = perturbed_params<double>(c, 5, 0.3);
    auto grads = zero_params<double>(c);
    for_each_param(grads, [&](const std::string&, param_kind, auto& t) {
        for (auto& x : t) x = 3.0;
    });
    const double norm = global_norm(grads);
    CHECK(norm == Approx(3.0 * std::sqrt(static_cast<double>(parameter_count(c)))));
    adamw_config ac;
    ac.clip = 1.0;
    adamw<double> opt(ac, c);
    CHECK(opt.step(p, grads) == Approx(norm));
    CHECK(global_norm(grads) == Approx(norm / (norm + 1e-6)).epsilon(1e-12));
}

TEST_CASE("Warm-up rises linearly and cosine decay ends at the floor", "[model][train]") {
    adamw_config ac;
    ac.lr = 1.0;
    ac.warmup = 4;
    ac.cosine = true;
    ac.min_lr = 0.1;
    ac.total_steps = 14;
    CHECK(learning_rate(ac, 0) == Approx(0.25));
    CHECK(learning_rate(ac, 3) == Approx(1.0));
    CHECK(learning_rate(ac, 4) == Approx(1.0));
    CHECK(learning_rate(ac, 9) == Approx(0.55));  // half way: (1 + 0.1) / 2
    CHECK(learning_rate(ac, 14) == Approx(0.1));
}

TEST_CASE("The sort task feeds 11 tokens and scores only the sorted half", "[model][train]") {
    const auto task = make_task("sort");
    CHECK(task.seq_len == 11);
    CHECK(task_sequence(task, {2, 0, 1, 1, 0, 2}) == std::vector<std::int32_t>{2, 0, 1, 1, 0, 2, 0, 0, 1, 1, 2, 2});
    attn::prng g(1);
    std::vector<std::int32_t> x(4 * 11), y(4 * 11);
    task.fill_batch(g, x.data(), y.data(), 4);
    for (std::size_t b = 0; b < 4; ++b) {
        for (std::size_t t = 0; t < 5; ++t) CHECK(y[b * 11 + t] == -1);
        std::vector<std::int32_t> in(x.begin() + b * 11, x.begin() + b * 11 + 6);
        std::sort(in.begin(), in.end());
        for (std::size_t t = 0; t < 6; ++t) CHECK(y[b * 11 + 5 + t] == in[t]);
        for (std::size_t t = 6; t < 11; ++t) CHECK(x[b * 11 + t] == y[b * 11 + t - 1]);  // fed = previous target
    }
    CHECK(task_sequence(make_task("reverse"), {2, 0, 1}) == std::vector<std::int32_t>{2, 0, 1, 1, 0, 2});
    CHECK(task_sequence(make_task("induction"), {3, 5, 7}) == std::vector<std::int32_t>{0, 3, 5, 7, 3, 5, 7});
    CHECK_THROWS_WITH(make_task("sorting"), Catch::Contains("sort, reverse, copy or induction"));
}

TEST_CASE("A wider sort task: eight digits from 0 to 5 feed 15 tokens, the first 7 targets unscored", "[model][train]") {
    const auto task = make_digits_task("sort", 8, 6);
    CHECK((task.seq_len == 15 && task.vocab_size == 6 && task.model.n_positions == 15 && task.model.vocab_size == 6));
    CHECK(task_sequence(task, {3, 0, 5, 2, 0, 4, 1, 3}) ==
          std::vector<std::int32_t>{3, 0, 5, 2, 0, 4, 1, 3, 0, 0, 1, 2, 3, 3, 4, 5});
    attn::prng g(3);
    std::vector<std::int32_t> x(8 * 15), y(8 * 15);  // [B, T]
    task.fill_batch(g, x.data(), y.data(), 8);
    std::vector<int> seen(6, 0);
    for (std::size_t b = 0; b < 8; ++b) {
        for (std::size_t t = 0; t < 7; ++t) CHECK(y[b * 15 + t] == -1);
        std::vector<std::int32_t> in(x.begin() + b * 15, x.begin() + b * 15 + 8);
        for (auto d : in) ++seen.at(static_cast<std::size_t>(d));
        std::sort(in.begin(), in.end());
        for (std::size_t t = 0; t < 8; ++t) CHECK(y[b * 15 + 7 + t] == in[t]);
    }
    for (int c : seen) CHECK(c > 0);  // 64 digits: every one of 0 … 5 drawn
    CHECK(make_digits_task("sort", 6, 3).seq_len == make_task("sort").seq_len);
    CHECK_THROWS_WITH(make_digits_task("induction", 8, 6), Catch::Contains("--digits and --base are for sort"));
    CHECK_THROWS_WITH(make_digits_task("sort", 0, 6), Catch::Contains("expected 1"));
    CHECK_THROWS_WITH(make_digits_task("sort", 8, 1), Catch::Contains("base of 2"));
}

// Whether s [T + 1] is BOS, a prefix s[1 … p], a block s[p+1 … p+L], the block again
// and a tail, the prefix (from its third token) and the tail following the task's
// chain: each token one of the followers of the token two before it.
bool induction_shape(const attn::model::train_task& task, const std::vector<std::int32_t>& s, std::size_t L, std::size_t p) {
    const std::size_t T = task.seq_len, F = task.followers;
    if (p + 2 * L > T || !std::equal(s.begin() + 1 + p, s.begin() + 1 + p + L, s.begin() + 1 + p + L)) return false;
    for (std::size_t t = 3; t <= T; ++t) {
        if (t > p && t <= p + 2 * L) continue;  // the block and its copy
        const auto* f = task.follow.data() + static_cast<std::size_t>(s[t - 2]) * F;
        if (std::find(f, f + F, s[t]) == f + F) return false;
    }
    return true;
}

TEST_CASE("The induction task repeats a random block of random length between parts drawn from a chain", "[model][train]") {
    const auto task = make_task("induction");
    const std::size_t T = task.seq_len, B = 300, V = task.vocab_size, F = task.followers;
    REQUIRE(task.follow.size() == V * F);
    CHECK(make_task("induction").follow == task.follow);  // a fixed table, whatever the run's seed
    std::vector<std::int32_t> x(B * T), y(B * T);  // [B, T]
    attn::prng g(5);
    task.fill_batch(g, x.data(), y.data(), B);
    std::vector<int> lengths(task.block + 1, 0), starts(T, 0);
    for (std::size_t b = 0; b < B; ++b) {
        std::vector<std::int32_t> s(x.begin() + b * T, x.begin() + (b + 1) * T);  // [T + 1]
        s.push_back(y[b * T + T - 1]);
        CHECK(s[0] == 0);
        for (std::size_t t = 0; t < T; ++t) CHECK(y[b * T + t] == s[t + 1]);  // every prediction scored
        for (std::size_t t = 1; t <= T; ++t) CHECK((s[t] >= 1 && static_cast<std::size_t>(s[t]) < V));
        // The shortest block length, and the first place, that explain the sequence.
        std::size_t found = 0, at = 0;
        for (std::size_t L = task.min_block; L <= task.block && found == 0; ++L)
            for (std::size_t p = 0; p + 2 * L <= T && found == 0; ++p)
                if (induction_shape(task, s, L, p)) found = L, at = p;
        REQUIRE(found >= task.min_block);
        ++lengths[found];
        ++starts[at];
    }
    // Lengths and places vary (no position offset predicts the copy).
    CHECK(std::count_if(lengths.begin(), lengths.end(), [](int n) { return n > 0; }) >= 8);
    CHECK(std::count_if(starts.begin(), starts.end(), [](int n) { return n > 0; }) >= 15);
}

TEST_CASE("Training's forward computes what the model floor's traced forward computes", "[model][train]") {
    const bool mlp = GENERATE(true, false);
    const bool tied = GENERATE(true, false);
    const auto c = tiny_train_config(mlp, tied);
    const auto p = perturbed_params<double>(c, 21, 0.3);
    const tiny_batch batch;
    auto acts = make_train_acts<double>(c, 2, 6);
    train_forward(p, acts, batch.tokens.data(), batch.targets.data());
    std::vector<std::vector<int>> rows(2);
    for (std::size_t i = 0; i < 12; ++i) rows[i / 6].push_back(batch.tokens[i]);
    const auto ref = trace_stages(p, rows);
    const auto near = [](const double* a, const double* b, std::size_t n) {
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
        return worst;
    };
    CHECK(near(acts.logits.data(), ref.logits.data(), acts.logits.size()) < 1e-12);
    CHECK(near(acts.probs.data(), ref.probs.data(), acts.probs.size()) < 1e-12);
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        CHECK(near(acts.blocks[l].pattern.data(), ref.blocks[l].pattern.data(), acts.blocks[l].pattern.size()) < 1e-12);
        CHECK(near(acts.blocks[l].z.data(), ref.blocks[l].z.data(), acts.blocks[l].z.size()) < 1e-12);
        CHECK(near(acts.blocks[l].ln1.data(), ref.blocks[l].ln1.out.data(), acts.blocks[l].ln1.size()) < 1e-12);
    }
}
