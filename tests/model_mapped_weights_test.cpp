// tests/model_mapped_weights_test.cpp — weights read as views of the mapped checkpoint
// (model/param_storage.hpp, issue 32): which tensors are views (F32 in the forward's
// layout: all of a Hugging Face GPT-2 file, the embeddings, norms and biases of a minGPT
// one; none in a float64 run of an F32 file), the same bits as the copying reader, the same
// forward, no copy made by a forward, a copy and own_params writable and apart from the
// file, a view outliving the params it came from, a NaN in a viewed tensor refused, and
// GGUF F32 tensors (stories260K) as views.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <utility>

#include "model/checkpoint.hpp"
#include "model/checkpoint_names.hpp"
#include "model/file_error.hpp"
#include "model/gguf.hpp"
#include "model/gguf_checkpoint.hpp"
#include "model/safetensors.hpp"
#include "model/traced_forward.hpp"

namespace {

namespace am = attn::model;
namespace fs = std::filesystem;

am::architecture mapped_test_config() {
    am::architecture c;
    c.n_layer = 2, c.n_head = 2, c.n_embd = 8, c.vocab_size = 11, c.n_positions = 6;
    return c;
}

am::model_params<float> mapped_test_params(const am::architecture& c) {
    am::model_params<float> p = am::zero_params<float>(c);
    std::mt19937_64 rng(32);
    std::normal_distribution<double> normal(0.0, 0.3);
    am::for_each_param(p, [&](const std::string&, am::param_kind, auto& t) {
        for (auto& x : t) x = static_cast<float>(normal(rng));
    });
    return p;
}

// The params in Hugging Face GPT-2's names and layout (Conv1D [in, out], as model_params
// keeps them): every tensor as the forward reads it.
void write_hf_gpt2(const std::string& path, const am::model_params<float>& p) {
    std::vector<am::st_out> out;
    am::for_each_param(p, [&](const std::string& name, am::param_kind, const auto& t) {
        out.push_back({am::gpt2_key(name), {t.shape().begin(), t.shape().end()}, t.data()});
    });
    const auto& c = p.config;
    am::write_safetensors(path, "F32", out,
                          {{"n_layer", std::to_string(c.n_layer)}, {"n_head", std::to_string(c.n_head)},
                           {"n_embd", std::to_string(c.n_embd)}, {"vocab_size", std::to_string(c.vocab_size)},
                           {"n_positions", std::to_string(c.n_positions)}});
}

std::vector<unsigned char> mapped_test_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

// Every parameter bit for bit equal.
template <class A, class B>
bool same_params(const A& a, const B& b) {
    std::vector<std::vector<float>> left;
    am::for_each_param(a, [&](const std::string&, am::param_kind, const auto& t) { left.emplace_back(t.begin(), t.end()); });
    std::size_t i = 0;
    bool same = true;
    am::for_each_param(b, [&](const std::string&, am::param_kind, const auto& t) {
        same = same && i < left.size() && left[i].size() == t.size() &&
               std::memcmp(left[i].data(), t.data(), t.size() * sizeof(float)) == 0;
        ++i;
    });
    return same && i == left.size();
}

std::size_t all_numbers(const am::model_params<float>& p) {
    std::size_t n = 0;
    am::for_each_param(p, [&](const std::string&, am::param_kind, const auto& t) { n += t.size(); });
    return n;
}

struct mapped_scratch {
    fs::path dir = fs::temp_directory_path() / ("attn-mapped-" + std::to_string(std::random_device{}()));
    mapped_scratch() { fs::create_directories(dir); }
    ~mapped_scratch() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("A Hugging Face GPT-2 F32 file is read as views of its mapping, the same bits and forward as a copy",
          "[model][mapped]") {
    mapped_scratch s;
    const auto c = mapped_test_config();
    const auto written = mapped_test_params(c);
    const std::string path = (s.dir / "hf.safetensors").string();
    write_hf_gpt2(path, written);

    am::checkpoint_info info;
    auto p = am::read_checkpoint<float>(path, &info);
    CHECK(info.layout == am::layout_hugging_face);
    CHECK(am::mapped_numbers(p) == all_numbers(p));  // every tensor a view
    const auto bytes = mapped_test_bytes(path);
    const auto copied = am::read_checkpoint_bytes<float>(bytes.data(), bytes.size(), path, "");
    CHECK(am::mapped_numbers(copied) == 0);
    CHECK(same_params(p, written));
    CHECK(same_params(p, copied));

    // A forward reads the views through const access: nothing copied; the same bits.
    const std::vector<std::vector<int>> tokens{{1, 5, 2, 9, 0, 3}};
    const auto a = am::trace_stages(static_cast<const am::model_params<float>&>(p), tokens);
    const auto b = am::trace_stages(copied, tokens);
    CHECK(am::mapped_numbers(p) == all_numbers(p));
    REQUIRE(a.logits.size() == b.logits.size());
    CHECK(std::memcmp(a.logits.data(), b.logits.data(), a.logits.size() * sizeof(float)) == 0);

    // A copy is memory of its own; writing it leaves the views (and the file) as they were.
    auto q = p;
    CHECK(am::mapped_numbers(q) == 0);
    q.wte(0, 0) = 42.0f;
    CHECK(std::as_const(p).wte(0, 0) == written.wte(0, 0));
    CHECK(am::mapped_numbers(p) == all_numbers(p));

    // A view outlives the params it came from: it keeps the mapping.
    auto wte = std::move(p.wte);
    p = am::model_params<float>{};
    CHECK(wte.storage().mapped());
    CHECK(std::memcmp(std::as_const(wte).data(), written.wte.data(), written.wte.size() * sizeof(float)) == 0);

    // The first write to a view copies it first: the file is never written.
    wte(1, 2) = 7.0f;
    CHECK_FALSE(wte.storage().mapped());
    CHECK(am::read_checkpoint<float>(path).wte(1, 2) == written.wte(1, 2));

    // own_params (training, --init) turns every view into memory of its own, same values.
    auto r = am::read_checkpoint<float>(path);
    am::own_params(r);
    CHECK(am::mapped_numbers(r) == 0);
    CHECK(same_params(r, written));

    // A float64 run of the F32 file converts: nothing mapped.
    CHECK(am::mapped_numbers(am::read_checkpoint<double>(path)) == 0);
}

TEST_CASE("A minGPT file maps its embeddings, norms and biases and copies its transposed weights", "[model][mapped]") {
    mapped_scratch s;
    auto c = mapped_test_config();
    c.tied = false;
    const auto written = mapped_test_params(c);
    const std::string path = (s.dir / "mingpt.safetensors").string();
    am::write_checkpoint(path, written);  // minGPT naming: nn.Linear weights [out, in]
    const auto p = am::read_checkpoint<float>(path);
    std::size_t expect = 0;  // everything but the linear weights (lm_head: [vocab, d] in both)
    am::for_each_param(p, [&](const std::string& name, am::param_kind kind, const auto& t) {
        const bool view = kind != am::param_kind::linear || name == "unembed.W_U";
        CHECK(t.storage().mapped() == view);
        expect += view ? t.size() : 0;
    });
    CHECK(am::mapped_numbers(p) == expect);
    CHECK(same_params(p, written));
}

TEST_CASE("A NaN in a tensor that would be a view is refused with its element and byte", "[model][mapped]") {
    mapped_scratch s;
    const auto c = mapped_test_config();
    auto written = mapped_test_params(c);
    written.blocks[1].ln2_w(3) = std::numeric_limits<float>::quiet_NaN();
    const std::string path = (s.dir / "nan.safetensors").string();
    write_hf_gpt2(path, written);
    try {
        (void)am::read_checkpoint<float>(path);
        FAIL("read a NaN weight");
    } catch (const am::file_error& e) {
        const std::string what = e.what();
        CHECK(what.find("h.1.ln_2.weight") != std::string::npos);
        CHECK(what.find("[3]") != std::string::npos);
        CHECK(what.find("not a number") != std::string::npos);
    }
}

TEST_CASE("GGUF F32 tensors in the forward's layout are views of the mapped file", "[model][mapped]") {
    const std::string path = std::string(ATTN_SOURCE_DIR) + "/lessons/models/stories260K.gguf";
    const auto p = am::read_gguf_checkpoint<float>(path);
    const am::gguf_file f(path);
    const auto copied = am::read_gguf_params<float>(f.header());  // no owner: every tensor copied
    CHECK(am::mapped_numbers(copied) == 0);
    CHECK(p.wte.storage().mapped());  // token_embd: [vocab, d] as the forward reads it
    CHECK(p.blocks[0].ln1_w.storage().mapped());
    CHECK_FALSE(p.blocks[0].w_qkv.storage().mapped());  // three [out, in] tensors, transposed side by side
    CHECK(same_params(p, copied));
    const std::vector<std::vector<int>> tokens{{1, 403, 407, 261}};
    const auto a = am::trace_stages(p, tokens, am::stage_request::outputs());
    const auto b = am::trace_stages(copied, tokens, am::stage_request::outputs());
    CHECK(std::memcmp(a.logits.data(), b.logits.data(), a.logits.size() * sizeof(float)) == 0);
}
