// io/trace_spec_load.cpp — reads a trace spec file (TOML) into a trace_spec.
// Every problem names the spec's file:line:col, what was expected, what was found.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <toml++/toml.h>

#include "io/csv_read.hpp"
#include "io/input_read.hpp"
#include "io/toml_parse.hpp"
#include "io/toml_read.hpp"
#include "io/toml_words.hpp"
#include "io/npy_read.hpp"
#include "io/size_budget.hpp"
#include "io/terminal_safe.hpp"
#include "io/trace_spec.hpp"
#include "io/trace_spec_extras.hpp"

namespace attn::io {

namespace {

// The spec's own readers on top of the one TOML reader family (io/toml_read.hpp), in
// throw mode: the first problem ends the read at its file:line:col.
struct reader : toml_reader {
    explicit reader(const std::string& f) : toml_reader{f} {}

    source_pos pos(const toml::node& n) const { return toml_pos(file, &n); }
    [[noreturn]] void fail(const toml::node& n, const std::string& message) const { throw input_error(pos(n), message); }

    static std::string type_name(const toml::node& n) { return toml_type_name(&n); }

    // A non-empty list of token strings, read with the family's strings reader.
    std::vector<std::string> tokens(const toml::table& doc, const std::string& key) const {
        std::vector<std::string> out = toml_reader::strings(doc, key, true).value();
        if (out.empty()) fail(*doc.get(key), "'" + key + "' must be a non-empty array of strings, found an empty array");
        return out;
    }

    // Walks nested arrays depth-first, checking they are rectangular.
    void flatten(const toml::node& n, std::size_t depth, nd_array& out, bool is_mask, const std::string& key) const {
        if (const toml::array* a = n.as_array()) {
            if (a->empty()) fail(n, "'" + key + "' has an empty array; every axis needs at least one entry");
            if (depth == out.shape.size()) {
                if (depth > 0 && !out.data.empty())
                    fail(n, "'" + key + "' is ragged: expected a number here, found an array");
                out.shape.push_back(a->size());
            } else if (out.shape[depth] != a->size()) {
                fail(n, "'" + key + "' is ragged: expected " + std::to_string(out.shape[depth]) + " entries on axis " +
                            std::to_string(depth) + " like the first row, found " + std::to_string(a->size()));
            }
            for (const auto& e : *a) flatten(e, depth + 1, out, is_mask, key);
            return;
        }
        if (depth != out.shape.size())
            fail(n, "'" + key + "' is ragged: expected an array here, found " + type_name(n));
        if (depth == 0) fail(n, "'" + key + "' must be an array (or a path to a .npy or .csv file), found " + type_name(n));
        if (is_mask) {
            if (n.is_boolean()) {
                out.data.push_back(*n.value<bool>() ? 1.0 : 0.0);
                return;
            }
            if (n.is_integer() && (*n.value<int64_t>() == 0 || *n.value<int64_t>() == 1)) {
                out.data.push_back(static_cast<double>(*n.value<int64_t>()));
                return;
            }
            fail(n, "mask entries must be true/false (or 1/0 under a named polarity), found " + type_name(n));
        }
        if (!n.is_number()) fail(n, "'" + key + "' must hold numbers, found " + type_name(n));
        out.data.push_back(toml_number(n));
    }

    nd_array array_value(const toml::node& n, const std::string& key, bool is_mask) const {
        nd_array out;
        out.where = pos(n);
        if (n.is_string()) {
            const std::string rel = *n.value<std::string>();
            namespace fs = std::filesystem;
            const fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : fs::path(file).parent_path() / rel;
            const std::string ext = p.extension().string();
            try {
                if (ext == ".npy") out = read_npy(p.string(), npy_options{is_mask});
                else if (ext == ".csv") out = read_csv(p.string());
                else fail(n, "'" + key + "' names '" + rel + "': expected a .npy or .csv file");
            } catch (const input_error& e) {
                throw input_error(pos(n), "'" + key + "' = \"" + rel + "\": " + e.what());
            }
            out.where = pos(n);
            out.origin = rel;
            if (is_mask)
                for (std::size_t i = 0; i < out.data.size(); ++i)
                    if (out.data[i] != 0.0 && out.data[i] != 1.0)
                        fail(n, "'" + key + "' = \"" + rel + "\": mask entries must be 0 or 1, found " +
                                    std::to_string(out.data[i]) + " at " + index_text(out.shape, i));
            return out;
        }
        flatten(n, 0, out, is_mask, key);
        if (out.shape.size() > 3) fail(n, "'" + key + "' has rank " + std::to_string(out.shape.size()) + "; expected 1 to 3");
        out.origin = "inline";
        return out;
    }
};

// The .npy inputs together, from their headers, before the first is read: two inputs
// each within the budget but not together are refused without reading either.
void check_npy_inputs_fit(const std::vector<std::pair<std::string, const toml::node*>>& given, const std::string& file,
                          const source_pos& root) {
    namespace fs = std::filesystem;
    std::size_t total = 0;
    std::string list;
    for (const auto& [key, n] : given) {
        if (!n->is_string()) continue;
        const std::string rel = *n->value<std::string>();
        const fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : fs::path(file).parent_path() / rel;
        if (p.extension() != ".npy") continue;
        const auto count = npy_element_count(p.string());
        if (!count || *count > max_elements()) continue;  // read_npy reports it in its turn
        total = std::min(total + *count, max_elements() + 1);
        list += (list.empty() ? "" : ", ") + key + " " + terminal_safe(rel) + " " + std::to_string(*count);
    }
    if (total > max_elements() - std::min(max_elements(), charged_elements()))
        throw input_error("too-large", root,
                          "the .npy inputs together (" + list + ") would hold more numbers than the budget of " +
                              std::to_string(max_elements()) + " (raise it with --max-elements, or use smaller inputs)");
}

const std::set<std::string> input_keys = {"Q", "K", "V", "X", "X_src", "W_Q", "W_K", "W_V", "W_O", "backward"};
const std::set<std::string> top_keys = {"kind", "title", "tokens", "query_tokens", "key_tokens", "heads",
                                        "scale", "causal", "mask", "bias"};

}  // namespace

trace_spec load_trace_spec(const std::string& path) {
    input_limits limits;
    limits.toml = true;  // nesting checked before toml++ sees the text
    limits.what = "spec file";
    return parse_trace_spec(read_input_file(path, limits), path == "-" ? stdin_name : path);
}

trace_spec parse_trace_spec(const std::string& text, const std::string& path) {
    reset_charged_elements();  // a spec is one run: its inputs and stages share one budget
    const toml::table doc = parse_toml(text, path);
    const reader r(path);
    trace_spec s;
    s.file = path;
    s.root = source_pos{path, 1, 1};

    std::vector<std::string> known(top_keys.begin(), top_keys.end());
    known.insert(known.end(), input_keys.begin(), input_keys.end());
    known.insert(known.end(), trace_extra_keys().begin(), trace_extra_keys().end());
    r.known_keys(doc, "a spec file", known);
    if (!doc.get("kind")) throw input_error(s.root, "missing key 'kind' (expected \"self\", \"causal\" or \"cross\")");
    s.kind = *r.choice(doc, "kind", true, {"self", "causal", "cross"});
    s.causal = s.kind == "causal";
    s.title = r.string(doc, "title", false).value_or("");
    s.causal = r.boolean(doc, "causal", false).value_or(false) || s.causal;
    s.heads = static_cast<std::size_t>(r.integer(doc, "heads", false, 1, 1000000).value_or(static_cast<std::int64_t>(s.heads)));
    if (const toml::node* n = doc.get("scale")) {
        const double v = *r.number(doc, "scale", true);
        if (!(v > 0)) r.fail(*n, "'scale' (the divisor of the raw scores) must be a positive number, found " + std::to_string(v));
        s.scale = v;
    }

    read_trace_extras(doc, path, s);

    // Tokens: one list for self/causal, two for cross.
    const toml::node* tokens = doc.get("tokens");
    const toml::node* qt = doc.get("query_tokens");
    const toml::node* kt = doc.get("key_tokens");
    if (s.kind == "cross") {
        if (tokens) r.fail(*tokens, "cross-attention has two sequences: write query_tokens and key_tokens, not tokens");
        if (qt) s.query_tokens = r.tokens(doc, "query_tokens");
        if (kt) s.key_tokens = r.tokens(doc, "key_tokens");
        if (qt) s.tokens_where = r.pos(*qt);
    } else {
        if (qt || kt) r.fail(qt ? *qt : *kt, s.kind + "-attention has one sequence: write tokens = [...], not query_tokens/key_tokens");
        if (tokens) {
            s.query_tokens = r.tokens(doc, "tokens");
            s.key_tokens = s.query_tokens;
            s.tokens_where = r.pos(*tokens);
        }
    }

    // Inputs are read in the order the file gives them, so the first bad one is reported first.
    std::vector<std::pair<std::string, const toml::node*>> given;
    for (const auto& key : input_keys)
        if (const toml::node* n = doc.get(key)) given.emplace_back(key, n);
    std::sort(given.begin(), given.end(), [](const auto& a, const auto& b) {
        const source_pos pa = toml_pos({}, a.second), pb = toml_pos({}, b.second);
        return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    check_npy_inputs_fit(given, path, s.root);
    for (const auto& [key, n] : given) s.inputs.emplace(key, r.array_value(*n, key, false));

    if (const toml::node* n = doc.get("mask")) {
        const toml::table* m = n->as_table();
        if (!m)
            r.fail(*n, "a mask needs its polarity: write [mask] with attend = ..., block = ... or key_is_padding = ...; "
                       "a bare matrix of 0/1 is refused because 1 means 'attend' in some libraries and 'block' in others");
        r.known_keys(*m, "[mask]", {"attend", "block", "key_is_padding"});
        if (m->size() != 1) r.fail(*n, "[mask] takes exactly one of attend, block, key_is_padding; found " + std::to_string(m->size()));
        if (const toml::node* a = m->get("attend")) s.attend = r.array_value(*a, "mask.attend", true);
        if (const toml::node* b = m->get("block")) {
            nd_array blocked = r.array_value(*b, "mask.block", true);
            for (auto& x : blocked.data) x = 1.0 - x;  // block → attend polarity
            s.attend = blocked;
        }
        if (const toml::node* p = m->get("key_is_padding")) s.key_is_padding = r.array_value(*p, "mask.key_is_padding", true);
    }
    if (const toml::node* n = doc.get("bias")) s.bias = r.array_value(*n, "bias", false);
    return s;
}

}  // namespace attn::io
