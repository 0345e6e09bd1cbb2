// io/temp_registry.cpp — see temp_registry.hpp.
#include "io/temp_registry.hpp"

#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <mutex>

#include <unistd.h>

namespace attn::io {

namespace {

constexpr int slots = 256;
constexpr std::size_t max_path = 4096;

struct slot_entry {
    std::atomic<int> state{0};  // 0 free, 1 being filled, 2 a file, 3 a directory
    char path[max_path];
};

slot_entry table[slots];
std::once_flag handlers_once;

void remove_all_live(int kind) {
    for (int k = slots - 1; k >= 0; --k)
        if (table[k].state.load(std::memory_order_acquire) == kind) {
            if (kind == 2) ::unlink(table[k].path);
            else ::rmdir(table[k].path);
        }
}

extern "C" void on_stop_signal(int sig) {
    remove_live_temps();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

void remove_live_temps() noexcept {
    remove_all_live(2);  // files first, then the (now empty) directories
    remove_all_live(3);
}

void install_temp_cleanup_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
        struct sigaction old {};
        ::sigaction(sig, nullptr, &old);
        if (old.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
}

void ensure_temp_cleanup_handlers() { std::call_once(handlers_once, install_temp_cleanup_handlers); }

int track_temp(const std::string& path, bool is_dir) {
    ensure_temp_cleanup_handlers();
    if (path.size() >= max_path) return -1;
    for (int k = 0; k < slots; ++k) {
        int expected = 0;
        if (table[k].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
            std::memcpy(table[k].path, path.c_str(), path.size() + 1);
            table[k].state.store(is_dir ? 3 : 2, std::memory_order_release);
            return k;
        }
    }
    return -1;
}

void untrack_temp(int slot) {
    if (slot >= 0 && slot < slots) table[slot].state.store(0, std::memory_order_release);
}

}  // namespace attn::io
