// tests/model_checkpoint_test.cpp — safetensors checkpoints (model/safetensors.*,
// model/checkpoint.*): round trips bit for bit in both layouts, F16 and BF16 against
// hand-converted values, every kind of malformed file refused with the file and the
// byte offset, the config from __metadata__, config.json or the shapes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

#include <sys/stat.h>

#include "io/input_registry.hpp"
#include "io/output_writer.hpp"
#include "model/checkpoint.hpp"
#include "model/checkpoint_names.hpp"
#include "model/file_error.hpp"
#include "model/safetensors.hpp"
#include "support/golden.hpp"
#include "support/scratch.hpp"

using namespace attn::model;
namespace fs = std::filesystem;
using attn::testing::write_file;

namespace {

architecture tiny_config(bool mlp = true, bool tied = true) {
    architecture c;
    c.n_layer = 2, c.n_head = 2, c.n_embd = 4, c.vocab_size = 7, c.n_positions = 5;
    c.ln_eps = 1e-5, c.mlp = mlp ? mlp_kind::gelu_tanh : mlp_kind::none, c.tied = tied;
    return c;
}

// Every parameter drawn from N(0, 1), layer norm weights included.
template <class T>
model_params<T> normal_params(const architecture& c, unsigned seed) {
    model_params<T> p = zero_params<T>(c);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    for_each_param(p, [&](const std::string&, param_kind, auto& t) {
        for (auto& x : t) x = static_cast<T>(normal(rng));
    });
    return p;
}

// Bitwise equality of every parameter and of the config.
template <class T>
void require_same(const model_params<T>& a, const model_params<T>& b) {
    REQUIRE(a.config.n_layer == b.config.n_layer);
    REQUIRE(a.config.n_head == b.config.n_head);
    REQUIRE(a.config.n_embd == b.config.n_embd);
    REQUIRE(a.config.vocab_size == b.config.vocab_size);
    REQUIRE(a.config.n_positions == b.config.n_positions);
    REQUIRE(a.config.ln_eps == b.config.ln_eps);
    REQUIRE(a.config.has_mlp() == b.config.has_mlp());
    REQUIRE(a.config.tied == b.config.tied);
    std::vector<const T*> data_b;
    std::vector<std::size_t> size_b;
    for_each_param(b, [&](const std::string&, param_kind, const auto& t) { data_b.push_back(t.data()), size_b.push_back(t.size()); });
    std::size_t k = 0;
    for_each_param(a, [&](const std::string& name, param_kind, const auto& t) {
        INFO(name);
        REQUIRE(k < data_b.size());
        REQUIRE(t.size() == size_b[k]);
        CHECK(std::memcmp(t.data(), data_b[k], t.size() * sizeof(T)) == 0);
        ++k;
    });
    CHECK(k == data_b.size());
}

// A Hugging Face GPT-2 file: Conv1D [in, out] as model_params stores them, no lm_head
// when tied, the causal-mask buffers present; "transformer." prefix or none.
template <class T>
void write_hugging_face(const std::string& path, const model_params<T>& p, bool prefix, const std::map<std::string, std::string>& meta) {
    std::vector<st_out> out;
    for_each_param(p, [&](const std::string& name, param_kind, const auto& t) {
        std::string n = mingpt_name(name);
        if (!prefix && n.compare(0, 12, "transformer.") == 0) n = n.substr(12);
        out.push_back({n, {t.shape().begin(), t.shape().end()}, t.data()});
    });
    static std::vector<T> mask(p.config.n_positions * p.config.n_positions, T(1));  // [1, 1, P, P]
    static const T masked_bias = T(-1e4);
    const std::uint64_t np = p.config.n_positions;
    out.push_back({std::string(prefix ? "transformer." : "") + "h.0.attn.bias", {1, 1, np, np}, mask.data()});
    out.push_back({std::string(prefix ? "transformer." : "") + "h.0.attn.masked_bias", {}, &masked_bias});
    write_safetensors(path, sizeof(T) == 4 ? "F32" : "F64", out, meta);
}

// A file from a header text and data bytes, as a writer that lies might make it.
std::string raw_file(const std::string& header, const std::string& data) {
    std::string s(8, '\0');
    for (int k = 0; k < 8; ++k) s[k] = static_cast<char>(static_cast<std::uint64_t>(header.size()) >> (8 * k));
    return s + header + data;
}

st_header parse(const std::string& bytes) {
    return parse_safetensors(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "bad.safetensors");
}

// The error a call throws: its offset and message.
template <class F>
file_error file_error_of(F&& f) {
    try {
        f();
    } catch (const file_error& e) {
        return e;
    }
    FAIL("no error");
    throw;
}

}  // namespace

TEST_CASE("a checkpoint attn writes reads back bit for bit", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const bool mlp = GENERATE(true, false);
    const bool tied = GENERATE(true, false);
    const architecture c = tiny_config(mlp, tied);
    const std::string path = attn::testing::scratch_path("roundtrip.safetensors");
    SECTION("float32") {
        const auto p = normal_params<float>(c, 1);
        write_checkpoint(path, p, {{"step", "300"}});
        checkpoint_info info;
        require_same(read_checkpoint<float>(path, &info), p);
        CHECK(info.layout == layout_mingpt);
        CHECK(info.dtype == "F32");
        CHECK(info.config_source == "__metadata__");
        CHECK(info.metadata.at("step") == "300");
        CHECK(info.metadata.at("n_head") == "2");
        CHECK(info.notes.empty());
    }
    SECTION("float64") {
        auto p = normal_params<double>(c, 2);
        p.config.ln_eps = 1.0 / 3.0;  // an epsilon that needs all 17 digits
        write_checkpoint(path, p);
        require_same(read_checkpoint<double>(path), p);
    }
    fs::remove(path);
}

TEST_CASE("a Hugging Face GPT-2 checkpoint reads with its Conv1D weights as stored and lm_head tied", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const bool prefix = GENERATE(false, true);
    const auto p = normal_params<float>(tiny_config(), 3);
    const std::string dir = attn::testing::scratch_path("hf");
    fs::create_directories(dir);
    const std::string path = dir + "/model.safetensors";
    write_hugging_face(path, p, prefix, {{"format", "pt"}});
    write_file(dir + "/config.json",
               "{\"activation_function\": \"gelu_new\", \"n_ctx\": 5, \"n_embd\": 4, \"n_head\": 2, \"n_inner\": null,\n"
               " \"n_layer\": 2, \"layer_norm_epsilon\": 1e-05, \"task_specific_params\": {\"a\": [1, 2.5, true]}, \"vocab_size\": 7}\n");
    checkpoint_info info;
    require_same(read_checkpoint<float>(path, &info), p);
    CHECK(info.layout == layout_hugging_face);
    CHECK(info.config_source == "config.json");
    SECTION("a config.json that contradicts the shapes is named with its offset") {
        write_file(dir + "/config.json", "{\"n_head\": 2, \"n_embd\": 8}");
        const auto e = file_error_of([&] { read_checkpoint<float>(path); });
        CHECK(e.file == dir + "/config.json");
        CHECK(e.offset == 14);
        CHECK_THAT(e.what(), Catch::Contains("n_embd is 8 but wte.weight has a width of 4"));
    }
    SECTION("__metadata__ values stay checked when config.json gives n_head") {
        attn::io::clear_inputs();  // the file was read above
        write_hugging_face(path, p, prefix, {{"n_layer", "3"}});
        write_file(dir + "/config.json", "{\"n_head\": 2}");
        const auto e = file_error_of([&] { read_checkpoint<float>(path); });
        CHECK(e.file == path);
        CHECK_THAT(e.what(), Catch::Contains("n_layer is 3 but the number of blocks"));
    }
    SECTION("without n_head anywhere the error says how to give it") {
        fs::remove(dir + "/config.json");
        const auto e = file_error_of([&] { read_checkpoint<float>(path); });
        CHECK(e.offset == 8);
        CHECK_THAT(e.what(), Catch::Contains("n_head") && Catch::Contains("config.json") && Catch::Contains("__metadata__"));
    }
    fs::remove_all(dir);
}

TEST_CASE("minGPT and Hugging Face files of the same model read to the same parameters", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const auto p = normal_params<double>(tiny_config(true, false), 4);
    const std::string a = attn::testing::scratch_path("same-mingpt.safetensors");
    const std::string b = attn::testing::scratch_path("same-hf.safetensors");
    write_checkpoint(a, p);
    write_hugging_face(b, p, true, {{"n_head", "2"}});
    checkpoint_info ia, ib;
    const auto pa = read_checkpoint<double>(a, &ia);
    const auto pb = read_checkpoint<double>(b, &ib);
    require_same(pa, pb);
    CHECK(ia.layout == layout_mingpt);
    CHECK(ib.layout == layout_hugging_face);
    CHECK(ib.notes.size() == 1);  // the epsilon was not stated
    fs::remove(a), fs::remove(b);
}

TEST_CASE("F16 and BF16 tensors convert to the values their bits encode", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    // F16: 1, -2, 0.5, 65504 (largest), 2^-24 (smallest subnormal), -0.
    const std::uint16_t f16[] = {0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0x8000};
    const double f16_values[] = {1.0, -2.0, 0.5, 65504.0, 5.9604644775390625e-08, -0.0};
    // BF16: 1, -3, 2^-133 (a subnormal float), 3.3895313892515355e38 (largest).
    const std::uint16_t bf16[] = {0x3F80, 0xC040, 0x0001, 0x7F7F};
    const double bf16_values[] = {1.0, -3.0, 9.183549615799121e-41, 3.3895313892515355e38};
    const std::string data = std::string(reinterpret_cast<const char*>(f16), 12) + std::string(reinterpret_cast<const char*>(bf16), 8);
    const std::string bytes = raw_file(R"({"a":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[12,20]}})", data);
    const st_header h = parse(bytes);
    double out[6];
    read_elements<double>(h, *h.find("a"), reinterpret_cast<const unsigned char*>(bytes.data()), out);
    for (int i = 0; i < 6; ++i) CHECK(out[i] == f16_values[i]);
    CHECK(std::signbit(out[5]));
    read_elements<double>(h, *h.find("b"), reinterpret_cast<const unsigned char*>(bytes.data()), out);
    for (int i = 0; i < 4; ++i) CHECK(out[i] == bf16_values[i]);
    // Transposed: [2, 3] → [3, 2].
    float t[6];
    read_elements<float>(h, *h.find("a"), reinterpret_cast<const unsigned char*>(bytes.data()), t, true);
    CHECK(t[0] == 1.0f);
    CHECK(t[1] == 65504.0f);
    CHECK(t[2] == -2.0f);
    CHECK(t[3] == 5.9604644775390625e-08f);
}

TEST_CASE("an F64 value past float32's range reads as double and is refused as float", "[checkpoint]") {
    attn::io::clear_inputs();
    const double v[3] = {1.0, 1e300, -2.5};
    const std::string bytes = raw_file(R"({"w":{"dtype":"F64","shape":[3],"data_offsets":[0,24]}})", std::string(reinterpret_cast<const char*>(v), 24));
    const st_header h = parse(bytes);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    double d[3];
    read_elements<double>(h, *h.find("w"), data, d);
    CHECK(d[1] == 1e300);
    float f[3];
    const auto e = file_error_of([&] { read_elements<float>(h, *h.find("w"), data, f); });
    CHECK(e.offset == h.data_start + 8);
    CHECK_THAT(e.what(), Catch::Contains("element [1] of tensor 'w' is too large for float32"));
}

TEST_CASE("a malformed safetensors header is refused with the byte offset of the problem", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const std::string d8(8, '\0');
    struct bad_case {
        const char* what;
        std::string bytes;
        std::uint64_t offset;
        std::string says;
    };
    const std::string big_len = std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}";
    const std::vector<bad_case> cases = {
        {"shorter than the length prefix", std::string(5, '\0'), 0, "an 8-byte header length"},
        {"a header length past the limit", big_len, 0, "more than the limit"},
        {"a header length past the end", raw_file("{}", "").substr(0, 9), 0, "the file is truncated"},
        {"not JSON", raw_file("{\"a\" 1}", ""), 13, "expected ':'"},
        {"a trailing comma", raw_file("{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},}", d8.substr(0, 4)), 61, "expected a key"},
        {"a duplicate key", raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", d8), 62,
         "appears twice"},
        {"a duplicate field", raw_file(R"({"a":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}})", d8.substr(0, 4)), 28, "appears twice"},
        {"an unknown dtype", raw_file(R"({"a":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}})", d8.substr(0, 4)), 9, "unknown dtype"},
        {"a dtype of the wrong size", raw_file(R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[0,4]}})", d8.substr(0, 4)), 55,
         "needs 8 bytes, its data_offsets hold 4"},
        {"the header lies about the size", raw_file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", d8), 55, "needs 12 bytes"},
        {"a 2^63 shape", raw_file(R"({"a":{"dtype":"F32","shape":[9223372036854775808,2],"data_offsets":[0,8]}})", d8), 36,
         "more elements than 2^64 - 1"},
        {"a 2^62 shape whose bytes overflow", raw_file(R"({"a":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,8]}})", d8), 36,
         "needs more than 2^64 - 1 bytes"},
        {"an integer past 2^64", raw_file(R"({"a":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,8]}})", d8), 37,
         "larger than 2^64 - 1"},
        {"offsets out of range", raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", d8), 55, "outside the data"},
        {"offsets reversed", raw_file(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})", d8), 55, "outside the data"},
        {"overlapping tensors", raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", d8),
         108, "overlap"},
        {"a gap between tensors", raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", d8), 62, "belong to no tensor"},
        {"bytes after the last tensor", raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", d8), 66, "belong to no tensor"},
        {"a truncated file", raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", d8.substr(0, 6)), 55, "outside the data"},
        {"metadata that is not a string", raw_file(R"({"__metadata__":{"n_head":12}})", ""), 34, "to be a string"},
        {"a missing field", raw_file(R"({"a":{"dtype":"F32","shape":[1]}})", ""), 9, "has no data_offsets"},
        {"an unknown field", raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", d8.substr(0, 4)), 61, "unknown key 'x'"},
        {"invalid UTF-8 in a name", raw_file("{\"\xc3\x28\":{}}", ""), 10, "invalid UTF-8"},
        {"a control character in a name", raw_file("{\"a\x01\":{}}", ""), 11, "control character"},
        {"nesting past 64 levels", raw_file("{\"__metadata__\":" + std::string(70, '[') + std::string(70, ']') + "}", ""), 24, "to be an object"},
        {"text after the header", raw_file("{} {}", ""), 11, "expected the end"},
        {"a long name, cut in the message", raw_file("{\"" + std::string(200, 'x') + R"(":{"dtype":"F33","shape":[],"data_offsets":[0,0]}})", ""), 9,
         "'" + std::string(80, 'x') + "…' has the unknown dtype"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        const auto e = file_error_of([&] { parse(c.bytes); });
        CHECK(e.file == "bad.safetensors");
        CHECK(e.offset == c.offset);
        CHECK_THAT(e.what(), Catch::StartsWith("bad.safetensors: byte " + std::to_string(c.offset) + ": ") && Catch::Contains(c.says));
    }
}

TEST_CASE("missing tensors, wrong shapes and non-finite weights are refused with file and offset", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const auto p = normal_params<float>(tiny_config(), 5);
    const std::string path = attn::testing::scratch_path("broken.safetensors");
    // The file written by attn, re-written with one change to its tensor list.
    const auto rewrite = [&](const std::function<void(std::vector<st_out>&)>& change) {
        std::vector<st_out> out;
        for_each_param(p, [&](const std::string& name, param_kind, const auto& t) {
            out.push_back({mingpt_name(name), {t.shape().begin(), t.shape().end()}, t.data()});
        });
        change(out);
        write_safetensors(path, "F32", out, {{"n_head", "2"}});
    };
    SECTION("a missing tensor") {
        rewrite([](std::vector<st_out>& o) { o.erase(o.begin() + 8); });  // h.0.ln_2.weight
        const auto e = file_error_of([&] { read_checkpoint<float>(path); });
        CHECK(e.offset == 8);
        CHECK_THAT(e.what(), Catch::Contains("no tensor 'h.0.ln_2.weight'"));
    }
    SECTION("a wrong shape") {
        rewrite([](std::vector<st_out>& o) { o[7].shape = {2, 2}; });  // h.0.attn.c_proj.bias [4] → [2, 2]
        const auto e = file_error_of([&] { read_checkpoint<float>(path); });
        CHECK(e.offset > 8);
        CHECK_THAT(e.what(), Catch::Contains("'transformer.h.0.attn.c_proj.bias' has the shape [2, 2], expected [4]"));
    }
    SECTION("an unexpected tensor") {
        rewrite([](std::vector<st_out>& o) { o[3].name = "transformer.h.0.attn.rotary.weight"; });
        CHECK_THAT(file_error_of([&] { read_checkpoint<float>(path); }).what(), Catch::Contains("unexpected tensor 'transformer.h.0.attn.rotary.weight'"));
    }
    SECTION("a NaN weight, named by its element and its byte") {
        static std::vector<float> nan_wpe(5 * 4, 0.0f);
        nan_wpe[6] = std::numeric_limits<float>::quiet_NaN();
        rewrite([](std::vector<st_out>& o) { o[1].data = nan_wpe.data(); });
        const st_header h = [&] {
            const std::string bytes = attn::testing::read_file(path);
            return parse(bytes);
        }();
        CHECK_NOTHROW(read_checkpoint_config(path));  // the values are not read
        const auto e = file_error_of([&] { read_checkpoint<float>(path); });
        CHECK(e.offset == h.find("transformer.wpe.weight")->begin + 6 * 4);
        CHECK_THAT(e.what(), Catch::Contains("element [1, 2] of tensor 'transformer.wpe.weight' is not a number"));
    }
    SECTION("tied weights saved once as lm_head.weight read as the embedding") {
        rewrite([](std::vector<st_out>& o) { o[0].name = "lm_head.weight"; });
        checkpoint_info info;
        const auto q = read_checkpoint<float>(path, &info);
        CHECK(q.config.tied);
        CHECK(q.wte == p.wte);
        CHECK_THAT(info.notes.back(), Catch::Contains("no wte.weight"));
    }
    SECTION("some biases but not all") {
        rewrite([](std::vector<st_out>& o) { o.erase(o.begin() + 3); });  // h.0.ln_1.bias
        CHECK_THAT(file_error_of([&] { read_checkpoint<float>(path); }).what(), Catch::Contains("some biases but not all"));
    }
    SECTION("no biases at all read as zeros") {
        rewrite([](std::vector<st_out>& o) {
            o.erase(std::remove_if(o.begin(), o.end(), [](const st_out& t) { return t.name.size() > 5 && t.name.substr(t.name.size() - 5) == ".bias"; }),
                    o.end());
        });
        checkpoint_info info;
        const auto q = read_checkpoint<float>(path, &info);
        CHECK(q.blocks[1].b_qkv == xt::zeros<float>({12}));
        CHECK(q.lnf_b == xt::zeros<float>({4}));
        CHECK(q.blocks[1].w_qkv == p.blocks[1].w_qkv);
        REQUIRE(info.notes.size() == 2);
        CHECK_THAT(info.notes[1], Catch::Contains("no biases"));
    }
    SECTION("metadata that contradicts the shapes") {
        write_checkpoint(path, p, {});
        std::string bytes = attn::testing::read_file(path);
        const auto at = bytes.find("\"n_layer\":\"2\"");
        bytes[at + 11] = '3';
        write_file(path, bytes);
        const auto e = file_error_of([&] { read_checkpoint<float>(path); });
        CHECK(e.offset == at + 10);
        CHECK_THAT(e.what(), Catch::Contains("n_layer is 3 but the number of blocks"));
    }
    fs::remove(path);
}

TEST_CASE("an attention-only checkpoint reads with has_mlp false", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const auto p = normal_params<float>(tiny_config(false, true), 6);
    const std::string path = attn::testing::scratch_path("attn-only.safetensors");
    write_hugging_face(path, p, false, {{"n_head", "2"}, {"layer_norm_epsilon", "1e-05"}});
    checkpoint_info info;
    const auto q = read_checkpoint<float>(path, &info);
    CHECK_FALSE(q.config.has_mlp());
    CHECK(info.notes.empty());
    require_same(q, p);
    fs::remove(path);
}

namespace {

// Every parameter's values as float64, in for_each_param order (storage layout).
template <class T>
std::vector<double> flat_values(const model_params<T>& p) {
    std::vector<double> v;
    for_each_param(p, [&](const std::string&, param_kind, const auto& t) { v.insert(v.end(), t.begin(), t.end()); });
    return v;
}

// Writes p with attn, runs the Python reference on it, and reads back every file it
// wrote (two layouts × four dtypes) comparing each value with what it wrote, bit for bit.
template <class T>
void python_round_trip(const model_params<T>& p) {
    const std::string dir = attn::testing::scratch_path(sizeof(T) == 4 ? "py-f32" : "py-f64");
    fs::create_directories(dir);
    write_checkpoint(dir + "/attn.safetensors", p);
    int code = -1;
    const std::string out = attn::testing::run_command("/usr/bin/python3 " + attn::testing::shell_quote(std::string(ATTN_SOURCE_DIR) + "/tests/python/checkpoint_reference.py") + " " +
                                                           attn::testing::shell_quote(dir + "/attn.safetensors") + " " + attn::testing::shell_quote(dir) + " 2>&1",
                                                       &code);
    INFO(out);
    REQUIRE(code == 0);
    const std::vector<double> original = flat_values(p);
    for (const char* layout : {"mingpt", "hf"})
        for (const char* dtype : {"F64", "F32", "F16", "BF16"}) {
            const std::string base = dir + "/" + layout + "-" + dtype;
            INFO(base);
            checkpoint_info info;
            const auto q = read_checkpoint<double>(base + ".safetensors", &info);
            CHECK(info.layout == (std::string(layout) == "hf" ? layout_hugging_face : layout_mingpt));
            CHECK(info.dtype == dtype);
            CHECK(q.config.n_head == p.config.n_head);
            CHECK(q.config.tied == p.config.tied);
            CHECK(q.config.has_mlp() == p.config.has_mlp());
            const std::vector<double> got = flat_values(q);
            const std::string want = attn::testing::read_file(base + ".expected");
            REQUIRE(want.size() == got.size() * 8);
            CHECK(std::memcmp(want.data(), got.data(), want.size()) == 0);
            if (std::string(dtype) == "F64" || (std::string(dtype) == "F32" && sizeof(T) == 4)) CHECK(got == original);
        }
    fs::remove_all(dir);
}

}  // namespace

TEST_CASE("a checkpoint attn writes reads in NumPy and PyTorch, and what they write in four dtypes and both layouts reads in attn bit for bit",
          "[checkpoint][python]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    python_round_trip(normal_params<double>(tiny_config(true, false), 11));  // MLP, lm_head untied
    python_round_trip(normal_params<float>(tiny_config(false, true), 12));   // attention-only, tied
}

TEST_CASE("the fuzz seeds of the safetensors target are valid checkpoints", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(fs::path(ATTN_SOURCE_DIR) / "tests/fuzz/corpus/safetensors")) {
        INFO(e.path().string());
        checkpoint_info info;
        const auto p = read_checkpoint<double>(e.path().string(), &info);
        CHECK(p.config.n_embd == 2);
        ++n;
    }
    CHECK(n >= 4);
}

TEST_CASE("a checkpoint path that is missing, a folder or a FIFO is refused without blocking", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const std::string dir = attn::testing::scratch_path("not-files");
    fs::create_directories(dir);
    const std::string fifo = dir + "/fifo.safetensors";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto message = [](const std::string& path) -> std::string {
        try {
            read_checkpoint<float>(path);
        } catch (const attn::io::input_error& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK_THAT(message(dir + "/none.safetensors"), Catch::Contains("no such file"));
    CHECK_THAT(message(dir), Catch::Contains("a directory"));
    CHECK_THAT(message(fifo), Catch::Contains("a FIFO"));
    CHECK_THAT(message("-"), Catch::Contains("standard input"));
    fs::remove_all(dir);
}

TEST_CASE("a checkpoint is never written over the checkpoint it was read from", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const std::string path = attn::testing::scratch_path("input.safetensors");
    const auto p = normal_params<float>(tiny_config(), 9);
    write_checkpoint(path, p);
    const std::string before = attn::testing::read_file(path);
    const auto q = read_checkpoint<float>(path);
    CHECK_THROWS_AS(write_checkpoint(path, q, {{"step", "1"}}), attn::io::write_error);
    CHECK(attn::testing::read_file(path) == before);
    attn::io::clear_inputs();
    fs::remove(path);
}

TEST_CASE("the config alone reads without converting the values", "[checkpoint]") {
    attn::io::clear_inputs();  // files read by earlier tests may be written again
    const std::string path = attn::testing::scratch_path("config-only.safetensors");
    write_checkpoint(path, normal_params<double>(tiny_config(false, false), 10));
    checkpoint_info info;
    const architecture c = read_checkpoint_config(path, &info);
    CHECK(c.n_layer == 2);
    CHECK(c.n_head == 2);
    CHECK(c.n_embd == 4);
    CHECK(c.vocab_size == 7);
    CHECK(c.n_positions == 5);
    CHECK_FALSE(c.has_mlp());
    CHECK_FALSE(c.tied);
    CHECK(info.dtype == "F64");
    CHECK(info.layout == layout_mingpt);
    fs::remove(path);
}
