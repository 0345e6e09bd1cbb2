// io/toml_depth.cpp — see toml_depth.hpp. A small state machine over the bytes: at a
// statement start (a header or a key), or inside a value (arrays, inline tables).
#include "io/toml_depth.hpp"

#include <vector>

#include "io/input_error.hpp"

namespace attn::io {

namespace {

class depth_scanner {
public:
    depth_scanner(std::string_view text, const std::string& file, int limit) : s_(text), file_(file), limit_(limit) {}

    void run() {
        while (i_ < s_.size()) statement();
    }

private:
    std::string_view s_;
    const std::string& file_;
    int limit_;
    std::size_t i_ = 0;
    int table_depth_ = 0;          // segments of the last [header]
    int key_depth_ = 0;            // segments of the current statement's key
    std::vector<int> inline_dots_; // per open [ or {: extra dotted segments of its current key
    int inline_depth_ = 0;         // sum over open levels of 1 + inline_dots_

    char at(std::size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

    [[noreturn]] void too_deep() const {
        int line = 1;
        std::size_t line_start = 0;
        for (std::size_t k = 0; k < i_ && k < s_.size(); ++k)
            if (s_[k] == '\n') ++line, line_start = k + 1;
        throw input_error("too-deep", source_pos{file_, line, static_cast<int>(i_ - line_start + 1)},
                          "TOML nested deeper than " + std::to_string(limit_) +
                              " levels (table headers, dotted keys, inline arrays and tables); attn refuses it");
    }
    void check() const {
        if (table_depth_ + key_depth_ + inline_depth_ > limit_) too_deep();
    }

    // Skips a string starting at i_ (a quote), including triple-quoted forms.
    void skip_string() {
        const char q = s_[i_];
        const bool triple = at(i_ + 1) == q && at(i_ + 2) == q;
        i_ += triple ? 3 : 1;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '\\' && q == '"') {
                i_ += 2;
                continue;
            }
            if (!triple && c == '\n') return;  // unterminated: the parser will say so
            if (c == q && (!triple || (at(i_ + 1) == q && at(i_ + 2) == q))) {
                i_ += triple ? 3 : 1;
                return;
            }
            ++i_;
        }
    }
    void skip_comment() {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    }

    // One statement: blank, comment, [header] or key = value.
    void statement() {
        const char c = s_[i_];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') ++i_;
        else if (c == '#') skip_comment();
        else if (c == '[') header();
        else key_value();
    }

    // Counts the dotted segments of a key up to `stop` (or a newline); returns them.
    int key_segments(char stop) {
        int segments = 1;
        while (i_ < s_.size() && s_[i_] != stop && s_[i_] != '\n') {
            if (s_[i_] == '"' || s_[i_] == '\'') {
                skip_string();
                continue;
            }
            if (s_[i_] == '.') {
                ++segments;
                if (segments > limit_) return segments;
            }
            ++i_;
        }
        return segments;
    }

    void header() {
        while (at(i_) == '[') ++i_;
        key_depth_ = 0;
        inline_depth_ = 0;
        table_depth_ = key_segments(']');
        check();
        while (at(i_) == ']') ++i_;
    }

    void key_value() {
        key_depth_ = key_segments('=');
        check();
        if (at(i_) != '=') return;  // not a key = value line; the parser will say why
        ++i_;
        value();
        key_depth_ = 0;
    }

    // A value: ends at a newline outside any open array or inline table.
    void value() {
        inline_dots_.clear();
        open_.clear();
        inline_depth_ = 0;
        bool in_key = false;  // inside { }, before the '=' of a key
        while (i_ < s_.size()) {
            const char c = s_[i_];
            const bool in_table = !inline_dots_.empty() && open_.back() == '{';
            if (c == '"' || c == '\'') {
                skip_string();
                continue;
            }
            if (c == '#') {
                skip_comment();
                continue;
            }
            if (c == '\n' && inline_dots_.empty()) return;
            if (c == '[' || c == '{') {
                open_.push_back(c);
                inline_dots_.push_back(0);
                ++inline_depth_;
                in_key = c == '{';
                check();
            } else if ((c == ']' || c == '}') && !inline_dots_.empty()) {
                inline_depth_ -= 1 + inline_dots_.back();
                inline_dots_.pop_back();
                open_.pop_back();
                in_key = false;
            } else if (in_table && c == ',') {
                inline_depth_ -= inline_dots_.back();
                inline_dots_.back() = 0;
                in_key = true;
            } else if (in_table && c == '=') {
                in_key = false;
            } else if (in_table && in_key && c == '.') {
                ++inline_dots_.back();
                ++inline_depth_;
                check();
            }
            ++i_;
        }
    }
    std::vector<char> open_;  // the open brackets, '[' or '{', innermost last
};

}  // namespace

void check_toml_nesting(std::string_view text, const std::string& display_path, int limit) {
    depth_scanner(text, display_path, limit).run();
}

}  // namespace attn::io
