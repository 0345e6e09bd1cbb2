// core/parallel_for.hpp — body(0 … n−1) spread over threads, for independent items
// (a class's submissions, the copy index's variants). Unlike row_pool
// (core/fast_parallel.hpp), which keeps its workers for many short runs of contiguous
// rows, this starts its threads per call, hands out one item at a time (items differ
// in cost) and carries exceptions: the first one thrown by any call is rethrown to the
// caller once every thread has stopped. Results go into slots the caller owns, so the
// output does not depend on the number of threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace attn {

// Every core, or the number in the environment variable `env` (a positive number;
// bench/ times 1 against all).
inline std::size_t threads_from_env(const char* env) {
    const char* asked_text = std::getenv(env);
    const long asked = asked_text ? std::strtol(asked_text, nullptr, 10) : 0;
    if (asked > 0 && asked <= 1024) return static_cast<std::size_t>(asked);
    return std::max(1u, std::thread::hardware_concurrency());
}

template <class Body>
void parallel_for(std::size_t n, std::size_t threads, const Body& body) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr failed;
    std::mutex m;
    auto work = [&] {
        for (std::size_t i; (i = next++) < n;) {
            try {
                body(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(m);
                if (!failed) failed = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < std::min(threads, n); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (failed) std::rethrow_exception(failed);
}

}  // namespace attn
