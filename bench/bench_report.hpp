// bench/bench_report.hpp — the results of one attn_bench run and the Markdown
// table it prints (and commits as bench/results/latest.md).
#pragma once

#include <string>
#include <vector>

#include "bench_cases.hpp"
#include "bench_peak.hpp"

namespace attn::bench {

struct row_result {
    bench_case c;
    std::string dtype;                  // "float32" or "float64"
    samples ours, ours_output_only, numpy, torch;
    samples numpy_best, torch_best;     // with their BLAS's best kernels (empty: same as default)
    fast_stage_times stage_sum;         // our keep_all calls, summed
    double numpy_diff = 0, torch_diff = 0;  // max |peer − ours| / max |ours|
};

struct keep_mode_row {
    std::string mode;      // "all stages", "output only", "one query row"
    double ms = 0;         // median
    double kept_mib = 0;   // bytes of the kept matrices
};

struct run_info {
    std::string date_utc, machine, load_start, load_end, command, numpy_version, torch_version, notes;
    std::string default_setting;  // "OPENBLAS_CORETYPE unset" or "OPENBLAS_CORETYPE=Prescott"
    std::string best_core;        // OPENBLAS_CORETYPE of the peers' best-kernel runs
    machine_peak peak;
    unsigned threads = 0, rounds = 0;
    std::size_t keep_n = 0;
};

std::string render_report(const run_info& info, const std::vector<row_result>& rows,
                          const std::vector<keep_mode_row>& keep_rows);

// "AMD EPYC (2 cores), Linux 6.1.0", from /proc/cpuinfo and uname.
std::string describe_machine();
// The three load averages from /proc/loadavg.
std::string load_average();
std::string utc_now();

}  // namespace attn::bench
