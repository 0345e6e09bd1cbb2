// model/checkpoint_config.cpp — a checkpoint's config (see resolve_config in
// checkpoint_layout.hpp): what __metadata__ or config.json states, checked against
// what the tensor shapes say.
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>

#include "io/input_read.hpp"
#include "model/checkpoint_layout.hpp"
#include "model/file_error.hpp"
#include "io/json_scan.hpp"

namespace attn::model {

namespace {

// One stated value and where it was stated.
struct stated {
    std::optional<double> value;
    std::string file;
    std::uint64_t at = 0;
};

// The config keys attn reads, by their Hugging Face names.
struct stated_config {
    std::map<std::string, stated> values;  // n_layer, n_head, n_embd, vocab_size, n_positions, layer_norm_epsilon
    std::string source;                    // "__metadata__" or "config.json": where they came from
};

bool is_config_key(const std::string& k) {
    return k == "n_layer" || k == "n_head" || k == "n_embd" || k == "vocab_size" || k == "n_positions" || k == "n_ctx" ||
           k == "layer_norm_epsilon";
}

// A __metadata__ value: a decimal number written as a string.
double metadata_number(const st_header& h, const std::string& key) {
    const std::string& v = h.metadata.at(key);
    double d = 0;
    const auto r = std::from_chars(v.data(), v.data() + v.size(), d);
    const bool parsed = !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size();
    if (parsed && !std::isfinite(d))  // "nan", "inf": named in words, never echoed as a number
        throw file_error("invalid", h.file, h.metadata_at.at(key),
                         "__metadata__ " + key + " should be a finite number written as a string, found " +
                             (std::isnan(d) ? "a value that is not a number" : "an infinite value"));
    if (!parsed)
        throw file_error("invalid", h.file, h.metadata_at.at(key), "__metadata__ " + key + " should be a number written as a string, found \"" +
                                                                       shown(v) + "\"");
    return d;
}

stated_config from_metadata(const st_header& h) {
    stated_config c;
    c.source = "__metadata__";
    for (const auto& [k, v] : h.metadata)
        if (is_config_key(k)) c.values[k] = stated{metadata_number(h, k), h.file, h.metadata_at.at(k)};
    return c;
}

stated_config from_config_json(const std::string& path) {
    stated_config c;
    c.source = "config.json";
    io::input_limits limits;
    limits.max_bytes = std::size_t{1} << 20;
    limits.what = "config.json";
    const std::string text = io::read_input_file(path, limits);
    io::json_scan js(
        text, [&](std::size_t at, const std::string& m) { throw file_error("invalid", path, at, m); },
        [](std::size_t at) { return "byte " + std::to_string(at); });
    js.object([&](const std::string& key, std::size_t at) {
        if (!is_config_key(key) || js.peek() == 'n') return js.skip_value();  // other keys, and null
        c.values[key] = stated{js.number_value(), path, at};
    });
    js.finish();
    return c;
}

// A stated count must be a positive integer, and equal the shapes' when they tell it.
std::size_t count_of(const stated_config& c, const std::string& key, std::uint64_t from_shapes, const std::string& shape_word) {
    const auto it = c.values.find(key);
    if (it == c.values.end()) return from_shapes;
    const double v = *it->second.value;
    if (!(v >= 1 && v <= 1e12 && v == std::floor(v)))
        throw file_error("invalid", it->second.file, it->second.at, key + " should be a positive whole number");
    const auto n = static_cast<std::uint64_t>(v);
    if (from_shapes != 0 && n != from_shapes)
        throw file_error("invalid", it->second.file, it->second.at, key + " is " + std::to_string(n) + " but " + shape_word + " " +
                                                                        std::to_string(from_shapes));
    return n;
}

}  // namespace

architecture resolve_config(const st_header& h, const layout_scan& s, const std::string& config_json, checkpoint_info& info) {
    stated_config c = from_metadata(h);
    if (!c.values.count("n_head") && !config_json.empty() && std::filesystem::exists(config_json)) {
        stated_config j = from_config_json(config_json);  // fills in what __metadata__ left out,
        for (const auto& [k, v] : c.values) j.values[k] = v;  // and __metadata__'s own values win
        c = j;
    }
    if (!c.values.count("n_positions") && c.values.count("n_ctx")) c.values["n_positions"] = c.values["n_ctx"];
    if (!c.values.count("n_head"))
        throw file_error("missing", h.file, 8, "the number of heads (n_head) is not in the file's __metadata__" +
                                                   (config_json.empty() ? std::string() : " and there is no config.json beside it") +
                                                   "; no tensor shape tells it: add \"n_head\" to __metadata__, or write a config.json "
                                                   "with {\"n_head\": H} beside the checkpoint");
    architecture g;
    g.n_layer = count_of(c, "n_layer", s.n_layer, "the number of blocks (h.0.*, h.1.*, …) in the checkpoint is");
    g.n_embd = count_of(c, "n_embd", s.n_embd, "wte.weight has a width of");
    g.vocab_size = count_of(c, "vocab_size", s.vocab, "wte.weight has a vocabulary of");
    g.n_positions = count_of(c, "n_positions", s.n_positions, "wpe.weight has positions:");
    g.n_head = count_of(c, "n_head", 0, "");
    if (g.n_embd % g.n_head != 0)
        throw file_error("invalid", c.values["n_head"].file, c.values["n_head"].at, "n_head is " + std::to_string(g.n_head) +
                                                                                        ", which does not divide the width n_embd = " + std::to_string(g.n_embd));
    const auto eps = c.values.find("layer_norm_epsilon");
    if (eps == c.values.end()) {
        info.notes.push_back("the layer norm epsilon is not stated: 1e-05 (GPT-2's)");
    } else {
        if (!(*eps->second.value > 0 && *eps->second.value < 1))
            throw file_error("invalid", eps->second.file, eps->second.at, "layer_norm_epsilon should be between 0 and 1 (GPT-2: 1e-05)");
        g.ln_eps = *eps->second.value;
    }
    g.mlp = s.has_mlp ? mlp_kind::gelu_tanh : mlp_kind::none;
    g.tied = s.tied;
    info.config_source = c.source;
    return g;
}

}  // namespace attn::model
