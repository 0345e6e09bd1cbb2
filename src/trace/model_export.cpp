// trace/model_export.cpp — see model_export.hpp. One walker over the hooks
// (model::hook_names + model::hook_data) feeds both writers.
#include "trace/model_export.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "trace/export_format.hpp"

namespace attn::trace {

namespace {

using json = nlohmann::ordered_json;

// Calls fn(name, info, data, shape) for every hook the model has, in forward order.
template <class T, class Fn>
void for_each_hook(const model::forward_acts<T>& a, const model::architecture& c, Fn fn) {
    for (const auto& h : model::hook_names(c)) {
        std::vector<std::size_t> shape;
        const T* data = model::hook_data(a, h, &shape);
        if (data) fn(h, data, shape);
    }
}

void flush_if_big(fmt::memory_buffer& buf, const byte_sink& out, bool force = false) {
    if (force || buf.size() >= (std::size_t(1) << 20)) {
        out(buf.data(), buf.size());
        buf.clear();
    }
}

// data of one hook nested by its shape: "[[[…],[…]],…]", row by row.
template <class T>
void nested_data(fmt::memory_buffer& buf, const byte_sink& out, const T* data, const std::vector<std::size_t>& shape) {
    const std::size_t outer = shape.size() - 1, cols = shape.back();
    std::size_t rows = 1;
    for (std::size_t i = 0; i < outer; ++i) rows *= shape[i];
    std::vector<std::size_t> idx(outer, 0);
    for (std::size_t r = 0; r < rows; ++r) {
        if (r) buf.push_back(',');
        for (std::size_t a = outer; a-- > 0 && idx[a] == 0;) buf.push_back('[');  // axes starting anew
        buf.push_back('[');
        const T* row = data + r * cols;  // [cols]
        for (std::size_t j = 0; j < cols; ++j) {
            if (j) buf.push_back(',');
            if (std::isfinite(row[j])) append_number(buf, row[j]);
            else buf.append(std::string_view("null"));
        }
        buf.push_back(']');
        for (std::size_t a = outer; a-- > 0;) {  // close every axis that wraps
            if (++idx[a] < shape[a]) break;
            idx[a] = 0;
            buf.push_back(']');
        }
        flush_if_big(buf, out);
    }
}

json config_json(const model::architecture& c, const std::string& layout) {
    return json{{"layout", layout},         {"n_layer", c.n_layer},       {"n_head", c.n_head},
                {"n_embd", c.n_embd},       {"d_head", c.d_head()},       {"vocab_size", c.vocab_size},
                {"n_positions", c.n_positions}, {"ln_eps", c.ln_eps},     {"has_mlp", c.has_mlp()},
                {"tied", c.tied},           {"parameters", model::parameter_count(c)}};
}

}  // namespace

template <class T>
void write_model_json(const model::forward_acts<T>& a, const model::architecture& c, const model_run_meta& meta,
                      const byte_sink& out) {
    fmt::memory_buffer buf;
    // A token's text may be part of a UTF-8 character (GPT-2's byte tokens): JSON holds
    // text, so such bytes become U+FFFD; "ids" are exact.
    const auto line = [&](const char* key, const json& v) {
        buf.append(" " + json(key).dump() + ": " + v.dump(-1, ' ', false, json::error_handler_t::replace) + ",\n");
    };
    buf.append(std::string_view("{\n"));
    line("format", "attn-model-run");
    line("version", 1);
    line("model", config_json(c, meta.layout));
    line("dtype", sizeof(T) == 4 ? "float32" : "float64");
    line("batch", a.batch);
    line("n_pos", a.n_pos);
    json tokens{{"ids", a.tokens}};
    if (!meta.texts.empty()) tokens["text"] = meta.texts;
    line("tokens", tokens);
    buf.append(std::string_view(" \"stages\": {\n"));
    bool first = true;
    for_each_hook(a, c, [&](const model::hook_name& h, const T* data, const std::vector<std::size_t>& shape) {
        buf.append(std::string_view(first ? "  " : ",\n  "));
        first = false;
        buf.append(json(h.name).dump() + ": {\"axes\":" +
                   json(std::vector<std::string>(h.info->axes.begin(), h.info->axes.end())).dump() +
                   ",\"shape\":" + json(shape).dump() + ",\"data\":");
        nested_data(buf, out, data, shape);
        buf.push_back('}');
    });
    buf.append(std::string_view("\n }\n}\n"));
    flush_if_big(buf, out, true);
}

template <class T>
std::size_t write_model_npy(const model::forward_acts<T>& a, const model::architecture& c, io::staged_directory& dir) {
    std::size_t n = 0;
    for_each_hook(a, c, [&](const model::hook_name& h, const T* data, const std::vector<std::size_t>& shape) {
        std::size_t count = 1;
        for (auto s : shape) count *= s;
        dir.add(h.name + ".npy", [&](io::staged_file& f) {
            f.write(npy_header(shape, sizeof(T) == 4));
            f.write(data, count * sizeof(T));
        });
        ++n;
    });
    return n;
}

template void write_model_json<float>(const model::forward_acts<float>&, const model::architecture&, const model_run_meta&,
                                      const byte_sink&);
template void write_model_json<double>(const model::forward_acts<double>&, const model::architecture&, const model_run_meta&,
                                       const byte_sink&);
template std::size_t write_model_npy<float>(const model::forward_acts<float>&, const model::architecture&, io::staged_directory&);
template std::size_t write_model_npy<double>(const model::forward_acts<double>&, const model::architecture&, io::staged_directory&);

}  // namespace attn::trace
