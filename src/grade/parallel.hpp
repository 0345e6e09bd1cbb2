// grade/parallel.hpp — body(0 … n−1) on every core: the class's submissions and the copy
// index's variants are independent of each other. Results go into slots the caller owns,
// so the output does not depend on the number of threads; the first exception thrown
// by any call is rethrown to the caller once every thread has stopped.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace attn::grade {

// Every core, or ATTN_GRADE_THREADS (a positive number; bench/ times 1 against all).
inline std::size_t grading_threads() {
    const char* env = std::getenv("ATTN_GRADE_THREADS");
    const long asked = env ? std::strtol(env, nullptr, 10) : 0;
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

}  // namespace attn::grade
