// grade/assignment.cpp — an assignment file (grade/grader.hpp): reads the TOML through
// io::toml_reader (the one typed reader family and the one unknown-key check, each
// problem at its file:line:col) and hands the result to the grading options.
#include "grade/grader.hpp"

#include <filesystem>
#include <sstream>

#include <toml++/toml.h>

#include "io/input_read.hpp"
#include "io/toml_parse.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

namespace {

// An absent key stays unset; a present one must be one of the level words.
std::optional<feedback_level> level_value(const io::toml_reader& rd, const toml::table& t) {
    const auto word = rd.choice(t, "feedback", false, feedback_level_words);
    if (!word) return std::nullopt;
    return feedback_level_from(*word);
}

void read_exercise(const io::toml_reader& rd, const toml::table& t, const exercise_set& set, assignment& a) {
    rd.known_keys(t, "an [[exercise]]", {"id", "points", "feedback", "visibility"});
    const toml::node* id_node = t.get("id");
    if (!id_node) rd.fail(&t, "an [[exercise]] needs an 'id' (`attn exercise list` shows them)");
    const std::string id = rd.string(t, "id", true).value();
    if (!set.find(id)) rd.fail(id_node, "no exercise '" + id + "' (`attn exercise list` shows them)");
    if (a.per_exercise.count(id)) rd.fail(id_node, "exercise '" + id + "' is listed twice");
    exercise_override o;
    if (const auto v = rd.number(t, "points", false)) {
        if (!(*v > 0) || *v > 1e6) rd.fail(t.get("points"), "'points' must be a positive number (at most 1000000)");
        o.points = *v;
    }
    o.feedback = level_value(rd, t);
    if (const auto v = rd.choice(t, "visibility", false, gradescope_visibilities)) o.visibility = *v;
    a.exercise_ids.push_back(id);
    a.per_exercise[id] = o;
}

// [late] due: a string or a TOML date-time, either with its time zone.
time_stamp due_value(const io::toml_reader& rd, const toml::table& t) {
    const toml::node* n = t.get("due");
    if (!n) rd.fail(&t, "[late] needs 'due', the due date with its time zone (due = \"2026-03-01T23:59:00Z\")");
    std::ostringstream text;
    if (n->is_string()) text << n->as_string()->get();
    else if (n->is_date_time()) text << *n->as_date_time();
    else rd.fail(n, "'due' must be a date and time with its time zone, found " + rd.type_name(n));
    std::string why;
    const auto us = parse_time(text.str(), &why);
    if (!us) rd.fail(n, "'due': " + why);
    return {*us, text.str(), rd.pos(n)};
}

// The [late] table (grade/late.hpp); extensions are read relative to the assignment file.
late_policy read_late(const io::toml_reader& rd, const toml::node& node, const std::string& path) {
    const toml::table* t = node.as_table();
    if (!t) rd.fail(&node, "'late' must be a table: [late] with due, per, deduction, floor, extensions");
    rd.known_keys(*t, "the [late] table", {"due", "per", "deduction", "floor", "extensions"});
    late_policy p;
    p.due = due_value(rd, *t);
    p.per_hour = rd.choice(*t, "per", true, {"day", "hour"}).value() == "hour";
    p.deduction = rd.number(*t, "deduction", true).value();
    if (!(p.deduction > 0) || p.deduction > 100) rd.fail(t->get("deduction"), "'deduction' is a percent of the points possible per day or hour: more than 0, at most 100");
    p.floor = rd.number(*t, "floor", false).value_or(0.0);
    if (p.floor < 0 || p.floor > 100) rd.fail(t->get("floor"), "'floor' is a percent of the points possible, from 0 to 100");
    if (const auto ext = rd.string(*t, "extensions", false)) {
        const std::filesystem::path e(*ext);
        p.extensions_file = e.is_absolute() || path == "-" ? *ext : (std::filesystem::path(path).parent_path() / e).string();
        p.extensions = read_times_csv(p.extensions_file, "due", "extensions file");
    }
    return p;
}

}  // namespace

assignment read_assignment(const std::string& path, const exercise_set& set) {
    const std::string text = io::read_input_file(path, {io::default_max_input_bytes, /*toml=*/true, "assignment file"});
    const std::string file = path == "-" ? io::stdin_name : path;
    const toml::table doc = io::parse_toml(text, file);
    const io::toml_reader rd{file};  // throw mode: the first problem ends the read
    assignment a;
    a.path = path;
    rd.known_keys(doc, "an assignment file", {"title", "feedback", "visibility", "release_expected", "detailed_tries", "late", "exercise"});
    a.title = rd.string(doc, "title", false).value_or("");
    a.feedback = level_value(rd, doc);
    a.visibility = rd.choice(doc, "visibility", false, gradescope_visibilities).value_or("");
    a.release_expected = rd.choice(doc, "release_expected", false, {"after_due_date", "after_published"}).value_or("");
    // The submissions that get feedback beyond the score.
    if (const auto v = rd.integer(doc, "detailed_tries", false, 1, 1000)) a.detailed_tries = static_cast<int>(*v);
    if (const toml::node* late = doc.get("late")) a.late = read_late(rd, *late, path);
    const toml::node* list = doc.get("exercise");
    if (!list) rd.fail_at({file, 1, 1}, "an assignment lists its exercises: [[exercise]] tables with an 'id' each");
    const toml::array* arr = list->as_array();
    if (!arr || !arr->is_array_of_tables()) rd.fail(list, "'exercise' must be [[exercise]] tables, each with an 'id'");
    if (arr->empty()) rd.fail(list, "the assignment lists no exercise");
    for (const auto& item : *arr) read_exercise(rd, *item.as_table(), set, a);
    return a;
}

void apply_assignment(const assignment& a, grade_options& g, std::optional<feedback_level> forced) {
    g.exercise_ids = a.exercise_ids;
    g.per_exercise = a.per_exercise;
    if (a.feedback) g.feedback = *a.feedback;
    if (forced) {  // the command line wins over the file
        g.feedback = *forced;
        for (auto& [id, o] : g.per_exercise) o.feedback.reset();
    }
}

std::string apply_tries(const assignment& a, std::size_t previous, grade_options& g) {
    if (!a.detailed_tries || previous < static_cast<std::size_t>(*a.detailed_tries)) return "";
    g.feedback = feedback_level::score;
    for (auto& [id, o] : g.per_exercise) o.feedback = feedback_level::score;
    const int n = *a.detailed_tries;
    return "this is submission " + std::to_string(previous + 1) + "; feedback beyond the score is given for the first " +
           std::to_string(n) + (n == 1 ? " submission" : " submissions") + " only";
}

}  // namespace attn::grade
