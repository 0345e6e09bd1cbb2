// lessons/progress.cpp — see progress.hpp. The progress file is attn's own state,
// read and then replaced in the same run, so it is read here directly (regular file,
// no symlink, size-limited) rather than through io::read_input_file, which would
// register it as a user's input that the output writer must never replace.
// Saving merges under an exclusive lock (flock on PATH.lock beside the file): read what
// is there now, join it with this run's answers, replace. A question's state only
// rises (untried < tried < right), so the join keeps every answer of every window.
#include "lessons/progress.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <toml++/toml.h>

#include "io/output_writer.hpp"
#include "io/state_dir.hpp"
#include "io/toml_parse.hpp"
#include "io/toml_read.hpp"
#include "io/toml_words.hpp"

namespace attn::lessons {

namespace {

constexpr std::size_t max_progress_bytes = 1u << 20;  // thousands of questions fit in a few KiB

const char* state_word(question_state s) { return s == question_state::right ? "right" : "tried"; }

// The whole file, or the reason it cannot be read; a missing file is "" with ok = true.
struct raw_read {
    bool ok = true;
    std::string text, problem;
};

raw_read read_state_file(const std::string& path) {
    raw_read r;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno != ENOENT) r = {false, "", std::strerror(errno)};
        return r;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) r = {false, "", "not a regular file"};
    else if (static_cast<std::size_t>(st.st_size) > max_progress_bytes) r = {false, "", "larger than 1 MiB"};
    else {
        char buf[65536];
        for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 && r.text.size() <= max_progress_bytes;)
            r.text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return r;
}

// The [questions] table of a parsed file, read with the one TOML reader family;
// problem set (at file:line:col) when the file is not one.
progress from_document(const toml::table& doc, const std::string& path, std::string& problem) {
    std::vector<io::toml_problem> problems;
    const io::toml_reader rd{path, &problems};
    rd.known_keys(doc, "the progress file", {"questions"});
    progress p;
    const toml::node* q = doc.get("questions");
    if (q && !q->as_table()) rd.fail(q, "'questions' must be a table of question ids, found " + rd.type_name(q));
    if (q && q->as_table())
        for (const auto& [id, v] : *q->as_table())
            if (auto word = rd.choice(*q->as_table(), std::string(id.str()), true, {"right", "tried"}))
                p.questions[std::string(id.str())] = *word == "right" ? question_state::right : question_state::tried;
    if (problems.empty()) return p;
    problem = problems.front().str();
    return {};
}

}  // namespace

question_state progress::of(const std::string& id) const {
    auto it = questions.find(id);
    return it == questions.end() ? question_state::untried : it->second;
}

void progress::record(const std::string& id, bool right) {
    question_state& s = questions[id];
    if (right) s = question_state::right;
    else if (s != question_state::right) s = question_state::tried;
}

std::string progress_path() {
    const std::string dir = io::state_dir();
    return dir.empty() ? "" : dir + "/progress.toml";
}

progress_load load_progress(const std::string& path) {
    progress_load out;
    if (path.empty()) return out;
    const raw_read r = read_state_file(path);
    if (!r.ok) {
        out.problem = r.problem;
        return out;
    }
    if (r.text.empty()) return out;
    try {
        const toml::table doc = io::parse_toml(r.text, path);
        out.p = from_document(doc, path, out.problem);
    } catch (const io::input_error& e) {
        out.problem = e.what();  // file:line:col: TOML syntax: ...
    } catch (const std::exception& e) {
        out.problem = e.what();
    }
    return out;
}

std::string progress_text(const progress& p) {
    std::string out =
        "# attn progress: the lesson questions you answered (`attn lesson N`, then a at the prompt).\n"
        "# Written by attn; `attn lessons` shows it. Delete this file to start over.\n"
        "[questions]\n";
    for (const auto& [id, s] : p.questions)
        if (s != question_state::untried) out += io::toml_quoted(id) + " = \"" + state_word(s) + "\"\n";
    return out;
}

void merge_progress(progress& into, const progress& from) {
    for (const auto& [id, s] : from.questions) {
        question_state& mine = into.questions[id];
        if (static_cast<int>(s) > static_cast<int>(mine)) mine = s;
    }
}

namespace {

// An exclusive flock on PATH.lock for as long as it lives (the folder is made first);
// released by close, also when attn is killed. A lock file that cannot be opened is
// an io::write_error, as an unwritable progress file is.
class progress_lock {
public:
    explicit progress_lock(const std::string& path) {
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
        const std::string lock = path + ".lock";
        fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd_ < 0) throw io::write_error("cannot open " + lock + ": " + std::strerror(errno));
        while (::flock(fd_, LOCK_EX) != 0)
            if (errno != EINTR) {
                const int e = errno;
                ::close(fd_);
                throw io::write_error("cannot lock " + lock + ": " + std::strerror(e));
            }
    }
    ~progress_lock() { ::close(fd_); }
    progress_lock(const progress_lock&) = delete;
    progress_lock& operator=(const progress_lock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace

progress save_progress(const std::string& path, const progress& p) {
    if (path.empty()) throw io::write_error("nowhere to keep progress: neither XDG_STATE_HOME nor HOME is set");
    const progress_lock lock(path);
    progress_load now = load_progress(path);  // a file that cannot be read is replaced, as before
    merge_progress(now.p, p);
    io::output_writer(false, /*make_parents=*/true).write_file(path, progress_text(now.p), io::existing::replace);
    return now.p;
}

}  // namespace attn::lessons
