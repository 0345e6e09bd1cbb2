// io/text_decode.hpp — a text file as UTF-8 with LF or CRLF lines, whatever the editor
// saved: a byte-order mark names the encoding (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE), and
// lines ended by a lone CR (classic Mac) get LF. Used by read_document (answer files,
// review sheets' TOML/JSON), so a student's Notepad file is read, not refused.
#pragma once

#include <string>

namespace attn::io {

// text decoded to UTF-8 (the mark removed) with every lone CR made LF. Throws
// input_error "not-utf8" with `file: byte N` for UTF-16/32 that does not decode (an odd
// length, a lone surrogate, a code point past U+10FFFF). Text without a mark is returned
// as it is, but for the lone CRs.
std::string decoded_text(const std::string& text, const std::string& file);

}  // namespace attn::io
