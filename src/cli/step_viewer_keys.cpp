// cli/step_viewer_keys.cpp — see step_viewer_keys.hpp. The terminal is touched in
// three places only: raw mode around one key read, the window size, and the pager.
#include "cli/step_viewer_keys.hpp"

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

namespace attn::cli::viewer {

namespace {

// The terminal's settings before raw mode, restored by every way out.
termios saved_terminal;
volatile std::sig_atomic_t in_raw_mode = 0;
volatile std::sig_atomic_t resized = 0;  // set by SIGWINCH; the prompt redraws the page at the new width

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

// Raw mode for the life of one key read (TCSANOW: keys typed ahead are kept):
// no line buffering, no echo; Ctrl-C still sends SIGINT (ISIG kept), which
// restores the terminal on its way.
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

// One byte, waiting at most `ms` milliseconds (-1: until one comes); -1 at
// timeout, -2 at end of input.
int byte_within(int ms) {
    for (;;) {
        pollfd in{STDIN_FILENO, POLLIN, 0};
        const int r = poll(&in, 1, ms);
        if (r < 0 && errno == EINTR) {
            if (resized) return -1;
            continue;
        }
        if (r <= 0) return -1;
        unsigned char c = 0;
        const ssize_t got = read(STDIN_FILENO, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got != 1) return -2;
        return c;
    }
}

// After ESC: "[A" ↑, "[B" ↓, "[5~" PgUp, "[6~" PgDn, "[H" / "[1~" / "OH" Home,
// "[F" / "[4~" / "OF" End. Anything else (a bare ESC) is ignored.
bool escape_sequence(action& out) {
    const int intro = byte_within(50);
    if (intro != '[' && intro != 'O') return false;
    std::string rest;
    for (int c; rest.size() < 6 && (c = byte_within(50)) >= 0;) {
        rest += static_cast<char>(c);
        if (std::isalpha(c) || c == '~') break;
    }
    if (rest == "A") out = action::line_up;
    else if (rest == "B") out = action::line_down;
    else if (rest == "5~") out = action::page_up;
    else if (rest == "6~") out = action::more;
    else if (rest == "H" || rest == "1~" || rest == "7~") out = action::home;
    else if (rest == "F" || rest == "4~" || rest == "8~") out = action::end;
    else return false;
    return true;
}

// The one-key commands (no step number being typed).
bool letter(int c, action& out) {
    switch (c) {
        case ' ': case 'f': out = action::more; return true;
        case 'n': case 'N': out = action::next; return true;
        case 'j': out = action::line_down; return true;
        case 'k': out = action::line_up; return true;
        case 'u': out = action::page_up; return true;
        case 'g': out = action::home; return true;
        case 'G': out = action::end; return true;
        case 'p': case 'P': case 'b': case 'B': out = action::back; return true;
        case 'a': case 'A': out = action::answer; return true;
        case '?': out = action::help; return true;
        default: return false;
    }
}

}  // namespace

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

// The prompt is printed once raw mode is on, so a key typed as soon as the
// prompt shows is read as a key. A resize that lands between the prompt and the
// read must not wait for a key: the flag is looked at before every wait.
command read_command(const std::string& prompt) {
    raw_mode raw;
    std::cout << prompt << std::flush;
    std::string digits;
    for (;;) {
        if (resized) {
            resized = 0;
            return {action::redraw};
        }
        const int c = byte_within(200);
        if (c == -1) continue;
        if (c == -2 || c == 'q' || c == 'Q' || c == 4) return {action::quit};  // 4: Ctrl-D in raw mode
        action a{};
        if (std::isdigit(c) && digits.size() < 4) {
            digits += static_cast<char>(c);
            std::cout << static_cast<char>(c) << std::flush;
        } else if (c == '\r' || c == '\n') {
            if (!digits.empty()) return {action::jump, std::stoi(digits)};
            return {action::next};
        } else if ((c == 127 || c == 8) && !digits.empty()) {
            digits.pop_back();
            std::cout << "\b \b" << std::flush;
        } else if (c == 27 && escape_sequence(a)) {
            return {a};
        } else if (digits.empty() && letter(c, a)) {
            return {a};
        }  // anything else is ignored
    }
}

std::size_t screen_rows() {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) return ws.ws_row;
    return 24;
}

// While the pager runs, Ctrl-C is the pager's business, not ours.
bool through_pager(const std::string& text) {
    const char* env = std::getenv("PAGER");
    const std::string pager = env ? env : "less -FRX";
    if (pager.empty()) return false;
    std::cout << std::flush;
    struct sigaction ignore {}, old_int {}, old_pipe {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGPIPE, &ignore, &old_pipe);
    bool ok = false;
    if (FILE* p = popen(pager.c_str(), "w")) {
        std::fwrite(text.data(), 1, text.size(), p);
        const int status = pclose(p);
        ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGPIPE, &old_pipe, nullptr);
    resized = 0;  // a resize while the pager ran was the pager's to follow; redrawing would reopen it
    return ok;
}

}  // namespace attn::cli::viewer
