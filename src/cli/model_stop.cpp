// cli/model_stop.cpp — Ctrl-C in the forward-running model verbs (see model_stop.hpp).
#include "cli/model_stop.hpp"

#include <csignal>

#include <unistd.h>

#include "io/temp_registry.hpp"
#include "model/stop_request.hpp"

namespace attn::cli {

namespace {

constexpr unsigned model_stop_deadline_s = 1;  // from the first SIGINT to the end of the process

// The deadline, or a second Ctrl-C: end now, as the graceful path would have (only
// async-signal-safe calls: unlink/rmdir, write, _exit).
extern "C" void model_stop_now(int) {
    io::remove_live_temps();
    static const char said[] = "attn: stopped by a signal (Ctrl-C)\n";
    const ssize_t wrote = ::write(STDERR_FILENO, said, sizeof said - 1);
    (void)wrote;
    ::_exit(130);
}

extern "C" void model_stop_on_interrupt(int sig) {
    if (model::stop_requested()) model_stop_now(sig);  // asked twice: do not wait
    model::request_stop();
    ::alarm(model_stop_deadline_s);
}

void model_stop_install(int sig, void (*handler)(int)) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
}

}  // namespace

void stop_on_interrupt() {
    io::ensure_temp_cleanup_handlers();  // first, so no later output's temp file replaces ours
    struct sigaction old {};
    ::sigaction(SIGINT, nullptr, &old);
    if (old.sa_handler == SIG_IGN) return;
    model_stop_install(SIGALRM, model_stop_now);
    model_stop_install(SIGINT, model_stop_on_interrupt);
}

}  // namespace attn::cli
