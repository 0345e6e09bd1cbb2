// `attn model train` end to end with tiny runs (seconds in the sanitizer build): the
// checkpoint written, the same bytes for the same seed whatever the threads, the watch
// view within 80 columns, and every bad input refused with exit 2 before training.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "support/golden.hpp"
#include "support/scratch.hpp"

using namespace attn::testing;

namespace {

std::string attn_train(const std::string& args, int* code) {
    return run_command("timeout 120 " + shell_quote(ATTN_BIN) + " model train " + args + " 2>&1", code);
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace

TEST_CASE("A tiny sort run writes a checkpoint and says where", "[model][train][cli]") {
    const std::string out = scratch_path("train-tiny.safetensors");
    int code = -1;
    const std::string text = attn_train("sort --iters 4 --batch 4 --out " + shell_quote(out), &code);
    INFO(text);
    CHECK(code == 0);
    CHECK_THAT(text, Catch::Contains("step 4/4  loss "));
    CHECK_THAT(text, Catch::Contains("wrote " + out + " (4 steps"));
    const std::string bytes = read_file(out);
    REQUIRE(bytes.size() > 8);
    CHECK_THAT(bytes, Catch::Contains("\"attn.task\":\"sort\""));
    CHECK_THAT(bytes, Catch::Contains("transformer.h.2.mlp.c_proj.weight"));
    CHECK_THAT(bytes, Catch::Contains("lm_head.weight"));
}

TEST_CASE("The same seed gives the same checkpoint bytes with 1 and 3 threads and float64", "[model][train][cli]") {
    std::string bytes[2];
    for (int i = 0; i < 2; ++i) {
        const std::string out = scratch_path("train-threads-" + std::to_string(i) + ".safetensors");
        int code = -1;
        attn_train("induction --iters 3 --batch 5 --seed 4 --dtype float64 --threads " + std::string(i ? "3" : "1") +
                       " --out " + shell_quote(out),
                   &code);
        REQUIRE(code == 0);
        bytes[i] = read_file(out);
    }
    CHECK(bytes[0].size() > 1000);
    CHECK(bytes[0] == bytes[1]);
}

TEST_CASE("The watch view draws the head beside the loss curve within 80 columns", "[model][train][cli]") {
    const std::string out = scratch_path("train-watch.safetensors");
    int code = -1;
    const std::string text = attn_train("sort --iters 6 --batch 4 --watch 1.2 --every 3 --out " + shell_quote(out), &code);
    INFO(text);
    CHECK(code == 0);
    CHECK_THAT(text, Catch::Contains("layer 1 head 2 at step 3"));
    CHECK_THAT(text, Catch::Contains("layer 1 head 2 at step 6"));
    CHECK_THAT(text, Catch::Contains("loss per step"));
    CHECK(text.find('\x1b') == std::string::npos);  // not a terminal: no escapes
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("attn model train: wrote ", 0) == 0) continue;  // holds the scratch path
        std::size_t cols = 0;  // display columns: count UTF-8 lead bytes
        for (unsigned char ch : line) cols += (ch & 0xC0) != 0x80;
        INFO(line);
        CHECK(cols <= 80);
    }
}

TEST_CASE("Bad training inputs exit 2 with what was expected and write nothing", "[model][train][cli]") {
    const std::string out = scratch_path("train-bad.safetensors");
    const std::string data = scratch_path("train-bad.txt");
    write_file(data, "1 2 3\n4 x 5\n");
    struct bad {
        std::string args, message;
    };
    const bad cases[] = {
        {"sort --iters 2 --watch 3.0", "layers 0 … 2 and heads 0 … 2, asked for 3.0"},
        {"sort --iters 2 --watch one", "expected LAYER.HEAD like 1.0, found 'one'"},
        {"sort --iters 2 --heads 5", "d_model 48 is not a multiple of the 5 heads"},
        {"sort --iters 2 --lr -1", "expected a learning rate in (0, 10)"},
        {"sort --iters 2 --data " + shell_quote(data), "give a task (sort, reverse, copy, induction) or --data FILE, not both"},
        {"--iters 2 --data " + shell_quote(data), data + ":2:3: expected a token id (a non-negative integer), found 'x'"},
        {"sortt --iters 2", "sortt"},
        {"sort --iters 2 --init " + shell_quote(data), data},
    };
    for (const auto& c : cases) {
        int code = -1;
        const std::string text = attn_train(c.args + " --out " + shell_quote(out), &code);
        INFO(c.args << "\n" << text);
        CHECK(code == 2);
        CHECK_THAT(text, Catch::Contains(c.message));
        CHECK_FALSE(file_exists(out));
    }
    int code = -1;
    const std::string text = attn_train("sort --iters 2 --out /nonexistent-dir/x.safetensors", &code);
    CHECK(code == 2);
    CHECK_THAT(text, !Catch::Contains("step 1/"));  // refused before training
}
