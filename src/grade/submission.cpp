// grade/submission.cpp — see submission.hpp. Checks happen in the order a teacher
// would want them reported: unreadable, empty, too large, not UTF-8, syntax, layout.
#include "grade/submission.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include <toml++/toml.h>

#include "io/input_read.hpp"
#include "io/json_scan.hpp"
#include "io/text_position.hpp"
#include "io/toml_parse.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

namespace fs = std::filesystem;

submission_error::submission_error(std::string reason_word, source_pos pos, const std::string& message)
    : error(error::as_written{}, reason_word, pos, message) {}

std::string type_name(const answer_value& v) {
    switch (v.kind) {
        case answer_value::type::null: return "null";
        case answer_value::type::boolean: return "true/false";
        case answer_value::type::number: return "a number";
        case answer_value::type::string: return "a string";
        case answer_value::type::array: return "an array";
        case answer_value::type::table: return "a table";
    }
    return "a value";
}

const answer_value* submission::find(const std::string& exercise_id) const {
    for (const auto& [id, v] : answers)
        if (id == exercise_id) return &v;
    return nullptr;
}

namespace {

answer_value from_toml(const toml::node& n, const std::string& file) {
    answer_value v;
    v.where = io::toml_pos(file, &n);  // the one node → file:line:col helper
    if (const auto* t = n.as_table()) {
        v.kind = answer_value::type::table;
        for (const auto& [key, value] : *t) v.fields.emplace_back(std::string(key.str()), from_toml(value, file));
    } else if (const auto* a = n.as_array()) {
        v.kind = answer_value::type::array;
        for (const auto& e : *a) v.items.push_back(from_toml(e, file));
    } else if (n.is_string()) {
        v.kind = answer_value::type::string;
        v.text = *n.value<std::string>();
    } else if (n.is_number()) {
        v.kind = answer_value::type::number;
        v.number = io::toml_number(n);
    } else if (n.is_boolean()) {
        v.kind = answer_value::type::boolean;
        v.flag = *n.value<bool>();
    } else {
        v.kind = answer_value::type::string;  // dates and times: kept as a word, graded as wrong
        v.text = "(a date or time)";
    }
    return v;
}

// The JSON answer tree, built as io::json_scan walks the text, with the line:column of
// every value (columns count characters, 1-based, as toml++ does).
struct json_builder {
    io::json_scan& js;
    io::text_position lines;  // values come in file order: the text is counted once

    answer_value value() {
        using t = answer_value::type;
        answer_value v;
        const char c = js.peek();
        v.where = lines.to(js.pos());
        if (c == '{') {
            v.kind = t::table;
            js.object([&](const std::string& key, std::size_t) { v.fields.emplace_back(key, value()); });
        } else if (c == '[') {
            v.kind = t::array;
            js.array([&](std::size_t) { v.items.push_back(value()); });
        } else if (c == '"') {
            v.kind = t::string;
            v.text = js.string_value();
        } else if (!word(v)) {
            if (c != '-' && !(c >= '0' && c <= '9'))
                js.fail_at(js.pos(), "expected a value (number, string, array, object, true, false or null), found " +
                                         js.found_char());
            v.kind = t::number;
            v.number = js.number_value(false);
        }
        return v;
    }

    // true, false, null, and NaN, Infinity and -Infinity as Python's json module writes
    // them (json.dump's default allow_nan=True): not standard JSON, but what students'
    // code produces. -Infinity is tried before a number's '-'.
    bool word(answer_value& v) {
        using t = answer_value::type;
        const double inf = std::numeric_limits<double>::infinity();
        const struct {
            const char* text;
            t kind;
            double number;
            bool flag;
        } words[] = {{"NaN", t::number, std::numeric_limits<double>::quiet_NaN(), false}, {"Infinity", t::number, inf, false},
                     {"-Infinity", t::number, -inf, false}, {"true", t::boolean, 0.0, true},
                     {"false", t::boolean, 0.0, false}, {"null", t::null, 0.0, false}};
        for (const auto& w : words) {
            if (!js.literal(w.text)) continue;
            v.kind = w.kind;
            v.number = w.number;
            v.flag = w.flag;
            return true;
        }
        return false;
    }
};

}  // namespace

answer_value parse_json_answer(const std::string& text, const std::string& file) {
    const auto place = [&](std::size_t at) { return io::position_in(file, text, at); };
    io::json_scan js(
        text, [&](std::size_t at, const std::string& message) {
            throw submission_error("syntax", place(at), place(at).str() + ": JSON syntax: " + message);
        },
        [&](std::size_t at) { return place(at).str(); });
    json_builder b{js, io::text_position(file, text)};
    answer_value v = b.value();
    js.finish();
    return v;
}

namespace {

// One exercise's answer; the same exercise answered twice in one file ([ID] and
// [answers.ID]) is refused with both places, never graded twice or picked silently.
void add_answer(submission& sub, const std::string& id, answer_value&& v) {
    for (const auto& [have, hv] : sub.answers)
        if (have == id)
            throw submission_error("duplicate", v.where,
                                   v.where.str() + ": exercise '" + id + "' is answered twice in this file (also at " +
                                       hv.where.str() + "); keep one of the two answers");
    sub.answers.emplace_back(id, std::move(v));
}

// The top level: `student` plus one entry per exercise id.
submission from_document(answer_value doc, const std::string& file) {
    if (!doc.is_table())
        throw submission_error("layout", doc.where,
                               doc.where.str() + ": an answer file is a table of exercise ids ({\"04-weights\": {...}}), found " +
                                   type_name(doc));
    submission sub;
    sub.files.push_back(file);
    for (auto& [key, value] : doc.fields) {
        if (key == "student") {
            if (!value.is_string())
                throw submission_error("layout", value.where,
                                       value.where.str() + ": 'student' must be a string (your student id), found " +
                                           type_name(value));
            sub.student = value.text;
            sub.student_where = value.where;
            continue;
        }
        if (key == "answers" && value.is_table()) {  // {"answers": {...}} is accepted too
            for (auto& [id, v] : value.fields) add_answer(sub, id, std::move(v));
            continue;
        }
        add_answer(sub, key, std::move(value));
    }
    if (sub.answers.empty())
        throw submission_error("no-answers", {file, 0, 0}, file + ": no answers in the file (expected tables named by exercise id, e.g. [04-weights])");
    return sub;
}

answer_value parse_toml_answer(const std::string& text, const std::string& display_path) {
    const toml::table t = io::parse_toml(text, display_path, [&](const std::string& d, const source_pos& p) {
        return io::toml_first_definition(text, d, p);
    });
    answer_value doc = from_toml(t, display_path);
    doc.where = {display_path, 1, 1};
    return doc;
}

// True when text reads as an answer file in the other format (a table at the top).
bool parses_as(bool json, const std::string& text, const std::string& display_path) {
    try {
        const answer_value doc = json ? parse_json_answer(text, display_path) : parse_toml_answer(text, display_path);
        return doc.is_table() && !doc.fields.empty();
    } catch (const std::exception&) {
        return false;
    }
}

std::string read_bytes(const std::string& path, std::size_t max_bytes) {
    io::input_limits limits;
    limits.max_bytes = max_bytes;
    limits.what = "answer file";
    try {
        return io::read_input_file(path, limits);
    } catch (io::input_error& e) {  // one word for the gradebook: the student's file could not be read
        if (e.reason == "not-found" || e.reason == "not-a-file") e.reason = "unreadable";
        throw;
    }
}

bool looks_json(const std::string& path, const std::string& text) {
    const std::string ext = fs::path(path).extension().string();
    if (ext == ".json") return true;
    if (ext == ".toml") return false;
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '{';
}

}  // namespace

submission read_submission_text(const std::string& raw, const std::string& display_path, bool json,
                                const read_limits& limits) {
    if (raw.size() > limits.max_bytes)
        throw submission_error("too-large", {display_path, 0, 0},
                               display_path + ": the file has " + std::to_string(raw.size()) +
                                   " bytes, more than the limit of " + std::to_string(limits.max_bytes));
    std::string text = raw;
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte order mark
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw submission_error("empty", {display_path, 0, 0}, display_path + ": the file is empty");
    std::size_t bad = 0;
    if (!valid_utf8(text, &bad)) {
        const source_pos p = io::position_in(display_path, text, bad);
        throw submission_error("not-utf8", p,
                               p.str() + ": the file is not UTF-8 text (byte " + std::to_string(bad) +
                                   " is not valid UTF-8); save it as UTF-8");
    }
    if (text.find('\0') != std::string::npos) {
        const source_pos p = io::position_in(display_path, text, text.find('\0'));
        throw submission_error("not-utf8", p, p.str() + ": the file contains a NUL byte; it is not a text file");
    }
    answer_value doc;
    try {
        doc = json ? parse_json_answer(text, display_path) : parse_toml_answer(text, display_path);
    } catch (const error& e) {
        // A file in the other format (a .json file holding TOML, or the reverse) says so.
        if (e.reason != "syntax" || !parses_as(!json, text, display_path)) throw;
        const char* other = json ? "TOML" : "JSON";
        throw submission_error("syntax", e.where,
                               display_path + ": this looks like " + other + ", not " + (json ? "JSON" : "TOML") +
                                   ": the file is named ." + (json ? "json" : "toml") + " but holds " + other +
                                   "; rename it ." + (json ? "toml" : "json") + " (as " + (json ? "JSON" : "TOML") +
                                   ": " + e.what() + ")");
    }
    return from_document(std::move(doc), display_path);
}

submission read_submission_file(const std::string& path, const read_limits& limits) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec)))
        throw submission_error("unreadable", {path, 0, 0}, path + ": a symbolic link; answer files must be plain files");
    if (!fs::is_regular_file(path, ec))
        throw submission_error("unreadable", {path, 0, 0}, path + ": not a regular file");
    const std::string text = read_bytes(path, limits.max_bytes);
    return read_submission_text(text, path, looks_json(path, text), limits);
}

namespace {

constexpr int max_folder_depth = 4;  // answers one or a few folders down (a zip's own folder)

// The answer files under dir (subfolders too, to max_folder_depth), in path order; what is
// skipped is noted. Hidden entries and links are never followed.
std::vector<fs::path> answer_files(const std::string& dir, std::vector<lessons::diagnostic>& notes, std::size_t& total) {
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const fs::path& path = it->path();
        const std::string name = path.filename().string();
        const auto st = it->symlink_status(ec);
        if ((!name.empty() && name[0] == '.') || name == "__MACOSX" || fs::is_symlink(st) ||
            (fs::is_directory(st) && it.depth() + 1 >= max_folder_depth)) {
            if (fs::is_directory(st)) it.disable_recursion_pending();
            if (fs::is_symlink(st)) notes.push_back({{path.string(), 0, 0}, "a symbolic link, not followed"});
            continue;
        }
        if (fs::is_directory(st)) continue;
        const std::string ext = path.extension().string();
        if (!fs::is_regular_file(st) || (ext != ".toml" && ext != ".json")) {
            notes.push_back({{path.string(), 0, 0}, "ignored: not a .toml or .json answer file"});
            continue;
        }
        files.push_back(path);
        total += static_cast<std::size_t>(fs::file_size(path, ec));
    }
    if (ec) throw submission_error("unreadable", {dir, 0, 0}, dir + ": cannot read the folder (" + ec.message() + ")");
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

submission read_submission_dir(const std::string& dir, const read_limits& limits) {
    std::vector<lessons::diagnostic> notes;
    std::size_t total = 0;
    const std::vector<fs::path> files = answer_files(dir, notes, total);
    if (files.empty())
        throw submission_error("no-answers", {dir, 0, 0}, dir + ": no .toml or .json answer file in the folder");
    if (files.size() > limits.max_files)
        throw submission_error("too-large", {dir, 0, 0},
                               dir + ": " + std::to_string(files.size()) + " answer files, more than the limit of " +
                                   std::to_string(limits.max_files));
    if (total > limits.max_bytes)
        throw submission_error("too-large", {dir, 0, 0},
                               dir + ": the answer files hold " + std::to_string(total) + " bytes, more than the limit of " +
                                   std::to_string(limits.max_bytes));
    submission all;
    std::optional<error> first_error;
    for (const auto& f : files) {
        try {  // a stray file beside the answers (a broken or foreign .json) is noted, not fatal
            submission one = read_submission_file(f.string(), limits);
            if (all.files.empty()) all = std::move(one);
            else merge_submission(all, std::move(one));
        } catch (const error& e) {  // submission_error, or io::input_error (syntax, too deep ...)
            if (!first_error) first_error = e;
            notes.push_back({{f.string(), 0, 0}, std::string("ignored, not readable as answers (") + e.what() + ")"});
        }
    }
    if (all.files.empty()) throw *first_error;  // no file could be read: the first one's reason
    for (auto& n : all.notes) notes.push_back(std::move(n));
    all.notes = std::move(notes);
    return all;
}

void merge_submission(submission& into, submission&& from) {
    if (!from.student.empty()) {
        if (into.student.empty()) {
            into.student = from.student;
            into.student_where = from.student_where;
        } else if (into.student != from.student) {
            into.notes.push_back({from.student_where, "student '" + from.student + "' differs from '" + into.student +
                                                          "' in another file; using '" + into.student + "'"});
        }
    }
    for (auto& [id, v] : from.answers) {
        answer_value* have = nullptr;
        for (auto& [hid, hv] : into.answers)
            if (hid == id) have = &hv;
        if (!have) {
            into.answers.emplace_back(id, std::move(v));
            continue;
        }
        if (!have->is_table() || !v.is_table()) {
            into.notes.push_back({v.where, "exercise '" + id + "' is answered twice; the first answer counts"});
            continue;
        }
        for (auto& [part, pv] : v.fields) {
            if (have->get(part)) into.notes.push_back({pv.where, "part '" + part + "' of exercise '" + id + "' is answered twice; the first answer counts"});
            else have->fields.emplace_back(part, std::move(pv));
        }
    }
    for (auto& f : from.files) into.files.push_back(std::move(f));
    for (auto& n : from.notes) into.notes.push_back(std::move(n));
}

submission read_submission_path(const std::string& path, const read_limits& limits) {
    std::error_code ec;
    const auto st = fs::symlink_status(path, ec);
    if (ec || !fs::exists(st)) throw submission_error("unreadable", {path, 0, 0}, path + ": no such file or folder");
    if (fs::is_directory(st)) return read_submission_dir(path, limits);
    return read_submission_file(path, limits);
}

}  // namespace attn::grade
