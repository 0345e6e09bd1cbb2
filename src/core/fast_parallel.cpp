// core/fast_parallel.cpp — the row pool: workers poll for spin_us after a run, then
// sleep on a condition variable; slice i of n rows is [i·n/t, (i+1)·n/t).
#include "core/fast_parallel.hpp"

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
    const unsigned extra = threads > 1 ? threads - 1 : 0;
    workers_.reserve(extra);
    for (unsigned i = 0; i < extra; ++i) workers_.emplace_back([this, i] { worker_loop(i + 1); });
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
    {
        std::lock_guard<std::mutex> lock(mutex_);
        body_ = &body;
        n_ = n;
        pending_.store(static_cast<unsigned>(workers_.size()));
        generation_.fetch_add(1, std::memory_order_release);  // a polling worker starts here
    }
    wake_.notify_all();  // no syscall when every worker is still polling
    body(0, n / t);
    if (!spin_until(spin_us_, [this] { return pending_.load(std::memory_order_acquire) == 0; })) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return pending_.load() == 0; });
    }
    body_ = nullptr;
}

bool row_pool::wait_for_run(unsigned long& seen) {
    auto fresh = [&] { return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen; };
    if (!spin_until(spin_us_, fresh)) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, fresh);
    }
    if (stop_.load()) return false;
    seen = generation_.load(std::memory_order_acquire);
    return true;
}

void row_pool::worker_loop(unsigned index) {
    unsigned long seen = 0;
    while (wait_for_run(seen)) {
        const auto* body = body_;  // written before generation_ was released
        const std::size_t n = n_, t = threads();
        const std::size_t begin = index * n / t, end = (index + 1) * n / t;
        if (begin < end) (*body)(begin, end);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(mutex_);  // the caller checks pending_ under it before sleeping
            done_.notify_one();
        }
    }
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
