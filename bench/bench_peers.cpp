// bench/bench_peers.cpp — peer processes and their result files.
#include "bench_peers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include <xtensor/xnpy.hpp>

namespace attn::bench {

peer_result run_peer(const std::string& python, const std::string& peers_dir, const std::string& peer,
                     const std::string& dir, double budget_s, std::size_t min_reps, unsigned threads) {
    peer_result r;
    const std::string tsv = dir + "/" + peer + ".tsv";
    std::remove(tsv.c_str());
    char budget[32];
    std::snprintf(budget, sizeof budget, "%.3f", budget_s);
    // Paths come from the build (peers_dir) and mkdtemp (dir): no spaces or quotes.
    const std::string cmd = "'" + python + "' '" + peers_dir + "/" + peer + "_peer.py' '" + dir + "' " + budget +
                            " " + std::to_string(min_reps) + " " + std::to_string(threads) + " 2>'" + dir + "/" +
                            peer + ".stderr'";
    const int status = std::system(cmd.c_str());
    std::ifstream in(tsv);
    if (status != 0 || !in) {
        std::ifstream err(dir + "/" + peer + ".stderr");
        std::stringstream text;
        text << err.rdbuf();
        r.error = "exit status " + std::to_string(status) + ": " + text.str();
        return r;
    }
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0) {
            r.version = line.substr(2);
            continue;
        }
        std::istringstream fields(line);
        std::string slug, dtype, list;
        if (!std::getline(fields, slug, '\t') || !std::getline(fields, dtype, '\t') || !std::getline(fields, list))
            continue;
        samples& s = r.times[{slug, dtype}];
        std::istringstream values(list);
        std::string v;
        while (std::getline(values, v, ',')) s.ms.push_back(std::strtod(v.c_str(), nullptr));
    }
    r.ok = !r.times.empty();
    if (!r.ok) r.error = "no times in " + tsv;
    return r;
}

template <class T>
double peer_output_difference(const std::string& path, const std::vector<fast_matrix<T>>& ours) {
    std::ifstream probe(path);
    if (!probe) return std::numeric_limits<double>::quiet_NaN();
    const auto theirs = xt::load_npy<T>(path);  // [heads·n_q, d]
    const std::size_t rows = ours.size() * ours[0].shape(0), d = ours[0].shape(1);
    if (theirs.dimension() != 2 || theirs.shape(0) != rows || theirs.shape(1) != d)
        return std::numeric_limits<double>::quiet_NaN();
    double max_diff = 0, max_ours = 0;
    std::size_t row = 0;
    for (const auto& head : ours)
        for (std::size_t i = 0; i < head.shape(0); ++i, ++row)
            for (std::size_t j = 0; j < d; ++j) {
                max_diff = std::max(max_diff, std::abs(double(theirs(row, j)) - double(head(i, j))));
                max_ours = std::max(max_ours, std::abs(double(head(i, j))));
            }
    return max_ours > 0 ? max_diff / max_ours : max_diff;
}

template double peer_output_difference<float>(const std::string&, const std::vector<fast_matrix<float>>&);
template double peer_output_difference<double>(const std::string&, const std::vector<fast_matrix<double>>&);

}  // namespace attn::bench
