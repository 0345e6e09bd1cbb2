// core/shapes.cpp — dim algebra, canonical printing, evaluation and comparison of
// symbolic shapes (the parser is in shape_parse.cpp).
#include "core/shapes.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace attn {

namespace {

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) throw shape_eval_error("shape arithmetic overflows 64 bits");
    return r;
}

// Multiplies exponent maps, keeping first-appearance order and dropping zeros.
void add_factors(std::vector<std::pair<std::string, int>>& into, const std::vector<std::pair<std::string, int>>& from,
                 int sign) {
    for (const auto& [name, p] : from) {
        const std::string& symbol = name;  // C++17 lambdas can't capture a structured binding (clang refuses)
        auto it = std::find_if(into.begin(), into.end(), [&](const auto& f) { return f.first == symbol; });
        // Exponents are ints: nested powers ((d^50)^50)^50 … must stop with a message, not wrap.
        int signed_p = 0, sum = 0;
        if (__builtin_mul_overflow(sign, p, &signed_p)) throw shape_eval_error("shape exponent overflows");
        if (it == into.end())
            into.emplace_back(name, signed_p);
        else if (__builtin_add_overflow(it->second, signed_p, &sum))
            throw shape_eval_error("shape exponent overflows");
        else
            it->second = sum;
    }
    into.erase(std::remove_if(into.begin(), into.end(), [](const auto& f) { return f.second == 0; }), into.end());
}

std::string factor_text(const std::string& name, int p) { return p == 1 ? name : name + "^" + std::to_string(p); }

}  // namespace

dim dim::constant(std::int64_t value) {
    if (value < 0) throw shape_eval_error("a dimension cannot be negative (" + std::to_string(value) + ")");
    dim d;
    d.num_ = value;
    return d;
}

dim dim::symbol(const std::string& name) {
    dim d;
    d.factors_.emplace_back(name, 1);
    return d;
}

dim dim::operator*(const dim& other) const {
    dim r;
    const std::int64_t g1 = std::gcd(num_, other.den_), g2 = std::gcd(other.num_, den_);
    const std::int64_t a = g1 ? g1 : 1, b = g2 ? g2 : 1;
    r.num_ = checked_mul(num_ / a, other.num_ / b);
    r.den_ = checked_mul(den_ / b, other.den_ / a);
    if (r.num_ == 0) r.den_ = 1;
    r.factors_ = factors_;
    add_factors(r.factors_, other.factors_, +1);
    return r;
}

dim dim::operator/(const dim& other) const {
    if (other.num_ == 0) throw shape_eval_error("division by zero");
    dim inv;
    inv.num_ = other.den_;
    inv.den_ = other.num_;
    add_factors(inv.factors_, other.factors_, -1);
    return *this * inv;
}

dim dim::pow(int exponent) const {
    dim r;
    if (exponent < 0) return dim() / pow(-exponent);
    for (int i = 0; i < exponent; ++i) r = r * *this;
    return r;
}

bool dim::operator==(const dim& other) const {
    if (num_ != other.num_ || den_ != other.den_) return false;
    if (num_ == 0) return true;  // 0·anything = 0
    auto a = factors_, b = other.factors_;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

std::string dim::to_string() const {
    if (num_ == 0) return "0";
    std::vector<std::string> top, bottom;
    if (num_ != 1 || (factors_.empty() && den_ == 1)) top.push_back(std::to_string(num_));
    if (den_ != 1) bottom.push_back(std::to_string(den_));
    for (const auto& [name, p] : factors_) (p > 0 ? top : bottom).push_back(factor_text(name, p > 0 ? p : -p));
    auto join = [](const std::vector<std::string>& parts) {
        std::string s;
        for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? "·" : "") + parts[i];
        return s;
    };
    std::string text = top.empty() ? "1" : join(top);
    if (bottom.empty()) return text;
    if (top.size() > 1) text = "(" + text + ")";
    return text + "/" + (bottom.size() > 1 ? "(" + join(bottom) + ")" : bottom[0]);
}

std::int64_t dim::evaluate(const symbol_values& values) const {
    std::int64_t top = num_, bottom = den_;
    for (const auto& [name, p] : factors_) {
        const auto it = values.find(name);
        if (it == values.end()) {
            std::string bound;
            for (const auto& [n, v] : values) bound += (bound.empty() ? "" : ", ") + n;
            throw shape_eval_error("symbol " + name + " has no value" +
                                       (bound.empty() ? std::string(" (no symbol is bound)") : " (bound: " + bound + ")"),
                                   name);
        }
        if (it->second < 0)
            throw shape_eval_error(name + " = " + std::to_string(it->second) + ": a dimension cannot be negative", name);
        for (int i = 0; i < (p > 0 ? p : -p); ++i) (p > 0 ? top : bottom) = checked_mul(p > 0 ? top : bottom, it->second);
    }
    if (bottom == 0) throw shape_eval_error(to_string() + " divides by zero");
    if (top % bottom != 0)
        throw shape_eval_error(to_string() + " = " + std::to_string(top) + "/" + std::to_string(bottom) +
                               " is not a whole number");
    return top / bottom;
}

dim dim::substitute(const std::map<std::string, dim>& rules) const {
    dim r;
    r.num_ = num_;
    r.den_ = den_;
    for (const auto& [name, p] : factors_) {
        const auto it = rules.find(name);
        r = r * (it == rules.end() ? dim::symbol(name) : it->second).pow(p);
    }
    return r;
}

symbolic_shape make_shape(std::initializer_list<std::string_view> dims) {
    symbolic_shape s;
    for (std::string_view d : dims) s.dims.push_back(parse_dim(d));
    return s;
}

std::string to_string(const symbolic_shape& shape) {
    if (shape.dims.empty()) return "()";
    std::string s;
    for (std::size_t i = 0; i < shape.dims.size(); ++i) s += (i ? " × " : "") + shape.dims[i].to_string();
    return s;
}

std::string to_string(const std::vector<std::int64_t>& numbers) {
    if (numbers.empty()) return "()";
    std::string s;
    for (std::size_t i = 0; i < numbers.size(); ++i) s += (i ? " × " : "") + std::to_string(numbers[i]);
    return s;
}

std::vector<std::int64_t> evaluate(const symbolic_shape& shape, const symbol_values& values) {
    std::vector<std::int64_t> out;
    for (const dim& d : shape.dims) out.push_back(d.evaluate(values));
    return out;
}

symbolic_shape substitute(const symbolic_shape& shape, const std::map<std::string, dim>& rules) {
    symbolic_shape out;
    for (const dim& d : shape.dims) out.dims.push_back(d.substitute(rules));
    return out;
}

const std::vector<symbol_info>& standard_symbols() {
    static const std::vector<symbol_info> symbols = {
        {"B", "batch size (sequences processed together)"},
        {"n", "sequence length (tokens)"},
        {"n_q", "number of queries (rows of the scores)"},
        {"n_k", "number of keys and values (columns of the scores)"},
        {"n_src", "source length (encoder tokens)"},
        {"n_tgt", "target length (decoder tokens)"},
        {"N", "maximum sequence length (rows of a learned position matrix)"},
        {"d", "model width (features per token)"},
        {"d_model", "model width (features per token)"},
        {"d_k", "query/key width"},
        {"d_q", "query/key width (d_k = d_q)"},
        {"d_v", "value width"},
        {"d_ff", "hidden width of the feed-forward network (often 4·d)"},
        {"H", "number of heads"},
        {"k", "number of heads (seed 000's notation)"},
        {"d_head", "width of one head (d_model/H)"},
    };
    return symbols;
}

bool is_standard_symbol(std::string_view name) {
    for (const auto& s : standard_symbols())
        if (s.name == name) return true;
    return false;
}

namespace {

template <class T, class Text>
shape_comparison compare_lists(const std::vector<T>& e, const std::vector<T>& a, Text text) {
    shape_comparison c;
    auto join = [&](const std::vector<T>& v) {
        if (v.empty()) return std::string("()");
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " × " : "") + text(v[i]);
        return s;
    };
    c.expected = join(e);
    c.actual = join(a);
    c.expected_rank = e.size();
    c.actual_rank = a.size();
    if (e.size() != a.size()) {
        c.verdict = shape_verdict::rank_differs;
        const auto& longer = e.size() > a.size() ? e : a;
        const auto& shorter = e.size() > a.size() ? a : e;
        if (longer.size() == shorter.size() + 1) {
            for (std::size_t skip = 0; skip < longer.size(); ++skip) {
                bool same = true;
                for (std::size_t i = 0, j = 0; i < longer.size() && same; ++i) {
                    if (i == skip) continue;
                    same = longer[i] == shorter[j++];
                }
                if (same) {
                    c.odd_axis = skip;
                    c.missing_axis = e.size() > a.size();
                    break;
                }
            }
        }
        return c;
    }
    if (e == a) return c;  // equal
    // Same dims in another order? Match each actual axis to the first unused equal expected axis.
    std::vector<bool> used(e.size(), false);
    bool permuted = true;
    for (std::size_t i = 0; i < a.size() && permuted; ++i) {
        permuted = false;
        for (std::size_t j = 0; j < e.size(); ++j) {
            if (!used[j] && e[j] == a[i]) {
                used[j] = true;
                c.permutation.push_back(j);
                permuted = true;
                break;
            }
        }
    }
    if (permuted) {
        c.verdict = shape_verdict::permuted;
        const std::size_t r = e.size();
        if (r >= 2) {
            auto swapped = a;
            std::swap(swapped[r - 1], swapped[r - 2]);
            c.last_two_swapped = swapped == e;
        }
        return c;
    }
    c.permutation.clear();
    c.verdict = shape_verdict::dim_differs;
    for (std::size_t i = 0; i < e.size(); ++i) {
        if (e[i] == a[i]) continue;
        if (c.differing_axes++ == 0) {
            c.position = i;
            c.expected_dim = text(e[i]);
            c.actual_dim = text(a[i]);
        }
    }
    return c;
}

}  // namespace

shape_comparison compare_shapes(const symbolic_shape& expected, const symbolic_shape& actual) {
    return compare_lists(expected.dims, actual.dims, [](const dim& d) { return d.to_string(); });
}

shape_comparison compare_shapes(const std::vector<std::int64_t>& expected, const std::vector<std::int64_t>& actual) {
    return compare_lists(expected, actual, [](std::int64_t v) { return std::to_string(v); });
}

std::string shape_comparison::explain() const {
    const std::string both = "expected " + expected + ", found " + actual;
    switch (verdict) {
        case shape_verdict::equal:
            return "shapes agree: " + expected;
        case shape_verdict::permuted:
            return std::string(last_two_swapped ? "the last two axes are swapped" : "same dimensions in another order") +
                   ": " + both;
        case shape_verdict::rank_differs: {
            std::string s = "expected " + std::to_string(expected_rank) + " axes, found " + std::to_string(actual_rank);
            if (odd_axis)
                s += std::string("; axis ") + std::to_string(*odd_axis + 1) + (missing_axis ? " is missing" : " is extra");
            return s + " (" + both + ")";
        }
        case shape_verdict::dim_differs: {
            std::string s = "axis " + std::to_string(position + 1) + " of " + std::to_string(expected_rank) +
                            " differs: expected " + expected_dim + ", found " + actual_dim;
            if (differing_axes > 1) s += " (and " + std::to_string(differing_axes - 1) + " more axes differ)";
            return s + " (" + both + ")";
        }
    }
    return both;
}

}  // namespace attn
