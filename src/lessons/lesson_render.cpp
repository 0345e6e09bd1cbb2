// lessons/lesson_render.cpp — see lesson_render.hpp: the lesson runner (header,
// steps, questions) and the checks of show items. Show kinds: show_*.cpp.
#include "lessons/lesson_render.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "io/terminal_safe.hpp"
#include "io/toml_read.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/explain.hpp"
#include "trace/text_width.hpp"

namespace attn::lessons {

namespace {

// "── Step 2/6 · Title ─────": 72 columns, or the whole width when narrower;
// a title longer than that is wrapped and the rule follows its last line.
std::string rule(const std::string& title, std::size_t width) {
    const std::size_t length = std::min<std::size_t>(72, width);
    std::string head = trace::fit_line("── " + title + " ", width);
    const std::size_t last = head.rfind('\n') == std::string::npos ? 0 : head.rfind('\n') + 1;
    if (head.back() != ' ') head += " ";
    std::string out = head;
    for (std::size_t i = trace::display_width(head.substr(last)); i < length; ++i) out += "─";
    return out;
}

// The documents a lesson teaches from, by title (the lesson file names them by
// their seed number; students have the documents, not the numbers).
std::string source_title(const std::string& seed) {
    static const std::map<std::string, std::string> titles = {
        {"000", "CS224N notes, Self-Attention & Transformers (Hewitt)"},
        {"001", "cross-attention guide, Encoder–Decoder Attention: What, Why, and Where the Names Come From"},
        {"002", "cross-attention chapter (course chapter 4)"},  // its own table: "Cross-Attention (Ch. 4)"
        {"003", "CS224N notes, Self-Attention & Transformers (Hewitt)"},
        {"004", "attention worksheet (shapes, masks, (XXᵀ)X)"},
    };
    auto it = titles.find(seed);
    return it == titles.end() ? "document " + seed : it->second;
}

// `sources = [...]`: papers beyond the seed documents, as the file names them.
std::vector<std::string> paper_sources(const lesson& l) {
    std::vector<std::string> out;
    if (!l.document) return out;
    if (const toml::array* a = l.document->get_as<toml::array>("sources"))
        for (const auto& e : *a)
            if (const auto s = e.value<std::string>()) out.push_back(io::terminal_safe(*s));
    return out;
}

// `[token_trace]`: the show item `--token` fills in (the lesson's own variant).
std::optional<show_item> token_trace_item(const lesson& l) {
    if (!l.document) return std::nullopt;
    const toml::table* t = l.document->get_as<toml::table>("token_trace");
    const auto kind = t ? t->get("kind") : nullptr;
    if (!kind || !kind->is_string()) return std::nullopt;
    return show_item{*kind->value<std::string>(), std::shared_ptr<const toml::table>(l.document, t),
                     io::toml_pos(l.path, t)};
}

std::vector<std::string> kind_names() {
    std::vector<std::string> names;
    for (const auto& k : show::all_kinds()) names.push_back(k.name);
    return names;
}

// Does the item name (as a string value or in an array) something that failed to load?
bool names_broken(const show_item& item, const std::set<std::string>& broken) {
    auto hit = [&](const toml::node& n) {
        if (!n.is_string()) return false;
        const std::string s = *n.value<std::string>();
        return broken.count(s) || broken.count(s.substr(0, s.find('.')));
    };
    for (const auto& [k, v] : *item.spec) {
        if (hit(v)) return true;
        if (const toml::array* a = v.as_array())
            for (const auto& e : *a)
                if (hit(e)) return true;
    }
    return false;
}

}  // namespace

std::string render_show(const lesson& l, const show_item& item, const trace::style& st) {
    const show::show_kind* k = show::find_kind(item.kind);
    if (!k) {
        std::string names;
        for (const auto& n : kind_names()) names += (names.empty() ? "" : ", ") + n;
        show::bad(item, "unknown kind" + hint_suffix(item.kind, kind_names()) + " (expected one of " + names + ")",
                  "kind");
    }
    return k->render(l, item, st);
}

namespace {

// One item: a known kind, its keys, then the kind's check (no drawing).
void check_item(const lesson& l, const show_item& item, toml_reader& rd, std::vector<diagnostic>& problems,
                const std::set<std::string>& broken) {
    const show::show_kind* k = show::find_kind(item.kind);
    if (!k) {
        try {
            (void)render_show(l, item, trace::style{});  // reports the unknown kind at its 'kind' key
        } catch (const lesson_error& e) {
            problems.insert(problems.end(), e.problems.begin(), e.problems.end());
        }
        return;
    }
    std::vector<std::string> known = {"kind"};
    known.insert(known.end(), k->required.begin(), k->required.end());
    known.insert(known.end(), k->optional.begin(), k->optional.end());
    rd.known_keys(*item.spec, "a [[step.show]] of kind '" + item.kind + "'", known);
    bool missing = false;
    for (const auto& req : k->required)
        if (!item.spec->contains(req)) {
            problems.push_back({item.where, "show kind '" + item.kind + "' needs '" + req + "'"});
            missing = true;
        }
    if (missing || names_broken(item, broken)) return;
    try {
        k->check(l, item);
    } catch (const lesson_error& e) {
        problems.insert(problems.end(), e.problems.begin(), e.problems.end());
    } catch (const std::exception& e) {
        problems.push_back({item.where, "show kind '" + item.kind + "': " + e.what()});
    }
}

}  // namespace

std::vector<diagnostic> check_show_items(const lesson& l, const std::set<std::string>& broken) {
    std::vector<diagnostic> problems;
    toml_reader rd{l.path, &problems};
    for (const auto& s : l.steps)
        for (const auto& item : s.show) check_item(l, item, rd, problems, broken);
    if (auto item = token_trace_item(l)) {
        // `--token` fills in the query; check it with the primary run's first query.
        const auto run = l.runs.find(l.primary_run);
        const std::string first = run == l.runs.end() || run->second.labels.query_tokens.empty()
                                      ? "0" : run->second.labels.query_tokens.front();
        auto spec = std::make_shared<toml::table>(*item->spec);
        spec->insert_or_assign("token", first);
        item->spec = spec;
        const std::size_t before = problems.size();
        check_item(l, *item, rd, problems, broken);
        for (std::size_t i = before; i < problems.size(); ++i) problems[i].message = "[token_trace]: " + problems[i].message;
    }
    return problems;
}

std::vector<diagnostic> check_lesson_file(const std::string& path) {
    std::string text;
    try {
        text = read_lesson_file(path);
    } catch (const io::input_error& e) {  // missing, not a file, too large, too deep: one problem
        return {{e.where, e.detail}};
    }
    return load_lesson_draft(text, path).problems;  // the show items' checks included
}

std::string render_lesson_header(const lesson& l, const trace::style& st) {
    std::string out = trace::fit_line(st.heading(fmt::format("Lesson {:02d} · {}", l.number, l.title)), st.width) + "\n";
    if (!l.seeds.empty() || !paper_sources(l).empty()) {
        std::vector<std::string> titles;  // two seeds may be one document (000 and 003)
        for (const auto& s : l.seeds) {
            const std::string t = source_title(s);
            if (std::find(titles.begin(), titles.end(), t) == titles.end()) titles.push_back(t);
        }
        std::string sources;
        for (const auto& t : titles) sources += (sources.empty() ? "" : "; ") + t;
        for (const auto& t : paper_sources(l)) sources += (sources.empty() ? "" : "; ") + t;
        out += trace::fit_line(st.muted("Sources: " + sources), st.width) + "\n";
    }
    return out;
}

std::string render_intro(const lesson& l, const trace::style& st) {
    if (l.intro.empty()) return "";
    return "\n" + trace::wrap_prose(l.intro, st.width) + (l.intro.back() == '\n' ? "" : "\n");
}

std::string render_step(const lesson& l, int k, const trace::style& st) {
    const int total = static_cast<int>(l.steps.size());
    if (k < 1 || k > total)
        throw attn::error(fmt::format("--step {} is out of range: lesson {:02d} has steps 1..{}", k, l.number,
                                                total));
    const step& s = l.steps[static_cast<std::size_t>(k - 1)];
    std::string out = "\n" + st.heading(rule(fmt::format("Step {}/{} · {}", k, total, s.title), st.width)) + "\n";
    if (!s.text.empty()) out += trace::wrap_prose(s.text, st.width) + (s.text.back() == '\n' ? "" : "\n");
    for (const auto& item : s.show) out += "\n" + trace::fit_lines(render_show(l, item, st), st.width);
    return out;
}

namespace {

// "Next: attn lesson 5 — Different lengths", or where to go after the last one.
std::string next_lesson_line(const lesson& l) {
    std::vector<lesson_entry> all;
    try {
        all = list_lessons(lessons_dir());
    } catch (const std::exception&) {  // a lesson file given by path: no folder to look in
    }
    const lesson_entry* next = nullptr;  // the next number there is (a course may skip one)
    for (const auto& e : all)
        if (e.number > l.number && (!next || e.number < next->number)) next = &e;
    if (next) return fmt::format("Next: attn lesson {} — {}", next->number, next->title);
    return "This is the last lesson; `attn lessons` lists them all.";
}

}  // namespace

std::string render_questions(const lesson& l, const trace::style& st) {
    std::string out;
    if (!l.recap.empty()) {
        out += "\n" + st.heading(rule("Recap", st.width)) + "\n";
        for (const auto& r : l.recap) out += trace::fit_line("  • " + r, st.width) + "\n";
    }
    if (!l.exercises.empty()) {
        out += "\n" + st.heading(rule("Questions", st.width)) + "\n";
        int n = 1;
        for (const auto& x : l.exercises) {
            out += trace::fit_line(fmt::format("{}. [{}] {}", n++, x.id, x.prompt), st.width) + "\n";
            if (!x.choices.empty()) {
                std::string c;
                for (const auto& ch : x.choices) c += (c.empty() ? "" : " | ") + ch;
                out += trace::fit_line("   choices: " + c, st.width) + "\n";
            }
        }
        const std::string file = fmt::format("answers-{:02d}.toml", l.number);
        out += "\n" + trace::fit_line("Answer them in a file, graded at once with a hint for each mistake:", st.width) + "\n";
        out += trace::fit_line(fmt::format("    attn exercise template {} > {}", l.number, file), st.width) + "\n";
        out += trace::fit_line("    (replace each TODO in " + file + " with your answer)", st.width) + "\n";
        out += trace::fit_line("    attn exercise check " + file, st.width) + "\n";
    }
    const toml::node* ex = l.document ? l.document->get("example") : nullptr;
    const std::string example = ex && ex->is_string() ? *ex->value<std::string>() : "cat-causal";
    out += "\n" + trace::fit_line("Trace this lesson's kind of attention yourself (`attn examples`", st.width) + "\n";
    out += trace::fit_line("lists every example; each is a spec file to start from):", st.width) + "\n";
    out += trace::fit_line("    attn trace --example " + example, st.width) + "\n";
    out += "\n" + trace::fit_line(st.heading(next_lesson_line(l)), st.width) + "\n";
    return out;
}

void render_lesson(const lesson& l, std::ostream& out, const render_options& o) {
    const trace::style& st = o.style;
    const int total = static_cast<int>(l.steps.size());
    if (o.first_step < 1 || o.first_step > total) (void)render_step(l, o.first_step, st);  // throws the range message
    out << render_lesson_header(l, st);
    if (o.first_step == 1) out << render_intro(l, st);
    for (int k = o.first_step; k <= total; ++k) {
        out << render_step(l, k, st);
        out.flush();
        if (k < total && o.between_steps && !o.between_steps(k, total)) return;
    }
    out << render_questions(l, st);
}

namespace {

// The lesson's [token_trace] item with `token` filled in.
std::string render_token_item(const lesson& l, const show_item& item, const std::string& token, const trace::style& st) {
    auto spec = std::make_shared<toml::table>(*item.spec);
    spec->insert_or_assign("token", token);
    return render_show(l, show_item{item.kind, spec, item.where}, st);
}

}  // namespace

std::string render_token_trace(const lesson& l, const std::string& token, const std::string& run_name,
                               const trace::style& st) {
    if (run_name.empty())
        if (const auto item = token_trace_item(l)) return render_token_item(l, *item, token, st);
    const std::string name = run_name.empty() ? l.primary_run : run_name;
    auto it = l.runs.find(name);
    if (it == l.runs.end()) {
        std::string have;
        for (const auto& r : l.run_order) have += (have.empty() ? "" : ", ") + r;
        throw attn::error("lesson " + std::to_string(l.number) + " has no run '" + name + "' (runs: " +
                                    (have.empty() ? "none" : have) + ")");
    }
    return trace::explain_query(it->second.steps, show::find_query(it->second, token), it->second.labels, st);
}

}  // namespace attn::lessons
