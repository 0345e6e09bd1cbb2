// bench/bench_peers.cpp — peer child processes (pipes, fork, exec) and their outputs.
#include "bench_peers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xtensor/xnpy.hpp>

namespace attn::bench {

peer_process::peer_process(const std::string& python, const std::string& peers_dir, const std::string& peer,
                           const std::string& dir, unsigned threads, const std::string& coretype)
    : name_(peer), stderr_path_(dir + "/" + peer + (coretype.empty() ? "" : "_" + coretype) + ".stderr") {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) {
        error_ = "pipe failed";
        return;
    }
    const std::string script = peers_dir + "/" + peer + "_peer.py", t = std::to_string(threads);
    pid_ = fork();
    if (pid_ == 0) {  // child: stdin/stdout are the pipes, stderr a file
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        const int err = open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (err >= 0) dup2(err, 2);
        for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1], err})
            if (fd > 2) close(fd);
        if (!coretype.empty()) setenv("OPENBLAS_CORETYPE", coretype.c_str(), 1);
        execl(python.c_str(), python.c_str(), script.c_str(), dir.c_str(), t.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    if (pid_ < 0) {
        close(to_child[1]);
        close(from_child[0]);
        error_ = "fork failed";
        return;
    }
    to_ = fdopen(to_child[1], "w");
    from_ = fdopen(from_child[0], "r");
    std::string line;
    if (!read_line(line) || line.rfind("# ", 0) != 0) {
        fail("no version line");
        return;
    }
    version_ = line.substr(2);
    ok_ = true;
}

peer_process::~peer_process() {
    if (to_) {
        std::fputs("quit\n", to_);
        std::fclose(to_);
    }
    if (from_) std::fclose(from_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
}

bool peer_process::read_line(std::string& line) {
    char* buf = nullptr;
    std::size_t cap = 0;
    const ssize_t n = getline(&buf, &cap, from_);
    if (n > 0) line.assign(buf, buf[n - 1] == '\n' ? n - 1 : n);
    std::free(buf);
    return n > 0;
}

void peer_process::fail(const std::string& why) {
    ok_ = false;
    std::ifstream err(stderr_path_);
    std::stringstream text;
    text << err.rdbuf();
    error_ = why + "; stderr: " + text.str();
}

bool peer_process::time_case(const std::string& slug, const std::string& dtype, std::size_t d, double budget_s,
                             std::size_t min_reps, samples& out) {
    if (!ok_) return false;
    std::fprintf(to_, "%s %s %zu %.3f %zu\n", slug.c_str(), dtype.c_str(), d, budget_s, min_reps);
    std::fflush(to_);
    std::string line;
    if (!read_line(line)) {
        fail("no answer for " + slug + " " + dtype);
        return false;
    }
    std::istringstream fields(line);
    std::string got_slug, got_dtype, list;
    if (!std::getline(fields, got_slug, '\t') || !std::getline(fields, got_dtype, '\t') ||
        !std::getline(fields, list) || got_slug != slug || got_dtype != dtype) {
        fail("unexpected answer '" + line + "'");
        return false;
    }
    std::istringstream values(list);
    std::string v;
    while (std::getline(values, v, ',')) out.ms.push_back(std::strtod(v.c_str(), nullptr));
    return true;
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
