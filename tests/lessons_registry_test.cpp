// tests/lessons_registry_test.cpp — the lessons floor's three registries (show
// kinds, block kinds, derive ops) carry their functions, and a show item's check
// runs at load time: a lesson with a bad item does not load, so it can never fail
// in the middle of a step.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"
#include "lessons/loader_internal.hpp"
#include "lessons/show_kinds.hpp"

using namespace attn::lessons;

namespace {

// A sound lesson of two tokens with one self-attention run; a test appends one step.
const std::string head = R"(number = 90
title = "Scratch"

[tokens]
words = ["a", "b"]

[matrices]
Q = [[1.0, 2.0], [3.0, 4.0]]
K = [[1.0, 0.0], [0.0, 1.0]]

[derived.QK]
op = "matmul"
a = "Q"
b = "K"

[derived.QT]
op = "transpose"
of = "Q"

[runs.self]
q = "Q"
k = "K"
v = "K"
query_tokens = "words"
key_tokens = "words"

[[step]]
title = "One"
)";

// The message of the lesson_error that loading `text` throws, or "" when it loads.
std::string load_error(const std::string& text) {
    try {
        (void)load_lesson_text(text, "x.toml");
    } catch (const lesson_error& e) {
        std::string s;
        for (const auto& p : e.problems) s += p.str() + "\n";
        return s;
    }
    return "";
}

}  // namespace

TEST_CASE("every row of the three registries carries its function and a unique name", "[lessons][registry]") {
    std::set<std::string> names;
    for (const auto& k : show::all_kinds()) {
        INFO("show kind " << k.name);
        CHECK(k.render != nullptr);
        CHECK(k.check != nullptr);
        CHECK(names.insert("show " + k.name).second);
    }
    for (const auto& o : attn::lessons::detail::derive_ops()) {
        INFO("op " << o.name);
        CHECK(o.compute != nullptr);
        CHECK(attn::lessons::detail::find_derive_op(o.name) == &o);
        CHECK(names.insert("op " + o.name).second);
    }
    for (const auto& b : attn::lessons::detail::block_kinds()) {
        INFO("block " << b.name);
        CHECK(b.compute != nullptr);
        CHECK(names.insert("block " + b.name).second);
    }
    CHECK(attn::lessons::detail::find_derive_op("matmull") == nullptr);
}

TEST_CASE("derive ops found in the registry compute what their line says", "[lessons][registry]") {
    const lesson l = load_lesson_text(head, "x.toml");
    // Q·I = Q and Qᵀ, by hand.
    const auto& qk = l.matrices.at("QK");
    const auto& qt = l.matrices.at("QT");
    CHECK(qk(0, 0) == 1.0);
    CHECK(qk(0, 1) == 2.0);
    CHECK(qk(1, 0) == 3.0);
    CHECK(qk(1, 1) == 4.0);
    CHECK(qt(0, 1) == 3.0);
    CHECK(qt(1, 0) == 2.0);
}

TEST_CASE("a show item the kind's check refuses stops the load at its key", "[lessons][registry]") {
    struct bad_item {
        std::string show, expected;
    };
    auto c = GENERATE(values<bad_item>({
        {"kind = \"online_softmax\"\nrun = \"self\"\ntile = 0\ntoken = \"a\"",
         "x.toml:32:8: show kind 'online_softmax': 'tile' must be a whole number from 1 to 65536"},
        {"kind = \"patch_grid\"\nrun = \"self\"\ngrid = [3, 3]",
         "x.toml:32:8: show kind 'patch_grid': grid 3 × 3 has 9 patches but run 'self' has 2 keys"},
        {"kind = \"trace\"\nrun = \"self\"\ntoken = \"c\"",
         "x.toml:32:9: show kind 'trace': token 'c' is not a query of run 'self'"},
        {"kind = \"window_run\"\nrun = \"self\"\nwindow = 1\nstage = \"wieghts\"",
         "x.toml:33:9: show kind 'window_run': 'stage' must be mask, trace or a stage name"},
        {"kind = \"stage\"\nrun = \"self\"\nstage = \"weights\"\ndecimals = 9",
         "x.toml:33:12: show kind 'stage': 'decimals' must be a whole number from 0 to 8, found 9"},
        // The model lessons' kinds check their own fields at load (show_trained.cpp), not
        // only the references: a head past the model's, a token it does not know, a
        // loss file that is not built in, a step with no checkpoint, a token off the trace.
        {"kind = \"model_head\"\nmodel = \"sort\"\ntokens = \"2 0 1\"\nlayer = 0\nhead = 7",
         "x.toml:34:8: show kind 'model_head': 'head' must be a whole number from 0 to 2"},
        {"kind = \"model_head\"\nmodel = \"sort\"\ntokens = \"2 0 9\"\nlayer = 0\nhead = 0",
         "x.toml:32:10: show kind 'model_head': '9' is not a token of model 'sort'"},
        {"kind = \"model_head\"\nmodel = \"sort\"\ntokens = \"2 0 1\"\nlayer = 0\nhead = 0\nstage = \"trace\"\ntoken = \"5\"",
         "x.toml:36:9: show kind 'model_head': 'token' must be a position from 0 to 2"},
        {"kind = \"model_head\"\nmodel = \"sort\"\ntokens = \"2 0 1\"\nlayer = 0\nhead = 0\nstage = \"wieghts\"",
         "x.toml:35:9: show kind 'model_head': 'stage' must be heatmap, strongest, trace or a stage name"},
        {"kind = \"greedy_decode\"\nmodel = \"sort\"\ntokens = \"2 0 1\"\nsteps = 99",
         "x.toml:33:9: show kind 'greedy_decode': 'steps' must be a whole number from 1 to"},
        {"kind = \"loss_curve\"\nlosses = \"nope.csv\"",
         "x.toml:31:10: show kind 'loss_curve': no built-in file 'nope.csv'"},
        {"kind = \"head_over_steps\"\nmodel = \"sort\"\ntokens = \"2 0 1 1\"\nlayer = 0\nhead = 0\nsteps = [0, 7]\nfrom = 2",
         "x.toml:35:9: show kind 'head_over_steps': no built-in checkpoint of 'sort' at step 7"},
        {"kind = \"head_ablation\"\nmodel = \"sort\"\ntokens = \"2 0 1 1\"\nfrom = 9",
         "x.toml:33:8: show kind 'head_ablation': 'from' must be a whole number from 2 to 3"},
        {"kind = \"shape_table\"\ntable = \"cross\"\nvalues = { B = 2 }",
         "x.toml:32:10: show kind 'shape_table': the shape table 'cross' needs a value for"},
        {"kind = \"matrix\"\nmatrix = \"QK\"\nrows = \"words\"\nrow_labels = [\"x\", \"y\"]",
         "x.toml:33:14: show kind 'matrix': give 'rows' (a token list) or 'row_labels', not both"},
    }));
    INFO(c.show);
    const std::string err = load_error(head + "[[step.show]]\n" + c.show + "\n");
    CHECK(err.find(c.expected) != std::string::npos);
    if (err.find(c.expected) == std::string::npos) FAIL_CHECK(err);
}

TEST_CASE("every built-in lesson passes every item's check at load", "[lessons][registry]") {
    const auto entries = list_lessons(lessons_dir());
    CHECK(entries.size() >= 19);
    for (const auto& e : entries) {
        INFO(e.path);
        const lesson l = load_lesson(e.path);  // throws if an item's check refuses it
        CHECK(check_show_items(l).empty());
    }
}
