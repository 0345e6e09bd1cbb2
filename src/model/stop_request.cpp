// model/stop_request.cpp — the stop flag (see stop_request.hpp).
#include "model/stop_request.hpp"

#include <atomic>

namespace attn::model {

namespace {
std::atomic<bool> requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
}  // namespace

void request_stop() noexcept { requested.store(true, std::memory_order_relaxed); }
bool stop_requested() noexcept { return requested.load(std::memory_order_relaxed); }
void check_stop() {
    if (stop_requested()) throw stopped();
}

}  // namespace attn::model
