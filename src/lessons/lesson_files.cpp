// lessons/lesson_files.cpp — where lessons come from: a folder on disk (`--lessons DIR`,
// $ATTN_LESSONS_DIR: a teacher's own course) or the copy of lessons/*.toml built into
// attn (embedded_lessons.hpp), so a copied or installed binary needs no source tree.
// Built-in lessons have the paths "<built-in>/NN-name.toml", which is also what error
// messages about them say.
#include <algorithm>
#include <map>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <toml++/toml.h>

#include "io/input_read.hpp"
#include "core/error.hpp"
#include "io/toml_parse.hpp"
#include "io/terminal_safe.hpp"
#include "lessons/embedded_lessons.hpp"
#include "lessons/lesson_loader.hpp"
#include "io/toml_read.hpp"

namespace attn::lessons {

namespace fs = std::filesystem;

namespace {

std::string& lessons_dir_override() {
    static std::string dir;
    return dir;
}

// "04-cross-attention.toml" → 4; -1 for any other name (README.md, notes.toml).
int lesson_number_of(const std::string& file) {
    if (file.size() < 8 || file.compare(file.size() - 5, 5, ".toml") != 0) return -1;
    if (!std::isdigit(static_cast<unsigned char>(file[0])) || !std::isdigit(static_cast<unsigned char>(file[1])) ||
        file[2] != '-')
        return -1;
    return std::stoi(file.substr(0, 2));
}

// The built-in file a path names, or nullptr when the path is not "<built-in>/NAME".
const embedded_file* built_in_file(const std::string& path) {
    const std::string prefix = std::string(built_in_lessons) + "/";
    if (path.compare(0, prefix.size(), prefix) != 0) return nullptr;
    const std::string name = path.substr(prefix.size());
    for (const auto& f : embedded_lessons())
        if (f.name == name) return &f;
    return nullptr;
}

// A folder's lesson numbers name one lesson each, from 1: two files numbered alike would
// have one of them run silently, and lesson 0 is not a lesson (both refused, files named).
void check_lesson_numbers(const std::vector<std::pair<std::string, std::string>>& files) {
    std::map<int, std::string> seen;  // number → path
    for (const auto& [file, path] : files) {
        const int n = lesson_number_of(file);
        if (n < 0) continue;
        if (n == 0)
            throw error("lesson", source_pos{path, 0, 0},
                        "lesson number 00: lessons are numbered from 01 (rename the file, e.g. 01-" + file.substr(3) + ")");
        if (const auto it = seen.find(n); it != seen.end())
            throw error("lesson", source_pos{path, 0, 0},
                        "two lessons numbered " + file.substr(0, 2) + ": " + it->second + " and " + path +
                            " (each number names one lesson: rename or remove one)");
        seen.emplace(n, path);
    }
}

// Every NN-*.toml of a folder (or of the built-in copy): file names with their paths.
std::vector<std::pair<std::string, std::string>> lesson_files_in(const std::string& dir) {
    std::vector<std::pair<std::string, std::string>> out;  // (file name, path)
    if (dir == built_in_lessons) {
        for (const auto& f : embedded_lessons()) out.emplace_back(std::string(f.name), dir + "/" + std::string(f.name));
        return out;
    }
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) throw error("not-found", source_pos{dir, 0, 0}, "cannot read the lessons folder: " + ec.message());
    for (const auto& e : it) out.emplace_back(e.path().filename().string(), e.path().string());
    std::sort(out.begin(), out.end());  // directory order is arbitrary; messages are not
    check_lesson_numbers(out);
    return out;
}

}  // namespace

void set_lessons_dir(const std::string& dir) { lessons_dir_override() = dir; }

std::string lessons_dir() {
    if (!lessons_dir_override().empty()) return lessons_dir_override();
    const char* env = std::getenv("ATTN_LESSONS_DIR");
    if (env && *env) return env;
    return built_in_lessons;
}

std::string read_lesson_file(const std::string& path) {
    if (const embedded_file* f = built_in_file(path)) return std::string(f->text);
    io::input_limits limits;
    limits.toml = true;  // nesting checked before toml++ sees the text
    limits.what = "lesson file";
    return io::read_input_file(path, limits);  // regular files only, size limit
}

std::optional<std::string> read_lesson_text(const std::string& path) {
    try {
        return read_lesson_file(path);
    } catch (const error&) {
        return std::nullopt;
    }
}

std::vector<lesson_entry> list_lessons(const std::string& dir) {
    std::vector<lesson_entry> out;
    for (const auto& [file, path] : lesson_files_in(dir)) {
        const int number = lesson_number_of(file);
        if (number < 0) continue;
        lesson_entry entry{number, path, "", "", {}};
        const auto text = read_lesson_text(path);
        try {
            if (!text) throw attn::error("unreadable");
            const toml::table doc = io::parse_toml(*text, path);
            entry.title = io::terminal_safe(doc["title"].value_or(std::string("(no title)")));
            entry.summary = io::terminal_safe(doc["summary"].value_or(std::string()));
            if (const toml::array* xs = doc["exercise"].as_array())
                for (const auto& x : *xs)
                    if (const toml::table* t = x.as_table())
                        if (auto id = (*t)["id"].value<std::string>(); id && (*t)["kind"].value_or(std::string()) != "open")
                            entry.exercise_ids.push_back(*id);  // open answers are a teacher's to grade
        } catch (const std::exception&) {
            entry.title = "(cannot be read: run `attn lesson check " + entry.path + "`)";
        }
        out.push_back(entry);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    return out;
}

std::vector<std::string> lesson_paths(const std::string& dir) {
    std::vector<std::pair<int, std::string>> numbered;  // (number, path)
    for (const auto& [file, path] : lesson_files_in(dir))
        if (const int n = lesson_number_of(file); n >= 0) numbered.emplace_back(n, path);
    std::stable_sort(numbered.begin(), numbered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& [n, path] : numbered) out.push_back(std::move(path));
    return out;
}

// By file name alone ("04-cross-attention.toml"): no lesson is read or parsed to
// find one; the loader then checks that the file's `number` agrees with its name.
std::string find_lesson(const std::string& dir, int number) {
    std::vector<int> numbers;
    for (const auto& [file, path] : lesson_files_in(dir)) {
        const int n = lesson_number_of(file);
        if (n == number) return path;
        if (n >= 0) numbers.push_back(n);
    }
    std::sort(numbers.begin(), numbers.end());
    std::string have;
    for (const int n : numbers) have += (have.empty() ? "" : ", ") + std::to_string(n);
    const std::string where = dir == built_in_lessons ? "the lessons built into attn" : dir;
    // "Did you mean": two digits typed the wrong way round (91 for 19), the one typo of
    // a number whose nearest neighbours by edit distance would all be as likely.
    std::string guess;
    const std::string typed = std::to_string(number);
    for (const int n : numbers) {
        const std::string s = std::to_string(n);
        if (s.size() == typed.size() && s != typed && std::is_permutation(s.begin(), s.end(), typed.begin()) &&
            io::edit_distance(s, typed) == 1)
            guess = s;
    }
    throw attn::error("there is no lesson " + typed + " in " + where +
                                (guess.empty() ? "" : " (did you mean " + guess + "?)") +
                                (have.empty() ? " (no lessons found)" : " (lessons: " + have + ")"));
}

}  // namespace attn::lessons
