// model/checkpoint_shards.cpp — model.safetensors.index.json and its shards read as one
// checkpoint (see checkpoint_shards.hpp): the index's weight_map read strictly, each
// shard mapped and parsed, the two checked against each other, one merged header.
#include "model/checkpoint_shards.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "io/input_read.hpp"
#include "io/json_scan.hpp"
#include "model/file_error.hpp"

namespace attn::model {

namespace {

constexpr std::size_t shards_max_index_bytes = std::size_t{64} << 20;
constexpr std::size_t shards_max_count = 1024;

struct shard_entry {
    std::string tensor, shard;
    std::size_t at = 0;  // byte of the tensor's key in the index
};

// The weight_map's entries in the index's order; refuses a shard name that is not a plain
// file name of the index's folder.
std::vector<shard_entry> read_weight_map(const std::string& index) {
    io::input_limits limits;
    limits.max_bytes = shards_max_index_bytes;
    limits.what = "checkpoint index";
    const std::string text = io::read_input_file(index, limits);
    io::json_scan js(
        text, [&](std::size_t at, const std::string& m) { throw file_error("invalid", index, at, m); },
        [](std::size_t at) { return "byte " + std::to_string(at); });
    std::vector<shard_entry> entries;
    bool has_map = false;
    if (js.peek() != '{') js.fail_at(js.pos(), "expected the index to be a JSON object, found " + js.found_here());
    js.object([&](const std::string& key, std::size_t) {
        if (key != "weight_map") return js.skip_value();
        has_map = true;
        if (js.peek() != '{') js.fail_at(js.pos(), "expected weight_map to be an object of tensor → shard file, found " + js.found_here());
        js.object([&](const std::string& tensor, std::size_t at) {
            if (js.peek() != '"') js.fail_at(js.pos(), "expected the shard file of '" + shown(tensor) + "' (a string), found " + js.found_here());
            const std::size_t value_at = js.pos();
            std::string shard = js.string_value();
            if (shard.empty() || shard == "." || shard == ".." || shard.find_first_of("/\\") != std::string::npos ||
                shard.find('\0') != std::string::npos)
                js.fail_at(value_at, "expected a shard's file name in the index's folder, found '" + shown(shard) + "'");
            entries.push_back({tensor, std::move(shard), at});
        });
    });
    js.finish();
    if (!has_map) throw file_error("missing", index, 0, "expected a \"weight_map\" naming each tensor's shard, found none");
    if (entries.empty()) throw file_error("invalid", index, 0, "expected tensors in weight_map, found it empty");
    return entries;
}

// Maps and parses every shard the entries name, in first-named order.
std::map<std::string, std::size_t> map_shards(const std::string& index, const std::vector<shard_entry>& entries,
                                              shard_set& out, std::vector<st_header>& headers) {
    const std::filesystem::path dir = std::filesystem::path(index).parent_path();
    std::map<std::string, std::size_t> which;  // shard name → its position in headers
    for (const auto& e : entries) {
        if (which.count(e.shard)) continue;
        if (which.size() == shards_max_count)
            throw file_error("invalid", index, e.at, "expected at most " + std::to_string(shards_max_count) + " shards, found more");
        const std::string path = (dir / e.shard).string();
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))
            throw file_error("missing", index, e.at, "tensor '" + shown(e.tensor) + "' is in the shard '" + shown(e.shard) +
                                                         "', which is not a file beside the index");
        out.maps.push_back(std::make_unique<io::mapped_file>(path, "checkpoint shard"));
        headers.push_back(parse_safetensors(out.maps.back()->data(), out.maps.back()->size(), path));
        which[e.shard] = headers.size() - 1;
    }
    return which;
}

}  // namespace

bool is_shard_index(const std::string& path) {
    const std::string end = ".safetensors.index.json";
    const std::string name = std::filesystem::path(path).filename().string();
    return name.size() >= end.size() && name.compare(name.size() - end.size(), end.size(), end) == 0;
}

shard_set open_shards(const std::string& index) {
    const std::vector<shard_entry> entries = read_weight_map(index);
    shard_set out;
    std::vector<st_header> headers;  // [shards]
    const auto which = map_shards(index, entries, out, headers);
    out.header.file = index;
    std::set<std::pair<std::size_t, std::string>> named;  // (shard, tensor) the index names
    for (const auto& e : entries) {
        const std::size_t s = which.at(e.shard);
        const st_tensor* t = headers[s].find(e.tensor);
        if (t == nullptr)
            throw file_error("missing", index, e.at, "tensor '" + shown(e.tensor) + "' is named in weight_map, but its shard '" +
                                                         shown(e.shard) + "' has no such tensor");
        st_tensor merged = *t;
        merged.shard_bytes = out.maps[s]->data();
        merged.shard_file = headers[s].file;
        out.header.index[merged.name] = out.header.tensors.size();
        out.header.tensors.push_back(std::move(merged));
        named.insert({s, e.tensor});
    }
    for (std::size_t s = 0; s < headers.size(); ++s)
        for (const auto& t : headers[s].tensors)
            if (!named.count({s, t.name}))
                throw file_error("invalid", headers[s].file, t.entry_at, "tensor '" + shown(t.name) +
                                                                             "' is in this shard, but the index (" + index +
                                                                             ") does not name it here");
    return out;
}

}  // namespace attn::model
