// tests/trace_spec_test.cpp — reading users' inputs for `attn trace`: spec files,
// .npy and .csv, mask polarity, shape chaining and the exported stage layout.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <xtensor/xnpy.hpp>

#include "io/csv_read.hpp"
#include "io/npy_read.hpp"
#include "io/trace_spec.hpp"
#include "trace/export.hpp"
#include "trace/trace_run.hpp"
#include "support/scratch.hpp"
#include "support/text_checks.hpp"

using namespace attn;
namespace fs = std::filesystem;
using attn::testing::error_of;
using attn::testing::scratch_folder;

namespace {

const char* const qkv = "Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\n"
                        "K = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\n"
                        "V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]\n";

}  // namespace

TEST_CASE("a block mask in a spec becomes attend polarity and combines with causal", "[trace]") {
    scratch_folder s("trace-test-block");
    const auto spec = s.write("s.toml", std::string("kind = \"causal\"\ntokens = [\"a\", \"b\", \"c\"]\n") + qkv +
                                            "[mask]\nblock = [[false, false, false], [true, false, false], [false, false, false]]\n");
    const io::trace_inputs in = io::resolve_trace_inputs(io::load_trace_spec(spec));
    REQUIRE(in.attend.size() == 1);
    // causal keeps j <= i; the block mask removes (b, a).
    const bool want[3][3] = {{true, false, false}, {false, true, false}, {true, true, true}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) CHECK(in.attend[0](i, j) == want[i][j]);
    CHECK(in.query_tokens == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("float32 and float64 npy files load exactly and other layouts are refused", "[trace]") {
    scratch_folder s("trace-test-npy");
    const xt::xtensor<double, 2> d = {{0.1, -2.5}, {1e-300, 3.0}};
    const xt::xtensor<float, 2> f = {{0.1f, -2.5f}, {1e-30f, 3.0f}};
    xt::dump_npy((s.dir / "d.npy").string(), d);
    xt::dump_npy((s.dir / "f.npy").string(), f);
    const io::nd_array a = io::read_npy((s.dir / "d.npy").string());
    CHECK(a.shape == std::vector<std::size_t>{2, 2});
    CHECK(a.data == std::vector<double>{0.1, -2.5, 1e-300, 3.0});
    const io::nd_array b = io::read_npy((s.dir / "f.npy").string());
    CHECK(b.data == std::vector<double>{double(0.1f), -2.5, double(1e-30f), 3.0});

    const xt::xarray<double, xt::layout_type::column_major> fortran = {{1.0, 2.0}, {3.0, 4.0}};
    xt::dump_npy((s.dir / "fortran.npy").string(), fortran);
    CHECK_THAT(error_of<io::input_error>([&] { io::read_npy((s.dir / "fortran.npy").string()); }), Catch::Contains("Fortran order"));
    const xt::xtensor<int, 2> ints = {{1, 2}};
    xt::dump_npy((s.dir / "int.npy").string(), ints);
    CHECK_THAT(error_of<io::input_error>([&] { io::read_npy((s.dir / "int.npy").string()); }), Catch::Contains("found '<i4'"));
    const xt::xtensor<bool, 2> mask = {{true, false}};
    xt::dump_npy((s.dir / "mask.npy").string(), mask);
    CHECK_THAT(error_of<io::input_error>([&] { io::read_npy((s.dir / "mask.npy").string()); }), Catch::Contains("found '|b1'"));
    CHECK(io::read_npy((s.dir / "mask.npy").string(), io::npy_options{true}).data == std::vector<double>{1.0, 0.0});
}

TEST_CASE("a CSV cell that is not a number is reported with its line and column", "[trace]") {
    auto [text, where] = GENERATE(Catch::Generators::table<std::string, std::string>({
        {"1,2\n3,x\n", "c.csv:2:3: expected a number, found 'x'"},
        {"# comment\n1, 2\n3,,4\n", "c.csv:3:3: expected a number, found ''"},
        {"1,2\n3\n", "c.csv:2:1: expected 2 numbers like the first row, found 1"},
    }));
    scratch_folder s("trace-test-csv");
    const auto path = s.write("c.csv", text);
    CHECK_THAT(error_of<io::input_error>([&] { io::read_csv(path); }), Catch::EndsWith(where));
}

TEST_CASE("inputs that do not chain name both shapes by their axis names", "[trace]") {
    auto [body, message] = GENERATE(Catch::Generators::table<std::string, std::string>({
        {"kind = \"self\"\nQ = [[1.0, 2.0, 3.0]]\nK = [[1.0, 2.0]]\nV = [[1.0]]\n",
         "s.toml:3:5: K [n_k=1, d_k=2] does not chain with Q [n_q=1, d_k=3]: d_k differs"},
        {"kind = \"cross\"\nQ = [[1.0]]\nK = [[1.0], [2.0]]\nV = [[1.0]]\n",
         "s.toml:4:5: V [n_k=1, d_v=1] does not chain with K [n_k=2, d_k=1]: n_k differs"},
        {"kind = \"self\"\nX = [[1.0, 2.0]]\nW_Q = [[1.0], [2.0]]\nW_K = [[1.0], [2.0]]\nW_V = [[1.0], [2.0]]\nW_O = [[1.0], [2.0]]\n",
         "s.toml:6:7: W_O [d_v=2, d_out=1] does not chain with W_V [d_model=2, d_v=1]: d_v differs"},
        {"kind = \"self\"\nQ = [[1.0]]\nK = [[1.0]]\nV = [[1.0]]\nbias = [[0.0, 1.0]]\n",
         "s.toml:5:8: bias [1 × 2] does not chain with the scores [n_q=1, n_k=1] (or [heads=1, n_q, n_k] for one bias per head)"},
    }));
    scratch_folder s("trace-test-chain");
    const auto path = s.write("s.toml", body);
    CHECK_THAT(error_of<io::input_error>([&] { io::resolve_trace_inputs(io::load_trace_spec(path)); }), Catch::EndsWith(message));
}

TEST_CASE("exported stages follow the TransformerLens axes with every value in its place", "[trace]") {
    // Batch 2, 2 heads of d_head 1: head h of Q is column h.
    scratch_folder s("trace-test-layout");
    const auto path = s.write("s.toml", "kind = \"self\"\nheads = 2\n"
                                        "Q = [[[1.0, 0.0], [0.0, 2.0]], [[0.5, 1.0], [1.0, 0.0]]]\n"
                                        "K = [[[1.0, 1.0], [2.0, 0.0]], [[0.0, 1.0], [1.0, 3.0]]]\n"
                                        "V = [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]\n");
    const trace::trace_run r = trace::run_trace(io::resolve_trace_inputs(io::load_trace_spec(path)));
    const auto stages = trace::export_stages(r);
    REQUIRE(stages.size() == 8);
    const auto& q = stages[0];
    CHECK(q.name == "hook_q");
    CHECK(q.axes == std::vector<std::string>{"batch", "query_pos", "head", "d_head"});
    CHECK(q.shape == std::vector<std::size_t>{2, 2, 2, 1});
    CHECK(q.data == std::vector<double>{1.0, 0.0, 0.0, 2.0, 0.5, 1.0, 1.0, 0.0});
    const auto& pattern = stages[6];
    CHECK(pattern.name == "hook_pattern");
    CHECK(pattern.axes == std::vector<std::string>{"batch", "head", "query_pos", "key_pos"});
    CHECK(pattern.shape == std::vector<std::size_t>{2, 2, 2, 2});
    // Batch 1, head 1, query 0: q = 1.0, keys k = [1.0, 3.0], d_head = 1 so no scaling.
    const double e0 = std::exp(1.0), e1 = std::exp(3.0);
    CHECK_THAT(pattern.data[12], Catch::Matchers::WithinAbs(e0 / (e0 + e1), 1e-15));
    CHECK_THAT(pattern.data[13], Catch::Matchers::WithinAbs(e1 / (e0 + e1), 1e-15));
    // hook_z [batch, query_pos, head, d_head_v]: batch 1, query 0, head 1 = weights · V column 1.
    const auto& z = stages[7];
    CHECK_THAT(z.data[4 + 1], Catch::Matchers::WithinAbs((e0 * 6.0 + e1 * 8.0) / (e0 + e1), 1e-14));
}
