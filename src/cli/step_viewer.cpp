// cli/step_viewer.cpp — see step_viewer.hpp. The terminal is touched in three
// places only: raw mode around one key read, the window size, and the pager.
#include "cli/step_viewer.hpp"

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli/practice.hpp"
#include "lessons/lesson_render.hpp"

namespace attn::cli {

namespace {

// The terminal's settings before raw mode, restored by every way out.
termios saved_terminal;
volatile std::sig_atomic_t in_raw_mode = 0;
volatile std::sig_atomic_t resized = 0;  // set by SIGWINCH; the prompt redraws the step at the new width

void restore_terminal() {
    if (in_raw_mode) {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_terminal);
        in_raw_mode = 0;
    }
}

// Async-signal-safe: restore, then die of the same signal as if never caught.
void restore_and_reraise(int sig) {
    restore_terminal();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void install_restorers() {
    static bool done = false;
    if (done) return;
    done = true;
    std::atexit(restore_terminal);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
        struct sigaction sa {};
        sa.sa_handler = restore_and_reraise;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
    struct sigaction winch {};  // no SA_RESTART: a resize interrupts the key read
    winch.sa_handler = [](int) { resized = 1; };
    sigemptyset(&winch.sa_mask);
    sigaction(SIGWINCH, &winch, nullptr);
}

// Raw mode for the life of one key read (TCSANOW: keys typed ahead are kept):
// no line buffering, no echo; Ctrl-C
// still sends SIGINT (ISIG kept), which restores the terminal on its way.
struct raw_mode {
    raw_mode() {
        if (tcgetattr(STDIN_FILENO, &saved_terminal) != 0) return;
        termios raw = saved_terminal;
        raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        in_raw_mode = 1;
        tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    ~raw_mode() { restore_terminal(); }
    raw_mode(const raw_mode&) = delete;
    raw_mode& operator=(const raw_mode&) = delete;
};

enum class action { next, back, jump, help, quit, answer, redraw };

struct command {
    action what;
    int step = 0;  // for jump
};

// The prompt is printed once raw mode is on, so a key typed as soon as the
// prompt shows is read as a key.
command read_command(const std::string& prompt) {
    raw_mode raw;
    std::cout << prompt << std::flush;
    std::string digits;
    for (;;) {
        // A resize that lands between the prompt and the read must not wait for a
        // key: the flag is looked at before every wait, and the wait is short.
        if (resized) {
            resized = 0;
            return {action::redraw};
        }
        pollfd in{STDIN_FILENO, POLLIN, 0};
        if (poll(&in, 1, 200) <= 0) continue;  // timeout, or EINTR from SIGWINCH
        unsigned char c = 0;
        const ssize_t got = read(STDIN_FILENO, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got != 1) return {action::quit};  // end of input
        if (c == 'q' || c == 'Q' || c == 4) return {action::quit};  // 4: Ctrl-D, end of input in raw mode
        if (std::isdigit(c) && digits.size() < 4) {
            digits += static_cast<char>(c);
            std::cout << c << std::flush;
        } else if (c == '\r' || c == '\n') {
            if (!digits.empty()) return {action::jump, std::stoi(digits)};
            return {action::next};
        } else if ((c == 127 || c == 8) && !digits.empty()) {
            digits.pop_back();
            std::cout << "\b \b" << std::flush;
        } else if (digits.empty() && (c == ' ' || c == 'n' || c == 'N')) {
            return {action::next};
        } else if (digits.empty() && (c == 'p' || c == 'P' || c == 'b' || c == 'B')) {
            return {action::back};
        } else if (digits.empty() && (c == 'a' || c == 'A')) {
            return {action::answer};
        } else if (c == '?') {
            return {action::help};
        }  // anything else (arrows, other letters) is ignored
    }
}

std::size_t screen_rows() {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) return ws.ws_row;
    return 24;
}

std::size_t line_count(const std::string& text) {
    std::size_t n = 0;
    for (char c : text) n += c == '\n';
    return n;
}

// A screenful or less is printed; more goes through the pager, as git does.
// While the pager runs, Ctrl-C is the pager's business, not ours.
void show(const std::string& text, bool use_pager) {
    const char* env = std::getenv("PAGER");
    const std::string pager = env ? env : "less -FRX";
    if (!use_pager || pager.empty() || line_count(text) + 2 <= screen_rows()) {
        std::cout << text << std::flush;
        return;
    }
    std::cout << std::flush;
    struct sigaction ignore {}, old_int {}, old_pipe {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGPIPE, &ignore, &old_pipe);
    FILE* p = popen(pager.c_str(), "w");
    if (p) {
        std::fwrite(text.data(), 1, text.size(), p);
        pclose(p);
    } else {
        std::cout << text << std::flush;
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGPIPE, &old_pipe, nullptr);
    resized = 0;  // a resize while the pager ran was the pager's to follow; redrawing would reopen it
}

const char* const key_help =
    "\nkeys: Enter, Space or n  next step\n"
    "      p or b             previous step\n"
    "      a number, Enter    go to that step\n"
    "      a                  answer the lesson's questions (graded at once)\n"
    "      q                  quit (at once)\n"
    "      ?                  this list\n";

}  // namespace

namespace {

// The step k as shown: the header (and intro before step 1) when opening, the
// questions after the last step.
std::string step_text(const lessons::lesson& l, int k, bool opening, const trace::style& st) {
    const int total = static_cast<int>(l.steps.size());
    std::string text = opening ? lessons::render_lesson_header(l, st) + (k == 1 ? lessons::render_intro(l, st) : "") : "";
    text += lessons::render_step(l, k, st);
    if (k == total) text += lessons::render_questions(l, st);
    return text;
}

// What the prompt line offers: every key a student needs is named on it.
// Below 70 columns the short form (55 columns) keeps it on one line.
std::string prompt_line(const lessons::lesson& l, int k, std::size_t width) {
    const int total = static_cast<int>(l.steps.size());
    const bool answers = !l.exercises.empty();
    if (width < 70)
        return fmt::format("\n[{}/{} · Enter next · p back{} · ? keys · q quit] ", k, total, answers ? " · a answer" : "");
    return fmt::format("\n[step {}/{} · Enter: next · p: back{} · ?: keys · q: quit] ", k, total, answers ? " · a: answer" : "");
}

}  // namespace

void view_lesson(const lessons::lesson& l, const layout_options& layout, int first_step, bool use_pager) {
    const int total = static_cast<int>(l.steps.size());
    trace::style st = make_style(layout);
    (void)lessons::render_step(l, first_step, st);  // a bad --step fails before anything is shown
    install_restorers();
    int k = first_step;
    bool opening = true;
    for (;;) {
        show(step_text(l, k, opening, st), use_pager);
        opening = false;
        for (bool moved = false; !moved;) {
            const command c = read_command(prompt_line(l, k, st.width));
            std::cout << "\n";
            switch (c.what) {
                case action::quit:
                    std::cout << fmt::format("stopped after step {} of {}; go on later with `attn lesson {} --step {}`\n",
                                             k, total, l.number, k < total ? k + 1 : k);
                    return;
                case action::help: std::cout << key_help; break;
                case action::answer: practise_questions(l, st); break;
                case action::redraw:  // the terminal changed size: the same step at the new width
                    st = make_style(layout);
                    moved = true;
                    break;
                case action::next:
                    if (k == total) {
                        std::cout << fmt::format("end of lesson {:02d}\n", l.number);
                        return;
                    }
                    ++k;
                    moved = true;
                    break;
                case action::back:
                    if (k == 1) std::cout << "this is step 1\n";
                    else {
                        --k;
                        moved = true;
                    }
                    break;
                case action::jump:
                    if (c.step < 1 || c.step > total) std::cout << fmt::format("no step {}: steps are 1..{}\n", c.step, total);
                    else {
                        k = c.step;
                        moved = true;
                    }
                    break;
            }
        }
    }
}

}  // namespace attn::cli
