// grade/assignment.cpp — an assignment file (grade/grader.hpp): reads the TOML through
// io::toml_reader (the one typed reader family and the one unknown-key check, each
// problem at its file:line:col) and hands the result to the grading options.
#include "grade/grader.hpp"

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

}  // namespace

assignment read_assignment(const std::string& path, const exercise_set& set) {
    const std::string text = io::read_input_file(path, {io::default_max_input_bytes, /*toml=*/true, "assignment file"});
    const std::string file = path == "-" ? io::stdin_name : path;
    const toml::table doc = io::parse_toml(text, file);
    const io::toml_reader rd{file};  // throw mode: the first problem ends the read
    assignment a;
    a.path = path;
    rd.known_keys(doc, "an assignment file", {"title", "feedback", "visibility", "release_expected", "detailed_tries", "exercise"});
    a.title = rd.string(doc, "title", false).value_or("");
    a.feedback = level_value(rd, doc);
    a.visibility = rd.choice(doc, "visibility", false, gradescope_visibilities).value_or("");
    a.release_expected = rd.choice(doc, "release_expected", false, {"after_due_date", "after_published"}).value_or("");
    // The submissions that get feedback beyond the score.
    if (const auto v = rd.integer(doc, "detailed_tries", false, 1, 1000)) a.detailed_tries = static_cast<int>(*v);
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
