// cli/lesson.cpp — `attn lessons`, `attn lesson N|FILE.toml [--step K] [--no-pause]
// [--color ...] [--token T [--run R]]` and `attn lesson check FILE...`.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "cli/layout.hpp"
#include "core/error.hpp"
#include "cli/step_viewer.hpp"
#include "cli/verbs.hpp"
#include "grade/exercise.hpp"
#include "io/terminal_safe.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"
#include "lessons/progress.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

namespace {

struct lesson_options {
    std::string which;  // "4" (a lesson number) or a path ending in .toml
    int step = 1;
    bool step_given = false;
    bool no_pause = false;
    bool no_pager = false;
    bool pager = false;
    layout_options layout;
    std::string token;
    std::string run;
    std::vector<std::string> check_files;
};

}  // namespace

namespace {

// Under the lesson's line (left as it is), for a lesson with any answered question:
// "2/3 questions right" (or "✓ 3/3 …") and each question's state; nothing otherwise.
std::string progress_lines(const lessons::lesson_entry& e, const lessons::progress& p) {
    std::size_t right = 0, seen = 0;
    std::string each;
    for (std::size_t i = 0; i < e.exercise_ids.size(); ++i) {
        const auto s = p.of(e.exercise_ids[i]);
        right += s == lessons::question_state::right;
        seen += s != lessons::question_state::untried;
        each += fmt::format("  {} {}", i + 1,
                            s == lessons::question_state::right ? "✓" : s == lessons::question_state::tried ? "tried" : "·");
    }
    if (seen == 0) return "\n";
    const bool all = right == e.exercise_ids.size();
    return fmt::format("\n      {}{}/{} questions right:{}\n", all ? "✓ " : "", right, e.exercise_ids.size(), each);
}

void print_lessons(const trace::style& st) {
    const std::string path = lessons::progress_path();
    const lessons::progress_load saved = lessons::load_progress(path);
    if (!saved.problem.empty())
        std::cerr << io::terminal_safe_text("attn: progress file " + path + " ignored: " + saved.problem) << "\n";
    std::string out;
    for (const auto& e : lessons::list_lessons(lessons::lessons_dir()))
        out += (e.number < 10 ? " " : "") + std::to_string(e.number) + "  " + io::terminal_safe(e.title) +
               progress_lines(e, saved.p);
    print_fitted(out, st);
}

}  // namespace

void print_lesson_list() { print_lessons(make_style(layout_options{})); }

namespace {

// `attn lesson 4` is lesson 4 of the lessons folder (or the built-in ones);
// `attn lesson my/15-rope.toml` is that file, whatever its folder.
std::string lesson_path(const std::string& which) {
    const bool is_file = which.size() > 5 && which.compare(which.size() - 5, 5, ".toml") == 0;
    if (is_file) return which;
    const bool is_number = !which.empty() && which.size() <= 4 &&
                           which.find_first_not_of("0123456789") == std::string::npos && std::stoi(which) > 0;
    if (!is_number)
        throw attn::error(attn::source_pos{"N"}, "give a lesson number or a lesson file (.toml), not '" + which +
                                            "'; `attn lessons` lists them");
    return lessons::find_lesson(lessons::lessons_dir(), std::stoi(which));
}

void run_lesson(const lesson_options& o) {
    const lessons::lesson l = lessons::load_lesson(lesson_path(o.which));
    const trace::style st = make_style(o.layout);
    if (!o.token.empty()) {
        if (o.step_given)
            throw attn::error("--step and --token do not go together: --token traces one query of the "
                                        "whole run; leave out --step (or --token to walk the steps)");
        print_fitted(lessons::render_token_trace(l, o.token, o.run, st), st);
        return;
    }
    if (!o.run.empty()) throw attn::error("--run only applies together with --token");
    const bool interactive = !o.no_pause && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    if (interactive) return view_lesson(l, o.layout, o.step_given ? o.step : 0, o.pager && !o.no_pager);
    lessons::render_options ro;  // a file, a pipe or --no-pause: everything at once
    ro.style = st;
    ro.first_step = o.step;
    lessons::render_lesson(l, std::cout, ro);
}

void run_check(const lesson_options& o, const layout_options& layout) {
    // With --width every line fits it; without, a problem stays one `file:line:col: …` line
    // (editors and scripts read them), whatever the terminal.
    const std::size_t width = layout.width ? make_style(layout).width : std::string::npos;
    int bad = 0;
    for (const auto& file : o.check_files) {
        auto problems = lessons::check_lesson_file(file);
        if (problems.empty()) grade::read_exercises(lessons::load_lesson(file), problems);  // what grade will refuse (issue 18)
        if (problems.empty()) {
            const lessons::lesson l = lessons::load_lesson(file);
            std::cout << trace::fit_lines(io::terminal_safe(file) + ": ok (lesson " + std::to_string(l.number) + ", " +
                                              std::to_string(l.steps.size()) + " steps, " +
                                              std::to_string(l.exercises.size()) + " exercises)\n",
                                          width);
            continue;
        }
        for (const auto& p : problems) std::cerr << trace::fit_lines(io::terminal_safe_text(p.str()) + "\n", width);
        std::cerr << trace::fit_lines(io::terminal_safe(file) + ": " + std::to_string(problems.size()) +
                                          (problems.size() == 1 ? " problem" : " problems") + "\n",
                                      width);
        ++bad;
    }
    if (bad) throw exit_request{2};
}

}  // namespace

void setup_lessons(CLI::App& app) {
    auto* sub = app.add_subcommand(
        "lessons", "List the numbered lessons with their titles, and the questions answered right in each");
    auto layout = std::make_shared<layout_options>();
    add_layout_options(*sub, *layout, false);
    sub->callback([layout] { print_lessons(make_style(*layout)); });
}

void setup_lesson(CLI::App& app) {
    auto opt = std::make_shared<lesson_options>();
    auto* sub = app.add_subcommand("lesson", "Run lesson N step by step (pauses only on a terminal)");
    sub->footer("On a terminal the prompt line names the keys: Enter or n next page (the intro, each step, then\n"
                "the recap and questions); a tall step scrolls with Space, PgDn, Down or j and PgUp, Up or k\n"
                "(Home, End); p or b back; a step number then Enter jumps; a answers the lesson's questions\n"
                "(graded at once, a hint after a wrong try, s for the worked solution; progress kept in\n"
                "$XDG_STATE_HOME/attn/progress.toml); ? lists the keys; q quits (on the last step: the recap\n"
                "first). A resize redraws the page at the new width.");
    sub->add_option("N", opt->which, "Lesson number (see `attn lessons`), or a lesson file (path ending in .toml)");
    sub->add_option("--step", opt->step, "Start at step K (steps count from 1)");
    sub->add_flag("--no-pause", opt->no_pause, "Never wait for Enter between steps");
    sub->add_flag("--pager", opt->pager,
                  "Show steps taller than the screen through $PAGER (less -FRX) instead of scrolling them in the viewer");
    sub->add_flag("--no-pager", opt->no_pager, "Never use $PAGER (the default: tall steps scroll in the viewer)");
    add_layout_options(*sub, opt->layout);
    sub->add_option("--token", opt->token,
                    "Trace one query token of the lesson's main run (its text or 0-based index)");
    sub->add_option("--run", opt->run, "With --token: trace this run of the lesson instead of the main one");
    auto* check = sub->add_subcommand("check", "Validate lesson files; report every problem as file:line:col");
    check->add_option("FILE", opt->check_files, "Lesson files")->required();
    auto check_layout = std::make_shared<layout_options>();
    add_layout_options(*check, *check_layout, false);
    check->callback([opt, check_layout] { run_check(*opt, *check_layout); });
    sub->callback([opt, sub] {
        if (sub->got_subcommand("check")) return;
        if (opt->which.empty()) throw attn::error(attn::source_pos{"N"}, "give a lesson number; `attn lessons` lists them");
        opt->step_given = sub->count("--step") > 0;
        run_lesson(*opt);
    });
}

}  // namespace attn::cli
