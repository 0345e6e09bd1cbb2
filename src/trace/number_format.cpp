// trace/number_format.cpp — see number_format.hpp.
#include "trace/number_format.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace attn::trace {

std::string fixed(double value, int decimals) {
    if (std::isnan(value)) return "undefined";  // never print nan; callers avoid this path
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    std::string s = fmt::format("{:.{}f}", value, decimals);
    // A negative value that rounds to zero prints as "-0.00": drop the sign.
    if (!s.empty() && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
    return s;
}

std::string grouped(std::uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t k = 0; k < digits.size(); ++k) {
        if (k && (digits.size() - k) % 3 == 0) out += ',';
        out += digits[k];
    }
    return out;
}

std::string signed_fixed(double value, int decimals) {
    std::string s = fixed(value, decimals);
    if (s.find_first_not_of("0.") == std::string::npos) return s;  // zero has no sign
    if (s[0] != '-' && s != "inf") s.insert(0, "+");
    return s;
}

double rounded(double value, int decimals) {
    const double scale = std::pow(10.0, decimals);
    const double r = std::round(value * scale) / scale;
    return r == 0.0 ? 0.0 : r;  // no -0
}

std::string trimmed_fixed(double value, int decimals) {
    std::string s = fixed(rounded(value, decimals), decimals);
    if (decimals <= 0) return s;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

std::string compact(double value, int max_decimals) {
    std::string s = fixed(value, max_decimals);
    if (s.find('.') == std::string::npos) return s;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.push_back('0');
    if (s == "-0.0") s = "0.0";
    return s;
}

int exact_decimals(const matrix& m) {
    for (int d = 1; d < 4; ++d) {
        const double p = std::pow(10.0, d);
        bool exact = true;
        for (double x : m) exact = exact && std::fabs(x * p - std::round(x * p)) < 1e-9 * std::max(1.0, std::fabs(x * p));
        if (exact) return d;
    }
    return 4;
}

std::string bracketed(const std::vector<double>& values, int decimals) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) s += ", ";
        s += decimals >= 0 ? fixed(values[i], decimals) : compact(values[i]);
    }
    return s + "]";
}

std::string bracketed_row(const matrix& m, std::size_t row, int decimals) {
    std::vector<double> values(m.shape(1));
    for (std::size_t j = 0; j < values.size(); ++j) values[j] = m(row, j);
    return bracketed(values, decimals);
}

std::string bracketed_matrix(const matrix& m, int decimals) {
    std::string s = "[";
    for (std::size_t i = 0; i < m.shape(0); ++i) s += (i ? ", " : "") + bracketed_row(m, i, decimals);
    return s + "]";
}

std::string product_term(double a, double b) {
    const std::string right = compact(b);
    return compact(a) + "×" + (right[0] == '-' ? "(" + right + ")" : right);
}

std::string sum_of_terms(const std::vector<std::string>& terms) {
    std::string out;
    for (const std::string& t : terms) {
        if (out.empty()) out = t;
        else if (t[0] == '-') out += " - " + t.substr(1);
        else out += " + " + t;
    }
    return out;
}

}  // namespace attn::trace
