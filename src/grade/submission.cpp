// grade/submission.cpp — see submission.hpp. Checks happen in the order a teacher
// would want them reported: unreadable, empty, too large, not UTF-8, syntax, layout.
#include "grade/submission.hpp"

#include <filesystem>
#include <optional>

#include "io/input_read.hpp"

namespace attn::grade {

namespace fs = std::filesystem;

const io::value_node* submission::find(const std::string& exercise_id) const {
    for (const auto& [id, v] : answers)
        if (id == exercise_id) return &v;
    return nullptr;
}

namespace {

// One exercise's answer; the same exercise answered twice in one file ([ID] and
// [answers.ID]) is refused with both places, never graded twice or picked silently.
void add_answer(submission& sub, const std::string& id, io::value_node&& v) {
    if (const io::value_node* had = sub.find(id))
        throw submission_error("duplicate", v.where,
                               v.where.str() + ": exercise '" + id + "' is answered twice in this file (also at " +
                                   had->where.str() + "); keep one of the two answers");
    sub.answers.emplace_back(id, std::move(v));
}

// The top level: `student` plus one entry per exercise id.
submission from_document(io::value_node doc, const std::string& file) {
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
        throw submission_error("no-answers", {file, 0, 0},
                               file + ": no answers in the file (expected tables named by exercise id, e.g. [04-weights])");
    return sub;
}

submission read_submission_file(const std::string& path, const read_limits& limits) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec)))
        throw submission_error("unreadable", {path, 0, 0}, path + ": a symbolic link; answer files must be plain files");
    if (!fs::is_regular_file(path, ec))
        throw submission_error("unreadable", {path, 0, 0}, path + ": not a regular file");
    std::string text;
    try {
        text = io::read_input_file(path, {limits.max_bytes, /*toml=*/false, "answer file"});
    } catch (io::input_error& e) {  // one word for the gradebook: the student's file could not be read
        if (e.reason == "not-found" || e.reason == "not-a-file") e.reason = "unreadable";
        throw;
    }
    return read_submission_text(text, path, io::looks_like_json(path, text), limits);
}

constexpr int max_folder_depth = 4;  // answers one or a few folders down (a zip's own folder)

// The answer files under dir, in path order; what is skipped is noted.
std::vector<std::string> answer_files(const std::string& dir, const read_limits& limits,
                                      std::vector<lessons::diagnostic>& notes) {
    io::folder_files found = io::list_folder(dir, {".toml", ".json"}, max_folder_depth, "answer file");
    for (auto& [path, why] : found.skipped) notes.push_back({{path, 0, 0}, why});
    if (found.files.empty())
        throw submission_error("no-answers", {dir, 0, 0}, dir + ": no .toml or .json answer file in the folder");
    if (found.files.size() > limits.max_files)
        throw submission_error("too-large", {dir, 0, 0},
                               dir + ": " + std::to_string(found.files.size()) + " answer files, more than the limit of " +
                                   std::to_string(limits.max_files));
    if (found.bytes > limits.max_bytes)
        throw submission_error("too-large", {dir, 0, 0},
                               dir + ": the answer files hold " + std::to_string(found.bytes) +
                                   " bytes, more than the limit of " + std::to_string(limits.max_bytes));
    return found.files;
}

submission read_submission_dir(const std::string& dir, const read_limits& limits) {
    std::vector<lessons::diagnostic> notes;
    submission all;
    std::optional<error> first_error;
    for (const auto& f : answer_files(dir, limits, notes)) {
        try {  // a stray file beside the answers (a broken or foreign .json) is noted, not fatal
            submission one = read_submission_file(f, limits);
            if (all.files.empty()) all = std::move(one);
            else merge_submission(all, std::move(one));
        } catch (const error& e) {  // submission_error, or io::input_error (syntax, too deep ...)
            if (!first_error) first_error = e;
            notes.push_back({{f, 0, 0}, std::string("ignored, not readable as answers (") + e.what() + ")"});
        }
    }
    if (all.files.empty()) throw *first_error;  // no file could be read: the first one's reason
    for (auto& n : all.notes) notes.push_back(std::move(n));
    all.notes = std::move(notes);
    return all;
}

}  // namespace

submission read_submission_text(const std::string& text, const std::string& display_path, bool json,
                                const read_limits& limits) {
    if (text.size() > limits.max_bytes)
        throw submission_error("too-large", {display_path, 0, 0},
                               display_path + ": the file has " + std::to_string(text.size()) +
                                   " bytes, more than the limit of " + std::to_string(limits.max_bytes));
    return from_document(io::read_document(text, display_path, json), display_path);
}

void merge_submission(submission& into, submission&& from) {
    if (into.student.empty()) {
        into.student = from.student;
        into.student_where = from.student_where;
    } else if (!from.student.empty() && into.student != from.student) {
        into.notes.push_back({from.student_where, "student '" + from.student + "' differs from '" + into.student +
                                                      "' in another file; using '" + into.student + "'"});
    }
    for (auto& [id, v] : from.answers) {
        auto* have = const_cast<io::value_node*>(into.find(id));  // ids are unique in a submission
        if (!have) {
            into.answers.emplace_back(id, std::move(v));
            continue;
        }
        if (!have->is_table() || !v.is_table()) {
            into.notes.push_back({v.where, "exercise '" + id + "' is answered twice; the first answer counts"});
            continue;
        }
        for (auto& [part, pv] : v.fields) {
            if (have->get(part))
                into.notes.push_back({pv.where, "part '" + part + "' of exercise '" + id +
                                                    "' is answered twice; the first answer counts"});
            else
                have->fields.emplace_back(part, std::move(pv));
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
