// lessons/show_trained_inputs.cpp — see show_trained_inputs.hpp: the checked inputs of the
// show kinds on built-in trained models.
#include "lessons/show_trained_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "lessons/counting.hpp"
#include "lessons/show_kinds.hpp"

namespace attn::lessons::show {

std::size_t whole(const show_item& item, const std::string& key, std::int64_t lo, std::int64_t hi) {
    const toml::node* n = item.spec->get(key);
    if (!n) bad(item, fmt::format("needs '{}' (a whole number from {} to {})", key, lo, hi));
    if (!n->is_integer() || *n->value<int64_t>() < lo || *n->value<int64_t>() > hi)
        bad(item, fmt::format("'{}' must be a whole number from {} to {}", key, lo, hi), key);
    return static_cast<std::size_t>(*n->value<int64_t>());
}

const trained_model& need_model(const show_item& item) {
    const std::string name = need_string(item, "model");  // its own problem is reported as is
    try {
        return find_trained_model(name);
    } catch (const error& e) {  // no such built-in model
        bad(item, e.what(), "model");
    }
}

std::string sequence::words() const {
    std::string s;
    for (int id : ids) s += (s.empty() ? "" : " ") + vocab[static_cast<std::size_t>(id)];
    return s;
}

namespace {

std::vector<std::string> vocab_labels(const show_item& item, const trained_model& m) {
    const std::size_t vocab_size = m.params.config.vocab_size;
    if (!item.spec->get("labels")) {
        std::vector<std::string> v;
        for (std::size_t i = 0; i < vocab_size; ++i) v.push_back(token_label(m, static_cast<int>(i)));
        return v;
    }
    return need_strings(item, "labels", vocab_size);
}

// A model with a vocabulary of its own (a GGUF's pieces) takes its tokens as ids, as
// `attn model tokenize` prints them: its pieces repeat once ▁ is dropped ("Once", "▁Once").
bool tokens_are_ids(const show_item& item, const trained_model& m) {
    return !m.pieces.empty() && !item.spec->get("labels");
}

std::size_t token_index(const show_item& item, const sequence& s, const std::string& w, const std::string& key) {
    if (tokens_are_ids(item, *s.model)) {
        if (!w.empty() && w.size() <= 9 && std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
            std::stoul(w) < s.vocab.size())
            return std::stoul(w);
        bad(item, fmt::format("'{}' is not a token id of model '{}' (0 … {})", w, s.model->name, s.vocab.size() - 1), key);
    }
    const auto it = std::find(s.vocab.begin(), s.vocab.end(), w);
    if (it == s.vocab.end())
        bad(item, fmt::format("'{}' is not a token of model '{}' (its tokens: {} … {})", w, s.model->name,
                              s.vocab.front(), s.vocab.back()), key);
    return static_cast<std::size_t>(it - s.vocab.begin());
}

}  // namespace

sequence need_sequence(const show_item& item, const std::string& key, std::size_t extra) {
    sequence s;
    s.model = &need_model(item);
    const auto& c = s.model->params.config;
    s.vocab = vocab_labels(item, *s.model);
    std::istringstream words(need_string(item, key));
    for (std::string w; words >> w;) {
        const std::size_t id = token_index(item, s, w, key);
        s.at.push_back(s.vocab[id] + position_subscript(s.ids.size()));
        s.ids.push_back(static_cast<int>(id));
    }
    if (s.ids.empty() || s.ids.size() > c.n_positions + extra)
        bad(item, fmt::format("'{}' must hold 1 to {} tokens, found {}", key, c.n_positions + extra, s.ids.size()), key);
    return s;
}

}  // namespace attn::lessons::show
