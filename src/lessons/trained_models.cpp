// lessons/trained_models.cpp — see trained_models.hpp: the built-in checkpoints, read
// through the model floor's safetensors or GGUF reader like any file, once per process.
#include "lessons/trained_models.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>

#include <toml++/toml.h>

#include "core/error.hpp"
#include "core/internal_error.hpp"
#include "io/toml_parse.hpp"
#include "lessons/embedded_lessons.hpp"
#include "io/terminal_safe.hpp"
#include "lessons/lesson_loader.hpp"
#include "model/checkpoint.hpp"
#include "model/gguf.hpp"
#include "model/gguf_checkpoint.hpp"

namespace attn::lessons {

namespace {

const std::string suffix = ".safetensors", gguf_suffix = ".gguf";

bool ends_with(std::string_view s, const std::string& end) {
    return s.size() > end.size() && s.substr(s.size() - end.size()) == end;
}

// NAME of NAME.safetensors or NAME.gguf, or "" for another file.
std::string model_name(std::string_view file) {
    for (const std::string* end : {&suffix, &gguf_suffix})
        if (ends_with(file, *end)) return std::string(file.substr(0, file.size() - end->size()));
    return "";
}

// A built-in GGUF: its parameters in float64 and its vocabulary's pieces.
void read_gguf(trained_model& m, std::string_view bytes, const std::string& file) {
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    const model::gguf_header h = model::parse_gguf(data, bytes.size(), file);
    m.params = model::read_gguf_params<double>(h);
    if (auto pieces = h.get_strings("tokenizer.ggml.tokens")) m.pieces = std::move(*pieces);
}

// Every built-in model name a lesson's tables read, into `out`: the string of each `model`
// key, and for a head_over_steps item its model at each step listed ("sort-100").
void models_read(const toml::table& t, std::set<std::string>& out) {
    const auto* model = t.get_as<std::string>("model");
    if (model) out.insert(model->get());
    const auto* kind = t.get_as<std::string>("kind");
    if (model && kind && kind->get() == "head_over_steps")
        if (const auto* steps = t.get_as<toml::array>("steps"))
            for (const auto& s : *steps)
                if (const auto step = s.value<std::int64_t>()) out.insert(model->get() + "-" + std::to_string(*step));
    for (const auto& entry : t) {
        if (const auto* sub = entry.second.as_table()) models_read(*sub, out);
        if (const auto* arr = entry.second.as_array())
            for (const auto& item : *arr)
                if (const auto* sub = item.as_table()) models_read(*sub, out);
    }
}

}  // namespace

std::map<std::string, std::vector<int>> lessons_by_model() {
    std::map<std::string, std::vector<int>> by_model;
    for (const auto& f : embedded_lessons()) {  // "20-learned-to-sort.toml", sorted by name
        std::set<std::string> read;
        models_read(io::parse_toml(f.text, std::string(built_in_lessons) + "/" + std::string(f.name)), read);
        for (const auto& name : read) by_model[name].push_back(std::stoi(std::string(f.name.substr(0, 2))));
    }
    return by_model;
}

std::vector<std::string> trained_model_names() {
    std::vector<std::string> names;
    for (const auto& f : embedded_models())
        if (auto n = model_name(f.name); !n.empty()) names.push_back(n);
    std::sort(names.begin(), names.end());  // "sort" before "sort-100" (the files sort the other way)
    return names;
}

std::string token_label(const trained_model& m, int id) {
    const auto i = static_cast<std::size_t>(id);
    if (i >= m.pieces.size()) return std::to_string(id);
    const std::string mark = "\xe2\x96\x81";  // ▁, U+2581
    std::string s = m.pieces[i];
    if (s.size() > mark.size() && s.compare(0, mark.size(), mark) == 0) s = s.substr(mark.size());
    return io::terminal_safe(s);  // a piece is the file's data: no control character reaches the terminal
}

const std::string_view* find_model_file(const std::string& name) {
    for (const auto& f : embedded_models())
        if (f.name == name) return &f.text;
    return nullptr;
}

const trained_model& find_trained_model(const std::string& name) {
    // Read on first use, under a lock: class grading draws students' inputs on several
    // threads. A model, once read, is never moved or changed (the map holds pointers).
    static std::mutex lock;
    static std::map<std::string, std::unique_ptr<trained_model>> cache;
    const std::lock_guard<std::mutex> hold(lock);
    if (auto it = cache.find(name); it != cache.end()) return *it->second;
    for (const auto& f : embedded_models()) {
        if (model_name(f.name) != name) continue;
        auto m = std::make_unique<trained_model>();
        m->name = name;
        if (ends_with(f.name, gguf_suffix)) {
            read_gguf(*m, f.text, "lessons/models/" + std::string(f.name));
            return *(cache[name] = std::move(m));
        }
        model::checkpoint_info info;
        m->params = model::read_checkpoint_bytes<double>(reinterpret_cast<const unsigned char*>(f.text.data()),
                                                          f.text.size(), "lessons/models/" + std::string(f.name), "",
                                                          &info);
        m->metadata = info.metadata;
        return *(cache[name] = std::move(m));
    }
    std::string known;
    for (const auto& n : trained_model_names()) known += (known.empty() ? "" : ", ") + n;
    throw attn::error("no built-in model '" + name + "' (there are: " + known + ")");
}

model::forward_acts<double> forward_one(const model::model_params<double>& p, const std::vector<int>& ids) {
    model::check_tokens(p.config, {ids});
    return model::trace_stages(p, std::vector<std::vector<int>>{ids});
}

double span_loss(const model::forward_acts<double>& a, const std::vector<int>& ids, std::size_t from, std::size_t to) {
    if (from < 1 || from >= to || to > ids.size()) throw internal_error("span_loss: bad span");
    const std::size_t V = a.logits.shape(2);
    double sum = 0;
    for (std::size_t pos = from; pos < to; ++pos) {  // the prediction made at pos − 1, as log-softmax
        double top = a.logits(0, pos - 1, 0);
        for (std::size_t v = 1; v < V; ++v) top = std::max(top, a.logits(0, pos - 1, v));
        double z = 0;
        for (std::size_t v = 0; v < V; ++v) z += std::exp(a.logits(0, pos - 1, v) - top);
        sum += top + std::log(z) - a.logits(0, pos - 1, static_cast<std::size_t>(ids[pos]));
    }
    return sum / static_cast<double>(to - from);
}

model::model_params<double> without_head(const model::model_params<double>& p, std::size_t layer, std::size_t head) {
    model::model_params<double> q = p;
    const std::size_t dh = p.config.d_head();
    auto& w = q.blocks.at(layer).w_out;  // [d_model (z, heads side by side), d_model]
    for (std::size_t r = head * dh; r < (head + 1) * dh; ++r)
        for (std::size_t c = 0; c < w.shape(1); ++c) w(r, c) = 0;
    return q;
}

}  // namespace attn::lessons
