// lessons/lesson_render.cpp — see lesson_render.hpp. One function per show kind.
#include "lessons/lesson_render.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "trace/explain.hpp"
#include "trace/number_format.hpp"
#include "trace/stages.hpp"
#include "trace/table.hpp"
#include "trace/text_width.hpp"

namespace attn::lessons {

namespace {

[[noreturn]] void bad(const show_item& item, const std::string& message) {
    throw lesson_error({{item.where, "show kind '" + item.kind + "': " + message}});
}

// Same, pointing at the value of `key` inside the show item when it is there.
[[noreturn]] void bad_at(const show_item& item, const std::string& key, const std::string& message) {
    source_pos where = item.where;
    if (const toml::node* n = item.spec->get(key); n && n->source().begin.line > 0) {
        where.line = static_cast<int>(n->source().begin.line);
        where.column = static_cast<int>(n->source().begin.column);
    }
    throw lesson_error({{where, "show kind '" + item.kind + "': " + message}});
}

std::string need_string(const show_item& item, const std::string& key) {
    auto v = (*item.spec)[key].value<std::string>();
    if (!v) bad(item, "needs '" + key + "' (a string)");
    return *v;
}

const attention_run& need_run(const lesson& l, const show_item& item, const std::string& name) {
    auto it = l.runs.find(name);
    if (it == l.runs.end()) bad_at(item, "run", "run '" + name + "' is not in [runs]");
    return it->second;
}

std::size_t find_query(const attention_run& run, const std::string& token) {
    const auto& toks = run.labels.query_tokens;
    auto it = std::find(toks.begin(), toks.end(), token);
    if (it != toks.end()) return static_cast<std::size_t>(it - toks.begin());
    if (!token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const std::size_t i = std::stoul(token);
        if (i < toks.size()) return i;
    }
    std::string have;
    for (std::size_t i = 0; i < toks.size(); ++i) have += (i ? ", " : "") + toks[i];
    throw std::invalid_argument("token '" + token + "' is not a query of run '" + run.name + "' (queries: " + have +
                                "; or an index 0.." + std::to_string(toks.size() - 1) + ")");
}

std::string show_matrix(const lesson& l, const show_item& item, const trace::style& st) {
    const std::string name = need_string(item, "matrix");
    auto it = l.matrices.find(name);
    if (it == l.matrices.end()) bad_at(item, "matrix", "matrix '" + name + "' is not defined");
    const matrix& m = it->second;
    std::vector<std::string> rows(m.shape(0));
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = "r" + std::to_string(i);
    if (auto tokens = (*item.spec)["rows"].value<std::string>()) {
        auto t = l.tokens.find(*tokens);
        if (t == l.tokens.end()) bad_at(item, "rows", "token list '" + *tokens + "' is not in [tokens]");
        if (t->second.size() != m.shape(0)) bad(item, "token list '" + *tokens + "' does not match the matrix's rows");
        rows = t->second;
    }
    const int dp = static_cast<int>((*item.spec)["decimals"].value_or<int64_t>(1));
    const std::string title = (*item.spec)["title"].value_or(name);
    const std::string axes = (*item.spec)["axes"].value_or(std::string("rows: tokens · columns: dimensions"));
    return trace::render(trace::make_table(title, axes, name, rows, trace::dimension_labels(m.shape(1)), m, dp), st);
}

std::string show_stage(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item, need_string(item, "run"));
    const std::string stage_name = need_string(item, "stage");
    auto s = trace::parse_stage(stage_name);
    if (!s) bad_at(item, "stage", "unknown stage '" + stage_name + "' (expected one of " + trace::stage_alias_list() + ")");
    const int dp = static_cast<int>((*item.spec)["decimals"].value_or<int64_t>(-1));
    trace::table t = trace::stage_table(run.steps, *s, run.labels, dp);
    if (auto title = (*item.spec)["title"].value<std::string>()) t.title = *title;
    return trace::render(t, st);
}

// The seed's "Step 1: Decoder Queries" table: Token | Q | × scale | Q_dec.
std::string show_scale_columns(const lesson& l, const show_item& item, const trace::style& st) {
    const std::string name = need_string(item, "matrix");
    const toml::table* d = l.document ? (*l.document)["derived"][name].as_table() : nullptr;
    if (!d || (*d)["op"].value_or(std::string()) != "scale_columns")
        bad(item, "matrix '" + name + "' is not a [derived] scale_columns matrix");
    const std::string of = (*d)["of"].value_or(std::string());
    const matrix& src = l.matrices.at(of);
    const matrix& dst = l.matrices.at(name);
    std::vector<double> by;
    for (const auto& e : *(*d)["by"].as_array()) by.push_back(*e.value<double>());
    const std::string tokens_name = need_string(item, "rows");
    auto tk = l.tokens.find(tokens_name);
    if (tk == l.tokens.end() || tk->second.size() != dst.shape(0))
        bad(item, "'rows' must name a token list with one token per row of '" + name + "'");
    const std::string scale = trace::bracketed(by);
    trace::table t;
    t.title = (*item.spec)["title"].value_or(name + " = " + of + " ⊙ " + scale);
    t.axes = "rows: tokens";
    t.shape = "[" + std::to_string(dst.shape(0)) + " × " + std::to_string(dst.shape(1)) + "]";
    t.corner = "Token";
    t.col_labels = {of, "× scale", name};
    t.row_labels = tk->second;
    for (std::size_t i = 0; i < dst.shape(0); ++i)
        t.cells.push_back({trace::bracketed_row(src, i), "× " + scale, trace::bracketed_row(dst, i)});
    return trace::render(t, st);
}

// Two runs' weights for one query, side by side, with Δ = first − second.
std::string show_compare(const lesson& l, const show_item& item, const trace::style& st) {
    const toml::array* names = (*item.spec)["runs"].as_array();
    if (!names || names->size() != 2 || !names->get(0)->is_string() || !names->get(1)->is_string())
        bad(item, "needs 'runs', two run names");
    const attention_run& a = need_run(l, item, *names->get(0)->value<std::string>());
    const attention_run& b = need_run(l, item, *names->get(1)->value<std::string>());
    if (a.labels.key_tokens != b.labels.key_tokens) bad(item, "the two runs must attend over the same keys");
    const std::string token = need_string(item, "token");
    std::size_t ia = 0, ib = 0;
    try {
        ia = find_query(a, token);
        ib = find_query(b, token);
    } catch (const std::invalid_argument& e) {
        bad_at(item, "token", e.what());
    }
    trace::table t;
    t.title = (*item.spec)["title"].value_or(fmt::format("{} vs {} for '{}'", a.labels.title, b.labels.title, token));
    t.axes = "rows: " + a.labels.key_side + " · Δ = " + a.labels.title + " − " + b.labels.title;
    t.shape = "[" + std::to_string(a.steps.n_k()) + " × 4]";
    t.corner = "Key";
    t.col_labels = {"Scaled score", a.labels.title + " weight", b.labels.title + " weight", "Δ"};
    t.row_labels = a.labels.key_tokens;
    for (std::size_t j = 0; j < a.steps.n_k(); ++j)
        t.cells.push_back({trace::fixed(a.steps.scores_scaled(ia, j), 3), trace::fixed(a.steps.weights(ia, j), 4),
                           trace::fixed(b.steps.weights(ib, j), 4),
                           trace::signed_fixed(a.steps.weights(ia, j) - b.steps.weights(ib, j), 4)});
    std::string out = trace::render(t, st);
    out += fmt::format("  O[{}] {} = {}\n", token, a.labels.title, trace::bracketed_row(a.steps.output, ia, 4));
    out += fmt::format("  O[{}] {} = {}\n", token, b.labels.title, trace::bracketed_row(b.steps.output, ib, 4));
    return out;
}

std::string show_trace(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item, need_string(item, "run"));
    try {
        return trace::explain_query(run.steps, find_query(run, need_string(item, "token")), run.labels, st);
    } catch (const std::invalid_argument& e) {
        bad_at(item, "token", e.what());
    }
}

using show_fn = std::string (*)(const lesson&, const show_item&, const trace::style&);

const std::map<std::string, show_fn>& show_kinds() {
    static const std::map<std::string, show_fn> kinds = {
        {"matrix", show_matrix},   {"stage", show_stage}, {"scale_columns", show_scale_columns},
        {"compare", show_compare}, {"trace", show_trace},
    };
    return kinds;
}

std::string rule(const std::string& title) {
    const std::string head = "── " + title + " ";
    const std::size_t w = trace::display_width(head);
    return head + (w < 72 ? [&] { std::string s; for (std::size_t i = w; i < 72; ++i) s += "─"; return s; }() : "");
}

}  // namespace

std::string render_show(const lesson& l, const show_item& item, const trace::style& st) {
    auto it = show_kinds().find(item.kind);
    if (it == show_kinds().end()) {
        std::string names;
        for (const auto& [k, f] : show_kinds()) names += (names.empty() ? "" : ", ") + k;
        bad_at(item, "kind", "unknown kind (expected one of " + names + ")");
    }
    return it->second(l, item, st);
}

std::vector<diagnostic> check_show_items(const lesson& l) {
    std::vector<diagnostic> problems;
    for (const auto& s : l.steps)
        for (const auto& item : s.show) try {
                (void)render_show(l, item, trace::style{});
            } catch (const lesson_error& e) {
                problems.insert(problems.end(), e.problems.begin(), e.problems.end());
            }
    return problems;
}

void render_lesson(const lesson& l, std::ostream& out, const render_options& o) {
    const trace::style& st = o.style;
    const int total = static_cast<int>(l.steps.size());
    if (o.first_step < 1 || o.first_step > total)
        throw std::invalid_argument(fmt::format("--step {} is out of range: lesson {:02d} has steps 1..{}", o.first_step,
                                                l.number, total));
    out << st.heading(fmt::format("Lesson {:02d} · {}", l.number, l.title)) << "\n";
    if (!l.seeds.empty()) {
        std::string seeds;
        for (const auto& s : l.seeds) seeds += (seeds.empty() ? "" : ", ") + s;
        out << st.muted("from seed " + seeds) << "\n";
    }
    if (o.first_step == 1 && !l.intro.empty()) out << "\n" << l.intro << (l.intro.back() == '\n' ? "" : "\n");
    for (int k = o.first_step; k <= total; ++k) {
        const step& s = l.steps[static_cast<std::size_t>(k - 1)];
        out << "\n" << st.heading(rule(fmt::format("Step {}/{} · {}", k, total, s.title))) << "\n";
        if (!s.text.empty()) out << s.text << (s.text.back() == '\n' ? "" : "\n");
        for (const auto& item : s.show) out << "\n" << render_show(l, item, st);
        out.flush();
        if (k < total && o.between_steps && !o.between_steps(k, total)) return;
    }
    if (!l.exercises.empty()) {
        out << "\n" << st.heading(rule("Questions")) << "\n";
        int n = 1;
        for (const auto& x : l.exercises) {
            out << fmt::format("{}. [{}] {}\n", n++, x.id, x.prompt);
            if (!x.choices.empty()) {
                std::string c;
                for (const auto& ch : x.choices) c += (c.empty() ? "" : " | ") + ch;
                out << "   choices: " << c << "\n";
            }
        }
    }
}

std::string render_token_trace(const lesson& l, const std::string& token, const std::string& run_name,
                               const trace::style& st) {
    const std::string name = run_name.empty() ? l.primary_run : run_name;
    auto it = l.runs.find(name);
    if (it == l.runs.end()) {
        std::string have;
        for (const auto& r : l.run_order) have += (have.empty() ? "" : ", ") + r;
        throw std::invalid_argument("lesson " + std::to_string(l.number) + " has no run '" + name + "' (runs: " +
                                    (have.empty() ? "none" : have) + ")");
    }
    return trace::explain_query(it->second.steps, find_query(it->second, token), it->second.labels, st);
}

}  // namespace attn::lessons
