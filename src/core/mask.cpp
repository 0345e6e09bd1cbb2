// core/mask.cpp — builders for attend-polarity masks (see mask.hpp).
#include "core/mask.hpp"

#include <stdexcept>

#include "core/internal_error.hpp"

namespace attn {

bool_matrix causal_mask(std::size_t n_q, std::size_t n_k, std::size_t offset) {
    bool_matrix m({n_q, n_k});  // [n_q, n_k]
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j) m(i, j) = j <= i + offset;
    return m;
}

bool_matrix padding_mask(std::size_t n_q, const std::vector<bool>& key_is_padding) {
    const std::size_t n_k = key_is_padding.size();
    bool_matrix m({n_q, n_k});  // [n_q, n_k]
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j) m(i, j) = !key_is_padding[j];
    return m;
}

bool_matrix full_mask(std::size_t n_q, std::size_t n_k) {
    bool_matrix m({n_q, n_k});
    m.fill(true);
    return m;
}

bool_matrix combine_masks(const bool_matrix& a, const bool_matrix& b) {
    if (a.shape() != b.shape()) throw internal_error("combine_masks: masks differ in shape");
    bool_matrix m(a.shape());
    for (std::size_t i = 0; i < a.size(); ++i) m.flat(i) = a.flat(i) && b.flat(i);
    return m;
}

}  // namespace attn
