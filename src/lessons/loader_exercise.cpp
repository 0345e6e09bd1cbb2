// lessons/loader_exercise.cpp — an [[exercise]] table into its declaration: the fields
// every kind shares (title, hint, points, the choices' feedback, the tolerance), its
// parts and their declared mistakes (the kinds' own fields are grade/kinds/'s), and how
// the parts share the points. Where its numbers come from: loader_exercise_numbers.cpp.
#include <cmath>
#include <cstdio>

#include "lessons/loader_internal.hpp"

namespace attn::lessons {

tolerance read_tolerance(const io::toml_reader& rd, const toml::table& t, tolerance base) {
    if (auto r = rd.number(t, "rtol", false)) {
        if (!(std::isfinite(*r) && *r >= 0 && *r < 1))
            rd.fail(t.get("rtol"), "'rtol' must be a number from 0 to below 1");
        else base.rtol = *r;
    }
    if (auto a = rd.number(t, "atol", false)) {
        if (!(std::isfinite(*a) && *a >= 0)) rd.fail(t.get("atol"), "'atol' must be a finite number ≥ 0");
        else base.atol = *a;
    }
    return base;
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

namespace detail {

namespace {
constexpr double max_points = 1000;  // a typo such as 1e308 would overflow every total
const std::string points_limit = std::to_string(static_cast<int>(max_points));
}  // namespace

// The id: the lesson's number first, then letters, digits, '-' and '_'.
void exercise_reader::check_id(const toml::table& t, const std::string& id) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%02d-", l.number % 100);
    if (id.rfind(prefix, 0) != 0 || id.size() <= 3)
        rd.fail(t.get("id"),
                "exercise id '" + id + "' must start with the lesson number, e.g. '" + prefix + "weights'");
    for (char c : id)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) {
            rd.fail(t.get("id"), "exercise id '" + id + "' may hold only letters, digits, '-' and '_'");
            break;
        }
}

// points and the per-choice feedback table.
void exercise_reader::read_points_and_feedback(const toml::table& t, exercise_decl& x) {
    auto pts = rd.number(t, "points", true);
    if (pts && !(std::isfinite(*pts) && *pts > 0 && *pts <= max_points))
        rd.fail(t.get("points"), "'points' must be a positive number up to " + points_limit);
    x.points = pts.value_or(0.0);
    if (const toml::node* fb = t.get("feedback")) {
        if (const toml::table* ft = fb->as_table())
            for (const auto& [k, v] : *ft) {
                if (v.is_string()) x.choice_feedback[std::string(k.str())] = *v.value<std::string>();
                else rd.fail(&v, "feedback entries must be strings");
            }
        else rd.fail(fb, "'feedback' must be a table: choice = \"why it is wrong\"");
    }
}

// A part's prompt and its declared mistakes' ids and feedback.
void exercise_reader::read_part_fields(const toml::table& t, part_decl& p) {
    p.spec = &t;
    p.prompt = rd.string(t, "prompt", false).value_or("");
    if (t.contains("accept") || t.contains("match"))  // the keyword matching of the former `short` kind
        rd.fail(t.get(t.contains("accept") ? "accept" : "match"),
                "keyword matching is gone (a negated sentence holds the same words): make the exercise a choice, "
                "multi or shape item, or kind = \"open\" for the teacher to review");
    const toml::node* ms = t.get("mistake");
    if (!ms) return;
    for (const toml::table* mt : rd.tables(ms, "'mistake' must be an array of tables ([[exercise.part.mistake]] or "
                                               "[[exercise.mistake]])",
                                           "each mistake must be a table")) {
        mistake_decl m;
        m.id = rd.string(*mt, "id", true).value_or("");
        m.feedback = rd.string(*mt, "feedback", true).value_or("");
        m.spec = mt;
        if (mt->contains("match"))
            rd.fail(mt->get("match"), "keyword matching is gone: a mistake names a wrong choice or shape ('answer')");
        p.declared_mistakes.push_back(m);
    }
}

// [[exercise.part]] tables, or the exercise itself as its one part "answer".
bool exercise_reader::read_parts(const toml::table& t, exercise_decl& x) {
    const toml::node* pn = t.get("part");
    if (!pn) {
        part_decl p;
        p.where = x.where;
        p.id = "answer";
        p.points = -1.0;
        read_part_fields(t, p);
        x.declared_parts.push_back(p);
        return true;
    }
    const std::string not_parts = "'part' must be a non-empty array of tables ([[exercise.part]])";
    if (!pn->is_array() || pn->as_array()->empty()) {
        rd.fail(pn, not_parts);
        return false;
    }
    for (const toml::table* pt : rd.tables(pn, not_parts, "each [[exercise.part]] must be a table")) {
        part_decl p;
        p.where = rd.pos(pt);
        p.id = rd.string(*pt, "id", true).value_or("");
        if (p.id == "student") rd.fail(pt->get("id"), "'student' is reserved in answer files; pick another part id");
        for (const auto& other : x.declared_parts)
            if (other.id == p.id) rd.fail(pt->get("id"), "part id '" + p.id + "' is used twice");
        p.points = -1.0;  // shares the exercise's points unless it says
        if (auto pp = rd.number(*pt, "points", false)) {
            if (!(std::isfinite(*pp) && *pp >= 0 && *pp <= max_points))
                rd.fail(pt->get("points"), "part 'points' must be a number from 0 to " + points_limit);
            p.points = *pp;
        }
        read_part_fields(*pt, p);
        x.declared_parts.push_back(p);
    }
    return true;
}

// Points: every part declares them (and they add up) or none does (equal shares).
void exercise_reader::share_points(const toml::table& t, exercise_decl& x) {
    std::size_t declared = 0;
    double sum = 0.0;
    for (const auto& p : x.declared_parts)
        if (p.points >= 0) {
            ++declared;
            sum += p.points;
        }
    if (declared == 0) {
        for (auto& p : x.declared_parts) p.points = x.points / static_cast<double>(x.declared_parts.size());
    } else if (declared != x.declared_parts.size()) {
        rd.fail(&t, "either every part of '" + x.id + "' declares 'points' or none does");
    } else if (std::fabs(sum - x.points) > 1e-9) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "the parts' points add up to %g but the exercise has points = %g", sum,
                      x.points);
        rd.fail(t.get("points"), buf);
    }
}

void exercise_reader::read(const toml::table& t, exercise_decl& x) {
    x.title = rd.string(t, "title", false).value_or("");
    x.hint = rd.string(t, "hint", false).value_or("");
    check_id(t, x.id);
    read_points_and_feedback(t, x);
    x.numbers = read_setup(t, x.setup);
    read_variant(t, x);
    x.tol = read_tolerance(rd, t, tolerance{});
    if (read_parts(t, x)) share_points(t, x);
}

}  // namespace detail

}  // namespace attn::lessons
