// cli/main.cpp — the front door: registers the verbs and maps failures to exit codes
// (one mapping: an attn::error carries its own code, core/error.hpp).
#include <filesystem>
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "attn_version.hpp"
#include "cli/examples.hpp"
#include "cli/verbs.hpp"
#include "core/heap_tuning.hpp"
#include "io/stdout_check.hpp"
#include "io/terminal_safe.hpp"
#include "lessons/lesson_loader.hpp"

namespace {

int run_main(int argc, char** argv) {
    attn::keep_freed_heap();  // before any allocation worth keeping (core/heap_tuning.hpp)
    CLI::App app{"attn — the attention mechanism of Transformers, computed in the open", "attn"};
    app.require_subcommand(0, 1);
    app.set_version_flag("--version", std::string("attn ") + ATTN_VERSION_STRING, "Print the version and exit");
    // Accepted before or after the verb: the verbs fall through to these options.
    app.fallthrough();
    app.add_option_function<std::string>(
        "--lessons", [](const std::string& dir) { attn::lessons::set_lessons_dir(dir); },
        "Read the lessons from DIR instead of the ones built into attn (also $ATTN_LESSONS_DIR)");
    attn::cli::setup_lessons(app);
    attn::cli::setup_lesson(app);
    attn::cli::setup_trace(app);
    attn::cli::setup_examples(app);
    attn::cli::setup_shapes(app);
    attn::cli::setup_exercise(app);
    attn::cli::setup_grade(app);
    attn::cli::setup_model(app);
    attn::cli::setup_course(app);
    try {
        attn::cli::check_verbs(app, argc, argv);  // "did you mean" for a mistyped verb
        app.parse(argc, argv);
        if (app.get_subcommands().empty()) {
            std::cout << app.help() << "\n";
            attn::cli::print_lesson_list();
        }
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return 2;
    } catch (const attn::error& e) {  // every attn error: its message (it quotes file data) and its code
        if (*e.what()) std::cerr << "attn: " << attn::io::terminal_safe_text(e.what()) << "\n";
        return e.exit_code();
    } catch (const std::filesystem::filesystem_error& e) {  // a user's path: unreadable, a link loop, …
        std::string what = e.path1().empty() ? std::string("a file") : e.path1().string();
        std::cerr << "attn: " << attn::io::terminal_safe_text(what + ": " + e.code().message()) << "\n";
        return 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "attn: out of memory: an input is larger than this machine can hold\n";
        return 2;
    } catch (const std::exception& e) {  // last resort: not an attn::error, so a broken promise of attn's own
        std::cerr << "attn: internal error: " << attn::io::terminal_safe_text(e.what())
                  << " (please report it; exit 70)\n";
        return 70;
    }
    return 0;
}

}  // namespace

// A full disk on standard output is an error (exit 2), not a truncated success.
int main(int argc, char** argv) { return attn::io::finish_stdout(run_main(argc, argv)); }
