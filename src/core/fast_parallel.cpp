// core/fast_parallel.cpp — the row pool: workers sleep on a condition variable and
// wake once per run(); slice i of n rows is [i·n/t, (i+1)·n/t).
#include "core/fast_parallel.hpp"

#include <memory>

namespace attn {

row_pool::row_pool(unsigned threads) {
    const unsigned extra = threads > 1 ? threads - 1 : 0;
    workers_.reserve(extra);
    for (unsigned i = 0; i < extra; ++i) workers_.emplace_back([this, i] { worker_loop(i + 1); });
}

row_pool::~row_pool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
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
        pending_ = static_cast<unsigned>(workers_.size());
        ++generation_;
    }
    wake_.notify_all();
    body(0, n / t);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    body_ = nullptr;
}

void row_pool::worker_loop(unsigned index) {
    unsigned long seen = 0;
    for (;;) {
        const std::function<void(std::size_t, std::size_t)>* body;
        std::size_t n;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            body = body_;
            n = n_;
        }
        const std::size_t t = threads();
        const std::size_t begin = index * n / t, end = (index + 1) * n / t;
        if (begin < end) (*body)(begin, end);
        bool last;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            last = --pending_ == 0;
        }
        if (last) done_.notify_one();
    }
}

bool run_on_shared_pool(unsigned threads, std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
    static std::mutex busy;
    static std::unique_ptr<row_pool> pool;
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    if (!pool || pool->threads() != threads) pool = std::make_unique<row_pool>(threads);
    pool->run(n, body);
    return true;
}

}  // namespace attn
