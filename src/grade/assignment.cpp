// grade/assignment.cpp — see assignment.hpp: reads the TOML, checks every key and value
// against what it may be (with the position of each problem), and hands the result to
// the grading options.
#include "grade/assignment.hpp"

#include <toml++/toml.h>

#include "io/input_read.hpp"
#include "io/toml_parse.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

namespace {

io::source_pos pos_of(const std::string& file, const toml::node& n) {
    return io::toml_pos(file, &n);
}

const std::vector<std::string> visibilities = {"visible", "hidden", "after_due_date", "after_published"};

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
    return out;
}

// Checks a table's keys against the ones it may have.
void check_keys(const std::string& file, const toml::table& t, const std::vector<std::string>& allowed, const char* where) {
    for (const auto& [key, node] : t) {
        bool known = false;
        for (const auto& a : allowed) known = known || a == key.str();
        if (!known)
            throw io::input_error(pos_of(file, node), "unknown key '" + std::string(key.str()) + "' " + where + " (expected one of: " +
                                                          joined(allowed) + ")");
    }
}

std::string string_value(const std::string& file, const toml::node& n, const std::string& key) {
    if (!n.is_string()) throw io::input_error(pos_of(file, n), "'" + key + "' must be a string, found " +
                                                                io::toml_reader::type_name(&n));
    return n.as_string()->get();
}

feedback_level level_value(const std::string& file, const toml::node& n) {
    const std::string word = string_value(file, n, "feedback");
    const auto l = feedback_level_from(word);
    if (!l) throw io::input_error(pos_of(file, n), "'feedback' must be full, mistakes or score, found \"" + word + "\"");
    return *l;
}

std::string visibility_value(const std::string& file, const toml::node& n, const std::string& key,
                             const std::vector<std::string>& allowed) {
    const std::string word = string_value(file, n, key);
    for (const auto& a : allowed)
        if (word == a) return word;
    throw io::input_error(pos_of(file, n), "'" + key + "' must be one of " + joined(allowed) + ", found \"" + word + "\"");
}

void read_exercise(const std::string& file, const toml::table& t, const exercise_set& set, assignment& a) {
    check_keys(file, t, {"id", "points", "feedback", "visibility"}, "in an [[exercise]]");
    const toml::node* id_node = t.get("id");
    if (!id_node) throw io::input_error(pos_of(file, t), "an [[exercise]] needs an 'id' (`attn exercise list` shows them)");
    const std::string id = string_value(file, *id_node, "id");
    if (!set.find(id))
        throw io::input_error(pos_of(file, *id_node), "no exercise '" + id + "' (`attn exercise list` shows them)");
    if (a.per_exercise.count(id)) throw io::input_error(pos_of(file, *id_node), "exercise '" + id + "' is listed twice");
    exercise_override o;
    if (const toml::node* p = t.get("points")) {
        const auto v = p->value<double>();
        if (!v || !(*v > 0) || *v > 1e6)
            throw io::input_error(pos_of(file, *p), "'points' must be a positive number (at most 1000000)");
        o.points = *v;
    }
    if (const toml::node* f = t.get("feedback")) o.feedback = level_value(file, *f);
    if (const toml::node* v = t.get("visibility")) o.visibility = visibility_value(file, *v, "visibility", visibilities);
    a.exercise_ids.push_back(id);
    a.per_exercise[id] = o;
}

}  // namespace

bool is_gradescope_visibility(const std::string& word) {
    for (const auto& v : visibilities)
        if (v == word) return true;
    return false;
}

assignment read_assignment(const std::string& path, const exercise_set& set) {
    io::input_limits limits;
    limits.toml = true;
    limits.what = "assignment file";
    const std::string text = io::read_input_file(path, limits);
    const std::string file = path == "-" ? io::stdin_name : path;
    const toml::table doc = io::parse_toml(text, file);
    assignment a;
    a.path = path;
    check_keys(file, doc, {"title", "feedback", "visibility", "release_expected", "detailed_tries", "exercise"},
               "in an assignment file");
    if (const toml::node* n = doc.get("title")) a.title = string_value(file, *n, "title");
    if (const toml::node* n = doc.get("feedback")) a.feedback = level_value(file, *n);
    if (const toml::node* n = doc.get("visibility")) a.visibility = visibility_value(file, *n, "visibility", visibilities);
    if (const toml::node* n = doc.get("release_expected"))
        a.release_expected = visibility_value(file, *n, "release_expected", {"after_due_date", "after_published"});
    if (const toml::node* n = doc.get("detailed_tries")) {
        const auto v = n->value_exact<int64_t>();
        if (!v || *v < 1 || *v > 1000)
            throw io::input_error(pos_of(file, *n), "'detailed_tries' must be a whole number from 1 to 1000 (the submissions "
                                                    "that get feedback beyond the score), found " +
                                                        (v ? std::to_string(*v) : io::toml_reader::type_name(n)));
        a.detailed_tries = static_cast<int>(*v);
    }
    const toml::node* list = doc.get("exercise");
    if (!list) throw io::input_error({file, 1, 1}, "an assignment lists its exercises: [[exercise]] tables with an 'id' each");
    const toml::array* arr = list->as_array();
    if (!arr || !arr->is_array_of_tables())
        throw io::input_error(pos_of(file, *list), "'exercise' must be [[exercise]] tables, each with an 'id'");
    if (arr->empty()) throw io::input_error(pos_of(file, *list), "the assignment lists no exercise");
    for (const auto& item : *arr) read_exercise(file, *item.as_table(), set, a);
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
