// bench/bench_peers.hpp — a peer (bench/peers/<peer>_peer.py) as a child process that
// attn_bench asks to time one case at a time, right after timing ours on it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <sys/types.h>

#include "bench_cases.hpp"

namespace attn::bench {

class peer_process {
public:
    // Starts `python peers_dir/<peer>_peer.py dir threads`; its stderr goes to
    // dir/<label>.stderr. The environment (thread variables) is inherited; a non-empty
    // coretype sets OPENBLAS_CORETYPE for this peer only (its BLAS's best kernels).
    peer_process(const std::string& python, const std::string& peers_dir, const std::string& peer,
                 const std::string& dir, unsigned threads, const std::string& coretype = "");
    ~peer_process();  // says quit and waits
    peer_process(const peer_process&) = delete;
    peer_process& operator=(const peer_process&) = delete;

    bool ok() const { return ok_; }
    const std::string& version() const { return version_; }  // e.g. "NumPy 1.24.2"
    const std::string& error() const { return error_; }      // why it stopped, when !ok()

    // Times one case (inputs already written); appends the call times to `out`.
    // False, with error() set, when the peer failed.
    bool time_case(const std::string& slug, const std::string& dtype, std::size_t d, double budget_s,
                   std::size_t min_reps, samples& out);

private:
    bool read_line(std::string& line);
    void fail(const std::string& why);

    std::string name_, stderr_path_, version_, error_;
    pid_t pid_ = -1;
    std::FILE* to_ = nullptr;    // the peer's stdin
    std::FILE* from_ = nullptr;  // the peer's stdout
    bool ok_ = false;
};

// Largest |peer − ours| over the largest |ours|, for the peer's saved output of a
// case ([heads·n_q, d]); NaN when the file is missing or the shape differs.
template <class T>
double peer_output_difference(const std::string& path, const std::vector<fast_matrix<T>>& ours);

}  // namespace attn::bench
