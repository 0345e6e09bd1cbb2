// tests/trace_stage_words_test.cpp — the stage vocabulary's words (trace/stage_words):
// each word is the alias in the tracer's table, and a hand-out's title for a part names
// the exercise's own inputs and options. Expected titles written by hand.
#include <catch2/catch.hpp>

#include "trace/stage_words.hpp"

using namespace attn;
using namespace attn::trace;
namespace sw = attn::stage_word;

TEST_CASE("the stage words are the tracer's aliases and the quantities' words", "[trace]") {
    CHECK(sw::weights() == stage_info_of(stage::weights).alias);
    CHECK(sw::raw() == stage_info_of(stage::scores_raw).alias);
    CHECK(sw::scale() == "scale");
    CHECK(sw::argmax() == "argmax");
    CHECK(sw::is_input(sw::k()));
    CHECK_FALSE(sw::is_input(sw::output()));
}

TEST_CASE("a part's title names the exercise's inputs and options", "[trace]") {
    const title_names cross{"Q_dec", "K_enc", "V_enc", 2.0, false};
    CHECK(stage_title(sw::raw(), cross) == "raw scores Q_dec K_encᵀ");
    CHECK(stage_title(sw::scaled(), cross) == "scores ÷ 2.0");
    CHECK(stage_title(sw::weights(), cross) == "weights (no softmax)");
    CHECK(stage_title(sw::output(), cross) == "output (weights · V_enc)");
    CHECK(stage_title(sw::v(), cross) == "your own V_enc");
    const title_names plain{"Q", "K", "V", std::nullopt, true};
    CHECK(stage_title(sw::scaled(), plain) == "scaled scores ÷ √d_k");
    CHECK(stage_title(sw::weights(), plain) == "attention weights (softmax over the keys)");
    CHECK(stage_title(sw::argmax(), plain) == "the key each query attends to most (index or token)");
    CHECK(stage_title(sw::grad_q(), plain) == "dQ");
    CHECK(stage_title(sw::running_sum(), plain) == "running sum after each key block");
    CHECK_FALSE(stage_title("not a stage", plain));
}
