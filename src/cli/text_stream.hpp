// cli/text_stream.hpp — text written to stdout as it comes (a token at a time, from
// `attn model generate`), terminal-safe and broken at spaces to fit a width: a word is
// held until the space or new line after it shows where it ends, then placed with the
// spaces before it on the current line, or alone at the start of the next. Bytes that end inside a UTF-8 character wait for the rest.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace attn::cli {

class text_stream {
public:
    // width 0: lines are never broken.
    text_stream(std::ostream& out, std::size_t width) : out_(out), width_(width) {}
    // Appends text (any bytes: control characters are shown escaped), flushing what is placed.
    void add(const std::string& bytes);
    // Places the last word and ends the line.
    void finish();

private:
    void place_word();
    void put_char(const std::string& c);
    std::ostream& out_;
    std::size_t width_, column_ = 0;
    std::size_t spaces_ = 0;  // spaces read since the last word, not yet written
    std::string pending_;  // bytes of an incomplete UTF-8 character
    std::string word_;     // the word not yet placed (terminal-safe)
};

}  // namespace attn::cli
