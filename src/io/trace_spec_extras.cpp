// io/trace_spec_extras.cpp — see trace_spec_extras.hpp.
#include "io/trace_spec_extras.hpp"

#include <cmath>

#include "core/window.hpp"
#include "io/toml_read.hpp"
#include "io/toml_words.hpp"

namespace attn::io {

const std::vector<std::string>& trace_extra_keys() {
    static const std::vector<std::string> keys{"backward", "tile", "rope", "kv_heads", "window"};
    return keys;
}

void read_trace_extras(const toml::table& doc, const std::string& file, trace_spec& s) {
    const toml_reader rd{file};  // throw mode: the first problem ends the read
    const auto whole = [&](const char* key, std::int64_t least, std::optional<std::size_t>& out, source_pos& where) {
        if (auto v = rd.integer(doc, key, false, least, 1000000)) {
            out = static_cast<std::size_t>(*v);
            where = toml_pos(file, doc.get(key));
        }
    };
    whole("tile", 1, s.tile, s.tile_where);          // keys per block of the online softmax
    whole("kv_heads", 1, s.kv_heads, s.kv_heads_where);  // key/value heads shared by the query heads
    whole("window", 0, s.window, s.window_where);    // how far a query looks on each side
    if (const toml::node* n = doc.get("rope")) {
        s.rope_where = toml_pos(file, n);
        if (n->is_boolean()) {
            if (*n->value<bool>()) s.rope_base = 10000.0;
        } else if (n->is_number() && toml_number(*n) > 1.0 && std::isfinite(toml_number(*n))) {
            s.rope_base = toml_number(*n);
        } else {
            throw input_error(s.rope_where, "'rope' must be true (base 10000) or the base, a number > 1, found " +
                                                toml_type_name(n));
        }
    }
}

void resolve_trace_extras(const trace_spec& s, trace_inputs& in) {
    in.tile = s.tile;
    in.rope_base = s.rope_base;
    in.window = s.window;
    in.kv_heads = s.kv_heads.value_or(s.heads);
    if (s.kv_heads && s.heads % *s.kv_heads != 0)
        throw input_error(s.kv_heads_where, "kv_heads = " + std::to_string(*s.kv_heads) +
                                                " must divide heads = " + std::to_string(s.heads) +
                                                " (each key/value head serves heads/kv_heads query heads)");
    if (s.rope_base) {
        if (s.kind == "cross")
            throw input_error(s.rope_where, "'rope' turns positions of one sequence; cross-attention has two");
        if (in.d_head % 2 != 0)
            throw input_error(s.rope_where, "'rope' turns pairs of columns: d_head = " + std::to_string(in.d_head) +
                                                " is odd");
    }
    if (s.window) {
        in.has_mask = true;
        const bool_matrix w = window_mask(in.n_q, in.n_k, *s.window, s.causal);  // [n_q, n_k]
        for (auto& m : in.attend) m = m && w;
    }
    const auto it = s.inputs.find("backward");
    if (it == s.inputs.end()) return;
    const nd_array& g = it->second;
    if (s.rope_base || s.kv_heads)
        throw input_error(g.where, "'backward' traces the gradients of plain attention; drop 'rope' and 'kv_heads' "
                                   "from this spec to trace them");
    const std::size_t cols = in.heads * in.d_head_v;
    const bool ok2 = g.rank() == 2 && g.shape[0] == in.n_q && g.shape[1] == cols;
    const bool ok3 = g.rank() == 3 && g.shape[0] == in.batch && g.shape[1] == in.n_q && g.shape[2] == cols;
    if (!ok2 && !ok3)
        throw input_error(g.where, "backward (dL/dO) " + g.shape_text() + " does not chain with hook_z: expected [n_q=" +
                                       std::to_string(in.n_q) + ", heads·d_head_v=" + std::to_string(cols) + "]" +
                                       (in.batch > 1 ? " or [batch=" + std::to_string(in.batch) + ", n_q, heads·d_head_v]"
                                                     : ""));
    require_finite(g, "backward", ok3 ? std::vector<std::string>{"batch", "n_q", "d_v"}
                                      : std::vector<std::string>{"n_q", "d_v"});
    for (std::size_t b = 0; b < in.batch; ++b) {
        matrix m({in.n_q, cols});  // [n_q, heads·d_head_v]
        const std::size_t off = ok3 ? b * in.n_q * cols : 0;
        std::copy(g.data.begin() + static_cast<std::ptrdiff_t>(off),
                  g.data.begin() + static_cast<std::ptrdiff_t>(off + in.n_q * cols), m.begin());
        in.grad_output.push_back(std::move(m));
    }
}

}  // namespace attn::io
