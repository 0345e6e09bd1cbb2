// model/checkpoint_shards.hpp — a Hugging Face checkpoint in shards, read as one:
// model.safetensors.index.json names, in its "weight_map", the shard file beside it that
// holds each tensor ({"metadata": {…}, "weight_map": {"model.norm.weight":
// "model-00002-of-00002.safetensors", …}}). Untrusted input like one safetensors file:
//   * the index is read whole up to 64 MiB, strict JSON (io/json_scan), every error
//     "index: byte N: …";
//   * a shard is a plain file name in the index's folder (no '/', '\', '.' or '..'),
//     at most 1,024 shards; each is mapped and checked by parse_safetensors (its header
//     bounded, its ranges inside it, covering its data exactly);
//   * every tensor the index names is in the shard it names (else "index: byte N: …"
//     at the entry), and every tensor of a shard is named by the index for that shard
//     (else "shard: byte N: …"): one tensor, one place.
// The merged header (open_shards) lists the index's tensors in its order, each with its
// shard's mapped bytes and path (st_tensor::shard_bytes, shard_file), so the readers of
// model/checkpoint read them as they read one file. The shards' own __metadata__ is not
// carried over (Hugging Face's shards hold {"format": "pt"}): the config is the
// config.json beside the index. The shards stay mapped while the parameters are copied out;
// each tensor's pages are released once copied (read_sharded_checkpoint), so the peak RSS is
// the parameters', as for one file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/mapped_file.hpp"
#include "model/safetensors.hpp"

namespace attn::model {

// True when the file name ends with ".safetensors.index.json".
bool is_shard_index(const std::string& path);

struct shard_set {
    st_header header;                                    // file: the index's path
    std::vector<std::unique_ptr<io::mapped_file>> maps;  // [shards] alive while header is read
};

// Reads and checks the index and every shard it names (see above).
shard_set open_shards(const std::string& index);

}  // namespace attn::model
