// lessons/show_kinds.cpp — see show_kinds.hpp: the registry and the accessors.
#include "lessons/show_kinds.hpp"
#include "core/error.hpp"

#include <algorithm>

#include "io/toml_read.hpp"
#include "lessons/lesson_parts.hpp"
#include "core/stages.hpp"

namespace attn::lessons::show {

const std::vector<show_kind>& all_kinds() {
    static const std::vector<show_kind> kinds = [] {
        std::vector<show_kind> k;
        for (auto family : {basic_kinds, mask_kinds, reading_kinds, model_kinds, backward_kinds, tiled_kinds, rope_kinds, grouped_kinds, window_kinds, source_kinds, trained_kinds, circuit_kinds}) {
            auto f = family();
            k.insert(k.end(), f.begin(), f.end());
        }
        return k;
    }();
    return kinds;
}

const show_kind* find_kind(const std::string& name) {
    for (const auto& k : all_kinds())
        if (k.name == name) return &k;
    return nullptr;
}

void bad(const show_item& item, const std::string& message, const std::string& key) {
    source_pos p = item.where;
    if (!key.empty())
        if (const source_pos at = io::toml_pos(p.file, item.spec->get(key)); at.line > 0) p = at;
    throw lesson_error({{p, "show kind '" + item.kind + "': " + message}});
}

std::string need_string(const show_item& item, const std::string& key) {
    const toml::node* n = item.spec->get(key);
    if (!n) bad(item, "needs '" + key + "' (a string)");
    if (!n->is_string()) bad(item, "'" + key + "' must be a string, found " + toml_reader::type_name(n), key);
    return *n->value<std::string>();
}

std::string opt_string(const show_item& item, const std::string& key, const std::string& fallback) {
    return item.spec->get(key) ? need_string(item, key) : fallback;
}

namespace {
const std::string& p_file(const show_item& item) { return item.where.file; }
}  // namespace

int opt_decimals(const show_item& item, int fallback) {
    std::vector<diagnostic> problems;  // the one integer reader names the value found ("found 12")
    const auto v = toml_reader{p_file(item), &problems}.integer(*item.spec, "decimals", false, 0, 8);
    if (!problems.empty()) bad(item, problems.front().message, "decimals");
    return v ? static_cast<int>(*v) : fallback;
}

bool opt_bool(const show_item& item, const std::string& key, bool fallback) {
    const toml::node* n = item.spec->get(key);
    if (!n) return fallback;
    if (!n->is_boolean()) bad(item, "'" + key + "' must be true or false, found " + toml_reader::type_name(n), key);
    return *n->value<bool>();
}

std::vector<std::string> need_strings(const show_item& item, const std::string& key, std::size_t count) {
    const toml::array* a = item.spec->get(key) ? item.spec->get(key)->as_array() : nullptr;
    std::vector<std::string> out;
    if (a)
        for (const auto& e : *a)
            if (e.is_string()) out.push_back(*e.value<std::string>());
    if (!a || out.size() != a->size() || (count && out.size() != count))
        bad(item, "needs '" + key + "', " + (count ? std::to_string(count) + " names" : "a list of names") +
                      " in an array of strings",
            key);
    return out;
}

const attention_run& need_run(const lesson& l, const show_item& item, const std::string& key) {
    const std::string name = need_string(item, key);
    auto it = l.runs.find(name);
    if (it == l.runs.end()) bad(item, "run '" + name + "' is not in [runs]" + hint_suffix(name, l.run_order), key);
    return it->second;
}

const matrix& need_matrix(const lesson& l, const show_item& item, const std::string& key) {
    const std::string name = need_string(item, key);
    auto it = l.matrices.find(name);
    if (it == l.matrices.end()) {
        std::vector<std::string> have;
        for (const auto& [k, v] : l.matrices) have.push_back(k);
        bad(item, "matrix '" + name + "' is not defined" + hint_suffix(name, have), key);
    }
    return it->second;
}

const std::vector<std::string>& need_tokens(const lesson& l, const show_item& item, const std::string& key,
                                            std::size_t n) {
    const std::string name = need_string(item, key);
    auto it = l.tokens.find(name);
    if (it == l.tokens.end()) {
        std::vector<std::string> have;
        for (const auto& [k, v] : l.tokens) have.push_back(k);
        bad(item, "token list '" + name + "' is not in [tokens]" + hint_suffix(name, have), key);
    }
    if (it->second.size() != n)
        bad(item, "token list '" + name + "' has " + std::to_string(it->second.size()) + " tokens, expected " +
                      std::to_string(n),
            key);
    return it->second;
}

std::string stage_hint(const std::string& name) {
    std::vector<std::string> names;
    for (const auto& s : head_stages()) {
        names.push_back(s.alias);
        names.push_back(s.hook);
    }
    return hint_suffix(name, names);
}

std::size_t find_query(const attention_run& run, const std::string& token) {
    const auto& toks = run.labels.query_tokens;
    auto it = std::find(toks.begin(), toks.end(), token);
    if (it != toks.end()) return static_cast<std::size_t>(it - toks.begin());
    if (!token.empty() && token.size() <= 9 &&
        std::all_of(token.begin(), token.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const std::size_t i = std::stoul(token);
        if (i < toks.size()) return i;
    }
    std::string have;
    for (std::size_t i = 0; i < toks.size(); ++i) have += (i ? ", " : "") + toks[i];
    throw attn::error("token '" + token + "' is not a query of run '" + run.name + "' (queries: " + have +
                                "; or an index 0.." + std::to_string(toks.size() - 1) + ")");
}

void check_references(const lesson& l, const show_item& item) {
    auto has = [&](const char* key) { return item.spec->get(key) != nullptr; };
    for (const char* key : {"title", "axes", "corner"})
        if (has(key)) (void)need_string(item, key);
    (void)opt_decimals(item, 0);
    const matrix* m = has("matrix") ? &need_matrix(l, item) : nullptr;
    // rows / columns: a token list, as long as the matrix's side when the item names one
    for (const auto& [key, axis] : {std::pair<const char*, std::size_t>{"rows", 0}, {"columns", 1}}) {
        const toml::node* n = item.spec->get(key);
        if (!n || !n->is_string()) continue;
        const auto it = l.tokens.find(*n->value<std::string>());
        (void)need_tokens(l, item, key, m ? m->shape(axis) : it != l.tokens.end() ? it->second.size() : 0);
    }
    if (has("run")) {
        const attention_run& run = need_run(l, item);
        if (has("token")) (void)need_query(run, item);
    }
    if (has("runs"))
        for (const auto& n : need_strings(item, "runs", 0))
            if (!l.runs.count(n)) bad(item, "run '" + n + "' is not in [runs]" + hint_suffix(n, l.run_order), "runs");
    if (has("matrices"))
        for (const auto& n : need_strings(item, "matrices", 0))
            if (!l.matrices.count(n)) bad(item, "matrix '" + n + "' is not defined", "matrices");
    if (has("block")) {
        const std::string b = need_string(item, "block");
        if (!l.parts || !l.parts->blocks.count(b)) bad(item, "block '" + b + "' is not in [blocks]", "block");
    }
}

std::size_t need_query(const attention_run& run, const show_item& item, const std::string& key) {
    const std::string token = need_string(item, key);  // its own problem is reported as is
    try {
        return find_query(run, token);
    } catch (const error& e) {
        bad(item, e.what(), key);
    }
}

}  // namespace attn::lessons::show
