// io/nd_array.cpp — see nd_array.hpp.
#include "io/nd_array.hpp"

#include <cmath>

namespace attn::io {

std::size_t nd_array::size() const {
    std::size_t n = 1;
    for (auto s : shape) n *= s;
    return n;
}

std::string nd_array::shape_text() const {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? " × " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string index_text(const std::vector<std::size_t>& shape, std::size_t flat) {
    std::vector<std::size_t> idx(shape.size());
    for (std::size_t a = shape.size(); a-- > 0;) {
        idx[a] = shape[a] ? flat % shape[a] : 0;
        flat = shape[a] ? flat / shape[a] : 0;
    }
    std::string s = "[";
    for (std::size_t a = 0; a < idx.size(); ++a) s += (a ? ", " : "") + std::to_string(idx[a]);
    return s + "]";
}

void require_finite(const nd_array& a, const std::string& name, const std::vector<std::string>& axes) {
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        const double x = a.data[i];
        if (std::isfinite(x)) continue;
        std::string ax = "[";
        for (std::size_t k = 0; k < axes.size(); ++k) ax += (k ? ", " : "") + axes[k];
        ax += "]";
        const std::string what = std::isnan(x) ? "not a number" : (x < 0 ? "-infinity" : "infinity");
        const std::string from = a.origin == "inline" ? "" : " (from " + a.origin + ")";
        throw input_error(a.where, name + index_text(a.shape, i) + " is " + what + from + ", axes " + ax +
                                       "; every input must be a finite number");
    }
}

}  // namespace attn::io
