// cli/lesson.cpp — `attn lessons`, `attn lesson N|FILE.toml [--step K] [--no-pause]
// [--color ...] [--token T [--run R]]` and `attn lesson check FILE...`.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "cli/layout.hpp"
#include "cli/step_viewer.hpp"
#include "cli/verbs.hpp"
#include "io/terminal_safe.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"

namespace attn::cli {

namespace {

struct lesson_options {
    std::string which;  // "4" (a lesson number) or a path ending in .toml
    int step = 1;
    bool step_given = false;
    bool no_pause = false;
    bool no_pager = false;
    layout_options layout;
    std::string token;
    std::string run;
    std::vector<std::string> check_files;
};

}  // namespace

void print_lesson_list() {
    for (const auto& e : lessons::list_lessons(lessons::lessons_dir()))
        std::cout << (e.number < 10 ? " " : "") << e.number << "  " << io::terminal_safe(e.title) << "\n";
}

namespace {

// `attn lesson 4` is lesson 4 of the lessons folder (or the built-in ones);
// `attn lesson my/15-rope.toml` is that file, whatever its folder.
std::string lesson_path(const std::string& which) {
    const bool is_file = which.size() > 5 && which.compare(which.size() - 5, 5, ".toml") == 0;
    if (is_file) return which;
    const bool is_number = !which.empty() && which.size() <= 4 &&
                           which.find_first_not_of("0123456789") == std::string::npos && std::stoi(which) > 0;
    if (!is_number)
        throw CLI::ValidationError("N", "give a lesson number or a lesson file (.toml), not '" + which +
                                            "'; `attn lessons` lists them");
    return lessons::find_lesson(lessons::lessons_dir(), std::stoi(which));
}

void run_lesson(const lesson_options& o) {
    const lessons::lesson l = lessons::load_lesson(lesson_path(o.which));
    const trace::style st = make_style(o.layout);
    if (!o.token.empty()) {
        if (o.step_given)
            throw std::invalid_argument("--step and --token do not go together: --token traces one query of the "
                                        "whole run; leave out --step (or --token to walk the steps)");
        print_fitted(lessons::render_token_trace(l, o.token, o.run, st), st);
        return;
    }
    if (!o.run.empty()) throw std::invalid_argument("--run only applies together with --token");
    const bool interactive = !o.no_pause && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    if (interactive) return view_lesson(l, st, o.step, !o.no_pager);
    lessons::render_options ro;  // a file, a pipe or --no-pause: everything at once
    ro.style = st;
    ro.first_step = o.step;
    lessons::render_lesson(l, std::cout, ro);
}

void run_check(const lesson_options& o) {
    int bad = 0;
    for (const auto& file : o.check_files) {
        const auto problems = lessons::check_lesson_file(file);
        if (problems.empty()) {
            const lessons::lesson l = lessons::load_lesson(file);
            std::cout << io::terminal_safe(file) << ": ok (lesson " << l.number << ", " << l.steps.size() << " steps, "
                      << l.exercises.size() << " exercises)\n";
            continue;
        }
        for (const auto& p : problems) std::cerr << io::terminal_safe_text(p.str()) << "\n";
        std::cerr << io::terminal_safe(file) << ": " << problems.size() << (problems.size() == 1 ? " problem" : " problems") << "\n";
        ++bad;
    }
    if (bad) throw exit_request{2};
}

}  // namespace

void setup_lessons(CLI::App& app) {
    auto* sub = app.add_subcommand("lessons", "List the numbered lessons with their titles");
    sub->callback(print_lesson_list);
}

void setup_lesson(CLI::App& app) {
    auto opt = std::make_shared<lesson_options>();
    auto* sub = app.add_subcommand("lesson", "Run lesson N step by step (pauses only on a terminal)");
    sub->add_option("N", opt->which, "Lesson number (see `attn lessons`), or a lesson file (path ending in .toml)");
    sub->add_option("--step", opt->step, "Start at step K (steps count from 1)");
    sub->add_flag("--no-pause", opt->no_pause, "Never wait for Enter between steps");
    sub->add_flag("--no-pager", opt->no_pager, "Print tall steps directly instead of through $PAGER (less -FRX)");
    add_layout_options(*sub, opt->layout);
    sub->add_option("--token", opt->token,
                    "Trace one query token of the lesson's main run (its text or 0-based index)");
    sub->add_option("--run", opt->run, "With --token: trace this run of the lesson instead of the main one");
    auto* check = sub->add_subcommand("check", "Validate lesson files; report every problem as file:line:col");
    check->add_option("FILE", opt->check_files, "Lesson files")->required();
    check->callback([opt] { run_check(*opt); });
    sub->callback([opt, sub] {
        if (sub->got_subcommand("check")) return;
        if (opt->which.empty()) throw CLI::ValidationError("N", "give a lesson number; `attn lessons` lists them");
        opt->step_given = sub->count("--step") > 0;
        run_lesson(*opt);
    });
}

}  // namespace attn::cli
