// bench/bench_report.cpp — Markdown rendering and machine facts for attn_bench.
#include "bench_report.hpp"

#include <cmath>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <sys/utsname.h>

namespace attn::bench {

namespace {

std::string ms_text(double ms) {
    if (std::isnan(ms)) return "n/a";
    return ms < 1 ? fmt::format("{:.3f}", ms) : ms < 100 ? fmt::format("{:.2f}", ms) : fmt::format("{:.1f}", ms);
}

}  // namespace

namespace {

// The peak section: what was measured and what the peak is.
std::string render_peak(const run_info& info) {
    const machine_peak& p = info.peak;
    std::string s = fmt::format(
        "\nPeak of this machine ({} threads), measured by this run: the best of attn's FMA loop ({}; before the "
        "cases and after every round, the best kept) and a square GEMM of the machine's OpenBLAS with each core "
        "type this CPU runs (OPENBLAS_CORETYPE set per child process).\n\n| measured with | float32 GFLOP/s | float64 GFLOP/s |\n|---|---:|---:|\n",
        info.threads, p.kernels);
    s += fmt::format("| FMA loop, {} | {:.1f} | {:.1f} |\n", p.kernels, p.fma_f32, p.fma_f64);
    for (const auto& b : p.blas)
        s += fmt::format("| OpenBLAS GEMM, core {}{} | {:.1f} | {:.1f} |\n", b.core,
                         b.core == p.default_core ? " (its default here)" : "", b.f32, b.f64);
    s += fmt::format("| **peak** | **{:.1f}** | **{:.1f}** |\n", p.f32(), p.f64());
    return s;
}

std::string speedup_text(double ours, double peer) {
    if (std::isnan(ours) || std::isnan(peer) || ours <= 0) return "n/a";
    return fmt::format("{:.2f}×", peer / ours);
}

std::string share_text(double gflop, double ms, double peak) {
    if (std::isnan(ms) || ms <= 0 || peak <= 0) return "n/a";
    return fmt::format("{:.0f}%", 100 * gflop / (ms * 1e-3) / peak);
}

// One table row; a best-kernel peer that did not run separately is its default.
std::string render_row(const run_info& info, const row_result& r) {
    const double ours = r.ours.median(), only = r.ours_output_only.median();
    const double peak = r.dtype == "float32" ? info.peak.f32() : info.peak.f64();
    const double np = r.numpy.median(), pt = r.torch.median();
    const double np_best = r.numpy_best.ms.empty() ? np : r.numpy_best.median();
    const double pt_best = r.torch_best.ms.empty() ? pt : r.torch_best.median();
    const double total = r.stage_sum.scores + r.stage_sum.softmax + r.stage_sum.output;
    const std::string shares = total > 0 ? fmt::format("{:.0f}% / {:.0f}% / {:.0f}%", 100 * r.stage_sum.scores / total,
                                                       100 * r.stage_sum.softmax / total, 100 * r.stage_sum.output / total)
                                         : "n/a";
    return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.c.name,
                       r.dtype, ms_text(ours), share_text(r.c.gflop(), ours, peak), ms_text(only),
                       share_text(r.c.gflop(), only, peak), ms_text(np), speedup_text(ours, np), ms_text(np_best),
                       speedup_text(ours, np_best), ms_text(pt), speedup_text(ours, pt), ms_text(pt_best),
                       speedup_text(ours, pt_best), shares);
}

}  // namespace

std::string render_report(const run_info& info, const std::vector<row_result>& rows,
                          const std::vector<keep_mode_row>& keep_rows) {
    std::string s;
    s += fmt::format("# attn_bench — attention forward, ours vs NumPy vs PyTorch\n\n");
    s += fmt::format("- Date: {}\n- Machine: {}\n", info.date_utc, info.machine);
    s += fmt::format("- Load average (1, 5, 15 min): {} at start, {} at end\n", info.load_start, info.load_end);
    s += fmt::format("- Command: `{}`\n", info.command);
    s += fmt::format("- Ours: attn's kernels, set {} (chosen at run time from the CPU; no OpenBLAS in the forward)\n",
                     info.peak.kernels);
    s += fmt::format("- BLAS of the peers: OpenBLAS, core {} in their default configuration ({}); best kernels = "
                     "OPENBLAS_CORETYPE={} (the best GEMM of the peak step){}\n",
                     info.peak.default_core, info.default_setting, info.best_core,
                     info.best_core == info.peak.default_core ? ", the same as the default: one run serves both" : "");
    s += fmt::format("- Peers: {}, {}; {} threads for everyone (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, "
                     "torch.set_num_threads, our pool); OMP_WAIT_POLICY=PASSIVE (PyTorch's better setting here)\n",
                     info.numpy_version, info.torch_version, info.threads);
    s += fmt::format("- Medians over {} rounds; in each round every case is timed for ours and each peer back to "
                     "back (each side times its own calls in-process, same inputs written once as .npy)\n",
                     info.rounds);
    if (!info.notes.empty()) s += info.notes;
    s += render_peak(info);
    s += "\nOurs keeps every stage (scores_raw and weights [n_q, n_k], output; scaled and masked scores are lazy\n"
         "views of scores_raw); output only never builds n × n (whole rows per thread up to 4,096 keys, key\n"
         "blocks merged as flash-decoding does for short queries, the online softmax beyond). The peers compute\n"
         "scaled scores, softmax and output. GFLOP/s counts 4·n_q·n_k·d per head; \"of peak\" is that over the\n"
         "peak above. ×peer = peer time / our keep-all time (above 1 we are faster). Stage shares are of our\n"
         "keep-all time.\n\n";
    s += "| case | dtype | ours ms | of peak | output only ms | of peak | NumPy ms | ×NumPy | NumPy best ms | "
         "×NumPy best | PyTorch ms | ×PyTorch | PyTorch best ms | ×PyTorch best | scores / softmax / output |\n";
    s += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const auto& r : rows) s += render_row(info, r);
    double worst_np = 0, worst_torch = 0;
    for (const auto& r : rows) {
        worst_np = std::isnan(r.numpy_diff) || std::isnan(worst_np) ? NAN : std::max(worst_np, r.numpy_diff);
        worst_torch = std::isnan(r.torch_diff) || std::isnan(worst_torch) ? NAN : std::max(worst_torch, r.torch_diff);
    }
    // A peer not run (--no-peers) has no difference to print: say so in words, never "nan".
    auto diff = [](double d) { return std::isnan(d) ? std::string("n/a (not run)") : fmt::format("{:.1e}", d); };
    s += fmt::format("\nSame work: the peers' outputs differ from ours by at most {} (NumPy) and {} "
                     "(PyTorch) of the largest output value, over all cases (float32 rounding).\n",
                     diff(worst_np), diff(worst_torch));
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
