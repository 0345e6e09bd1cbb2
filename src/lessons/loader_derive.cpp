// lessons/loader_derive.cpp — [derived.X] matrices: small, named operations on
// matrices the lesson already has, so a lesson states how a matrix is made
// (Q_dec = Q ⊙ [1.2, 0.8, 1.1, 0.9]) instead of typing in its result.
#include <cmath>

#include "core/attention.hpp"
#include "lessons/key_check.hpp"
#include "lessons/loader_internal.hpp"

namespace attn::lessons::detail {

const std::vector<derive_op>& derive_ops() {
    static const std::vector<derive_op> ops = {
        {"scale_columns", {"op", "of", "by"}, "of ⊙ by: column j of 'of' times by[j]"},
        {"rows", {"op", "of", "rows"}, "the rows of 'of' listed in 'rows' (0-based), in that order"},
        {"matmul", {"op", "a", "b"}, "the matrix product a · b"},
        {"add", {"op", "a", "b"}, "a + b, same shapes"},
        {"transpose", {"op", "of"}, "the transpose of 'of'"},
        {"scale", {"op", "of", "by"}, "every entry of 'of' times the number 'by'"},
        {"random_normal", {"op", "rows", "cols", "seed"},
         "rows × cols standard normal numbers from attn's own PRNG with the given seed"},
        {"lookup", {"op", "table", "vocab", "tokens"},
         "embedding lookup: for each token of 'tokens', the row of 'table' whose 'vocab' token it is"},
        {"layer_norm", {"op", "of", "eps"}, "layer norm of each row (statistics per token); eps defaults to 0"},
        {"relu", {"op", "of"}, "max(0, x) entry by entry"},
        {"ffn", {"op", "x", "w1", "b1", "w2", "b2", "activation"},
         "the position-wise feed-forward network act(x·W1 + b1)·W2 + b2 (also X.hidden_pre, X.hidden)"},
        {"distance_bias", {"op", "rows", "cols", "slope"}, "the ALiBi-style bias −slope·|i − j| of seed 000 eq. 13"},
        {"sinusoidal", {"op", "rows", "cols"}, "the sinusoidal position table of the original Transformer"},
    };
    return ops;
}

std::optional<matrix> loader::derive(const toml::table& d, const std::string& name, const std::string& op) {
    const derive_op* spec = nullptr;
    std::vector<std::string> names;
    for (const auto& o : derive_ops()) {
        names.push_back(o.name);
        if (o.name == op) spec = &o;
    }
    if (!spec) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        rd.fail(d.get("op"), "unknown op '" + op + "'" + hint_suffix(op, names) + " (expected one of " + list + ")");
        return std::nullopt;
    }
    check_known_keys(rd, d, "[derived." + name + "] (op " + op + ")", spec->keys);

    if (op == "scale_columns") {
        const matrix* of = matrix_ref(d, "of", true);
        std::optional<std::vector<double>> by;
        if (!d.get("by")) rd.fail(&d, "[derived." + name + "] needs 'by', one factor per column");
        else by = rd.numbers(d.get("by"), "'by'");
        if (!of || !by) return std::nullopt;
        if (by->size() != of->shape(1)) {
            rd.fail(d.get("by"), "'by' has " + std::to_string(by->size()) + " factors but '" +
                                     *rd.string(d, "of", true) + "' has " + std::to_string(of->shape(1)) + " columns");
            return std::nullopt;
        }
        matrix m = *of;  // [n, d]
        for (std::size_t i = 0; i < m.shape(0); ++i)
            for (std::size_t j = 0; j < m.shape(1); ++j) m(i, j) *= (*by)[j];
        return m;
    }
    if (op == "rows") {
        const matrix* of = matrix_ref(d, "of", true);
        std::optional<std::vector<double>> idx;
        if (!d.get("rows")) rd.fail(&d, "[derived." + name + "] needs 'rows', a list of row indices");
        else idx = rd.numbers(d.get("rows"), "'rows'");
        if (!of || !idx) return std::nullopt;
        matrix m({idx->size(), of->shape(1)});  // [len(rows), d]
        for (std::size_t r = 0; r < idx->size(); ++r) {
            const double i = (*idx)[r];
            if (i < 0 || i >= static_cast<double>(of->shape(0)) || i != std::floor(i)) {
                rd.fail(d.get("rows"), "row index " + std::to_string(i) + " is outside 0.." +
                                           std::to_string(of->shape(0) - 1));
                return std::nullopt;
            }
            for (std::size_t j = 0; j < of->shape(1); ++j) m(r, j) = (*of)(static_cast<std::size_t>(i), j);
        }
        return m;
    }
    if (op == "matmul" || op == "add") {
        const matrix* a = matrix_ref(d, "a", true);
        const matrix* b = matrix_ref(d, "b", true);
        if (!a || !b) return std::nullopt;
        if (op == "matmul") {
            if (a->shape(1) != b->shape(0)) {
                rd.fail(&d, "matmul of " + shape_str(*a) + " and " + shape_str(*b) + ": inner sizes differ");
                return std::nullopt;
            }
            return attn::matmul(*a, *b);
        }
        if (a->shape() != b->shape()) {
            rd.fail(&d, "add of " + shape_str(*a) + " and " + shape_str(*b) + ": shapes differ");
            return std::nullopt;
        }
        return matrix(*a + *b);
    }
    if (op == "transpose") {
        const matrix* of = matrix_ref(d, "of", true);
        if (!of) return std::nullopt;
        return matrix(xt::transpose(*of));
    }
    return derive_more(d, name, op);
}

}  // namespace attn::lessons::detail
