// model/train_record: the loss history and kept steps written into a checkpoint's
// __metadata__ read back as written; the kept files' names; malformed records refused
// with the file and the key.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "model/file_error.hpp"
#include "model/train_record.hpp"

using namespace attn::model;

TEST_CASE("Kept steps are named after the final checkpoint", "[model][train][record]") {
    CHECK(kept_step_path("runs/ind.safetensors", 100) == "runs/ind.step100.safetensors");
    CHECK(kept_step_path("model", 0) == "model.step0");
    CHECK(kept_step_path(".safetensors", 3) == ".safetensors.step3");
}

TEST_CASE("A step list is sorted, without duplicates, and checked against the last step", "[model][train][record]") {
    CHECK(parse_step_list("2000,0,500,100,500", 2000) == std::vector<std::size_t>{0, 100, 500, 2000});
    CHECK_THROWS_WITH(parse_step_list("0,2001", 2000), "--keep-steps: step 2001 is beyond the last step, 2000");
    CHECK_THROWS_WITH(parse_step_list("1,,2", 10), Catch::Contains("found ''"));
    CHECK_THROWS_WITH(parse_step_list("-1", 10), Catch::Contains("found '-1'"));
    CHECK_THROWS_AS(parse_step_list("", 10), attn::error);
}

TEST_CASE("The loss history keeps every step up to 10000 steps and window means beyond", "[model][train][record]") {
    CHECK(loss_every_for(1) == 1);
    CHECK(loss_every_for(10000) == 1);
    CHECK(loss_every_for(10001) == 2);
    CHECK(loss_every_for(1000000) == 100);
    CHECK(encode_losses({}, 1).empty());
    CHECK(encode_losses({1.5, 0.25, 2}, 1) == "1.5 0.25 2");
    // windows of 2: (1 + 3) / 2, (0.5 + 0.25) / 2, and the last step alone
    CHECK(encode_losses({1, 3, 0.5, 0.25, 0.125}, 2) == "2 0.375 0.125");
    CHECK(encode_losses({1.0 / 3}, 1) == "0.333333333");
}

TEST_CASE("A train record reads back what was written", "[model][train][record]") {
    checkpoint_info info;
    info.metadata = {{"attn.steps", "5"},
                     {"attn.losses_every", "1"},
                     {"attn.losses", encode_losses({2.5, 2.25, 1.75, 1.0 / 3, 0.125}, 1)},
                     {"attn.kept_steps", encode_steps({0, 2, 5})}};
    const train_record r = read_train_record(info, "m.safetensors");
    CHECK(r.steps == 5);
    CHECK(r.loss_every == 1);
    REQUIRE(r.losses.size() == 5);
    CHECK(r.losses[0] == 2.5);
    CHECK_THAT(r.losses[3], Catch::WithinRel(1.0 / 3, 1e-8));
    CHECK(r.kept_steps == std::vector<std::size_t>{0, 2, 5});

    const train_record none = read_train_record(checkpoint_info{}, "gpt2.safetensors");
    CHECK(none.losses.empty());
    CHECK(none.kept_steps.empty());
    CHECK(none.loss_every == 1);
}

TEST_CASE("A malformed train record names the file and the key", "[model][train][record]") {
    struct bad {
        const char *key, *value, *message;
    };
    const bad cases[] = {
        {"attn.losses", "1.5 nan", "\"attn.losses\": expected finite numbers separated by spaces, found 'nan'"},
        {"attn.losses", "1.5  2", "found ''"},
        {"attn.losses", "1e999", "found '1e999'"},
        {"attn.losses_every", "0", "\"attn.losses_every\": expected a whole number of at least 1"},
        {"attn.kept_steps", "5,2", "\"attn.kept_steps\": expected ascending steps separated by commas, found '2'"},
        {"attn.steps", "x", "\"attn.steps\": expected a step count"},
    };
    for (const auto& c : cases) {
        checkpoint_info info;
        info.metadata[c.key] = c.value;
        INFO(c.key << " = " << c.value);
        try {
            read_train_record(info, "m.safetensors");
            FAIL("accepted");
        } catch (const file_error& e) {
            CHECK(e.file == "m.safetensors");
            CHECK_THAT(e.what(), Catch::Contains(c.message));
        }
    }
}
