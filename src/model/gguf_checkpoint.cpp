// model/gguf_checkpoint.cpp — GGUF tensors into model_params (see gguf_checkpoint.hpp):
// each parameter's source tensors found by names_gguf.cpp, dequantized, transposed
// when they are linear weights, and written side by side.
#include "model/gguf_checkpoint.hpp"

#include <cstdint>
#include <functional>
#include <numeric>
#include <memory>
#include <type_traits>
#include <vector>

#include "model/checkpoint_names.hpp"
#include "model/file_error.hpp"
#include "model/gguf.hpp"
#include "model/gguf_family.hpp"
#include "model/gguf_quant.hpp"
#include "model/quant_matvec.hpp"

namespace attn::model {

namespace {

// The tensor `name` of the file (read_gguf_architecture checked every expected one).
const gguf_tensor& tensor_of(const gguf_header& h, const std::string& name) {
    const gguf_tensor* t = h.tensor(name);
    if (!t) throw file_error("invalid", h.file, h.data_start, "the file has no tensor '" + shown(name) + "'");
    return *t;
}

// Fills `out` ([in, out] for a transposed source, else flat) from the source tensors.
template <class Tensor>
void fill_param(const gguf_header& h, const gguf_source& src, Tensor& out, const std::string& name) {
    using T = typename Tensor::value_type;
    const std::size_t width = out.dimension() == 2 ? out.shape()[1] : 1;  // columns of [in, out]
    std::size_t at = 0;                                                   // elements (flat) or columns (transposed) filled
    for (const auto& tn : src.tensors) {
        const gguf_tensor& t = tensor_of(h, tn);
        std::vector<T> v(static_cast<std::size_t>(t.count));  // [count], the file's order (innermost dim fastest)
        dequantize(h, t, v.data());
        if (!src.transposed) {
            if (at + v.size() > out.size())
                throw file_error("invalid", h.file, t.entry_at, "tensor '" + shown(tn) + "' is larger than " + name + " holds");
            std::copy(v.begin(), v.end(), out.data() + at);
            at += v.size();
            continue;
        }
        // [rows = out_i, cols = in] stored row-major → columns at … at + rows − 1 of [in, width]
        const std::size_t in = t.dims.empty() ? 0 : static_cast<std::size_t>(t.dims[0]), rows = in ? v.size() / in : 0;
        if (out.dimension() != 2 || in != out.shape()[0] || at + rows > width)
            throw file_error("invalid", h.file, t.entry_at, "tensor '" + shown(tn) + "' does not fit " + name);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < in; ++c) out.data()[c * width + at + r] = v[r * in + c];
        at += rows;
    }
    const std::size_t filled = src.transposed ? at * (out.dimension() == 2 ? out.shape()[0] : 0) : at;
    if (filled != out.size())
        throw file_error("invalid", h.file, h.data_start, name + ": the file's tensors hold " + std::to_string(filled) + " of its " +
                                                              std::to_string(out.size()) + " values");
}

// The parameter's n elements where they lie, when the file holds them as the forward reads
// them: one F32 tensor (ggml type 0) of n elements read as float, not transposed, aligned
// for float, every value finite. Otherwise nullptr: fill_param copies (and dequantize
// names a value that is not finite).
template <class T>
const T* gguf_in_place(const gguf_header& h, const gguf_source& src, std::size_t n) {
    if (!std::is_same_v<T, float> || src.transposed || src.tensors.size() != 1) return nullptr;
    const gguf_tensor& t = tensor_of(h, src.tensors[0]);
    const unsigned char* p = h.bytes() + t.begin;
    if (t.type != 0 || t.count != n || reinterpret_cast<std::uintptr_t>(p) % alignof(float) != 0) return nullptr;
    const std::uint32_t* bits = reinterpret_cast<const std::uint32_t*>(p);  // [n] the floats' bits
    std::uint32_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad |= static_cast<std::uint32_t>((bits[i] & 0x7F800000u) == 0x7F800000u);
    return bad ? nullptr : reinterpret_cast<const T*>(p);
}

std::string types_text(const gguf_architecture& g) {
    std::string s;
    for (const auto& [type, n] : g.type_counts) s += (s.empty() ? "" : ", ") + type;
    return s;
}

// What `attn model info` and the CLI's budget read: the layout, types and notes.
void describe_into(checkpoint_info* info, const gguf_architecture& g) {
    if (!info) return;
    info->layout = "GGUF " + g.name;
    info->dtype = types_text(g);
    info->config_source = "GGUF metadata";
    if (!g.model_name.empty()) info->metadata["general.name"] = g.model_name;
    if (g.rotary)
        info->notes.push_back(g.pairing == rotary_pairing::adjacent
                                  ? "q and k rows as llama.cpp stores them: rotary turns adjacent pairs (2i, 2i + 1)"
                                  : "rotary turns half-split pairs (i, i + d/2), as Hugging Face stores q and k");
}

// The parameter's blocks for decoding when every source tensor has a block kernel (a
// linear weight's parts [out_i rows, in]; the embeddings' [vocab rows, d]); else empty.
quant::weight quant_source(const gguf_header& h, const gguf_source& src, const std::string& name) {
    quant::weight w;
    const bool rows = src.transposed || name == "unembed.W_U" || name == "embed.W_E";
    if (!rows || src.tensors.empty()) return w;
    for (const auto& tn : src.tensors) {
        const gguf_tensor& t = tensor_of(h, tn);
        if (!quant::has_kernel(t.type) || t.dims.size() != 2) return {};
        const ggml_type_info& ty = *ggml_type_of(t.type);
        quant::part p{t.type, h.bytes() + t.begin, static_cast<std::size_t>(t.dims[1]), static_cast<std::size_t>(t.dims[0]),
                      static_cast<std::size_t>(t.dims[0] / ty.block * ty.bytes)};
        if (p.k % ty.block != 0 || (!w.parts.empty() && w.parts.front().k != p.k)) return {};
        const std::size_t bad = quant::first_nonfinite_block(p);
        if (bad < p.rows * (p.k / ty.block))
            throw file_error("invalid", h.file, t.begin + bad * ty.bytes,
                             "tensor '" + shown(tn) + "' " + ty.name + " block " + std::to_string(bad) +
                                 " has a scale that is not finite; expected finite weights");
        w.parts.push_back(p);
    }
    return w;
}

}  // namespace

model_params<float> read_gguf_for_decoding(const std::string& path, quant::weights& q, checkpoint_info* info) {
    const auto f = std::make_shared<const gguf_file>(path);
    const gguf_header& h = f->header();
    const gguf_architecture g = read_gguf_architecture(h);
    const architecture a = gguf_model_architecture(h, g);
    model_params<float> p;  // tensors allocated one by one: a weight held in blocks is never allocated
    p.config = a;
    p.blocks.resize(a.n_layer);
    q.owner = f;
    for_each_param(p, [&](const std::string& name, param_kind, auto& tensor) {
        using tensor_t = std::decay_t<decltype(tensor)>;
        const gguf_source src = gguf_param_source(name, a);
        const std::vector<std::size_t> shape = param_shape(name, a);
        typename tensor_t::shape_type s;
        if (quant::weight w = quant_source(h, src, name); !w.empty() && s.size() == 2) {
            s.fill(0);
            tensor = tensor_t::from_shape(s);
            q.by_name.emplace_back(name, std::move(w));
            return;
        }
        std::copy(shape.begin(), shape.end(), s.begin());
        if (const float* in_place = gguf_in_place<float>(h, src, std::accumulate(shape.begin(), shape.end(), std::size_t(1), std::multiplies<>())))
            return void(tensor = mapped_tensor<tensor_t>(f, in_place, s));
        tensor = tensor_t::from_shape(s);
        fill_param(h, src, tensor, name);
    });
    describe_into(info, g);
    return p;
}

template <class T>
model_params<T> read_gguf_checkpoint(const std::string& path, checkpoint_info* info) {
    // Shared by the parameters that are views of it: mapped as long as one of them lives.
    const auto f = std::make_shared<const gguf_file>(path);
    return read_gguf_params<T>(f->header(), info, f);
}

architecture read_gguf_config(const std::string& path, checkpoint_info* info) {
    const gguf_file f(path);
    const gguf_architecture g = read_gguf_architecture(f.header());
    describe_into(info, g);
    return gguf_model_architecture(f.header(), g);
}

template <class T>
model_params<T> read_gguf_params(const gguf_header& h, checkpoint_info* info, const std::shared_ptr<const void>& owner) {
    const gguf_architecture g = read_gguf_architecture(h);
    model_params<T> p = unfilled_params<T>(gguf_model_architecture(h, g));
    for_each_param(p, [&](const std::string& name, param_kind, auto& tensor) {
        using tensor_t = std::decay_t<decltype(tensor)>;
        const gguf_source src = gguf_param_source(name, p.config);
        if (owner)
            if (const T* in_place = gguf_in_place<T>(h, src, tensor.size()))
                return void(tensor = mapped_tensor<tensor_t>(owner, in_place, tensor.shape()));
        fill_param(h, src, tensor, name);
    });
    describe_into(info, g);
    return p;
}

template model_params<float> read_gguf_checkpoint<float>(const std::string&, checkpoint_info*);
template model_params<double> read_gguf_checkpoint<double>(const std::string&, checkpoint_info*);
template model_params<float> read_gguf_params<float>(const gguf_header&, checkpoint_info*, const std::shared_ptr<const void>&);
template model_params<double> read_gguf_params<double>(const gguf_header&, checkpoint_info*, const std::shared_ptr<const void>&);

}  // namespace attn::model
