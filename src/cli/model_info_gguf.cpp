// cli/model_info_gguf.cpp — `attn model info FILE.gguf [--tensor NAME] [--json FILE|-]`
// (see model_info_gguf.hpp): the header summary on screen, the header or one tensor as
// JSON through the one output writer.
#include "cli/model_info_gguf.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/output_writer.hpp"
#include "io/size_budget.hpp"
#include "io/terminal_safe.hpp"
#include "model/file_error.hpp"
#include "model/gguf.hpp"
#include "model/gguf_family.hpp"
#include "model/gguf_quant.hpp"
#include "trace/number_format.hpp"

namespace attn::cli {

namespace {

using json = nlohmann::ordered_json;

std::string pairing_words(model::rotary_pairing p) {
    return p == model::rotary_pairing::adjacent ? "adjacent pairs (2i, 2i + 1)" : "half-split pairs (i, i + d/2)";
}

std::string type_counts_text(const model::gguf_architecture& a) {
    std::string s;
    for (const auto& [name, n] : a.type_counts) s += (s.empty() ? "" : ", ") + name + " ×" + std::to_string(n);
    return s;
}

std::string summary(const model::gguf_header& h, const model::gguf_architecture& a, const std::string& file) {
    std::string out;
    out += "Checkpoint:  " + io::terminal_safe(file) + "\n";
    out += fmt::format("Format:      GGUF version {}, {} metadata keys, data aligned to {} bytes\n", h.version, h.metadata.size(), h.alignment);
    out += "Family:      " + a.name + (a.model_name.empty() ? "" : " ('" + model::shown(a.model_name) + "')") + "\n";
    out += "Summary:     " + model::describe(model::gguf_model_architecture(h, a)) + "\n";
    out += fmt::format("Layers:      {} (block_count)\n", a.n_layer);
    if (a.n_head_kv == a.n_head) out += fmt::format("Heads:       {} per layer, d_head {}\n", a.n_head, a.d_head);
    else
        out += fmt::format("Heads:       {} query heads sharing {} key/value heads ({} each), d_head {}\n", a.n_head, a.n_head_kv,
                           a.n_head / a.n_head_kv, a.d_head);
    out += fmt::format("d_model:     {} (embedding_length)\n", a.d_model);
    out += fmt::format("d_mlp:       {} (feed_forward_length), {}\n", a.d_mlp, a.gated_mlp ? "SwiGLU (gate, up, down)" : "GELU (up, down)");
    out += fmt::format("Vocabulary:  {} tokens\n", a.vocab_size);
    out += fmt::format("Context:     {} tokens (context_length)\n", a.context);
    if (!a.rotary) out += "Positions:   learned (position_embd)\n";
    else out += fmt::format("RoPE:        theta {:g}, {} of {} dims rotated, {}\n", a.rope_theta, a.rope_dims, a.d_head, pairing_words(a.pairing));
    if (a.rotary && a.rope_linear_factor > 0) out += fmt::format("RoPE scale:  linear, positions divided by {:g}\n", a.rope_linear_factor);
    if (a.rotary && a.rope_freq_factors) out += "RoPE scale:  each pair's frequency divided by rope_freqs.weight\n";
    out += fmt::format("Norm:        {}, epsilon {:g}\n", a.rms_norm ? "RMSNorm" : "LayerNorm", a.eps);
    out += std::string("Unembedding: ") + (a.tied ? "tied to token_embd (no output.weight)" : "output.weight, its own matrix") + "\n";
    out += fmt::format("Tensors:     {} ({})\n", h.tensors.size(), type_counts_text(a));
    out += "Parameters:  " + trace::grouped(a.parameters) + "\n";
    return out;
}

// One metadata value as JSON, read at file offset `at`; returns the offset past it.
std::uint64_t value_json(const model::gguf_header& h, model::gguf_type t, std::uint64_t at, json& out) {
    using model::gguf_type;
    switch (t) {
        case gguf_type::string: {
            const std::string_view s = h.string_at(at);
            out = std::string(s);
            return at + 8 + s.size();
        }
        case gguf_type::boolean: out = h.uint_at(at, t) != 0; return at + 1;
        case gguf_type::f32: case gguf_type::f64: {
            const double x = h.float_at(at, t);
            out = std::isfinite(x) ? json(x) : json(nullptr);
            return at + model::gguf_scalar_size(t);
        }
        case gguf_type::i8: case gguf_type::i16: case gguf_type::i32: case gguf_type::i64:
            out = h.int_at(at, t);
            return at + model::gguf_scalar_size(t);
        case gguf_type::array: {
            std::uint32_t et;
            std::uint64_t n;
            std::memcpy(&et, h.bytes() + at, 4);
            std::memcpy(&n, h.bytes() + at + 4, 8);
            out = json::array();
            std::uint64_t p = at + 12;
            for (std::uint64_t i = 0; i < n; ++i) {
                json e;
                p = value_json(h, static_cast<gguf_type>(et), p, e);
                out.push_back(std::move(e));
            }
            return p;
        }
        default: out = h.uint_at(at, t); return at + model::gguf_scalar_size(t);
    }
}

json header_json(const model::gguf_header& h) {
    json j;
    j["version"] = h.version;
    j["alignment"] = h.alignment;
    j["data_start"] = h.data_start;
    json& md = j["metadata"] = json::object();
    for (const auto& [key, v] : h.metadata) {
        json e;
        e["type"] = model::gguf_type_name(v.type);
        if (v.type == model::gguf_type::array) e["element"] = model::gguf_type_name(v.element);
        value_json(h, v.type, v.at, e["value"]);
        md[key] = std::move(e);
    }
    json& ts = j["tensors"] = json::array();
    for (const auto& t : h.tensors)
        ts.push_back({{"name", t.name}, {"dims", t.dims}, {"shape", t.shape()}, {"type", model::ggml_type_name(t.type)},
                      {"type_id", t.type}, {"offset", t.offset}, {"bytes", t.end - t.begin}});
    return j;
}

void write_json(const json& j, const std::string& path) {
    const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    io::staged_file out(path);
    out.write(text.data(), text.size());
    out.commit();
    if (!io::is_stdout(path)) std::cerr << "attn model info: wrote " << path << "\n";
}

std::string tensor_summary(const model::gguf_tensor& t, const std::vector<double>& v) {
    std::string out = "Tensor:      " + model::shown(t.name) + "\n";
    std::string shape;
    for (const auto d : t.shape()) shape += (shape.empty() ? "" : " × ") + std::to_string(d);
    out += fmt::format("Type:        {}, {} elements in {} bytes\n", model::ggml_type_name(t.type), trace::grouped(t.count), trace::grouped(t.end - t.begin));
    out += "Shape:       " + (shape.empty() ? std::string("a scalar") : shape) + " (outermost first; GGUF stores the dims innermost first)\n";
    if (v.empty()) return out;
    double lo = v[0], hi = v[0], sum = 0;
    for (const double x : v) lo = std::min(lo, x), hi = std::max(hi, x), sum += x;
    out += fmt::format("Values:      from {:.6g} to {:.6g}, mean {:.6g}\n", lo, hi, sum / static_cast<double>(v.size()));
    const std::size_t row = t.dims.empty() ? 1 : static_cast<std::size_t>(t.dims[0]);
    std::string first;
    for (std::size_t i = 0; i < std::min<std::size_t>(row, 6); ++i) first += fmt::format("{}{:.6g}", i ? " " : "", v[i] == 0 ? 0.0 : v[i]);
    out += "First row:   " + first + (row > 6 ? " …" : "") + " (--json for every value)\n";
    return out;
}

void run_tensor(const model::gguf_header& h, const gguf_info_options& o) {
    const model::gguf_tensor* t = h.tensor(o.tensor);
    if (!t) {
        std::string names;
        for (std::size_t i = 0; i < h.tensors.size() && i < 6; ++i) names += (i ? ", " : "") + model::shown(h.tensors[i].name);
        throw model::file_error("not-found", h.file, h.data_start, "the file has no tensor '" + model::shown(o.tensor) + "' (" +
                                                                        std::to_string(h.tensors.size()) + " tensors: " + names +
                                                                        (h.tensors.size() > 6 ? ", …" : "") + ")");
    }
    io::check_budget(static_cast<std::size_t>(t->count), "the tensor '" + model::shown(t->name) + "' as float64",
                     io::source_pos{h.file, 0, 0});
    std::vector<double> v(t->count);  // [count], the file's order (innermost dim fastest)
    model::dequantize(h, *t, v.data());
    if (!o.json.empty()) {
        json j{{"name", t->name}, {"type", model::ggml_type_name(t->type)}, {"dims", t->dims}, {"shape", t->shape()}, {"values", v}};
        return write_json(j, o.json);
    }
    print_fitted(tensor_summary(*t, v), make_style(o.layout));
}

}  // namespace

void run_gguf_info(const gguf_info_options& o) {
    const model::gguf_file f(o.file);
    run_gguf_info(o, f.header());
}

void run_gguf_info(const gguf_info_options& o, const model::gguf_header& h) {
    if (!o.tensor.empty()) return run_tensor(h, o);
    if (!o.json.empty()) return write_json(header_json(h), o.json);
    print_fitted(summary(h, model::read_gguf_architecture(h), o.file), make_style(o.layout));
}

}  // namespace attn::cli
