// core/row_pool (core/fast_parallel): every run covers [0, n) exactly once in the slices
// i·n/t … (i+1)·n/t whichever thread takes them, runs follow each other without mixing,
// and runs whose workers sleep between them (no spin: late to most runs, so the caller
// takes their slices) still cover everything once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "core/fast_parallel.hpp"

namespace {

// Runs `runs` passes of sizes 0 … 37 on the pool; each index's counter must end at the
// number of passes that covered it, and each slice must be one of i·n/t … (i+1)·n/t.
void row_pool_check_cover(attn::row_pool& pool, std::size_t runs) {
    const std::size_t t = pool.threads();
    std::vector<std::atomic<int>> hits(40);
    std::vector<int> want(40, 0);
    std::mutex m;
    std::size_t bad_slices = 0;
    for (std::size_t r = 0; r < runs; ++r) {
        const std::size_t n = r % 38;
        std::set<std::pair<std::size_t, std::size_t>> slices;
        for (std::size_t i = 0; i < t; ++i)
            if (i * n / t < (i + 1) * n / t) slices.insert({i * n / t, (i + 1) * n / t});
        pool.run(n, [&](std::size_t begin, std::size_t end) {
            {
                std::lock_guard<std::mutex> lock(m);
                if (n >= 2 && t > 1 && slices.erase({begin, end}) != 1) ++bad_slices;
            }
            for (std::size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
        });
        if (n >= 2 && t > 1 && !slices.empty()) ++bad_slices;  // a slice never run
        for (std::size_t i = 0; i < n; ++i) ++want[i];
    }
    CHECK(bad_slices == 0);
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(hits[i].load() == want[i]);
}

}  // namespace

TEST_CASE("row pool: every run covers its range once, in the fixed slices", "[core][row_pool]") {
    for (unsigned threads : {1u, 2u, 3u, 5u}) {
        INFO(threads << " threads");
        attn::row_pool spinning(threads, 50);
        row_pool_check_cover(spinning, 3000);
        attn::row_pool sleeping(threads, 0);  // workers sleep between runs: late to most of them
        row_pool_check_cover(sleeping, 3000);
    }
}

TEST_CASE("row pool: a slow slice holds up no other slice and runs once", "[core][row_pool]") {
    // Two threads, workers asleep between runs: whichever thread takes the slow slice,
    // the other slice is taken (by the worker, or by the caller after the slow one), each
    // slice runs once, and the next run starts clean.
    attn::row_pool pool(2, 0);
    for (int r = 0; r < 20; ++r) {
        std::atomic<int> first{0}, second{0};
        pool.run(2, [&](std::size_t begin, std::size_t end) {
            REQUIRE(end == begin + 1);
            if (begin == 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                first.fetch_add(1);
            } else {
                second.fetch_add(1);
            }
        });
        CHECK(first.load() == 1);
        CHECK(second.load() == 1);
    }
}
