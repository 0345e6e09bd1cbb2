// cli/practice.cpp — the answering dialogue of practice.hpp. Reads whole lines in
// the terminal's cooked mode (the student can edit a line before Enter; Ctrl-C is
// SIGINT, which the step viewer's handlers see through), grades with
// grade::grade_submission on a one-exercise submission — the same call as
// `attn exercise check` — and keeps the progress file up to date after every try.
#include <cerrno>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "cli/layout.hpp"
#include "cli/practice.hpp"
#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "grade/show.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "lessons/progress.hpp"

namespace attn::cli {

namespace {

constexpr int tries_before_solution = 3;

// One line from the terminal; nullopt at end of input (Ctrl-D).
std::optional<std::string> read_line(const std::string& prompt) {
    std::cout << prompt << std::flush;
    std::string line;
    for (;;) {
        char c = 0;
        const ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n < 0 && errno == EINTR) continue;  // a resize (SIGWINCH): the step prompt redraws afterwards
        if (n != 1) return line.empty() ? std::nullopt : std::optional<std::string>(line);
        if (c == '\n' || c == '\r') return line;
        if (line.size() < 4096) line += c;
    }
}

// The progress file, read once per dialogue; a bad file is named and set aside.
struct progress_store {
    std::string path = lessons::progress_path();
    lessons::progress p;

    progress_store() {
        const auto loaded = lessons::load_progress(path);
        p = loaded.p;
        if (!loaded.problem.empty())
            std::cout << io::terminal_safe_text("(progress file " + path + " ignored: " + loaded.problem +
                                                "; it is rewritten when you answer)") << "\n";
    }
    // True when the answer reached the progress file; false after saying why not.
    bool record(const std::string& id, bool right) {
        p.record(id, right);
        try {
            p = lessons::save_progress(path, p);  // merged: answers from other windows too
            return true;
        } catch (const std::exception& e) {
            std::cout << io::terminal_safe_text(std::string("(progress not saved: ") + e.what() + ")") << "\n";
            return false;
        }
    }
};

const char* mark(lessons::question_state s) {
    return s == lessons::question_state::right ? "✓" : s == lessons::question_state::tried ? "tried" : "";
}

std::string title_of(const grade::exercise& x) {
    return io::terminal_safe(x.title.empty() ? x.prompt.substr(0, x.prompt.find('\n')) : x.title);
}

// Which question: the only one, or a number typed from the list; nullopt = back to the lesson.
std::optional<std::size_t> pick_question(const std::vector<grade::exercise>& xs, const lessons::progress& p,
                                         const trace::style& st) {
    if (xs.size() == 1) return 0;
    std::string list = "\nQuestions of this lesson:\n";
    for (std::size_t i = 0; i < xs.size(); ++i)
        list += fmt::format("  {}. {}  {}\n", i + 1, title_of(xs[i]),
                            xs[i].kind->reviewed ? "(open: for your teacher)" : mark(p.of(xs[i].id)));
    print_fitted(list, st);
    for (;;) {
        const auto line = read_line(fmt::format("Which question (1-{}, then Enter)? Enter alone: back to the lesson. ", xs.size()));
        if (!line || line->empty() || *line == "q" || *line == "Q") return std::nullopt;
        const std::string& s = *line;
        if (s.find_first_not_of("0123456789") == std::string::npos && s.size() <= 3) {
            const std::size_t k = std::stoul(s);
            if (k >= 1 && k <= xs.size()) return k - 1;
        }
        std::cout << io::terminal_safe("no question '" + s + "'") << "\n";
    }
}

std::string how_to_type(const grade::exercise& x) { return x.kind->how_to_type; }

std::string part_label(const grade::exercise& x, const grade::part_spec& p) {
    if (x.kind->numbers) {
        const auto sh = grade::part_shape(x, p);
        return fmt::format("{} ({} × {})", grade::describe_part(x, p), sh[0], sh[1]);
    }
    if (x.kind->picks) {
        std::string c;
        for (std::size_t i = 0; i < x.choices.size(); ++i) c += fmt::format("{}({}) {}", c.empty() ? "" : "  ", char('a' + i % 26), x.choices[i]);
        return (p.prompt.empty() || p.prompt == x.prompt ? "" : p.prompt + ": ") + c;
    }
    return p.prompt.empty() ? x.kind->name : p.prompt;
}

// A part id as words: "per_head" → "per head".
std::string readable_part(const std::string& id) {
    std::string out = id;
    for (char& c : out)
        if (c == '_') c = ' ';
    return out;
}

enum class typed { answered, solution, back };

// Only the answers of the parts already right are kept for the next try.
void keep_right(io::value_node& answers, const std::vector<std::string>& right_parts) {
    std::vector<std::pair<std::string, io::value_node>> kept;
    for (auto& f : answers.fields)
        for (const auto& r : right_parts)
            if (f.first == r) kept.push_back(f);
    answers.fields = kept;
}

// Asks every part not yet right; their values go into `answers` (part id → value).
typed ask_parts(const grade::exercise& x, const std::vector<std::string>& right_parts, io::value_node& answers,
                const trace::style& st) {
    for (const auto& p : x.parts) {
        bool done = false;
        for (const auto& r : right_parts) done = done || r == p.id;
        if (done) continue;
        for (;;) {
            const std::string label = part_label(x, p);
            if (label != x.prompt)  // a one-part question's prompt is already on the screen
                print_fitted(io::terminal_safe_text((x.parts.size() > 1 ? readable_part(p.id) + ": " : "") + label) + "\n", st);
            const auto line = read_line("answer> ");
            if (!line || line->empty() || *line == "q" || *line == "Q") return typed::back;
            if (*line == "s" || *line == "S") return typed::solution;
            std::string error;
            auto v = answer_from_line(*line, x, error);
            if (!v) {
                std::cout << "cannot read that: " << error << "\n";
                continue;
            }
            answers.fields.emplace_back(p.id, std::move(*v));
            break;
        }
    }
    return typed::answered;
}

// Parts the grader could not read as an answer of their kind ("abc" for a
// number, a letter that is no choice): asked again without using a try.
bool only_unreadable(const grade::exercise_result& r) {
    bool any = false;
    for (const auto& p : r.parts) {
        if (p.status == grade::part_status::correct) continue;
        if (p.status != grade::part_status::invalid) return false;
        any = true;
    }
    return any;
}

// The mark and words of one graded part. Only a part right on its own is ✓; a part
// right only given a wrong earlier part (carried) is marked as following from it:
// it changes when that part is fixed, so it is asked again.
std::string part_line(const grade::part_result& p, const trace::style& st) {
    std::string words = readable_part(p.id);
    if (p.status == grade::part_status::correct) return "  " + st.good("✓") + " " + io::terminal_safe_text(words) + "\n";
    if (p.status == grade::part_status::carried)
        return "  " + st.muted("↳") + " " + io::terminal_safe_text(words + " — consistent with your wrong answer above, "
                                                                    "not yet right: asked again") + "\n";
    if (!p.mistake_name.empty()) words += " — looks like: " + p.mistake_name;
    return "  " + st.bad("✗") + " " + io::terminal_safe_text(words) + "\n";
}

// The grader's word on each part; the ids of the parts right on their own (kept
// for the next try). The marks are coloured after the grader's text is made safe,
// so colour shows as colour. Before the last try the feedback never names the
// expected value.
std::vector<std::string> show_result(const grade::exercise_result& r, bool reveal, const trace::style& st) {
    std::vector<std::string> right;
    std::string out;
    for (const auto& p : r.parts) {
        const bool ok = p.status == grade::part_status::correct;
        if (ok) right.push_back(p.id);
        out += part_line(p, st);
        const std::string said = p.feedback.at(reveal ? grade::feedback_level::full : grade::feedback_level::mistakes);
        if (!ok && !said.empty()) out += "    " + io::terminal_safe_text(said) + "\n";
    }
    print_fitted(out, st);
    return right;
}

// Tries until right, `s`, the third wrong try, or Enter alone.
void answer_one(const grade::exercise& x, const std::vector<grade::exercise>& all, progress_store& store,
                const trace::style& st) {
    const grade::variant_request practice{};  // no secret, no student: the lesson's numbers or the practice variant
    std::string shown = grade::show_text(x, practice, st);
    shown = shown.substr(0, shown.find("\nParts (answer file"));  // parts are asked one by one below
    if (x.kind->reviewed) {  // prose is read by a teacher, never scored by a program
        print_fitted("\n" + io::terminal_safe_text(shown) +
                         "\n\nThis is an open question: your teacher reads the answer, so it is not graded here. "
                         "Write it in an answer file (`attn exercise template " + std::to_string(x.lesson) +
                         "`) for your teacher.\n",
                     st);
        return;
    }
    print_fitted("\n" + io::terminal_safe_text(shown) + "\n\n" + how_to_type(x) +
                     " Press Enter after each part. s then Enter: the worked solution (after a try). Enter alone (or q): back to "
                     "the lesson.\n",
                 st);
    grade::exercise_set set;
    set.all = all;
    grade::grade_options g;
    g.exercise_ids = {x.id};
    std::vector<std::string> right_parts;
    io::value_node answers;
    answers.kind = io::value_node::type::table;
    // The worked solution comes after a try (here, or one the progress file remembers):
    // before it, `s` would hand out the answer to anyone who has not attempted it.
    bool tried = store.p.of(x.id) != lessons::question_state::untried;
    for (int wrong = 0;;) {
        const typed t = ask_parts(x, right_parts, answers, st);
        if (t == typed::back) return;
        if (t == typed::solution && tried) break;
        if (t == typed::solution) {
            print_fitted("The worked solution comes after a try: answer first (a wrong answer counts as a try). "
                         "Enter alone: back to the lesson.\n",
                         st);
            keep_right(answers, right_parts);
            continue;
        }
        grade::submission sub;
        sub.answers = {{x.id, answers}};
        const grade::grade_report report = grade::grade_submission(sub, set, g);
        const grade::exercise_result& result = report.exercises.front();
        const bool unreadable = only_unreadable(result);
        right_parts = show_result(result, !unreadable && wrong + 1 >= tries_before_solution, st);
        if (unreadable) {  // not an answer: asked again, no try used, nothing saved
            print_fitted("That is not an answer of this kind; no try used. " + how_to_type(x) + "\n", st);
            keep_right(answers, right_parts);
            continue;
        }
        tried = true;
        const bool saved = store.record(x.id, report.full_marks());
        if (report.full_marks()) {
            // "Saved" only when it was: right after "(progress not saved: ...)" it would contradict it.
            print_fitted(st.good("✓ Right.") + (saved ? " Saved: `attn lessons` shows your progress." : "") + "\n", st);
            return;
        }
        if (++wrong >= tries_before_solution) break;
        if (!x.hint.empty()) print_fitted(io::terminal_safe_text("Hint: " + x.hint) + "\n", st);
        print_fitted(fmt::format("Try again ({} of {} tries used; the parts marked ✓ are kept). s then Enter: the worked "
                                 "solution. Enter alone: back to the lesson.\n",
                                 wrong, tries_before_solution),
                     st);
        keep_right(answers, right_parts);
    }
    const std::string on = !x.kind->numbers ? ""
                           : x.variant.enabled                      ? " (the practice numbers)"
                                                                    : " (the lesson's numbers)";
    print_fitted("\nWorked solution" + on + ":\n" + io::terminal_safe_text(x.kind->solve(x, practice)), st);
}

}  // namespace

void practise_questions(const lessons::lesson& l, const trace::style& st) {
    std::vector<lessons::diagnostic> problems;
    const std::vector<grade::exercise> xs = grade::read_exercises(l, problems);
    if (!problems.empty())  // a lesson file of one's own with a broken [[exercise]]
        std::cout << io::terminal_safe_text(fmt::format("({} problem(s) in this lesson's questions leave some out: "
                                                        "`attn lesson check {}` lists them)",
                                                        problems.size(), l.path))
                  << "\n";
    if (xs.empty()) {
        std::cout << "This lesson has no questions to answer.\n";
        return;
    }
    progress_store store;
    for (;;) {
        const auto k = pick_question(xs, store.p, st);
        if (!k) return;
        answer_one(xs[*k], xs, store, st);
        if (xs.size() == 1) {  // the viewer redraws the page: the result stays until Enter
            (void)read_line("Enter: back to the lesson ");
            return;
        }
    }
}

}  // namespace attn::cli
