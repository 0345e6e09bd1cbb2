// bench/bench_peers.hpp — runs a peer script (bench/peers/<peer>_peer.py) on the
// inputs attn_bench wrote and reads back its times and outputs.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "bench_cases.hpp"

namespace attn::bench {

struct peer_result {
    bool ok = false;
    std::string version;  // e.g. "NumPy 1.24.2"
    std::string error;    // why it failed, when !ok
    std::map<std::pair<std::string, std::string>, samples> times;  // (slug, dtype) → calls
};

// Runs `python peers_dir/<peer>_peer.py dir budget min_reps threads` and parses
// dir/<peer>.tsv. The environment (thread variables) is inherited from attn_bench.
peer_result run_peer(const std::string& python, const std::string& peers_dir, const std::string& peer,
                     const std::string& dir, double budget_s, std::size_t min_reps, unsigned threads);

// Largest |peer − ours| over the largest |ours|, for the peer's saved output of a
// case ([heads·n_q, d]); NaN when the file is missing or the shape differs.
template <class T>
double peer_output_difference(const std::string& path, const std::vector<fast_matrix<T>>& ours);

}  // namespace attn::bench
