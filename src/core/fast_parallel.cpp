// core/fast_parallel.cpp — the row pool: workers poll for spin_us after a run, then
// sleep on a condition variable; slice i of n rows is [i·n/t, (i+1)·n/t), taken by
// whichever thread comes first (the ticket).
#include "core/fast_parallel.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace attn {

namespace {

using spin_clock = std::chrono::steady_clock;

inline void cpu_relax() {
#if defined(__x86_64__)
    _mm_pause();
#endif
}

// Polls `ready` for up to spin_us; true once it holds.
template <class Ready>
bool spin_until(unsigned spin_us, Ready ready) {
    if (spin_us == 0) return ready();
    const auto deadline = spin_clock::now() + std::chrono::microseconds(spin_us);
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (ready()) return true;
            cpu_relax();
        }
        if (spin_clock::now() >= deadline) return ready();
    }
}

}  // namespace

row_pool::row_pool(unsigned threads, unsigned spin_us) : spin_us_(spin_us) {
    // A slice number lives in the ticket's low bits: at most 2^16 − 1 threads.
    const unsigned extra = threads > 1 ? std::min(threads, (1u << ticket_bits) - 1) - 1 : 0;
    workers_.reserve(extra);
    for (unsigned i = 0; i < extra; ++i) workers_.emplace_back([this] { worker_loop(); });
}

row_pool::~row_pool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void row_pool::run(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
    const std::size_t t = threads();
    if (t == 1 || n < 2) {
        if (n > 0) body(0, n);
        return;
    }
    std::uint64_t generation = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        body_ = &body;
        n_ = n;
        finished_.store(0, std::memory_order_relaxed);
        generation = (ticket_.load(std::memory_order_relaxed) >> ticket_bits) + 1;
        ticket_.store(generation << ticket_bits, std::memory_order_release);  // a polling worker starts here
    }
    wake_.notify_all();  // no syscall when every worker is still polling
    take_slices(generation);
    // Every slice is taken: wait for the ones workers are still running.
    const auto all_done = [this, t] { return finished_.load(std::memory_order_acquire) == t; };
    if (!spin_until(spin_us_, all_done)) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, all_done);
    }
    body_ = nullptr;
}

void row_pool::take_slices(std::uint64_t generation) {
    const std::uint64_t t = threads();
    for (;;) {
        std::uint64_t ticket = ticket_.load(std::memory_order_acquire);
        do {  // the run is over (a later generation) or every slice taken: nothing left here
            if (ticket >> ticket_bits != generation || (ticket & ((1u << ticket_bits) - 1)) >= t) return;
        } while (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel,
                                                std::memory_order_acquire));
        // Slice taken: the run cannot end before it is counted, so body_ and n_ are this run's.
        const std::uint64_t slice = ticket & ((1u << ticket_bits) - 1);
        const std::size_t n = n_, begin = slice * n / t, end = (slice + 1) * n / t;
        if (begin < end) (*body_)(begin, end);
        if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == t) {
            std::lock_guard<std::mutex> lock(mutex_);  // the caller checks finished_ under it before sleeping
            done_.notify_one();
        }
    }
}

bool row_pool::wait_for_run(std::uint64_t& seen) {
    auto fresh = [&] {
        return stop_.load(std::memory_order_acquire) ||
               ticket_.load(std::memory_order_acquire) >> ticket_bits != seen;
    };
    if (!spin_until(spin_us_, fresh)) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, fresh);
    }
    if (stop_.load()) return false;
    seen = ticket_.load(std::memory_order_acquire) >> ticket_bits;
    return true;
}

void row_pool::worker_loop() {
    std::uint64_t seen = 0;
    while (wait_for_run(seen)) take_slices(seen);
}

bool run_on_shared_pool(unsigned threads, std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
    static std::mutex busy;
    static std::unique_ptr<row_pool> pool;
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    if (!pool || pool->threads() != threads) pool = std::make_unique<row_pool>(threads, 50);
    pool->run(n, body);
    return true;
}

}  // namespace attn
