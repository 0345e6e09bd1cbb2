// lessons/loader_derive_model.cpp — the [derived.X] op that takes a matrix from a
// built-in trained model (lessons/trained_models.hpp): one hook of its float64 forward
// on a token sequence, by its TransformerLens name (model/hooks.hpp), one head of it or
// every head side by side. Lesson 23 feeds these to lesson 17's and 18's show kinds, so
// a trained Llama's q and k are rotated and grouped by the very code that rotated and
// grouped the toy matrices. A row of the derive_op registry (loader_internal.hpp).
#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "lessons/loader_internal.hpp"
#include "lessons/trained_models.hpp"
#include "model/hooks.hpp"

namespace attn::lessons::detail {

namespace {

// The ids of `tokens` ("1 403 407"), each below the model's vocabulary, 1 … n_positions of them.
std::optional<std::vector<int>> token_ids(loader& ld, const toml::table& d, const trained_model& m) {
    auto text = ld.rd.string(d, "tokens", true);
    if (!text) return std::nullopt;
    std::vector<int> ids;  // [P]
    std::istringstream in(*text);
    for (std::string w; in >> w;) {
        const bool digits = !w.empty() && w.size() <= 9 && std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits || std::stoul(w) >= m.params.config.vocab_size) {
            ld.rd.fail(d.get("tokens"), "'tokens' must hold token ids of model '" + m.name + "' (0 … " +
                                            std::to_string(m.params.config.vocab_size - 1) + "), found '" + w + "'");
            return std::nullopt;
        }
        ids.push_back(std::stoi(w));
    }
    if (ids.empty() || ids.size() > m.params.config.n_positions) {
        ld.rd.fail(d.get("tokens"), "'tokens' must hold 1 to " + std::to_string(m.params.config.n_positions) + " ids, found " +
                                        std::to_string(ids.size()));
        return std::nullopt;
    }
    return ids;
}

// Batch row 0 of a hook [1, a, b(, c)] as a matrix: [P, d] as it is; [1, P, H, d_head]
// with `head` its [P, d_head], else [P, H·d_head]; [1, H, P, P] with `head` its [P, P].
std::optional<matrix> hook_matrix(loader& ld, const toml::table& d, const double* data, const std::vector<std::size_t>& shape,
                                  const std::string& hook) {
    const toml::node* h = d.get("head");
    if (shape.size() == 3) {
        if (h) ld.rd.fail(h, "'" + hook + "' has no heads: leave 'head' out");
        matrix m({shape[1], shape[2]});  // [P, d]
        std::copy(data, data + m.size(), m.begin());
        return h ? std::nullopt : std::optional<matrix>(m);
    }
    const bool per_position = std::string(hook).find("pattern") == std::string::npos &&
                              std::string(hook).find("attn_scores") == std::string::npos;
    const std::size_t heads = per_position ? shape[2] : shape[1];
    if (!h) {
        if (!per_position) {
            ld.rd.fail(&d, "'" + hook + "' has one map per head: give 'head'");
            return std::nullopt;
        }
        matrix m({shape[1], shape[2] * shape[3]});  // [P, H·d_head], heads side by side
        std::copy(data, data + m.size(), m.begin());
        return m;
    }
    if (!h->is_integer() || *h->value<int64_t>() < 0 || static_cast<std::size_t>(*h->value<int64_t>()) >= heads) {
        ld.rd.fail(h, "'head' must be a whole number from 0 to " + std::to_string(heads - 1) + " (counted from 0, as in the hook)");
        return std::nullopt;
    }
    const auto k = static_cast<std::size_t>(*h->value<int64_t>());
    if (!per_position) {
        matrix m({shape[2], shape[3]});  // [P, P]
        std::copy(data + k * shape[2] * shape[3], data + (k + 1) * shape[2] * shape[3], m.begin());
        return m;
    }
    matrix m({shape[1], shape[3]});  // [P, d_head]
    for (std::size_t i = 0; i < shape[1]; ++i)
        for (std::size_t j = 0; j < shape[3]; ++j) m(i, j) = data[(i * shape[2] + k) * shape[3] + j];
    return m;
}

std::optional<matrix> op_model_hook(loader& ld, const toml::table& d, const std::string&) {
    auto name = ld.rd.string(d, "model", true);
    auto hook = ld.rd.string(d, "hook", true);
    if (!name || !hook) return std::nullopt;
    const trained_model* m = nullptr;
    try {
        m = &find_trained_model(*name);
    } catch (const error& e) {  // no such built-in model
        ld.rd.fail(d.get("model"), e.what());
        return std::nullopt;
    }
    const auto ids = token_ids(ld, d, *m);
    if (!ids) return std::nullopt;
    const model::hook_name found = model::find_hook(m->params.config, *hook);
    if (!found.info) {
        ld.rd.fail(d.get("hook"), "model '" + *name + "' has no hook '" + *hook +
                                      "' (a TransformerLens name such as blocks.0.attn.hook_rot_q; `attn model run --list-stages`)");
        return std::nullopt;
    }
    const auto acts = forward_one(m->params, *ids);
    std::vector<std::size_t> shape;
    const double* data = model::hook_data(acts, found, &shape);
    if (!data) {
        ld.rd.fail(d.get("hook"), "model '" + *name + "' keeps no '" + *hook + "'");
        return std::nullopt;
    }
    return hook_matrix(ld, d, data, shape, *hook);
}

}  // namespace

std::vector<derive_op> model_derive_ops() {
    return {
        {"model_hook", {"op", "model", "tokens", "hook", "head"},
         "one hook of a built-in trained model's forward on token ids, by its TransformerLens name: [P, d], one head's "
         "[P, d_head] (or [P, P] of a pattern), or every head side by side",
         op_model_hook},
    };
}

}  // namespace attn::lessons::detail
