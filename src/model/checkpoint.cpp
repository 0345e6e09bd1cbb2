// model/checkpoint.cpp — reading a checkpoint into model_params (see checkpoint.hpp).
// Passes: parse and check the header (safetensors.cpp), read the names and the layout
// (checkpoint_layout.cpp), resolve the config (checkpoint_config.cpp), check every
// parameter's tensor and shape before allocating anything, then convert each tensor
// into its parameter.
#include "model/checkpoint.hpp"

#include <cstring>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <type_traits>
#include <utility>

#include "io/mapped_file.hpp"
#include "model/checkpoint_layout.hpp"
#include "model/checkpoint_llama.hpp"
#include "model/checkpoint_names.hpp"
#include "model/checkpoint_shards.hpp"
#include "model/file_error.hpp"

namespace attn::model {

namespace {

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string s = "[";
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + "]";
}

// The parameter's shape as model_params stores it ([in, out] for linear layers).
std::vector<std::uint64_t> file_shape(const std::string& name, const architecture& c) {
    const auto s = param_shape(name, c);
    return {s.begin(), s.end()};
}

// nn.Linear stores [out, in]: every linear layer of minGPT/nanoGPT but lm_head, which
// model_params keeps as [vocab, d_model] like nn.Linear does.
bool transposed_in_file(bool linear_layout, param_kind kind, const std::string& key) {
    return linear_layout && kind == param_kind::linear && key != "lm_head.weight";
}

// Every parameter's tensor present (biases: all or none), readable, of the right shape.
// Returns whether the biases are present.
bool check_tensors(const st_header& h, const layout_scan& s, const architecture& c, std::set<std::string>& dtypes) {
    model_params<float> shell;  // the config and the layers, no tensor allocated
    shell.config = c;
    shell.blocks.resize(c.n_layer);
    std::size_t biases = 0, biases_found = 0;
    std::string first_missing_bias;
    for_each_param(shell, [&](const std::string& name, param_kind kind, const auto&) {
        const std::string key = gpt2_key(name);
        const auto it = s.by_key.find(key);
        if (kind == param_kind::bias) ++biases;
        if (it == s.by_key.end()) {
            if (kind != param_kind::bias)
                throw file_error("missing", h.file, 8, "no tensor '" + key + "' (or 'transformer." + key + "') in the checkpoint");
            if (first_missing_bias.empty()) first_missing_bias = key;
            return;
        }
        const st_tensor& t = *it->second;
        biases_found += kind == param_kind::bias;
        auto want = file_shape(name, c);
        if (transposed_in_file(s.linear, kind, key)) std::swap(want[0], want[1]);
        if (t.shape != want)
            throw file_error("invalid", tensor_file(h, t), t.shape_at, "tensor '" + shown(t.name) + "' has the shape " + shape_text(t.shape) +
                                                                ", expected " + shape_text(want) + " (" + (s.linear ? layout_mingpt : layout_hugging_face) + ")");
        if (!dtype_readable(t.dtype))
            throw file_error("unsupported", tensor_file(h, t), t.entry_at, "tensor '" + shown(t.name) + "' has dtype " + t.dtype +
                                                                    "; attn reads F64, F32, F16 and BF16");
        dtypes.insert(t.dtype);
    });
    if (biases_found != 0 && biases_found != biases)
        throw file_error("missing", h.file, 8, "no tensor '" + first_missing_bias + "': the checkpoint has some biases but not all (" +
                                                   std::to_string(biases_found) + " of " + std::to_string(biases) + ")");
    return biases_found != 0;
}

// Everything but the values: header, layout, config, each parameter's tensor.
struct checked_file {
    st_header h;
    layout_scan s;
    architecture c;
    bool llama = false;  // the Llama family's names (checkpoint_llama.cpp)
};

checked_file check_header(st_header header, const std::string& config_json, checkpoint_info& out) {
    out = checkpoint_info{};
    checked_file f{std::move(header), {}, {}};
    if (is_llama_file(f.h)) {
        f.llama = true;
        f.c = check_llama_file(f.h, config_json, out);
        return f;
    }
    f.s = scan_layout(f.h);
    f.c = resolve_config(f.h, f.s, config_json, out);
    std::set<std::string> dtypes;
    if (!check_tensors(f.h, f.s, f.c, dtypes)) out.notes.push_back("the checkpoint has no biases (nanoGPT's bias=False): read as zeros");
    if (f.s.wte_from_lm_head) out.notes.push_back("no wte.weight: the embedding is lm_head.weight (tied weights saved once)");
    out.layout = f.s.linear ? layout_mingpt : layout_hugging_face;
    for (const auto& d : dtypes) out.dtype += (out.dtype.empty() ? "" : ", ") + d;
    out.metadata = f.h.metadata;
    return f;
}

checked_file check_file(const unsigned char* bytes, std::size_t size, const std::string& name, const std::string& config_json,
                        checkpoint_info& out) {
    return check_header(parse_safetensors(bytes, size, name), config_json, out);
}

std::string config_json_beside(const std::string& path) {
    return (std::filesystem::path(path).parent_path() / "config.json").string();
}

// Converts every tensor into a new model_params, allocated uninitialised (each element is
// written once: a zero fill first would touch 500 MB of GPT-2 twice); done(begin, end)
// after each tensor copied. With a mapping's `owner`, a tensor the file holds as the
// forward reads it (elements_in_place) is a view of the mapping instead: nothing copied.
template <class T>
model_params<T> fill(const checked_file& f, const unsigned char* bytes, const std::function<void(std::uint64_t, std::uint64_t)>& done,
                     const std::shared_ptr<const void>& owner = nullptr) {
    if (f.llama) return fill_llama<T>(f.h, f.c, bytes, done, owner);
    model_params<T> p;
    p.config = f.c;
    p.blocks.resize(f.c.n_layer);
    for_each_param(p, [&](const std::string& pname, param_kind kind, auto& tensor) {
        using tensor_t = std::decay_t<decltype(tensor)>;
        const std::string key = gpt2_key(pname);
        const auto shape = param_shape(pname, f.c);
        typename tensor_t::shape_type s;
        std::copy(shape.begin(), shape.end(), s.begin());
        const auto it = f.s.by_key.find(key);
        if (it == f.s.by_key.end()) return void(tensor = tensor_t(s, T(0)));  // an absent bias
        const bool transpose = transposed_in_file(f.s.linear, kind, key);
        if (owner)
            if (const T* in_place = elements_in_place<T>(f.h, *it->second, bytes, transpose))
                return void(tensor = mapped_tensor<tensor_t>(owner, in_place, s));
        tensor = tensor_t::from_shape(s);
        read_elements<T>(f.h, *it->second, bytes, tensor.data(), transpose);
        if (done) done(it->second->begin, it->second->end);
    });
    return p;
}

}  // namespace

template <class T>
model_params<T> read_checkpoint_bytes(const unsigned char* bytes, std::size_t size, const std::string& name,
                                    const std::string& config_json, checkpoint_info* info) {
    checkpoint_info local;
    return fill<T>(check_file(bytes, size, name, config_json, info ? *info : local), bytes, {});
}

architecture read_checkpoint_config(const std::string& path, checkpoint_info* info) {
    const io::mapped_file file(path, "checkpoint");
    checkpoint_info local;
    return check_file(file.data(), file.size(), path, config_json_beside(path), info ? *info : local).c;
}

template <class T>
model_params<T> read_checkpoint(const std::string& path, checkpoint_info* info) {
    // Shared by the parameters that are views of it: mapped as long as one of them lives.
    const auto file = std::make_shared<const io::mapped_file>(path, "checkpoint");
    checkpoint_info local;
    const checked_file f = check_file(file->data(), file->size(), path, config_json_beside(path), info ? *info : local);
    // The mapped pages of each tensor copied are released: peak RSS ≈ the parameters, each
    // counted once (a view's pages are its numbers; a copy's are its own memory).
    return fill<T>(f, file->data(), [&](std::uint64_t b, std::uint64_t e) { file->release(b, e); }, file);
}

architecture read_sharded_checkpoint_config(const std::string& index, checkpoint_info* info) {
    const shard_set shards = open_shards(index);
    checkpoint_info local;
    return check_header(shards.header, config_json_beside(index), info ? *info : local).c;
}

template <class T>
model_params<T> read_sharded_checkpoint(const std::string& index, checkpoint_info* info) {
    const shard_set shards = open_shards(index);  // mapped until every tensor is copied
    checkpoint_info local;
    const checked_file f = check_header(shards.header, config_json_beside(index), info ? *info : local);
    // Each tensor reads its shard's bytes (st_tensor::shard_bytes); once copied, its pages leave
    // memory as read_checkpoint's do. done() gets offsets only: a range found in two shards
    // is released in both (the other copy, if not yet made, reads it back from the page cache).
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<const io::mapped_file*>> owners;
    for (const auto& t : shards.header.tensors)
        for (const auto& m : shards.maps)
            if (m->data() == t.shard_bytes) owners[{t.begin, t.end}].push_back(m.get());
    return fill<T>(f, nullptr, [&](std::uint64_t b, std::uint64_t e) {
        if (const auto it = owners.find({b, e}); it != owners.end())
            for (const io::mapped_file* m : it->second) m->release(b, e);
    });
}

template model_params<float> read_sharded_checkpoint<float>(const std::string&, checkpoint_info*);
template model_params<double> read_sharded_checkpoint<double>(const std::string&, checkpoint_info*);
template model_params<float> read_checkpoint<float>(const std::string&, checkpoint_info*);
template model_params<double> read_checkpoint<double>(const std::string&, checkpoint_info*);
template model_params<float> read_checkpoint_bytes<float>(const unsigned char*, std::size_t, const std::string&, const std::string&, checkpoint_info*);
template model_params<double> read_checkpoint_bytes<double>(const unsigned char*, std::size_t, const std::string&, const std::string&,
                                                          checkpoint_info*);

}  // namespace attn::model
