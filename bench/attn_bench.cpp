// bench/attn_bench.cpp — one invocation runs our fast forward, NumPy and PyTorch on
// the same inputs, same dtype, same threads, and prints one Markdown table.
//
//   attn_bench [--threads N] [--rounds R] [--budget SECONDS] [--min-reps N]
//              [--out FILE] [--python PATH] [--no-peers] [--quick]
//
// tools/bench is the documented command (it builds this with -O3 -march=native,
// unsets OPENBLAS_CORETYPE for everyone and writes bench/results/latest.md).
#include <cblas.h>

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
#include "bench_peers.hpp"
#include "bench_report.hpp"

namespace fs = std::filesystem;
using namespace attn;
using namespace attn::bench;

namespace {

struct settings {
    unsigned threads = 2, rounds = 5;
    double budget = 0.2;  // seconds per case, per side, per round
    std::size_t min_reps = 5;
    std::string out, python = "/usr/bin/python3", command = "tools/bench";
    bool peers = true, quick = false;
};

[[noreturn]] void usage(const std::string& why) {
    std::cerr << "attn_bench: " << why
              << "\nusage: attn_bench [--threads N] [--rounds R] [--budget SECONDS] [--min-reps N] [--out FILE]"
                 " [--python PATH] [--no-peers] [--quick] [--command TEXT]\n";
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
        else if (a == "--rounds") s.rounds = static_cast<unsigned>(number(1));
        else if (a == "--budget") s.budget = number(0);
        else if (a == "--min-reps") s.min_reps = static_cast<std::size_t>(number(1));
        else if (a == "--out") s.out = value();
        else if (a == "--python") s.python = value();
        else if (a == "--command") s.command = value();
        else if (a == "--no-peers") s.peers = false;
        else if (a == "--quick") s.quick = true;
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
template <class T>
void time_case(dtype_run<T>& run, std::size_t i, row_result& row, const settings& s, peer_process* numpy,
               peer_process* torch) {
    // Before each side: let the previous side's idle BLAS/OpenMP threads stop
    // spinning (OpenBLAS spins ~0.1 s after a call) so they do not slow the next one.
    auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(150)); };
    settle();
    time_ours(run.inputs[i], s.threads, s.budget, s.min_reps, row.ours, row.ours_output_only, row.stage_sum,
              run.outputs[i]);
    for (auto [peer, dst] : {std::pair{numpy, &row.numpy}, std::pair{torch, &row.torch}}) {
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

}  // namespace

int main(int argc, char** argv) {
    const settings s = parse(argc, argv);
    std::signal(SIGPIPE, SIG_IGN);  // a peer that dies is reported, not fatal
    run_info info;
    info.date_utc = utc_now();
    info.machine = describe_machine();
    info.load_start = load_average();
    info.command = s.command;
    info.threads = s.threads;
    info.rounds = s.rounds;
    if (std::getenv("OPENBLAS_CORETYPE"))
        info.notes += "- WARNING: OPENBLAS_CORETYPE was set for this run (tools/bench unsets it)\n";

    // Same threads for everyone: our BLAS now, the peers through the environment.
    openblas_set_num_threads(static_cast<int>(s.threads));
    const std::string t = std::to_string(s.threads);
    for (const char* var : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}) setenv(var, t.c_str(), 1);
    // PyTorch's OpenMP threads otherwise spin against OpenBLAS's threads on a small
    // machine (24 ms instead of 0.14 ms at n = 128 here): give the peer its better setting.
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);

    std::vector<bench_case> cases = standard_cases();
    if (s.quick) cases = {cases[0], cases[1], cases[5]};
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
        std::ofstream list(dir + "/cases.tsv");
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
                list << cases[i].slug << '\t' << dtype << '\t' << cases[i].d << '\n';
                rows.push_back(row_result{cases[i], dtype, {}, {}, {}, {}, {}, 0, 0});
            }
    }
    f32.outputs.resize(cases.size());
    f64.outputs.resize(cases.size());
    std::vector<row_result*> rows32, rows64;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        rows32.push_back(&rows[i]);
        rows64.push_back(&rows[cases.size() + i]);
    }

    std::unique_ptr<peer_process> numpy, torch;
    if (s.peers) {
        numpy = std::make_unique<peer_process>(s.python, ATTN_BENCH_PEERS_DIR, "numpy", dir, s.threads);
        torch = std::make_unique<peer_process>(s.python, ATTN_BENCH_PEERS_DIR, "torch", dir, s.threads);
        for (auto* p : {numpy.get(), torch.get()})
            if (!p->ok()) std::cerr << "attn_bench: a peer did not start: " << p->error() << "\n";
    }
    for (unsigned round = 0; round < s.rounds; ++round) {
        std::cerr << "attn_bench: round " << round + 1 << "/" << s.rounds << "\n";
        for (std::size_t i = 0; i < cases.size(); ++i) {
            time_case(f32, i, *rows32[i], s, numpy.get(), torch.get());
            time_case(f64, i, *rows64[i], s, numpy.get(), torch.get());
        }
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
    info.numpy_version = numpy && numpy->ok() ? numpy->version() : "NumPy (not run)";
    info.torch_version = torch && torch->ok() ? torch->version() : "PyTorch (not run)";
    numpy.reset();  // quit the peers before the report
    torch.reset();
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
