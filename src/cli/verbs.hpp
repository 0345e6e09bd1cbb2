// cli/verbs.hpp — one setup_x per verb; each verb lives in its own cli/x.cpp.
// Exit codes: 0 success, 1 a check failed, 2 bad input or usage.
#pragma once

#include "core/error.hpp"

namespace CLI {
class App;
}

namespace attn::cli {

void setup_lessons(CLI::App& app);
void setup_lesson(CLI::App& app);
void setup_trace(CLI::App& app);     // cli/trace.cpp    (trace your own matrices)
void setup_shapes(CLI::App& app);    // cli/shapes.cpp   (shape tables)
void setup_exercise(CLI::App& app);  // cli/exercise.cpp (exercise list|show|template)
void setup_grade(CLI::App& app);     // cli/grade.cpp    (grade submissions)
void setup_model(CLI::App& app);     // cli/model.cpp    (real models; sub-verbs in cli/model_*.cpp)
void setup_course(CLI::App& app);    // cli/course.cpp   (the teacher's set-up: course secret)

// Refuses a mistyped verb or sub-verb with the closest one ("did you mean"), before
// CLI11 parses (cli/verb_hint.cpp); throws attn::error (exit 2).
void check_verbs(const CLI::App& app, int argc, const char* const* argv);

// The numbered lessons with titles (what `attn lessons` prints).
void print_lesson_list();

// Returned by verbs through this exception so main() owns the process exit
// (core/error.hpp: an attn::error with an exit code and nothing to print).
using attn::exit_request;

}  // namespace attn::cli
