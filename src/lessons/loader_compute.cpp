// lessons/loader_compute.cpp — [derived] matrices and [runs] in dependency order.
// A derived matrix may use a run's stage ("self.output") and a run may use a
// derived matrix, so neither table is read strictly before the other: every
// entry is computed as soon as what it names exists. Names that exist nowhere
// are reported where they are written (with the closest known name); entries
// that depend on each other in a circle are reported as such.
#include <algorithm>

#include "io/toml_read.hpp"
#include "lessons/lesson_parts.hpp"
#include "lessons/loader_internal.hpp"
#include "core/stages.hpp"

namespace attn::lessons::detail {

const std::vector<std::string>& reference_keys() {
    static const std::vector<std::string> keys = {
        "of",        "a",         "b",         "q",         "k",         "v",         "bias",      "x",
        "x_q",       "x_kv",      "w_q",       "w_k",       "w_v",       "w_o",       "w1",        "w2",
        "b1",        "b2",        "table",     "encoder_output", "self_w_q", "self_w_k", "self_w_v", "self_w_o",
        "cross_w_q", "cross_w_k", "cross_w_v", "cross_w_o", "w_q1",      "w_k1",      "w_v1",      "w_q2",
        "w_k2",      "w_v2"};
    return keys;
}

namespace {

enum class entry_kind { derived, run, block };

struct entry {
    std::string name;
    const toml::table* table;
    entry_kind kind;
};

}  // namespace

std::vector<std::pair<const toml::node*, std::string>> loader::references(const toml::table& t) const {
    std::vector<std::pair<const toml::node*, std::string>> refs;
    for (const auto& key : reference_keys()) {
        const toml::node* n = t.get(key);
        if (!n) continue;
        if (n->is_string()) refs.emplace_back(n, *n->value<std::string>());
        if (const toml::array* a = n->as_array())
            for (const auto& e : *a)
                if (e.is_string()) refs.emplace_back(&e, *e.value<std::string>());
    }
    return refs;
}

const matrix* loader::matrix_ref(const toml::table& t, const std::string& key, bool required) {
    auto name = rd.string(t, key, required);
    if (!name) return nullptr;
    auto it = out.matrices.find(*name);
    if (it != out.matrices.end()) return &it->second;
    if (!broken.count(*name))
        rd.fail(t.get(key), "'" + key + "' names matrix '" + *name + "', which is not defined");
    return nullptr;
}

void loader::compute(const toml::table& doc) {
    std::vector<entry> pending;
    for (const auto& [k, v] : out.matrices) declared.insert(k);
    declared.insert(broken.begin(), broken.end());
    const toml::table* derived = nullptr;
    const toml::table* runs = nullptr;
    if (const toml::node* n = doc.get("derived")) {
        derived = n->as_table();
        if (!derived) rd.fail(n, "[derived] must be a table of derived matrices, found " + toml_reader::type_name(n));
    }
    const toml::table* blocks = nullptr;
    std::set<std::string> block_names;
    if (const toml::node* n = doc.get("blocks")) {
        blocks = n->as_table();
        if (!blocks) rd.fail(n, "[blocks] must be a table of blocks, found " + toml_reader::type_name(n));
    }
    if (const toml::node* n = doc.get("runs")) {
        runs = n->as_table();
        if (!runs) rd.fail(n, "[runs] must be a table of attention runs, found " + toml_reader::type_name(n));
    }
    if (derived)
        for (const auto& [key, value] : *derived) {
            const std::string name(key.str());
            declared.insert(name);
            if (const toml::table* d = value.as_table()) {
                pending.push_back({name, d, entry_kind::derived});
            } else {
                rd.fail(&value, "[derived." + name + "] must be a table with 'op', found " + toml_reader::type_name(&value));
                broken.insert(name);
            }
        }
    if (runs)
        for (const auto& [key, value] : *runs) {
            const std::string name(key.str());
            for (const auto& s : head_stages()) declared.insert(name + "." + s.alias);
            if (const toml::table* r = value.as_table()) {
                pending.push_back({name, r, entry_kind::run});
            } else {
                rd.fail(&value, "[runs." + name + "] must be a table, found " + toml_reader::type_name(&value));
                broken.insert(name);
            }
        }

    if (blocks)
        for (const auto& [key, value] : *blocks) {
            const std::string name(key.str());
            block_names.insert(name);
            if (const toml::table* b = value.as_table()) {
                pending.push_back({name, b, entry_kind::block});
            } else {
                rd.fail(&value, "[blocks." + name + "] must be a table with 'kind', found " + toml_reader::type_name(&value));
                broken.insert(name);
            }
        }
    // A block's pieces are named "block.piece"; which pieces exist is known only
    // once the block is computed.
    auto owner_block = [&](const std::string& ref) {
        const auto dot = ref.find('.');
        return dot != std::string::npos && block_names.count(ref.substr(0, dot)) ? ref.substr(0, dot) : std::string();
    };

    // References to names declared nowhere: report once, where written.
    std::vector<std::string> known(declared.begin(), declared.end());
    for (const auto& b : block_names) known.push_back(b + ".output");
    for (auto it = pending.begin(); it != pending.end();) {
        bool ok = true;
        for (const auto& [node, ref] : references(*it->table))
            if (!declared.count(ref) && owner_block(ref).empty()) {
                rd.fail(node, "'" + ref + "' is not a matrix of this lesson (" + did_you_mean(ref, known) +
                                  "matrices come from [matrices], [derived] or a run's stage such as 'self.output')");
                ok = false;
            }
        if (ok) {
            ++it;
        } else {
            broken.insert(it->name);
            it = pending.erase(it);
        }
    }

    // Compute in rounds: whatever has all its inputs now.
    bool progress = true;
    while (!pending.empty() && progress) {
        progress = false;
        for (auto it = pending.begin(); it != pending.end();) {
            bool ready = true, dead = false;
            for (const auto& [node, ref] : references(*it->table)) {
                const std::string run = ref.substr(0, ref.find('.'));
                if (broken.count(ref) || (ref.find('.') != std::string::npos && broken.count(run))) dead = true;
                if (!out.matrices.count(ref)) ready = false;
                const std::string blk = owner_block(ref);
                if (!blk.empty() && out.parts && out.parts->blocks.count(blk) && !out.matrices.count(ref)) {
                    std::vector<std::string> pieces;
                    for (const auto& [k, v] : out.matrices)
                        if (k.rfind(blk + ".", 0) == 0) pieces.push_back(k);
                    rd.fail(node, "block '" + blk + "' has no matrix '" + ref + "'" + hint_suffix(ref, pieces));
                    dead = true;
                }
            }
            if (dead) {  // its input already failed and was reported
                broken.insert(it->name);
                it = pending.erase(it);
                progress = true;
                continue;
            }
            if (!ready) {
                ++it;
                continue;
            }
            if (it->kind == entry_kind::block) {
                if (!read_block(it->name, *it->table)) broken.insert(it->name);
            } else if (it->kind == entry_kind::run) {
                if (read_run(it->name, *it->table)) {
                    const attention_run& r = out.runs.at(it->name);
                    for (const auto& s : head_stages())
                        out.matrices[it->name + "." + s.alias] = stage_matrix(r.steps, s.id);
                } else {
                    broken.insert(it->name);
                }
            } else {
                auto op = rd.string(*it->table, "op", true);
                std::optional<matrix> m;
                if (op) m = derive(*it->table, it->name, *op);
                if (m) out.matrices[it->name] = std::move(*m);
                else broken.insert(it->name);
            }
            it = pending.erase(it);
            progress = true;
        }
    }
    for (const auto& e : pending) {
        rd.fail(e.table, std::string(e.kind == entry_kind::run     ? "run '"
                                     : e.kind == entry_kind::block ? "block '"
                                                                   : "derived matrix '") +
                             e.name +
                             "' depends on itself through its inputs (a cycle among [derived] and [runs])");
        broken.insert(e.name);
    }
    // Runs in declaration order (toml++ keeps it), whatever order they were computed
    // in; the runs of blocks (heads, layers) after them.
    const std::vector<std::string> block_runs = out.run_order;
    out.run_order.clear();
    if (runs)
        for (const auto& [key, value] : *runs)
            if (out.runs.count(std::string(key.str()))) out.run_order.push_back(std::string(key.str()));
    out.run_order.insert(out.run_order.end(), block_runs.begin(), block_runs.end());
    out.primary_run = rd.string(doc, "primary", false).value_or(out.run_order.empty() ? "" : out.run_order.front());
    if (doc.contains("primary") && !out.runs.count(out.primary_run) && !broken.count(out.primary_run))
        rd.fail(doc.get("primary"), "'primary' names run '" + out.primary_run + "', which is not in [runs]" +
                                        hint_suffix(out.primary_run, out.run_order));
}

}  // namespace attn::lessons::detail
