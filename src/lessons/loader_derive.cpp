// lessons/loader_derive.cpp — [derived.X] matrices: small, named operations on
// matrices the lesson already has, so a lesson states how a matrix is made
// (Q_dec = Q ⊙ [1.2, 0.8, 1.1, 0.9]) instead of typing in its result. This file
// holds the registry's lookup and the plain matrix ops; loader_derive_more.cpp
// holds the ops built on the core's pieces.
#include <cmath>

#include "core/attention.hpp"
#include "io/toml_read.hpp"
#include "lessons/loader_internal.hpp"

namespace attn::lessons::detail {

namespace {

std::optional<matrix> op_scale_columns(loader& ld, const toml::table& d, const std::string& name) {
    auto& rd = ld.rd;
    const matrix* of = ld.matrix_ref(d, "of", true);
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

std::optional<matrix> op_rows(loader& ld, const toml::table& d, const std::string& name) {
    auto& rd = ld.rd;
    const matrix* of = ld.matrix_ref(d, "of", true);
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

std::optional<matrix> op_matmul(loader& ld, const toml::table& d, const std::string&) {
    const matrix* a = ld.matrix_ref(d, "a", true);
    const matrix* b = ld.matrix_ref(d, "b", true);
    if (!a || !b) return std::nullopt;
    if (a->shape(1) != b->shape(0)) {
        ld.rd.fail(&d, "matmul of " + shape_str(*a) + " and " + shape_str(*b) + ": inner sizes differ");
        return std::nullopt;
    }
    return attn::matmul(*a, *b);
}

std::optional<matrix> op_add(loader& ld, const toml::table& d, const std::string&) {
    const matrix* a = ld.matrix_ref(d, "a", true);
    const matrix* b = ld.matrix_ref(d, "b", true);
    if (!a || !b) return std::nullopt;
    if (a->shape() != b->shape()) {
        ld.rd.fail(&d, "add of " + shape_str(*a) + " and " + shape_str(*b) + ": shapes differ");
        return std::nullopt;
    }
    return matrix(*a + *b);
}

std::optional<matrix> op_transpose(loader& ld, const toml::table& d, const std::string&) {
    const matrix* of = ld.matrix_ref(d, "of", true);
    if (!of) return std::nullopt;
    return matrix(xt::transpose(*of));
}

}  // namespace

std::vector<derive_op> matrix_derive_ops() {
    return {
        {"scale_columns", {"op", "of", "by"}, "of ⊙ by: column j of 'of' times by[j]", op_scale_columns},
        {"rows", {"op", "of", "rows"}, "the rows of 'of' listed in 'rows' (0-based), in that order", op_rows},
        {"matmul", {"op", "a", "b"}, "the matrix product a · b", op_matmul},
        {"add", {"op", "a", "b"}, "a + b, same shapes", op_add},
        {"transpose", {"op", "of"}, "the transpose of 'of'", op_transpose},
    };
}

const std::vector<derive_op>& derive_ops() {
    static const std::vector<derive_op> ops = [] {
        std::vector<derive_op> all;
        for (auto family : {matrix_derive_ops, core_derive_ops, model_derive_ops}) {
            auto f = family();
            all.insert(all.end(), f.begin(), f.end());
        }
        return all;
    }();
    return ops;
}

const derive_op* find_derive_op(const std::string& name) {
    for (const auto& o : derive_ops())
        if (o.name == name) return &o;
    return nullptr;
}

std::optional<matrix> loader::derive(const toml::table& d, const std::string& name, const std::string& op) {
    const derive_op* spec = find_derive_op(op);
    if (!spec) {
        std::vector<std::string> names;
        std::string list;
        for (const auto& o : derive_ops()) {
            names.push_back(o.name);
            list += (list.empty() ? "" : ", ") + o.name;
        }
        rd.fail(d.get("op"), "unknown op '" + op + "'" + hint_suffix(op, names) + " (expected one of " + list + ")");
        return std::nullopt;
    }
    rd.known_keys(d, "[derived." + name + "] (op " + op + ")", spec->keys);
    return spec->compute(*this, d, name);
}

}  // namespace attn::lessons::detail
