// bench/bandwidth/bandwidth.cpp — attn_bandwidth: the machine's memory read bandwidth, the
// roofline of decoding (bench/decode_bench.py). One step of a decoder reads every weight
// once, so a token cannot take less than (bytes read) / (read bandwidth); this measures
// the bandwidth the way a decoder reads: each thread one sequential stream through its
// slice of a block of the size the decoder reads (a model's weights: from a few MiB that
// stay in cache to far more than any cache), in 2 MiB huge pages like the decoder's
// packed weights (core/huge_block), summed with wide vector loads into independent
// accumulators so the loads, not the adds, are the limit. A round passes over the block
// as many times as it takes to read at least 512 MiB.
//
//   attn_bandwidth THREADS [KiB (524288 = 512 MiB)] [ROUNDS (7)]
//
// Prints one line: {"threads": T, "kib": K, "gb_per_s": best round, "rounds": [GB/s …]}
// (GB = 10⁹ bytes). The best round is the figure: load elsewhere only slows a round.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// 64 bytes of integers, lowered to the vectors the compiler targets (built with
// -march=native: this measures the machine it runs on). Integer adds are a one-cycle
// dependency, so 2 chains keep the loads the bottleneck without spilling registers.
typedef std::uint64_t bandwidth_line __attribute__((vector_size(64)));

// The sum of every line in [first, first + lines), 2 lines per step.
std::uint64_t bandwidth_stream(const bandwidth_line* first, std::size_t lines) {
    bandwidth_line s0 = {}, s1 = {};
    for (std::size_t i = 0; i + 2 <= lines; i += 2) {
        s0 += first[i];
        s1 += first[i + 1];
    }
    const bandwidth_line s = s0 + s1;
    std::uint64_t out = 0;
    for (int j = 0; j < 8; ++j) out += s[j];
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 4) {
        std::fprintf(stderr, "usage: attn_bandwidth THREADS [KiB] [ROUNDS]\n");
        return 2;
    }
    const long threads = std::strtol(argv[1], nullptr, 10), kib = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 524288,
               rounds = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 7;
    if (threads < 1 || threads > 256 || kib < 64 || kib > (64L << 20) || rounds < 1 || rounds > 1000) {
        std::fprintf(stderr, "attn_bandwidth: THREADS 1 … 256, KiB 64 … 67108864, ROUNDS 1 … 1000\n");
        return 2;
    }
    const std::size_t huge = std::size_t(2) << 20, bytes = static_cast<std::size_t>(kib) << 10;
    const std::size_t passes = std::max<std::size_t>(1, (std::size_t(512) << 20) / bytes);  // per round
    void* map = mmap(nullptr, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        std::fprintf(stderr, "attn_bandwidth: cannot map %ld KiB\n", kib);
        return 2;
    }
    auto* block = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(map) + huge - 1) / huge * huge);
#ifdef MADV_HUGEPAGE
    madvise(block, bytes, MADV_HUGEPAGE);
#endif
    for (std::size_t i = 0; i < bytes; ++i) block[i] = static_cast<unsigned char>(i * 7);  // every page touched before timing
    const auto* lines = reinterpret_cast<const bandwidth_line*>(block);
    const std::size_t n_lines = bytes / sizeof(bandwidth_line);
    std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads));  // [threads] kept so no load is dropped
    std::vector<double> gbs;                                              // [rounds]
    double best = 0;
    for (long r = 0; r < rounds; ++r) {
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        const auto slice = [&](long t) {
            const std::size_t a = n_lines * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads),
                              b = n_lines * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
            for (std::size_t p = 0; p < passes; ++p) sums[static_cast<std::size_t>(t)] += bandwidth_stream(lines + a, b - a);
        };
        for (long t = 1; t < threads; ++t) pool.emplace_back(slice, t);
        slice(0);
        for (auto& th : pool) th.join();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        gbs.push_back(static_cast<double>(bytes) * static_cast<double>(passes) / s / 1e9);
        if (gbs.back() > best) best = gbs.back();
    }
    std::uint64_t check = 0;
    for (const auto s : sums) check += s;
    std::string list;
    for (const double g : gbs) list += (list.empty() ? "" : ", ") + std::to_string(g);
    std::printf("{\"threads\": %ld, \"kib\": %ld, \"gb_per_s\": %.3f, \"rounds\": [%s], \"check\": %llu}\n", threads, kib, best,
                list.c_str(), static_cast<unsigned long long>(check));
    munmap(map, bytes + huge);
    return 0;
}
