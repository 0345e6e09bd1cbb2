// lessons/show_grouped.cpp — show kinds of lesson 18, multi-query and grouped-query
// attention: the KV cache for several numbers of key/value heads G (`kv_cache_groups`)
// and one query head reading its group's K and V (`grouped_heads`). The numbers come
// from core/grouped_query.hpp, computed when shown.
#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "core/grouped_query.hpp"
#include "core/recipe.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/number_format.hpp"
#include "trace/stages.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

std::int64_t whole(const show_item& item, const std::string& key, std::int64_t lo, std::int64_t hi) {
    const toml::node* n = item.spec->get(key);
    if (!n) bad(item, "needs '" + key + "' (a whole number)");
    if (!n->is_integer() || *n->value<int64_t>() < lo || *n->value<int64_t>() > hi)
        bad(item, fmt::format("'{}' must be a whole number from {} to {}", key, lo, hi), key);
    return *n->value<int64_t>();
}

std::string bytes_text(double b) {
    if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
    if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
    if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
    return fmt::format("{:.0f} B", b);
}

std::string show_kv_cache_groups(const lesson&, const show_item& item, const trace::style& st) {
    const auto layers = static_cast<std::uint64_t>(whole(item, "layers", 1, 1000));
    const auto heads = static_cast<std::uint64_t>(whole(item, "heads", 1, 1024));
    const auto d_head = static_cast<std::uint64_t>(whole(item, "d_head", 1, 4096));
    const auto tokens = static_cast<std::uint64_t>(whole(item, "tokens", 1, 10000000));
    const auto batch = static_cast<std::uint64_t>(whole(item, "batch", 1, 4096));
    const auto bytes = static_cast<std::uint64_t>(whole(item, "bytes", 1, 8));
    const toml::array* gs = item.spec->get("groups") ? item.spec->get("groups")->as_array() : nullptr;
    if (!gs || gs->empty()) bad(item, "needs 'groups', a list of key/value head counts such as [32, 8, 1]", "groups");
    const kv_cache_size mha = kv_cache(layers, heads, d_head, tokens, batch, bytes);
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("KV cache, {} layers, {} tokens", layers, tokens));
    t.axes = "rows: K/V heads G";
    t.corner = "G";
    t.col_labels = {"attention", "numbers", "bytes", "vs G = H"};
    t.shape = fmt::format("[{} × 4]", gs->size());
    for (const auto& e : *gs) {
        if (!e.is_integer() || *e.value<int64_t>() < 1 || heads % static_cast<std::uint64_t>(*e.value<int64_t>()) != 0)
            bad(item, fmt::format("'groups' must hold divisors of heads = {}", heads), "groups");
        const auto g = static_cast<std::uint64_t>(*e.value<int64_t>());
        const kv_cache_size c = kv_cache(layers, g, d_head, tokens, batch, bytes);
        t.row_labels.push_back(std::to_string(g));
        t.cells.push_back({g == heads ? "multi-head" : g == 1 ? "multi-query" : "grouped-query", std::to_string(c.values),
                           bytes_text(static_cast<double>(c.bytes)),
                           fmt::format("1/{}", mha.values / c.values)});
    }
    std::string out = trace::render(t, st);
    out += fmt::format("  numbers = 2 (K and V) · layers · G · d_head · tokens · batch\n");
    return out;
}

std::string show_grouped_heads(const lesson& l, const show_item& item, const trace::style& st) {
    const matrix& q = need_matrix(l, item, "q");
    const matrix& k = need_matrix(l, item, "k");
    const matrix& v = need_matrix(l, item, "v");
    const auto heads = static_cast<std::size_t>(whole(item, "heads", 1, 64));
    const auto kv = static_cast<std::size_t>(whole(item, "kv_heads", 1, 64));
    // Heads are counted from 1 in the lessons (lesson 01 states it); columns from 0.
    const auto head_no = static_cast<std::size_t>(whole(item, "head", 1, 64));
    if (head_no > heads) bad(item, fmt::format("'head' must be from 1 to heads = {}", heads), "head");
    const std::size_t head = head_no - 1;
    const auto& toks = need_tokens(l, item, "rows", q.shape(0));
    recipe_options o;
    o.heads = heads;
    o.kv_heads = kv;
    if (opt_bool(item, "causal", false)) {
        bool_matrix m({q.shape(0), k.shape(0)});
        for (std::size_t i = 0; i < q.shape(0); ++i)
            for (std::size_t j = 0; j < k.shape(0); ++j) m(i, j) = j <= i;
        o.mask = m;
    }
    recipe_steps g;
    try {
        g = attention_recipe(q, k, v, o);
    } catch (const std::exception& e) {
        bad(item, e.what());
    }
    std::string map;
    for (std::size_t h = 0; h < heads; ++h)
        map += fmt::format("{}{} → {}", h ? ", " : "", h + 1, g.heads[h].group + 1);
    const std::size_t grp = g.heads[head].group, d_k = g.heads[head].forward.d_k();
    std::string out = fmt::format("  query head → key/value head: {}\n", map);
    out += fmt::format("  query head {} reads columns {}–{} of K and V (K/V head {}).\n\n", head_no, grp * d_k,
                       (grp + 1) * d_k - 1, grp + 1);
    trace::run_labels labels;
    labels.title = fmt::format("Query head {} of {},", head_no, heads);
    labels.query_tokens = toks;
    labels.key_tokens = toks;
    out += trace::render(trace::stage_table(g.heads[head].forward, stage::weights, labels), st);
    return out;
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_kv_cache_groups(const lesson& l, const show_item& item) {
    check_references(l, item);
    for (const auto& [key, hi] : {std::pair<const char*, std::int64_t>{"layers", 1000}, {"d_head", 4096},
                                  {"tokens", 10000000}, {"batch", 4096}, {"bytes", 8}})
        (void)whole(item, key, 1, hi);
    const auto heads = static_cast<std::uint64_t>(whole(item, "heads", 1, 1024));
    const toml::array* gs = item.spec->get("groups") ? item.spec->get("groups")->as_array() : nullptr;
    if (!gs || gs->empty()) bad(item, "needs 'groups', a list of key/value head counts such as [32, 8, 1]", "groups");
    for (const auto& e : *gs)
        if (!e.is_integer() || *e.value<int64_t>() < 1 || heads % static_cast<std::uint64_t>(*e.value<int64_t>()) != 0)
            bad(item, fmt::format("'groups' must hold divisors of heads = {}", heads), "groups");
}

// The shapes and head counts are the core's to judge: it runs on the lesson's small matrices.
void check_grouped_heads(const lesson& l, const show_item& item) {
    check_references(l, item);
    const matrix& q = need_matrix(l, item, "q");
    const auto heads = static_cast<std::size_t>(whole(item, "heads", 1, 64));
    const auto kv = static_cast<std::size_t>(whole(item, "kv_heads", 1, 64));
    if (static_cast<std::size_t>(whole(item, "head", 1, 64)) > heads)
        bad(item, fmt::format("'head' must be from 1 to heads = {}", heads), "head");
    (void)need_tokens(l, item, "rows", q.shape(0));
    (void)opt_bool(item, "causal", false);
    try {
        recipe_options o;
        o.heads = heads;
        o.kv_heads = kv;
        (void)attention_recipe(q, need_matrix(l, item, "k"), need_matrix(l, item, "v"), o);
    } catch (const std::exception& e) {
        bad(item, e.what());
    }
}

}  // namespace

std::vector<show_kind> grouped_kinds() {
    return {
        {"kv_cache_groups", show_kv_cache_groups, {"layers", "heads", "d_head", "tokens", "batch", "bytes", "groups"},
         {"title"}, "the KV cache for several numbers of key/value heads G: multi-head, grouped, multi-query", check_kv_cache_groups},
        {"grouped_heads", show_grouped_heads, {"q", "k", "v", "heads", "kv_heads", "head", "rows"}, {"causal"},
         "which K/V head each query head reads, and one query head's weights", check_grouped_heads},
    };
}

}  // namespace attn::lessons::show
