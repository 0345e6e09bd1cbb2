// lessons/trained_models.cpp — see trained_models.hpp: the built-in checkpoints, read
// through the model floor's safetensors reader like any file, once per process.
#include "lessons/trained_models.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "core/error.hpp"
#include "core/internal_error.hpp"
#include "lessons/embedded_lessons.hpp"
#include "model/checkpoint.hpp"

namespace attn::lessons {

namespace {

const std::string suffix = ".safetensors";

std::string model_name(std::string_view file) {
    return std::string(file.substr(0, file.size() - suffix.size()));
}

}  // namespace

std::vector<std::string> trained_model_names() {
    std::vector<std::string> names;
    for (const auto& f : embedded_models())
        if (f.name.size() > suffix.size() && f.name.substr(f.name.size() - suffix.size()) == suffix)
            names.push_back(model_name(f.name));
    return names;
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
        if (std::string(f.name) != name + suffix) continue;
        auto m = std::make_unique<trained_model>();
        m->name = name;
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

model::gpt_acts<double> forward_one(const model::model_params<double>& p, const std::vector<int>& ids) {
    model::check_tokens(p.config, {ids});
    return model::trace_stages(p, std::vector<std::vector<int>>{ids});
}

double span_loss(const model::gpt_acts<double>& a, const std::vector<int>& ids, std::size_t from, std::size_t to) {
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
