// lessons/lesson_loader.cpp — lesson file → checked lesson with every run computed.
// Reads in named passes: header, tokens, matrices, then [derived] and [runs] in
// dependency order (loader_compute.cpp), steps, exercises. Problems are collected,
// not thrown one by one, so `lesson check` can list them all; a lesson with any
// problem is never run.
#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"
#include "lessons/embedded_lessons.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/input_read.hpp"
#include "io/toml_parse.hpp"
#include "io/terminal_safe.hpp"
#include "io/toml_depth.hpp"
#include "io/toml_read.hpp"
#include "lessons/loader_internal.hpp"

namespace attn::lessons {

namespace {
std::string join_messages(const std::vector<diagnostic>& p) {
    std::string s;
    for (const auto& d : p) s += (s.empty() ? "" : "\n") + d.str();
    return s;
}
}  // namespace

lesson_error::lesson_error(std::vector<diagnostic> p)
    : error(error::as_written{}, "lesson", p.empty() ? source_pos{} : p.front().where, join_messages(p)),
      problems(std::move(p)) {}

namespace fs = std::filesystem;

const std::vector<std::string>& top_level_keys() {
    static const std::vector<std::string> keys = {"number", "title",   "summary", "seeds", "primary", "intro",
                                                  "tokens", "matrices", "derived", "runs", "step",    "exercise", "blocks",
                                                  "recap", "sources", "token_trace", "example"};
    return keys;
}

namespace detail {

std::string shape_str(const matrix& m) {
    return "[" + std::to_string(m.shape(0)) + " × " + std::to_string(m.shape(1)) + "]";
}

void loader::read_header(const toml::table& doc) {
    rd.known_keys(doc, "the lesson's top level", top_level_keys());
    if (auto n = doc.get("number"); n && n->is_integer() && *n->value<int64_t>() > 0)
        out.number = static_cast<int>(*n->value<int64_t>());
    else
        rd.fail(n ? n : &doc, "'number' must be a positive integer (the lesson's number), found " +
                                  toml_reader::type_name(n));
    // lessons/NN-name.toml: the file name's number and the header's must agree,
    // or `attn lesson N` would find a different lesson than the one it prints.
    const std::string base = fs::path(rd.file).filename().string();
    if (out.number > 0 && base.size() > 3 && std::isdigit(static_cast<unsigned char>(base[0])) &&
        std::isdigit(static_cast<unsigned char>(base[1])) && base[2] == '-' && std::stoi(base.substr(0, 2)) != out.number)
        rd.fail(doc.get("number"), "'number' is " + std::to_string(out.number) + " but the file name says lesson " +
                                       base.substr(0, 2));
    out.title = rd.string(doc, "title", true).value_or("");
    out.summary = rd.string(doc, "summary", false).value_or("");
    out.intro = rd.string(doc, "intro", false).value_or("");
    out.seeds = rd.strings(doc, "seeds", false).value_or(std::vector<std::string>{});
    (void)rd.strings(doc, "sources", false);  // checked here, printed by the header (lesson_render.cpp)
    if (const auto ex = rd.string(doc, "example", false)) {  // the trace example the lesson points at
        std::vector<std::string> names;
        for (const auto& f : embedded_examples()) names.push_back(std::string(f.name.substr(0, f.name.size() - 5)));
        if (std::find(names.begin(), names.end(), *ex) == names.end())
            rd.fail(doc.get("example"), "'example' = '" + *ex + "' is not a trace example built into attn" +
                                            hint_suffix(*ex, names) + " (`attn examples` lists them)");
    }
    out.recap = rd.strings(doc, "recap", false).value_or(std::vector<std::string>{});
    if (const toml::node* r = doc.get("recap"); r && (out.recap.size() < 3 || out.recap.size() > 5))
        rd.fail(r, "'recap' holds 3 to 5 takeaways, found " + std::to_string(out.recap.size()));
}

void loader::read_tokens(const toml::table& doc) {
    const toml::node* n = doc.get("tokens");
    if (!n) return;
    const toml::table* t = n->as_table();
    if (!t) return rd.fail(n, "[tokens] must be a table of token lists, found " + toml_reader::type_name(n));
    for (const auto& [key, value] : *t) {
        const std::string name(key.str());
        if (auto list = rd.strings(*t, name, true)) out.tokens[name] = *list;
    }
}

void loader::read_matrices(const toml::table& doc) {
    const toml::node* n = doc.get("matrices");
    if (!n) return;
    const toml::table* t = n->as_table();
    if (!t) return rd.fail(n, "[matrices] must be a table of matrices, found " + toml_reader::type_name(n));
    for (const auto& [key, value] : *t) {
        const std::string name(key.str());
        if (auto m = rd.matrix_value(&value, "matrix '" + name + "'")) out.matrices[name] = *m;
        else broken.insert(name);
    }
}

void loader::read_steps(const toml::table& doc) {
    const toml::node* n = doc.get("step");
    if (!n) return rd.fail(&doc, "a lesson needs at least one [[step]]");
    const std::string not_steps = "'step' must be an array of tables ([[step]]), found " + toml_reader::type_name(n);
    for (const toml::table* t : rd.tables(n, not_steps, "each [[step]] must be a table")) {
        rd.known_keys(*t, "a [[step]]", {"title", "text", "show"});
        step s;
        s.where = rd.pos(t);
        s.title = rd.string(*t, "title", true).value_or("");
        s.text = rd.string(*t, "text", false).value_or("");
        if (const toml::node* sh = t->get("show"))
            for (const toml::table* st :
                 rd.tables(sh, "'show' must be an array of tables ([[step.show]])", "each [[step.show]] must be a table")) {
                auto kind = rd.string(*st, "kind", true);
                if (kind) s.show.push_back({*kind, std::shared_ptr<const toml::table>(owner, st), rd.pos(st)});
            }
        out.steps.push_back(std::move(s));
    }
    read_token_trace(doc);
}

// [token_trace]: a show item whose `token` is what `attn lesson N --token T` gives,
// so a lesson of a variant (a window, RoPE, tiles) traces that variant.
void loader::read_token_trace(const toml::table& doc) {
    const toml::node* n = doc.get("token_trace");
    if (!n) return;
    const toml::table* t = n->as_table();
    if (!t) return rd.fail(n, "[token_trace] must be a table (a show item without its token), found " +
                                  toml_reader::type_name(n));
    if (t->contains("token")) return rd.fail(t->get("token"), "[token_trace] takes its token from --token: leave 'token' out");
    (void)rd.string(*t, "kind", true);  // the item itself is checked with the show items (check_show_items)
}

void loader::read_exercises(const toml::table& doc) {
    // The fields every kind shares are read here (exercise_reader), each kind's own
    // by its row in grade/kinds/ (lessons/README.md, "Exercises").
    const toml::node* n = doc.get("exercise");
    if (!n) return;
    for (const toml::table* t :
         rd.tables(n, "'exercise' must be an array of tables ([[exercise]])", "each [[exercise]] must be a table")) {
        exercise_decl x;
        x.where = rd.pos(t);
        x.id = rd.string(*t, "id", true).value_or("");
        x.kind_name = rd.string(*t, "kind", true).value_or("");
        x.prompt = rd.string(*t, "prompt", true).value_or("");
        x.choices = rd.strings(*t, "choices", false).value_or(std::vector<std::string>{});
        x.spec = std::shared_ptr<const toml::table>(owner, t);
        for (const auto& other : out.exercises)
            if (!x.id.empty() && other.id == x.id) rd.fail(t, "exercise id '" + x.id + "' is used twice");
        exercise_reader{{rd.file, &x.problems}, out}.read(*t, x);
        out.exercises.push_back(std::move(x));
    }
}

}  // namespace detail

namespace {

// Everything a lesson prints comes from its file: control characters in titles, prose,
// token names and questions are shown as visible escapes, never sent to the terminal.
void make_terminal_safe(lesson& l) {
    using io::terminal_safe;
    using io::terminal_safe_text;
    l.title = terminal_safe(l.title);
    l.summary = terminal_safe(l.summary);
    l.intro = terminal_safe_text(l.intro);
    for (auto& s : l.seeds) s = terminal_safe(s);
    for (auto& [name, toks] : l.tokens)
        for (auto& t : toks) t = terminal_safe(t);
    for (auto& [name, run] : l.runs) run.labels = trace::terminal_safe_labels(run.labels);
    for (auto& s : l.steps) {
        s.title = terminal_safe(s.title);
        s.text = terminal_safe_text(s.text);
    }
    for (auto& x : l.exercises) {
        x.prompt = terminal_safe_text(x.prompt);
        for (auto& c : x.choices) c = terminal_safe(c);
    }
}

}  // namespace

lesson_draft load_lesson_draft(const std::string& text, const std::string& display_path) {
    lesson_draft d;
    std::shared_ptr<toml::table> owner;
    try {
        owner = std::make_shared<toml::table>(io::parse_toml(text, display_path));
    } catch (const io::input_error& e) {  // too deep, or a syntax error: one problem of the lesson
        d.problems.push_back({e.where, e.detail});
        return d;
    }
    d.parsed = true;
    d.content.path = display_path;
    const toml::table& doc = *owner;
    detail::loader ld{{display_path, &d.problems}, d.content, {}, {}, owner};
    ld.read_header(doc);
    ld.read_tokens(doc);
    ld.read_matrices(doc);
    ld.compute(doc);
    ld.read_steps(doc);
    ld.read_exercises(doc);
    d.broken = std::move(ld.broken);
    d.content.document = owner;
    make_terminal_safe(d.content);
    // Every show item checked now (each kind's check, no drawing), so a lesson that
    // loads never fails in the middle of a step.
    const auto shows = check_show_items(d.content, d.broken);
    d.problems.insert(d.problems.end(), shows.begin(), shows.end());
    std::stable_sort(d.problems.begin(), d.problems.end(), [](const diagnostic& a, const diagnostic& b) {
        return std::make_pair(a.where.line, a.where.column) < std::make_pair(b.where.line, b.where.column);
    });
    return d;
}

lesson load_lesson_text(const std::string& text, const std::string& display_path) {
    lesson_draft d = load_lesson_draft(text, display_path);
    if (!d.problems.empty()) throw lesson_error(d.problems);
    return std::move(d.content);
}

lesson load_lesson(const std::string& path) { return load_lesson_text(read_lesson_file(path), path); }

}  // namespace attn::lessons
