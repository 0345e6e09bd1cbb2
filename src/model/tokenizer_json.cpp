// model/tokenizer_json.cpp — see tokenizer_json.hpp: one pass of io/json_scan over the
// file, the parts kept as read (model/tokenizer_json_parts.hpp), then checked and put
// together into a byte-level BPE tokenizer (model/tokenizer_data.hpp).
#include "model/tokenizer_json.hpp"

#include <filesystem>

#include "io/input_read.hpp"
#include "model/byte_level.hpp"
#include "model/tokenizer_data.hpp"
#include "model/tokenizer_json_parts.hpp"
#include "model/utf8.hpp"

namespace attn::model {

namespace {

// A token of the vocabulary or a merge half, spelled in the byte-level alphabet, as bytes.
std::string alphabet_bytes(const tj_reader& r, const std::string& spelled, std::size_t at) {
    std::string bytes;
    for (std::size_t k = 0; k < spelled.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_one(spelled, k, cp);
        const int b = len ? char_byte(cp) : -1;
        if (b < 0)
            r.fail(at, "expected a token spelled in GPT-2's byte-level alphabet (Ġ for a space; a byte-level BPE), "
                       "found '" + spelled.substr(k, len ? len : 1) + "' in \"" + spelled + "\"");
        bytes += static_cast<char>(b);
        k += len;
    }
    if (bytes.empty()) r.fail(at, "expected a token of at least one byte, found \"\"");
    return bytes;
}

// The vocabulary: n entries with the ids 0 … n−1, every byte a token.
vocabulary build_vocabulary(const tj_reader& r, const tj_model& m) {
    vocabulary v;
    const std::size_t n = m.vocab.size();
    std::vector<bool> seen(n, false);  // [n] id already given
    v.bytes.resize(n);
    for (const tj_entry& e : m.vocab) {
        if (e.id >= n)
            r.fail(e.at, "expected ids 0 … " + std::to_string(n ? n - 1 : 0) + " for " + std::to_string(n) +
                             " tokens, found id " + std::to_string(e.id));
        if (seen[e.id]) r.fail(e.at, "expected each id once, found id " + std::to_string(e.id) + " again");
        seen[e.id] = true;
        std::string bytes = alphabet_bytes(r, e.text, e.at);
        if (!v.ids.emplace(bytes, static_cast<std::uint32_t>(e.id)).second)
            r.fail(e.at, "expected each token once, found \"" + e.text + "\" again");
        v.bytes[e.id] = std::move(bytes);
    }
    for (int b = 0; b < 256; ++b) {
        const auto it = v.ids.find(std::string(1, static_cast<char>(b)));
        if (it == v.ids.end())
            r.fail(m.vocab_at, "expected a token for every byte in model.vocab (a byte-level BPE), found none for byte " +
                                   std::to_string(b));
        v.byte_ids[b] = it->second;
    }
    return v;
}

merge_table build_merges(const tj_reader& r, const tj_model& m, const vocabulary& v) {
    merge_table t;
    std::uint32_t rank = 0;
    for (const tj_merge& mg : m.merges) {
        const std::string l = alphabet_bytes(r, mg.left, mg.at), rt = alphabet_bytes(r, mg.right, mg.at);
        const auto li = v.ids.find(l), ri = v.ids.find(rt), joined = v.ids.find(l + rt);
        if (li == v.ids.end() || ri == v.ids.end())
            r.fail(mg.at, "expected both halves of the merge in model.vocab, found '" +
                              (li == v.ids.end() ? mg.left : mg.right) + "', which it lacks");
        if (joined == v.ids.end())
            r.fail(mg.at, "expected the merged token '" + mg.left + mg.right + "' in model.vocab, found it missing");
        t.pairs[merge_table::key(li->second, ri->second)] = {rank++, joined->second};
    }
    return t;
}

// The ids of a special token the template names: its special_tokens entry, else the
// added token or vocabulary token with that content.
std::vector<std::uint32_t> special_ids(const tj_reader& r, const tokenizer_data& d, const tj_post& post,
                                       const tj_template_item& item) {
    if (const auto it = post.special_ids.find(item.name); it != post.special_ids.end()) return it->second;
    for (const added_token& a : d.added)
        if (a.content == item.name) return {a.id};
    r.fail(item.at, "expected the special token \"" + item.name + "\" among the added tokens, found no such token");
}

void apply_template(const tj_reader& r, tokenizer_data& d, const tj_post& post) {
    bool after = false;
    for (const tj_template_item& item : post.single) {
        if (!item.special) {
            after = true;
            continue;
        }
        for (const std::uint32_t id : special_ids(r, d, post, item)) (after ? d.suffix : d.prefix).push_back(id);
    }
}

// tokenizer_config.json's add_bos_token: true puts bos_token first (when the template
// does not), false takes a leading BOS off.
void apply_config(const tj_config& c, tokenizer_data& d, const std::string& config_name) {
    if (!c.add_bos_token) return;
    std::optional<std::uint32_t> bos;
    for (const added_token& a : d.added)
        if (c.bos_token && a.content == *c.bos_token) bos = a.id;
    if (!bos && c.bos_token)
        if (const auto it = d.vocab.ids.find(*c.bos_token); it != d.vocab.ids.end()) bos = it->second;
    if (*c.add_bos_token) {
        if (!bos)
            throw io::input_error("invalid", {config_name, 0, 0},
                                  "add_bos_token is true, but bos_token names no token of tokenizer.json");
        if (d.prefix.empty() || d.prefix.front() != *bos) d.prefix.insert(d.prefix.begin(), *bos);
    } else if (bos && !d.prefix.empty() && d.prefix.front() == *bos) {
        d.prefix.erase(d.prefix.begin());
    }
}

void find_eos(const tj_config& c, tokenizer_data& d) {
    for (const added_token& a : d.added)
        if (c.eos_token && a.content == *c.eos_token && !d.eos) d.eos = a.id;
}

}  // namespace

tokenizer parse_tokenizer_json(const std::string& name, std::string_view text, const std::string& config_name,
                               std::string_view config_text) {
    tj_reader r(name, text);
    const tj_file f = r.read_file();
    auto d = std::make_shared<tokenizer_data>();
    d->vocab = build_vocabulary(r, f.model);
    d->merges = build_merges(r, f.model, d->vocab);
    d->ignore_merges = f.model.ignore_merges;
    d->added = f.added;
    d->nfc = f.nfc;
    d->pre = f.pre.kind;
    d->add_prefix_space = f.pre.add_prefix_space;
    std::size_t n = d->vocab.bytes.size();
    for (const added_token& a : d->added) n = std::max<std::size_t>(n, std::size_t{a.id} + 1);
    index_added_tokens(*d, n, name);
    apply_template(r, *d, f.post);
    tj_config c;
    if (!config_text.empty()) c = read_tokenizer_config(config_name, config_text);
    apply_config(c, *d, config_name);
    find_eos(c, *d);
    d->files = std::filesystem::path(name).filename().string();
    d->kind = "Hugging Face byte-level BPE";
    return tokenizer(std::make_shared<bpe_tokenizer>(std::move(d)));
}

tokenizer read_tokenizer_json(const std::string& path) {
    io::input_limits limits;
    limits.max_bytes = max_tokenizer_json_bytes;
    limits.what = "tokenizer.json";
    const std::string text = io::read_input_file(path, limits);
    const std::string config = (std::filesystem::path(path).parent_path() / "tokenizer_config.json").string();
    std::string config_text;
    std::error_code ec;
    if (std::filesystem::exists(config, ec)) {
        limits.max_bytes = std::size_t{16} << 20;
        limits.what = "tokenizer_config.json";
        config_text = io::read_input_file(config, limits);
    }
    return parse_tokenizer_json(path, text, config, config_text);
}

}  // namespace attn::model
