// lessons/lesson_loader.cpp — lesson file → checked lesson with every run computed.
// Reads in named passes: header, tokens, matrices, derived matrices, runs, steps,
// exercises. Problems are collected, not thrown one by one, so `lesson check`
// can list them all; a lesson with any problem is never run.
#include "lessons/lesson_loader.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/mask.hpp"
#include "core/shape_error.hpp"
#include "lessons/toml_read.hpp"

namespace attn::lessons {

namespace fs = std::filesystem;

namespace {

std::string shape_str(const matrix& m) {
    return "[" + std::to_string(m.shape(0)) + " × " + std::to_string(m.shape(1)) + "]";
}

struct loader {
    toml_reader rd;
    lesson& out;
    // The parsed file; show items and exercises point into it (aliasing shared_ptr),
    // so their nodes keep their source positions for later diagnostics.
    std::shared_ptr<const toml::table> doc;

    const matrix* find_matrix(const toml::table& t, const std::string& key, bool required) {
        auto name = rd.string(t, key, required);
        if (!name) return nullptr;
        auto it = out.matrices.find(*name);
        if (it == out.matrices.end()) {
            rd.fail(t.get(key), "'" + key + "' names matrix '" + *name + "', which is not defined above it");
            return nullptr;
        }
        return &it->second;
    }

    void read_header(const toml::table& doc) {
        if (auto n = doc.get("number"); n && n->is_integer() && *n->value<int64_t>() > 0)
            out.number = static_cast<int>(*n->value<int64_t>());
        else
            rd.fail(n ? n : &doc, "'number' must be a positive integer (the lesson's number), found " +
                                      toml_reader::type_name(n));
        out.title = rd.string(doc, "title", true).value_or("");
        out.summary = rd.string(doc, "summary", false).value_or("");
        out.intro = rd.string(doc, "intro", false).value_or("");
        out.seeds = rd.strings(doc, "seeds", false).value_or(std::vector<std::string>{});
    }

    void read_tokens(const toml::table& doc) {
        const toml::node* n = doc.get("tokens");
        if (!n) return;
        const toml::table* t = n->as_table();
        if (!t) return rd.fail(n, "[tokens] must be a table of token lists, found " + toml_reader::type_name(n));
        for (const auto& [key, value] : *t) {
            const std::string name(key.str());
            if (auto list = rd.strings(*t, name, true)) out.tokens[name] = *list;
        }
    }

    void read_matrices(const toml::table& doc) {
        const toml::node* n = doc.get("matrices");
        if (!n) return;
        const toml::table* t = n->as_table();
        if (!t) return rd.fail(n, "[matrices] must be a table of matrices, found " + toml_reader::type_name(n));
        for (const auto& [key, value] : *t) {
            const std::string name(key.str());
            if (auto m = rd.matrix_value(&value, "matrix '" + name + "'")) out.matrices[name] = *m;
        }
    }

    void read_derived(const toml::table& doc) {
        const toml::node* n = doc.get("derived");
        if (!n) return;
        const toml::table* t = n->as_table();
        if (!t) return rd.fail(n, "[derived] must be a table of derived matrices, found " + toml_reader::type_name(n));
        for (const auto& [key, value] : *t) {  // toml++ keeps declaration order
            const std::string name(key.str());
            const toml::table* d = value.as_table();
            if (!d) {
                rd.fail(&value, "[derived." + name + "] must be a table with 'op', found " + toml_reader::type_name(&value));
                continue;
            }
            auto op = rd.string(*d, "op", true);
            if (!op) continue;
            if (auto m = derive(*d, name, *op)) out.matrices[name] = *m;
        }
    }

    std::optional<matrix> derive(const toml::table& d, const std::string& name, const std::string& op) {
        if (op == "scale_columns") {  // of ⊙ by, by broadcast over rows (Q_dec = Q ⊙ [1.2, 0.8, 1.1, 0.9])
            const matrix* of = find_matrix(d, "of", true);
            auto by = d.get("by") ? rd.numbers(d.get("by"), "'by'") : std::nullopt;
            if (!d.get("by")) rd.fail(&d, "[derived." + name + "] needs 'by', one factor per column");
            if (!of || !by) return std::nullopt;
            if (by->size() != of->shape(1)) {
                rd.fail(d.get("by"), "'by' has " + std::to_string(by->size()) + " factors but '" +
                                         *rd.string(d, "of", true) + "' has " + std::to_string(of->shape(1)) +
                                         " columns");
                return std::nullopt;
            }
            matrix m = *of;
            for (std::size_t i = 0; i < m.shape(0); ++i)
                for (std::size_t j = 0; j < m.shape(1); ++j) m(i, j) *= (*by)[j];
            return m;
        }
        if (op == "rows") {  // a subset of rows, e.g. the first 3 decoder queries
            const matrix* of = find_matrix(d, "of", true);
            auto idx = d.get("rows") ? rd.numbers(d.get("rows"), "'rows'") : std::nullopt;
            if (!d.get("rows")) rd.fail(&d, "[derived." + name + "] needs 'rows', a list of row indices");
            if (!of || !idx) return std::nullopt;
            matrix m({idx->size(), of->shape(1)});
            for (std::size_t r = 0; r < idx->size(); ++r) {
                const double i = (*idx)[r];
                if (i < 0 || i >= static_cast<double>(of->shape(0)) || i != std::floor(i)) {
                    rd.fail(d.get("rows"), "row index " + std::to_string(i) + " is outside 0.." +
                                               std::to_string(of->shape(0) - 1));
                    return std::nullopt;
                }
                for (std::size_t j = 0; j < of->shape(1); ++j) m(r, j) = (*of)(static_cast<std::size_t>(i), j);
            }
            return m;
        }
        if (op == "matmul" || op == "add") {
            const matrix* a = find_matrix(d, "a", true);
            const matrix* b = find_matrix(d, "b", true);
            if (!a || !b) return std::nullopt;
            if (op == "matmul") {
                if (a->shape(1) != b->shape(0)) {
                    rd.fail(&d, "matmul of " + shape_str(*a) + " and " + shape_str(*b) + ": inner sizes differ");
                    return std::nullopt;
                }
                return attn::matmul(*a, *b);
            }
            if (a->shape() != b->shape()) {
                rd.fail(&d, "add of " + shape_str(*a) + " and " + shape_str(*b) + ": shapes differ");
                return std::nullopt;
            }
            return matrix(*a + *b);
        }
        if (op == "transpose") {
            const matrix* of = find_matrix(d, "of", true);
            if (!of) return std::nullopt;
            return matrix(xt::transpose(*of));
        }
        rd.fail(d.get("op"), "unknown op '" + op + "' (expected scale_columns, rows, matmul, add or transpose)");
        return std::nullopt;
    }

    std::vector<std::string> token_list(const toml::table& r, const std::string& key, std::size_t n,
                                        const std::string& run) {
        auto name = rd.string(r, key, false);
        if (!name) {
            std::vector<std::string> fallback(n);
            for (std::size_t i = 0; i < n; ++i) fallback[i] = "t" + std::to_string(i);
            return fallback;
        }
        auto it = out.tokens.find(*name);
        if (it == out.tokens.end()) {
            rd.fail(r.get(key), "'" + key + "' names token list '" + *name + "', which is not in [tokens]");
            return std::vector<std::string>(n, "?");
        }
        if (it->second.size() != n) {
            rd.fail(r.get(key), "run '" + run + "': token list '" + *name + "' has " +
                                    std::to_string(it->second.size()) + " tokens but the matrix has " +
                                    std::to_string(n) + " rows");
            return std::vector<std::string>(n, "?");
        }
        return it->second;
    }

    void read_run(const std::string& name, const toml::table& r) {
        const matrix* q = find_matrix(r, "q", true);
        const matrix* k = find_matrix(r, "k", true);
        const matrix* v = find_matrix(r, "v", true);
        const std::string kind = rd.string(r, "kind", false).value_or("self");
        if (kind != "self" && kind != "causal" && kind != "cross")
            rd.fail(r.get("kind"), "'kind' must be self, causal or cross, found '" + kind + "'");
        if (!q || !k || !v) return;

        attention_run run;
        run.name = name;
        run.kind = kind;
        auto& l = run.labels;
        l.title = rd.string(r, "title", false).value_or(kind == "cross" ? "Cross-attention" : kind == "causal"
                                                                                               ? "Causal self-attention"
                                                                                               : "Self-attention");
        l.query_tokens = token_list(r, "query_tokens", q->shape(0), name);
        l.key_tokens = token_list(r, "key_tokens", k->shape(0), name);
        l.query_side = rd.string(r, "query_side", false).value_or(kind == "cross" ? "decoder queries" : "queries");
        l.key_side = rd.string(r, "key_side", false).value_or(kind == "cross" ? "encoder keys" : "keys");
        l.q_name = rd.string(r, "q_name", false).value_or(kind == "cross" ? "Q_dec" : "Q");
        l.k_name = rd.string(r, "k_name", false).value_or(kind == "cross" ? "K_enc" : "K");
        l.v_name = rd.string(r, "v_name", false).value_or(kind == "cross" ? "V_enc" : "V");

        attention_options opt;
        const std::size_t n_q = q->shape(0), n_k = k->shape(0);
        if (kind == "causal") opt.mask = causal_mask(n_q, n_k);
        if (const toml::node* m = r.get("mask")) {
            const toml::table* mt = m->as_table();
            if (!mt || (mt->contains("attend") == mt->contains("block"))) {
                rd.fail(m, "'mask' must name its polarity: mask.attend = [[...]] or mask.block = [[...]], not bare 0/1");
            } else {
                const bool attend = mt->contains("attend");
                auto bm = rd.bool_matrix_value(mt->get(attend ? "attend" : "block"), "mask");
                if (bm && (bm->shape(0) != n_q || bm->shape(1) != n_k)) {
                    rd.fail(m, "mask is [" + std::to_string(bm->shape(0)) + " × " + std::to_string(bm->shape(1)) +
                                   "] but must be [n_q × n_k] = [" + std::to_string(n_q) + " × " +
                                   std::to_string(n_k) + "]");
                } else if (bm) {
                    bool_matrix a = *bm;
                    if (!attend)
                        for (auto& x : a) x = !x;
                    opt.mask = opt.mask ? combine_masks(*opt.mask, a) : a;
                }
            }
        }
        if (const toml::node* p = r.get("pad_keys")) {
            if (auto idx = rd.numbers(p, "'pad_keys'")) {
                std::vector<bool> is_pad(n_k, false);
                for (double i : *idx) {
                    if (i < 0 || i >= static_cast<double>(n_k) || i != std::floor(i))
                        rd.fail(p, "pad_keys index " + std::to_string(i) + " is outside 0.." + std::to_string(n_k - 1));
                    else
                        is_pad[static_cast<std::size_t>(i)] = true;
                }
                const bool_matrix pm = padding_mask(n_q, is_pad);
                opt.mask = opt.mask ? combine_masks(*opt.mask, pm) : pm;
            }
        }
        if (r.contains("bias"))
            if (const matrix* b = find_matrix(r, "bias", true)) opt.bias = *b;
        if (auto f = r.get("masked_fill")) {
            if (f->is_number()) opt.masked_fill = *f->value<double>();
            else rd.fail(f, "'masked_fill' must be a number, found " + toml_reader::type_name(f));
        }
        if (auto s = rd.number(r, "scale", false)) {
            if (*s <= 0) rd.fail(r.get("scale"), "'scale' must be positive");
            else opt.scale_divisor = *s;
        }
        try {
            run.steps = scaled_dot_product_attention(*q, *k, *v, opt);
        } catch (const shape_error& e) {
            rd.fail(&r, "run '" + name + "': " + e.what());
            return;
        }
        out.runs[name] = std::move(run);
        out.run_order.push_back(name);
    }

    void read_runs(const toml::table& doc) {
        const toml::node* n = doc.get("runs");
        if (!n) return;
        const toml::table* t = n->as_table();
        if (!t) return rd.fail(n, "[runs] must be a table of attention runs, found " + toml_reader::type_name(n));
        for (const auto& [key, value] : *t) {
            if (const toml::table* r = value.as_table()) read_run(std::string(key.str()), *r);
            else rd.fail(&value, "[runs." + std::string(key.str()) + "] must be a table, found " + toml_reader::type_name(&value));
        }
        out.primary_run = rd.string(doc, "primary", false).value_or(out.run_order.empty() ? "" : out.run_order.front());
        if (!out.primary_run.empty() && !out.runs.count(out.primary_run) && doc.contains("primary"))
            rd.fail(doc.get("primary"), "'primary' names run '" + out.primary_run + "', which is not in [runs]");
    }

    void read_steps(const toml::table& doc) {
        const toml::node* n = doc.get("step");
        if (!n) return rd.fail(&doc, "a lesson needs at least one [[step]]");
        const toml::array* a = n->as_array();
        if (!a) return rd.fail(n, "'step' must be an array of tables ([[step]]), found " + toml_reader::type_name(n));
        for (const auto& e : *a) {
            const toml::table* t = e.as_table();
            if (!t) {
                rd.fail(&e, "each [[step]] must be a table");
                continue;
            }
            step s;
            s.where = rd.pos(t);
            s.title = rd.string(*t, "title", true).value_or("");
            s.text = rd.string(*t, "text", false).value_or("");
            if (const toml::node* sh = t->get("show")) {
                const toml::array* sa = sh->as_array();
                if (!sa) rd.fail(sh, "'show' must be an array of tables ([[step.show]])");
                else
                    for (const auto& se : *sa) {
                        const toml::table* st = se.as_table();
                        if (!st) {
                            rd.fail(&se, "each [[step.show]] must be a table");
                            continue;
                        }
                        auto kind = rd.string(*st, "kind", true);
                        if (kind) s.show.push_back({*kind, std::shared_ptr<const toml::table>(this->doc, st), rd.pos(st)});
                    }
            }
            out.steps.push_back(std::move(s));
        }
    }

    void read_exercises(const toml::table& doc) {
        const toml::node* n = doc.get("exercise");
        if (!n) return;
        const toml::array* a = n->as_array();
        if (!a) return rd.fail(n, "'exercise' must be an array of tables ([[exercise]])");
        for (const auto& e : *a) {
            const toml::table* t = e.as_table();
            if (!t) {
                rd.fail(&e, "each [[exercise]] must be a table");
                continue;
            }
            exercise_decl x;
            x.where = rd.pos(t);
            x.id = rd.string(*t, "id", true).value_or("");
            x.kind = rd.string(*t, "kind", true).value_or("");
            x.prompt = rd.string(*t, "prompt", true).value_or("");
            x.choices = rd.strings(*t, "choices", false).value_or(std::vector<std::string>{});
            x.spec = std::shared_ptr<const toml::table>(this->doc, t);
            for (const auto& other : out.exercises)
                if (!x.id.empty() && other.id == x.id) rd.fail(t, "exercise id '" + x.id + "' is used twice");
            out.exercises.push_back(std::move(x));
        }
    }
};

}  // namespace

lesson load_lesson_text(const std::string& text, const std::string& display_path) {
    std::vector<diagnostic> problems;
    auto doc_ptr = std::make_shared<toml::table>();
    toml::table& doc = *doc_ptr;
    try {
        doc = toml::parse(text, display_path);
    } catch (const toml::parse_error& e) {
        const auto& b = e.source().begin;
        problems.push_back({{display_path, static_cast<int>(b.line), static_cast<int>(b.column)},
                            "TOML syntax: " + std::string(e.description())});
        throw lesson_error(problems);
    }
    lesson out;
    out.path = display_path;
    loader ld{{display_path, &problems}, out, doc_ptr};
    ld.read_header(doc);
    ld.read_tokens(doc);
    ld.read_matrices(doc);
    ld.read_derived(doc);
    ld.read_runs(doc);
    ld.read_steps(doc);
    ld.read_exercises(doc);
    if (!problems.empty()) throw lesson_error(problems);
    out.document = doc_ptr;
    return out;
}

lesson load_lesson(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw lesson_error({{{path, 0, 0}, "cannot open the lesson file"}});
    std::ostringstream ss;
    ss << in.rdbuf();
    return load_lesson_text(ss.str(), path);
}

std::string lessons_dir() {
    const char* env = std::getenv("ATTN_LESSONS_DIR");
    if (env && *env) return env;
    return ATTN_DEFAULT_LESSONS_DIR;
}

std::vector<lesson_entry> list_lessons(const std::string& dir) {
    std::vector<lesson_entry> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string file = e.path().filename().string();
        if (e.path().extension() != ".toml" || file.size() < 3 || !std::isdigit(static_cast<unsigned char>(file[0])) ||
            !std::isdigit(static_cast<unsigned char>(file[1])) || file[2] != '-')
            continue;
        lesson_entry entry{std::stoi(file.substr(0, 2)), e.path().string(), "", ""};
        try {
            const toml::table doc = toml::parse_file(entry.path);
            entry.title = doc["title"].value_or(std::string("(no title)"));
            entry.summary = doc["summary"].value_or(std::string());
        } catch (const toml::parse_error&) {
            entry.title = "(cannot be read: run `attn lesson check " + entry.path + "`)";
        }
        out.push_back(entry);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    return out;
}

std::string find_lesson(const std::string& dir, int number) {
    const auto all = list_lessons(dir);
    for (const auto& e : all)
        if (e.number == number) return e.path;
    std::string have;
    for (const auto& e : all) have += (have.empty() ? "" : ", ") + std::to_string(e.number);
    throw std::invalid_argument("there is no lesson " + std::to_string(number) + " in " + dir +
                                (have.empty() ? " (no lessons found)" : " (lessons: " + have + ")"));
}

}  // namespace attn::lessons
