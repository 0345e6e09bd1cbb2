// cli/text_stream.cpp — text placed as it comes (see text_stream.hpp).
#include "cli/text_stream.hpp"

#include <cstdint>

#include "io/terminal_safe.hpp"
#include "io/utf8.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

void text_stream::add(const std::string& bytes) {
    pending_ += bytes;
    std::size_t i = 0;
    while (i < pending_.size()) {
        std::uint32_t cp = 0;
        std::size_t n = io::utf8_at(pending_, i, &cp);  // io/utf8: the one place that knows UTF-8
        if (n == 0) {
            std::size_t at = 0;
            io::utf8_problem(pending_, i, &at);
            if (at >= pending_.size()) break;  // the rest of the character comes with the next token
            n = 1;                             // a stray byte: shown alone, as its escape
        }
        put_char(pending_.substr(i, n));
        i += n;
    }
    pending_.erase(0, i);
    out_.flush();
}

void text_stream::put_char(const std::string& c) {
    if (c == "\n") {
        place_word();
        out_ << '\n';
        column_ = 0, spaces_ = 0;  // spaces before a new line are not shown
    } else if (c == " ") {
        place_word();
        ++spaces_;  // written before the next word when it fits on this line
    } else {
        word_ += io::terminal_safe(c);  // a control character as its escape, never raw
    }
}

void text_stream::place_word() {
    if (word_.empty()) return;
    const std::size_t w = trace::display_width(word_);
    if (width_ != 0 && column_ > 0 && column_ + spaces_ + w > width_) out_ << '\n', column_ = 0, spaces_ = 0;
    out_ << std::string(spaces_, ' ') << word_;
    column_ += spaces_;
    spaces_ = 0;
    column_ += w;
    word_.clear();
}

void text_stream::finish() {
    if (!pending_.empty()) word_ += io::terminal_safe(pending_), pending_.clear();
    place_word();
    out_ << '\n';
    out_.flush();
    column_ = 0;
}

}  // namespace attn::cli
