// model/rope_scaling.cpp — see rope_scaling.hpp: the linear and Llama 3 rescalings of the
// rotary frequencies, computed in double once per model.
#include "model/rope_scaling.hpp"

#include <cmath>

#include "core/rope.hpp"

namespace attn::model {

std::vector<double> linear_rope_frequencies(double theta, std::size_t dims, double factor) {
    std::vector<double> f(dims / 2);  // [dims/2]
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = rope_frequency(i, dims, theta) / factor;
    return f;
}

std::vector<double> llama3_rope_frequencies(double theta, std::size_t dims, const llama3_rope& s) {
    const double pi = std::acos(-1.0);
    const double low_wavelength = s.original_context / s.low_freq_factor;
    const double high_wavelength = s.original_context / s.high_freq_factor;
    std::vector<double> f(dims / 2);  // [dims/2]
    for (std::size_t i = 0; i < f.size(); ++i) {
        const double base = rope_frequency(i, dims, theta);
        const double wavelength = 2 * pi / base;
        if (wavelength < high_wavelength) {
            f[i] = base;
        } else if (wavelength > low_wavelength) {
            f[i] = base / s.factor;
        } else {
            const double smooth = (s.original_context / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
            f[i] = (1 - smooth) * base / s.factor + smooth * base;
        }
    }
    return f;
}

}  // namespace attn::model
