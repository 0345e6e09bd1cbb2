// bench/bench_report.cpp — Markdown rendering and machine facts for attn_bench.
#include "bench_report.hpp"

#include <cmath>
#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/core.h>
#include <sys/utsname.h>

namespace attn::bench {

namespace {

std::string ms_text(double ms) {
    if (std::isnan(ms)) return "n/a";
    return ms < 1 ? fmt::format("{:.3f}", ms) : ms < 100 ? fmt::format("{:.2f}", ms) : fmt::format("{:.1f}", ms);
}

// ours/peer as a time ratio, with the speed-up: "0.52 (1.92×)".
std::string ratio_text(double ours, double peer) {
    if (std::isnan(ours) || std::isnan(peer) || ours <= 0) return "n/a";
    return fmt::format("{:.2f} ({:.2f}×)", ours / peer, peer / ours);
}

}  // namespace

std::string render_report(const run_info& info, const std::vector<row_result>& rows,
                          const std::vector<keep_mode_row>& keep_rows) {
    std::string s;
    s += fmt::format("# attn_bench — attention forward, ours vs NumPy vs PyTorch\n\n");
    s += fmt::format("- Date: {}\n- Machine: {}\n", info.date_utc, info.machine);
    s += fmt::format("- Load average (1, 5, 15 min): {} at start, {} at end\n", info.load_start, info.load_end);
    s += fmt::format("- Command: `{}`\n", info.command);
    s += fmt::format("- Peers: {}, {}; {} threads for everyone (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, "
                     "torch.set_num_threads, our pool); OMP_WAIT_POLICY=PASSIVE (PyTorch's better setting here); "
                     "OPENBLAS_CORETYPE unset\n",
                     info.numpy_version, info.torch_version, info.threads);
    s += fmt::format("- Medians over {} rounds; in each round every case is timed for ours, NumPy and PyTorch "
                     "back to back (each side times its own calls in-process, same inputs written once as .npy)\n",
                     info.rounds);
    if (!info.notes.empty()) s += info.notes;
    s += "\nOurs keeps every stage (scores_raw and weights [n_q, n_k], output; scaled and masked scores\n"
         "are lazy views of scores_raw). The peers compute scaled scores, softmax and output.\n"
         "Ratio = our time / peer time (below 1 we are faster; the speed-up in brackets).\n"
         "GFLOP/s counts 4·n_q·n_k·d per head. Stage shares are of our keep-all time;\n"
         "keep-all cost = keep-all time / output-only time − 1.\n\n";
    s += "| case | dtype | ours ms | NumPy ms | PyTorch ms | ours/NumPy | ours/PyTorch | ours GFLOP/s | "
         "scores / softmax / output | output only ms | keep-all cost |\n";
    s += "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n";
    for (const auto& r : rows) {
        const double ours = r.ours.median(), only = r.ours_output_only.median();
        const double total = r.stage_sum.scores + r.stage_sum.softmax + r.stage_sum.output;
        const std::string shares =
            total > 0 ? fmt::format("{:.0f}% / {:.0f}% / {:.0f}%", 100 * r.stage_sum.scores / total,
                                    100 * r.stage_sum.softmax / total, 100 * r.stage_sum.output / total)
                      : "n/a";
        s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.1f} | {} | {} | {:+.0f}% |\n", r.c.name, r.dtype,
                         ms_text(ours), ms_text(r.numpy.median()), ms_text(r.torch.median()),
                         ratio_text(ours, r.numpy.median()), ratio_text(ours, r.torch.median()),
                         r.c.gflop() / (ours * 1e-3), shares, ms_text(only), 100 * (ours / only - 1));
    }
    double worst_np = 0, worst_torch = 0;
    for (const auto& r : rows) {
        worst_np = std::isnan(r.numpy_diff) || std::isnan(worst_np) ? NAN : std::max(worst_np, r.numpy_diff);
        worst_torch = std::isnan(r.torch_diff) || std::isnan(worst_torch) ? NAN : std::max(worst_torch, r.torch_diff);
    }
    s += fmt::format("\nSame work: the peers' outputs differ from ours by at most {:.1e} (NumPy) and {:.1e} "
                     "(PyTorch) of the largest output value, over all cases (float32 rounding).\n",
                     worst_np, worst_torch);
    if (!keep_rows.empty()) {
        s += fmt::format("\nKeep modes at n_q = n_k = {}, d = 64, float32 (one query row = the trace of one "
                         "token):\n\n| keep | ms | kept MiB |\n|---|---:|---:|\n",
                         info.keep_n);
        for (const auto& k : keep_rows)
            s += fmt::format("| {} | {} | {:.3f} |\n", k.mode, ms_text(k.ms), k.kept_mib);
    }
    return s;
}

std::string describe_machine() {
    std::string model = "unknown CPU", simd;
    std::ifstream cpu("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpu, line)) {
        if (line.rfind("model name", 0) == 0 && model == "unknown CPU") model = line.substr(line.find(':') + 2);
        if (line.rfind("flags", 0) == 0 && simd.empty()) {
            const bool avx512 = line.find(" avx512f") != std::string::npos;
            const bool avx2 = line.find(" avx2") != std::string::npos;
            simd = avx512 ? ", AVX-512" : avx2 ? ", AVX2 + FMA, no AVX-512" : ", no AVX2";
        }
    }
    model += simd;
    utsname u{};
    uname(&u);
    return fmt::format("{} ({} cores), {} {} {}", model, std::thread::hardware_concurrency(), u.sysname, u.release,
                       u.machine);
}

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

}  // namespace attn::bench
