// core/fast_parallel.hpp — a tiny persistent pool that splits a range of rows
// between the calling thread and a few workers. The fast forward uses it for the
// rows; threads live as long as the workspace that owns
// the pool, so a call pays a wake-up, never a thread start.
//
// A pool made with a spin time keeps its workers polling for that long after each
// run before they sleep: back-to-back calls (the heads of one layer, the rounds of a
// benchmark) then start on every thread at once instead of after a futex wake-up,
// which costs 20–60 µs on a VM — as long as a whole n = 512 head takes.
//
// A run's slices are taken, not handed out: each thread (the caller first) takes the
// next slice not yet taken, so a worker that has not woken when the caller is done
// with its own slice never holds the run up — the caller takes that slice too, and the
// late worker finds the run over. A slice's bounds depend on n and the pool's size
// only, never on which thread runs it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace attn {

class row_pool {
public:
    // threads = total threads working on a range, the caller included (≥ 1);
    // spin_us = how long an idle worker polls for the next run before it sleeps.
    explicit row_pool(unsigned threads, unsigned spin_us = 0);
    ~row_pool();
    row_pool(const row_pool&) = delete;
    row_pool& operator=(const row_pool&) = delete;

    unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Calls body(begin, end) on disjoint contiguous slices covering [0, n), one per
    // thread (slice i = [i·n/t, (i+1)·n/t)); returns when every slice is done. The
    // caller takes slices too, and every slice no worker has taken by then.
    void run(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

private:
    void worker_loop();
    bool wait_for_run(std::uint64_t& seen);  // false: stop
    void take_slices(std::uint64_t generation);  // runs slices of that run until none is left

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;   // workers sleep here for a new generation
    std::condition_variable done_;   // the caller sleeps here for finished_ == threads()
    const std::function<void(std::size_t, std::size_t)>* body_ = nullptr;
    std::size_t n_ = 0;
    unsigned spin_us_ = 0;
    // The run's ticket, generation << ticket_bits | the next slice not taken: a thread takes
    // slice s of run g by moving it from (g, s) to (g, s + 1). Written under mutex_ when a
    // run starts (the workers sleep on its generation), taken without it.
    static constexpr unsigned ticket_bits = 16;
    std::atomic<std::uint64_t> ticket_{0};
    std::atomic<unsigned> finished_{0};  // slices of the current run done
    std::atomic<bool> stop_{false};
};

// The process-wide pool of the products (core/matmul.cpp), the fast forward
// (core/fast_attention.cpp) and the model floor's fused attention (core/fast_fused.cpp):
// runs body over [0, n) on `threads` threads and returns true, or returns false at once
// when the pool is busy (another thread's call, or a call from inside the pool): the
// caller then runs the work alone. Its workers poll for 50 µs after each run.
bool run_on_shared_pool(unsigned threads, std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

}  // namespace attn
