// core/fast_parallel.hpp — a tiny persistent pool that splits a range of rows
// between the calling thread and a few workers. The fast forward uses it for the
// rows; threads live as long as the workspace that owns
// the pool, so a call pays a wake-up, never a thread start.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace attn {

class row_pool {
public:
    // threads = total threads working on a range, the caller included (≥ 1).
    explicit row_pool(unsigned threads);
    ~row_pool();
    row_pool(const row_pool&) = delete;
    row_pool& operator=(const row_pool&) = delete;

    unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Calls body(begin, end) on disjoint contiguous slices covering [0, n), one per
    // thread; returns when every slice is done. The caller runs the first slice.
    void run(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

private:
    void worker_loop(unsigned index);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;   // workers wait here for a new generation
    std::condition_variable done_;   // the caller waits here for pending_ == 0
    const std::function<void(std::size_t, std::size_t)>* body_ = nullptr;
    std::size_t n_ = 0;
    unsigned long generation_ = 0;
    unsigned pending_ = 0;
    bool stop_ = false;
};

// The process-wide pool of the products (core/matmul.cpp) and the model floor's fused
// attention (core/fast_fused.cpp): runs body over [0, n) on `threads` threads and returns
// true, or returns false at once when the pool is busy (another thread's call, or a call
// from inside the pool): the caller then runs the work alone.
bool run_on_shared_pool(unsigned threads, std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

}  // namespace attn
