// model/tokenizer_json_parts.hpp — the parts of a tokenizer.json as read, before they
// are checked against each other (model/tokenizer_json.cpp), and the reader that reads
// them with io/json_scan (model/tokenizer_json_parts.cpp). Every place is a byte offset
// into the file; tj_reader::fail turns it into file:line:col.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/json_scan.hpp"
#include "model/tokenizer_data.hpp"

namespace attn::model {

struct tj_entry {
    std::string text;  // as spelled in the file
    std::uint64_t id;
    std::size_t at;
};
struct tj_merge {
    std::string left, right;
    std::size_t at;
};
struct tj_model {
    std::vector<tj_entry> vocab;  // [n] in file order
    std::size_t vocab_at = 0;
    std::vector<tj_merge> merges;  // [n_merges] in rank order
    bool ignore_merges = false;
};
struct tj_pre {
    const pretokenizer_kind* kind = nullptr;
    bool add_prefix_space = false;
};
struct tj_template_item {
    bool special;      // a SpecialToken (else the Sequence, the text)
    std::string name;  // the special token's id (its content)
    std::size_t at;
};
struct tj_post {
    std::vector<tj_template_item> single;
    std::map<std::string, std::vector<std::uint32_t>> special_ids;  // special_tokens: name → ids
};
struct tj_file {
    tj_model model;
    std::vector<added_token> added;
    bool nfc = false;
    tj_pre pre;
    tj_post post;
};
struct tj_config {
    std::optional<bool> add_bos_token;
    std::optional<std::string> bos_token, eos_token;
};

class tj_reader {
public:
    tj_reader(std::string name, std::string_view text);
    tj_file read_file();
    [[noreturn]] void fail(std::size_t at, const std::string& message) const;

private:
    void read_model(tj_model& m);
    void read_merge(tj_model& m);
    void read_added(std::vector<added_token>& out);
    bool read_normalizer();
    void read_pre_tokenizer(tj_pre& pre);
    void read_pre_step(tj_pre& pre, int& seen_split, bool& seen_byte_level);
    void read_post_processor(tj_post& post);
    void read_template(tj_post& post);
    std::string type_of_object(const std::function<void(const std::string&, std::size_t)>& other);
    std::string string_or_null();

    std::string name_;
    std::string_view text_;
    io::json_scan js_;
};

tj_config read_tokenizer_config(const std::string& name, std::string_view text);

}  // namespace attn::model
