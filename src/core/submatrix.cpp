// core/submatrix.cpp — see submatrix.hpp.
#include "core/submatrix.hpp"

#include <algorithm>

namespace attn {

std::optional<matrix> submatrix(const matrix& m, const std::vector<std::size_t>& rows,
                                const std::vector<std::size_t>& cols) {
    const std::size_t n_rows = rows.empty() ? m.shape(0) : rows.size();
    const std::size_t n_cols = cols.empty() ? m.shape(1) : cols.size();
    matrix out({n_rows, n_cols});  // [len(rows), len(cols)]
    for (std::size_t a = 0; a < n_rows; ++a)
        for (std::size_t b = 0; b < n_cols; ++b) {
            const std::size_t r = rows.empty() ? a : rows[a], c = cols.empty() ? b : cols[b];
            if (r >= m.shape(0) || c >= m.shape(1)) return std::nullopt;
            out(a, b) = m(r, c);
        }
    return out;
}

std::vector<std::size_t> all_or(const std::vector<std::size_t>& picked, std::size_t n) {
    if (!picked.empty()) return picked;
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    return all;
}

std::size_t row_argmax(const matrix& m, std::size_t i, double slack) {
    double best = m(i, 0);
    for (std::size_t j = 1; j < m.shape(1); ++j) best = std::max(best, m(i, j));
    std::size_t j = 0;
    while (m(i, j) < best - slack) ++j;
    return j;
}

}  // namespace attn
