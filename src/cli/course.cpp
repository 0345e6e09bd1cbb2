// cli/course.cpp — `attn course secret FILE`: a new course secret for per-student
// numbers, 256 random bits from libsodium (grade/secret.hpp), written through io's
// output writer (temp + rename; never over an existing file: a new secret changes
// every student's numbers) with owner-only permissions. Prints its fingerprint, the
// one teachers compare between hand-out and autograder.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/layout.hpp"
#include "cli/verbs.hpp"
#include "core/error.hpp"
#include "core/keyed_hash.hpp"
#include "grade/secret.hpp"
#include "grade/variant.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

namespace {

void run_course_secret(const std::string& path, std::size_t width) {
    std::error_code ec;
    if (!io::is_stdout(path) && std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found)
        throw attn::error(path + " exists: a new secret would change every student's numbers "
                                           "(remove the file first if that is what you want)");
    const std::string secret = grade::new_secret();
    io::output_writer(false, true).write_file(path, secret + "\n", io::existing::keep);
    if (!io::is_stdout(path)) {
        std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                     std::filesystem::perm_options::replace, ec);
        const std::string note = "wrote " + io::terminal_safe(path) + ": a course secret of " +
                         std::to_string(8 * grade::generated_secret_bytes) +
                         " random bits (keep it off the hand-out; only you and the autograder need it)\n"
                         "fingerprint: " + secret_fingerprint(secret) + "\n";
        std::cout << (width ? trace::fit_lines(note, width) : note);
    }
}

}  // namespace

void setup_course(CLI::App& app) {
    auto* course = app.add_subcommand("course", "The teacher's course set-up: `attn course secret FILE`");
    course->require_subcommand(1);
    auto path = std::make_shared<std::string>();
    auto width = std::make_shared<std::size_t>(0);
    auto* secret = course->add_subcommand("secret", "Write a new random course secret (256 bits) to FILE (- prints it)");
    secret->add_option("FILE", *path, "Where to write it; an existing file is never replaced")->required();
    add_width_option(*secret, *width);
    secret->callback([path, width] { run_course_secret(*path, *width); });
}

}  // namespace attn::cli
