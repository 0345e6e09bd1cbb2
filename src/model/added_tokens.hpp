// model/added_tokens.hpp — cutting a text at its added tokens before pre-tokenising, as
// Hugging Face's tokenizers (and transformers.js's DictionarySplitter) do: scanning left
// to right, the longest added token starting at a position is taken; the text between
// them is encoded as usual. An added token with lstrip (rstrip) drops the whitespace
// before (after) it. Tokens are grouped by first byte, so the scan costs the text's
// length times the few tokens sharing a first byte.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "model/tokenizer_data.hpp"

namespace attn::model {

// Bytes [begin, end) of the text: an added token (its index in the list) or text (−1).
struct text_section {
    std::size_t begin, end;
    int added;
};

std::vector<text_section> split_added(std::string_view text, const std::vector<added_token>& added);

}  // namespace attn::model
