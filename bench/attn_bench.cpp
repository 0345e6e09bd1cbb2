// bench/attn_bench.cpp — one invocation runs our fast forward, NumPy and PyTorch on
// the same inputs, same dtype, same threads, and prints one Markdown table.
//
//   attn_bench [--threads N] [--rounds R] [--budget SECONDS] [--min-reps N]
//              [--out FILE] [--python PATH] [--no-peers] [--quick] [--cases SLUG,…]
//
// First it measures the machine's peak (bench_peak.hpp); then each case is timed for
// ours and for NumPy and PyTorch twice: in their default configuration (whatever
// OpenBLAS picks in this environment) and with the best kernels their BLAS has for
// this CPU (OPENBLAS_CORETYPE = the core type of the best sgemm of the peak step).
// tools/bench is the documented command (it builds this in build-bench/, unsets
// OPENBLAS_CORETYPE for everyone unless told --blas-core, and writes
// bench/results/latest.md). Ours is the library everyone installs: the same flags, the
// kernel set chosen at run time (no -march=native).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "bench_cases.hpp"
#include "bench_peak.hpp"
#include "bench_peers.hpp"
#include "bench_report.hpp"
#include "core/kernels.hpp"
#include "core/matmul.hpp"

namespace fs = std::filesystem;
using namespace attn;
using namespace attn::bench;

namespace {

struct settings {
    unsigned threads = 2, rounds = 5;
    double budget = 0.2;  // seconds per case, per side, per round
    std::size_t min_reps = 5;
    std::string out, python = "/usr/bin/python3", command = "tools/bench";
    std::string cases;  // comma-separated slugs (single512,cross64x2048); empty = all
    bool peers = true, quick = false, rounds_given = false, budget_given = false;
};

[[noreturn]] void usage(const std::string& why) {
    std::cerr << "attn_bench: " << why
              << "\nusage: attn_bench [--threads N] [--rounds R] [--budget SECONDS] [--min-reps N] [--out FILE]"
                 " [--python PATH] [--no-peers] [--quick] [--cases SLUG,...] [--command TEXT]\n";
    std::exit(2);
}

settings parse(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        auto number = [&](double lo) {
            const std::string v = value();
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end != '\0' || !(x >= lo)) usage(a + " expects a number ≥ " + std::to_string(lo) + ", found '" + v + "'");
            return x;
        };
        if (a == "--threads") s.threads = static_cast<unsigned>(number(1));
        else if (a == "--rounds") s.rounds = static_cast<unsigned>(number(1)), s.rounds_given = true;
        else if (a == "--budget") s.budget = number(0), s.budget_given = true;
        else if (a == "--min-reps") s.min_reps = static_cast<std::size_t>(number(1));
        else if (a == "--out") s.out = value();
        else if (a == "--python") s.python = value();
        else if (a == "--command") s.command = value();
        else if (a == "--no-peers") s.peers = false;
        else if (a == "--quick") s.quick = true;
        else if (a == "--cases") s.cases = value();
        else usage("unknown argument '" + a + "'");
    }
    return s;
}

template <class T>
struct dtype_run {
    std::vector<case_inputs<T>> inputs;                 // per case
    std::vector<std::vector<fast_matrix<T>>> outputs;   // per case, per head (last call)
};

// One case of one dtype: ours, then each peer, back to back.
// The four peers: NumPy and PyTorch, default and with their best kernels (null when
// the best kernels are the default ones: those rows reuse the default times).
struct peer_set {
    std::unique_ptr<peer_process> numpy, torch, numpy_best, torch_best;
};

template <class T>
void time_case(dtype_run<T>& run, std::size_t i, row_result& row, const settings& s, const peer_set& peers) {
    // Before each side: let the previous side's idle BLAS/OpenMP threads stop
    // spinning (OpenBLAS spins ~0.1 s after a call) so they do not slow the next one.
    auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(150)); };
    settle();
    time_ours(run.inputs[i], s.threads, s.budget, s.min_reps, row.ours, row.ours_output_only, row.stage_sum,
              run.outputs[i]);
    for (auto [peer, dst] : {std::pair{peers.numpy.get(), &row.numpy}, std::pair{peers.torch.get(), &row.torch},
                             std::pair{peers.numpy_best.get(), &row.numpy_best},
                             std::pair{peers.torch_best.get(), &row.torch_best}}) {
        if (!peer || !peer->ok()) continue;
        settle();
        if (!peer->time_case(row.c.slug, row.dtype, row.c.d, s.budget, s.min_reps, *dst))
            std::cerr << "attn_bench: a peer failed: " << peer->error() << "\n";
    }
}

// all_stages vs output_only vs one_query at n × n, float32, one head.
std::vector<keep_mode_row> time_keep_modes(std::size_t n, const settings& s) {
    const bench_case c{"keep", "keep", 1, n, n, 64};
    const auto in = make_inputs<float>(c, 4242);
    std::vector<keep_mode_row> rows;
    const std::pair<keep_mode, const char*> modes[] = {{keep_mode::all_stages, "all stages"},
                                                       {keep_mode::output_only, "output only"},
                                                       {keep_mode::one_query, "one query row"}};
    for (const auto& [mode, name] : modes) {
        fast_steps<float> st;
        fast_options<float> o;
        o.keep = mode;
        o.query = n / 2;
        o.threads = s.threads;
        samples t;
        for (int rep = 0; rep < 2 + int(s.min_reps); ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            fast_attention(in.q[0], in.k[0], in.v[0], st, o);
            if (rep >= 2) t.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        const double bytes = double(st.scores_raw.size() + st.weights.size() + st.output.size()) * sizeof(float);
        rows.push_back({name, t.median(), bytes / (1024.0 * 1024.0)});
    }
    return rows;
}

// The cases named in a comma-separated list of slugs, in the standard order; an
// unknown slug is a usage error naming the known ones.
std::vector<bench_case> select_cases(const std::vector<bench_case>& all, const std::string& list) {
    std::vector<std::string> wanted;
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        wanted.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    std::string known;
    for (const auto& c : all) known += (known.empty() ? "" : ", ") + c.slug;
    for (const auto& w : wanted)
        if (std::none_of(all.begin(), all.end(), [&](const bench_case& c) { return c.slug == w; }))
            usage("--cases: unknown case '" + w + "' (known: " + known + ")");
    std::vector<bench_case> chosen;
    for (const auto& c : all)
        if (std::find(wanted.begin(), wanted.end(), c.slug) != wanted.end()) chosen.push_back(c);
    return chosen;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "--blas-gemm") == 0)  // a child of the peak step
        return run_blas_gemm_child(static_cast<unsigned>(std::atoi(argv[2])), std::strcmp(argv[3], "quick") == 0);
    settings s = parse(argc, argv);
    if (s.quick) {  // 3 cases, one round, under a minute
        if (!s.rounds_given) s.rounds = 1;
        if (!s.budget_given) s.budget = 0.1;
    }
    std::signal(SIGPIPE, SIG_IGN);  // a peer that dies is reported, not fatal
    run_info info;
    info.date_utc = utc_now();
    info.machine = describe_machine();
    info.load_start = load_average();
    info.command = s.command;
    info.threads = s.threads;
    info.rounds = s.rounds;
    const char* forced_core = std::getenv("OPENBLAS_CORETYPE");
    info.default_setting = forced_core ? std::string("OPENBLAS_CORETYPE=") + forced_core : "OPENBLAS_CORETYPE unset";

    // Same threads for everyone: our pool and products now, the peers through the environment.
    openblas_set_num_threads(static_cast<int>(s.threads));
    set_matmul_threads(s.threads);
    const std::string t = std::to_string(s.threads);
    for (const char* var : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}) setenv(var, t.c_str(), 1);
    // PyTorch's OpenMP threads otherwise spin against OpenBLAS's threads on a small
    // machine (24 ms instead of 0.14 ms at n = 128 here): give the peer its better setting.
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);

    std::vector<bench_case> cases = standard_cases();
    if (!s.cases.empty()) cases = select_cases(cases, s.cases);  // --cases wins over --quick's three
    else if (s.quick) cases = {cases[1], cases[3], cases[5]};     // n = 512, n = 2048, cross 64×2048

    std::cerr << "attn_bench: measuring the machine's peak\n";
    info.peak = measure_peak(fs::canonical("/proc/self/exe").string(), s.threads, s.quick);
    char tmpl[] = "/tmp/attn_bench.XXXXXX";
    if (!mkdtemp(tmpl)) {
        std::perror("attn_bench: mkdtemp");
        return 2;
    }
    const std::string dir = tmpl;

    // Inputs once per case and dtype; float inputs are the double ones rounded.
    dtype_run<float> f32;
    dtype_run<double> f64;
    std::vector<row_result> rows;
    {
        for (const char* dtype : {"float32", "float64"})
            for (std::size_t i = 0; i < cases.size(); ++i) {
                const unsigned seed = 1000 + static_cast<unsigned>(i);
                const std::string prefix = dir + "/" + cases[i].slug + "_" + dtype + "_";
                if (std::strcmp(dtype, "float32") == 0) {
                    f32.inputs.push_back(make_inputs<float>(cases[i], seed));
                    write_npy(f32.inputs.back(), prefix);
                } else {
                    f64.inputs.push_back(make_inputs<double>(cases[i], seed));
                    write_npy(f64.inputs.back(), prefix);
                }
                rows.emplace_back();
                rows.back().c = cases[i];
                rows.back().dtype = dtype;
            }
    }
    f32.outputs.resize(cases.size());
    f64.outputs.resize(cases.size());
    std::vector<row_result*> rows32, rows64;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        rows32.push_back(&rows[i]);
        rows64.push_back(&rows[cases.size() + i]);
    }

    peer_set peers;
    info.best_core = info.peak.best_core();
    if (s.peers) {
        peers.numpy = std::make_unique<peer_process>(s.python, ATTN_BENCH_PEERS_DIR, "numpy", dir, s.threads);
        peers.torch = std::make_unique<peer_process>(s.python, ATTN_BENCH_PEERS_DIR, "torch", dir, s.threads);
        if (info.best_core != info.peak.default_core) {
            peers.numpy_best = std::make_unique<peer_process>(s.python, ATTN_BENCH_PEERS_DIR, "numpy", dir, s.threads,
                                                              info.best_core);
            peers.torch_best = std::make_unique<peer_process>(s.python, ATTN_BENCH_PEERS_DIR, "torch", dir, s.threads,
                                                              info.best_core);
        }
        for (auto* p : {peers.numpy.get(), peers.torch.get(), peers.numpy_best.get(), peers.torch_best.get()})
            if (p && !p->ok()) std::cerr << "attn_bench: a peer did not start: " << p->error() << "\n";
    }
    for (unsigned round = 0; round < s.rounds; ++round) {
        std::cerr << "attn_bench: round " << round + 1 << "/" << s.rounds << "\n";
        for (std::size_t i = 0; i < cases.size(); ++i) {
            time_case(f32, i, *rows32[i], s, peers);
            time_case(f64, i, *rows64[i], s, peers);
        }
        remeasure_fma(info.peak, s.threads);
    }

    // Same work: every peer output against ours.
    bool same = true;
    for (std::size_t i = 0; i < cases.size(); ++i)
        for (int dt = 0; dt < 2; ++dt) {
            row_result& row = dt == 0 ? *rows32[i] : *rows64[i];
            for (const char* peer : {"numpy", "torch"}) {
                const std::string path = dir + "/" + peer + "_" + cases[i].slug + "_" + row.dtype + "_out.npy";
                const double diff = dt == 0 ? peer_output_difference(path, f32.outputs[i])
                                            : peer_output_difference(path, f64.outputs[i]);
                (std::strcmp(peer, "numpy") == 0 ? row.numpy_diff : row.torch_diff) = diff;
                const double limit = dt == 0 ? 1e-4 : 1e-10;
                if (s.peers && !(diff <= limit)) {
                    std::cerr << "attn_bench: " << peer << " output for " << cases[i].name << " " << row.dtype
                              << " differs from ours by " << diff << " (limit " << limit << ")\n";
                    same = false;
                }
            }
        }

    info.keep_n = 4096;
    const auto keep_rows = time_keep_modes(info.keep_n, s);
    info.load_end = load_average();
    info.numpy_version = peers.numpy && peers.numpy->ok() ? peers.numpy->version() : "NumPy (not run)";
    info.torch_version = peers.torch && peers.torch->ok() ? peers.torch->version() : "PyTorch (not run)";
    peers = peer_set{};  // quit the peers before the report
    const std::string report = render_report(info, rows, keep_rows);
    std::cout << report;
    if (!s.out.empty()) {
        const std::string tmp = s.out + ".tmp";
        std::ofstream(tmp) << report;
        fs::rename(tmp, s.out);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return same ? 0 : 1;
}
