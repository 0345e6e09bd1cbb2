// grade/exercise.cpp — reading [[exercise]] tables (see exercise.hpp). Positions come
// from the parsed file: each declaration's spec points into it (a copy would lose them).
#include "grade/exercise.hpp"

#include <cmath>
#include <cstdio>

#include "core/shapes.hpp"
#include "lessons/lesson_loader.hpp"
#include "grade/exercise_reader.hpp"
#include "grade/pipeline.hpp"
#include "io/toml_read.hpp"
#include "trace/stage_words.hpp"

namespace attn::grade {

namespace sw = trace::stage_word;

namespace {
constexpr double max_points = 1000;  // a typo such as 1e308 would overflow every total
}  // namespace

const std::vector<std::string>& numeric_stage_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n{sw::raw(), sw::scaled(), sw::masked(), sw::weights(), sw::output(), sw::scale(), sw::argmax(), sw::q(), sw::k(), sw::v()};
        for (const auto& e : extra_stage_names()) n.push_back(e);  // lessons 15–19
        return n;
    }();
    return names;
}

std::string variant_spec::describe() const {
    auto g = [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", x);
        return std::string(buf);
    };
    std::string roles;
    for (const auto& r : vary) roles += (roles.empty() ? "" : ", ") + r;
    return roles + (tie ? " (one matrix)" : "") + ": " + values + " in [" + g(lo) + ", " + g(hi) + "]";
}

std::vector<std::size_t> all_or(const std::vector<std::size_t>& picked, std::size_t n) {
    if (!picked.empty()) return picked;
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    return all;
}

const part_spec* exercise::find_part(const std::string& part_id) const {
    for (const auto& p : parts)
        if (p.id == part_id) return &p;
    return nullptr;
}

const exercise* exercise_set::find(const std::string& id) const {
    for (const auto& e : all)
        if (e.id == id) return &e;
    return nullptr;
}

namespace detail {

void exercise_reader::check_shape(const toml::node* where, const std::string& text) {
    if (text.empty()) return;
    try {
        parse_shape(text);
    } catch (const shape_parse_error& e) {
        rd.fail(where, "'" + text + "' is not a shape: " + e.what() + " (character " + std::to_string(e.column) + ")");
    }
}

void exercise_reader::read_part_fields(const toml::table& t, const exercise& x, part_spec& p, const tolerance& base) {
    p.prompt = rd.string(t, "prompt", false).value_or("");
    x.kind->read_part(*this, t, x, p, base);
    if (t.contains("accept") || t.contains("match"))  // the keyword matching of the former `short` kind
        rd.fail(t.get(t.contains("accept") ? "accept" : "match"),
                "keyword matching is gone (a negated sentence holds the same words): make the exercise a choice, "
                "multi or shape item, or kind = \"open\" for the teacher to review");
    if (const toml::node* ms = t.get("mistake")) {
        const toml::array* a = ms->as_array();
        if (!a) return rd.fail(ms, "'mistake' must be an array of tables ([[exercise.part.mistake]] or [[exercise.mistake]])");
        for (const auto& e : *a) {
            const toml::table* mt = e.as_table();
            if (!mt) {
                rd.fail(&e, "each mistake must be a table");
                continue;
            }
            declared_mistake m;
            m.id = rd.string(*mt, "id", true).value_or("");
            m.feedback = rd.string(*mt, "feedback", true).value_or("");
            if (mt->contains("match"))
                rd.fail(mt->get("match"), "keyword matching is gone: a mistake names a wrong choice or shape ('answer')");
            if (!x.kind->read_mistake(*this, *mt, x, m)) continue;
            p.mistakes.push_back(m);
        }
    }
}

// The id: the lesson's number first, then letters, digits, '-' and '_'.
void exercise_reader::check_id(const toml::table& t, const std::string& id) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%02d-", l.number % 100);
    if (id.rfind(prefix, 0) != 0 || id.size() <= 3)
        rd.fail(t.get("id"), "exercise id '" + id + "' must start with the lesson number, e.g. '" + prefix + "weights'");
    for (char c : id)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) {
            rd.fail(t.get("id"), "exercise id '" + id + "' may hold only letters, digits, '-' and '_'");
            break;
        }
}

// points, choices and the per-choice feedback table.
void exercise_reader::read_points_and_choices(const toml::table& t, exercise& x) {
    auto pts = rd.number(t, "points", true);
    if (pts && !(std::isfinite(*pts) && *pts > 0 && *pts <= max_points))
        rd.fail(t.get("points"), "'points' must be a positive number up to " + std::to_string(static_cast<int>(max_points)));
    x.points = pts.value_or(0.0);
    if (x.kind->picks && x.choices.size() < 2)
        rd.fail(&t, std::string("a ") + x.kind->name + " exercise needs 'choices' with at least two entries");
    if (const toml::node* fb = t.get("feedback")) {
        if (const toml::table* ft = fb->as_table())
            for (const auto& [k, v] : *ft) {
                if (v.is_string()) x.choice_feedback[std::string(k.str())] = *v.value<std::string>();
                else rd.fail(&v, "feedback entries must be strings");
            }
        else rd.fail(fb, "'feedback' must be a table: choice = \"why it is wrong\"");
    }
}

// [[exercise.part]] tables, or the exercise itself as its one part "answer".
bool exercise_reader::read_parts(const toml::table& t, exercise& x, const tolerance& base) {
    const toml::node* pn = t.get("part");
    if (!pn) {
        part_spec p;
        p.where = x.where;
        p.id = "answer";
        p.points = -1.0;
        read_part_fields(t, x, p, base);
        x.parts.push_back(p);
        return true;
    }
    const toml::array* a = pn->as_array();
    if (!a || a->empty()) {
        rd.fail(pn, "'part' must be a non-empty array of tables ([[exercise.part]])");
        return false;
    }
    for (const auto& e : *a) {
        const toml::table* pt = e.as_table();
        if (!pt) {
            rd.fail(&e, "each [[exercise.part]] must be a table");
            continue;
        }
        part_spec p;
        p.where = rd.pos(pt);
        p.id = rd.string(*pt, "id", true).value_or("");
        if (p.id == "student") rd.fail(pt->get("id"), "'student' is reserved in answer files; pick another part id");
        for (const auto& other : x.parts)
            if (other.id == p.id) rd.fail(pt->get("id"), "part id '" + p.id + "' is used twice");
        p.points = -1.0;  // shares the exercise's points unless it says
        if (auto pp = rd.number(*pt, "points", false)) {
            if (!(std::isfinite(*pp) && *pp >= 0 && *pp <= max_points))
                rd.fail(pt->get("points"), "part 'points' must be a number from 0 to " + std::to_string(static_cast<int>(max_points)));
            p.points = *pp;
        }
        read_part_fields(*pt, x, p, base);
        x.parts.push_back(p);
    }
    return true;
}

// Points: every part declares them (and they add up) or none does (equal shares).
void exercise_reader::share_points(const toml::table& t, exercise& x) {
    std::size_t declared = 0;
    double sum = 0.0;
    for (const auto& p : x.parts)
        if (p.points >= 0) {
            ++declared;
            sum += p.points;
        }
    if (declared == 0) {
        for (auto& p : x.parts) p.points = x.points / static_cast<double>(x.parts.size());
    } else if (declared != x.parts.size()) {
        rd.fail(&t, "either every part of '" + x.id + "' declares 'points' or none does");
    } else if (std::fabs(sum - x.points) > 1e-9) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "the parts' points add up to %g but the exercise has points = %g", sum, x.points);
        rd.fail(t.get("points"), buf);
    }
}

std::optional<exercise> exercise_reader::read(const lessons::exercise_decl& d, const toml::table& t) {
    exercise x;
    x.id = d.id;
    x.where = rd.pos(&t);
    x.prompt = d.prompt;
    x.lesson = l.number;
    x.lesson_title = l.title;
    x.title = rd.string(t, "title", false).value_or("");
    x.hint = rd.string(t, "hint", false).value_or("");
    x.choices = d.choices;
    const std::size_t before = rd.problems->size();
    check_id(t, x.id);
    x.kind = find_exercise_kind(d.kind);
    if (!x.kind) {
        rd.fail(t.get("kind"), "'kind' must be " + exercise_kind_list() + ", found '" + d.kind + "'" +
                                   (d.kind == "short" ? " (`short` answers were matched by keywords, which a negated sentence "
                                                        "passes: use choice, multi, or open for the teacher to review)"
                                                      : ""));
        return std::nullopt;
    }
    read_points_and_choices(t, x);
    if (x.kind->numbers && !read_setup(t, x)) return std::nullopt;
    read_variant(t, x);
    if (!read_parts(t, x, read_tol(t, tolerance{}))) return std::nullopt;
    share_points(t, x);
    if (rd.problems->size() != before) return std::nullopt;
    return x;
}
}  // namespace detail


std::vector<exercise> read_exercises(const lessons::lesson& l, std::vector<lessons::diagnostic>& problems) {
    std::vector<exercise> out;
    detail::exercise_reader r{{l.path, &problems}, l};
    for (const auto& decl : l.exercises)  // decl.spec points into the parsed file: positions kept
        if (auto x = r.read(decl, *decl.spec)) out.push_back(std::move(*x));
    return out;
}

exercise_set load_exercise_set(const std::string& lessons_dir) {
    exercise_set set;
    std::vector<lessons::diagnostic> problems;
    for (const auto& path : lessons::lesson_paths(lessons_dir)) {  // each lesson parsed once
        try {
            const lessons::lesson l = lessons::load_lesson(path);
            for (auto& x : read_exercises(l, problems)) {
                if (set.find(x.id)) {
                    problems.push_back({x.where, "exercise id '" + x.id + "' is also used by another lesson"});
                    continue;
                }
                set.all.push_back(std::move(x));
            }
        } catch (const lessons::lesson_error& e) {
            for (const auto& p : e.problems) problems.push_back(p);
        }
    }
    if (!problems.empty()) throw lessons::lesson_error(problems);
    return set;
}

}  // namespace attn::grade
