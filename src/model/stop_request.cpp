// model/stop_request.cpp — the stop flag (see stop_request.hpp).
#include "model/stop_request.hpp"

#include <atomic>

namespace attn::model {

namespace {
std::atomic<bool> stop_flag{false};
std::atomic<int> stop_deferrals{0};  // live stop_deferred scopes
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
}  // namespace

void request_stop() noexcept { stop_flag.store(true, std::memory_order_relaxed); }
bool stop_requested() noexcept { return stop_flag.load(std::memory_order_relaxed); }
bool stop_pending() noexcept {
    return stop_flag.load(std::memory_order_relaxed) && stop_deferrals.load(std::memory_order_relaxed) == 0;
}
void check_stop() {
    if (stop_pending()) throw stopped();
}

stop_deferred::stop_deferred() noexcept { stop_deferrals.fetch_add(1, std::memory_order_relaxed); }
stop_deferred::~stop_deferred() { stop_deferrals.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace attn::model
