// core/shape_parse.cpp — parses shapes written the way students write them (see
// shapes.hpp). Grammar, after the lexer has folded the many spellings together:
//   shape := ["R^"] [open] [dim {sep dim}] [close]   sep := "×" | "x" | "\times" | "," | whitespace
//   dim   := term {("*" | "·" | "/" | adjacency) term}
//   term  := atom ["^" number]
//   atom  := number | symbol | "(" dim ")"
// Whitespace between two atoms separates axes ("B n d"); adjacency without whitespace
// multiplies ("4d", "2(d)"). Columns count characters, not bytes.
#include <cctype>
#include <string>
#include <vector>

#include "core/shapes.hpp"

namespace attn {

namespace {

enum class tok { number, symbol, sep, mul, div, pow, open, close, end };

struct token {
    tok kind;
    std::string text;
    std::size_t column;         // 1-based character column
    bool space_before = false;  // whitespace directly before this token
};

bool ident_start(unsigned char c) { return std::isalpha(c) || c == '_'; }
bool ident_char(unsigned char c) { return std::isalnum(c) || c == '_'; }

struct lexer {
    std::string_view s;
    std::size_t i = 0, col = 1;

    [[noreturn]] void fail(const std::string& what, std::size_t column, const std::string& found) const {
        throw shape_parse_error("column " + std::to_string(column) + ": " + what + ", found " + found, column, found);
    }
    std::size_t char_len(std::size_t at) const {  // bytes of the UTF-8 character at `at`
        const auto c = static_cast<unsigned char>(s[at]);
        const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        return at + n <= s.size() ? n : s.size() - at;
    }
    bool starts(std::string_view what) const { return s.substr(i, what.size()) == what; }
    void advance(std::size_t bytes) {  // moves over whole characters
        const std::size_t stop = i + bytes;
        while (i < stop) {
            i += char_len(i);
            ++col;
        }
    }

    std::vector<token> run() {
        std::vector<token> out;
        bool space = false;
        while (i < s.size()) {
            const auto c = static_cast<unsigned char>(s[i]);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || starts("\u00A0")) {
                advance(char_len(i));
                space = true;
                continue;
            }
            token t{tok::end, {}, col, space};
            space = false;
            const std::size_t start = i;
            if (std::isdigit(c)) {
                while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) advance(1);
                if (i < s.size() && s[i] == '.') fail("expected a whole number", col, "'.'");
                t.kind = tok::number;
                t.text = std::string(s.substr(start, i - start));
                out.push_back(t);
                // "5x4": an x right after a number is a separator, not the start of a symbol.
                if (i < s.size() && (s[i] == 'x' || s[i] == 'X') &&
                    (i + 1 == s.size() || !ident_char(static_cast<unsigned char>(s[i + 1])) ||
                     std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
                    out.push_back({tok::sep, "x", col, false});
                    advance(1);
                }
                continue;
            }
            if (ident_start(c)) {
                t.kind = tok::symbol;
                while (i < s.size() && ident_char(static_cast<unsigned char>(s[i]))) {
                    // LaTeX-style subscripts: n_{tgt} → n_tgt.
                    if (s[i] == '_' && i + 1 < s.size() && s[i + 1] == '{') {
                        const std::size_t brace_col = col + 1;
                        advance(2);
                        t.text += '_';
                        while (i < s.size() && s[i] != '}') {
                            if (!ident_char(static_cast<unsigned char>(s[i])))
                                fail("expected letters, digits or '}' in a subscript", col, "'" + std::string(s.substr(i, char_len(i))) + "'");
                            t.text += s[i];
                            advance(1);
                        }
                        if (i == s.size()) fail("expected '}' to close the '{' at column " + std::to_string(brace_col), col, "end of text");
                        advance(1);
                        continue;
                    }
                    t.text += s[i];
                    advance(1);
                }
                if (t.text == "x" || t.text == "X") t.kind = tok::sep;  // "B x n x d"
                out.push_back(t);
                continue;
            }
            struct spelling {
                std::string_view text;
                tok kind;
            };
            static const spelling punct[] = {
                {"\u00D7", tok::sep}, {",", tok::sep},   {"*", tok::mul},      {"\u00B7", tok::mul},
                {"\u22C5", tok::mul}, {"\u2219", tok::mul}, {"/", tok::div},    {"\u00F7", tok::div},
                {"^", tok::pow},      {"(", tok::open},  {"[", tok::open},     {"{", tok::open},
                {")", tok::close},    {"]", tok::close}, {"}", tok::close},    {"\\times", tok::sep},
                {"\\cdot", tok::mul},  {"\u211D", tok::symbol},
            };
            bool matched = false;
            for (const auto& p : punct) {
                if (starts(p.text)) {
                    t.kind = p.kind;
                    t.text = std::string(p.text);
                    advance(p.text.size());
                    out.push_back(t);
                    matched = true;
                    break;
                }
            }
            if (!matched)
                fail("expected a symbol (like d_model), a whole number, ×, ',', *, / or brackets", col,
                     "'" + std::string(s.substr(i, char_len(i))) + "'");
        }
        out.push_back({tok::end, "end of text", col, space});
        return out;
    }
};

struct parser {
    const lexer& lex;
    std::vector<token> t;
    std::size_t p = 0;
    int depth = 0;  // brackets open inside a dimension: bounded, the parser recurses per level

    const token& peek() const { return t[p]; }
    [[noreturn]] void fail(const std::string& what, const token& at) const {
        lex.fail(what, at.column, at.kind == tok::end ? at.text : "'" + at.text + "'");
    }
    static char closer_for(const std::string& open) { return open == "(" ? ')' : open == "[" ? ']' : '}'; }

    bool starts_atom(const token& k) const {
        return k.kind == tok::number || k.kind == tok::symbol || k.kind == tok::open;
    }

    dim atom() {
        const token k = peek();
        if (k.kind == tok::number) {
            ++p;
            if (k.text.size() > 15) fail("expected a dimension below 10^15", k);
            return dim::constant(std::stoll(k.text));
        }
        if (k.kind == tok::symbol) {
            ++p;
            return dim::symbol(k.text);
        }
        if (k.kind == tok::open) {
            if (++depth > 32) fail("expected at most 32 nested brackets in a dimension", k);
            ++p;
            const dim inner = product();
            --depth;
            const token& c = peek();
            if (c.kind == tok::sep) fail("expected ')' — a dimension in brackets cannot hold several axes", c);
            if (c.kind != tok::close || c.text[0] != closer_for(k.text))
                fail(std::string("expected '") + closer_for(k.text) + "' to close the '" + k.text + "' at column " +
                         std::to_string(k.column),
                     c);
            ++p;
            return inner;
        }
        fail("expected a dimension (a symbol like d_model, or a whole number)", k);
    }

    dim term() {
        dim base = atom();
        if (peek().kind == tok::pow) {
            ++p;
            const token& e = peek();
            if (e.kind != tok::number) fail("expected a whole-number exponent after '^'", e);
            ++p;
            if (e.text.size() > 2) fail("expected an exponent below 100", e);
            base = base.pow(std::stoi(e.text));
        }
        return base;
    }

    dim product() {
        dim d = term();
        for (;;) {
            const token& k = peek();
            if (k.kind == tok::mul || k.kind == tok::div) {
                ++p;
                const token& operand = peek();
                const dim rhs = term();
                if (k.kind == tok::mul) {
                    d = d * rhs;
                } else {
                    if (rhs.numerator() == 0) fail("expected a non-zero divisor", operand);
                    d = d / rhs;
                }
            } else if (starts_atom(k) && !k.space_before) {
                d = d * term();  // "4d", "2(d)"
            } else {
                return d;
            }
        }
    }

    symbolic_shape shape() {
        symbolic_shape s;
        // "R^{B × n × d}", "ℝ^(n, d)": the set the tensor lives in, written around the shape.
        if (t.size() > 3 && t[0].kind == tok::symbol && (t[0].text == "R" || t[0].text == "\u211D") &&
            t[1].kind == tok::pow)
            t.erase(t.begin(), t.begin() + 2);
        // Outer brackets belong to the shape when the first one closes at the very end.
        std::size_t last = t.size() - 1;  // the end token
        bool outer = false;
        if (t[0].kind == tok::open) {
            int depth = 0;
            bool closed = false;
            for (std::size_t k = 0; k < last && !closed; ++k) {
                depth += t[k].kind == tok::open ? 1 : t[k].kind == tok::close ? -1 : 0;
                if (depth == 0) {
                    closed = true;
                    outer = k == last - 1;
                }
            }
            // "(B × n": the opening bracket of the shape is never closed.
            if (!closed)
                fail(std::string("expected '") + closer_for(t[0].text) + "' to close the '" + t[0].text + "' at column " +
                         std::to_string(t[0].column),
                     t[last]);
        }
        if (outer) {
            if (t[last - 1].text[0] != closer_for(t[0].text))
                fail(std::string("expected '") + closer_for(t[0].text) + "' to close the '" + t[0].text + "' at column 1",
                     t[last - 1]);
            p = 1;
            t.erase(t.begin() + static_cast<std::ptrdiff_t>(last - 1));  // drop the closer
            if (peek().kind == tok::end) return s;  // "()" or "[]": a scalar
        } else if (peek().kind == tok::end) {
            fail("expected a shape such as B × n × d", peek());
        }
        s.dims.push_back(product());
        for (;;) {
            const token& k = peek();
            if (k.kind == tok::end) return s;
            if (k.kind == tok::sep) {
                ++p;
                if (peek().kind == tok::end || peek().kind == tok::sep)
                    fail("expected a dimension after '" + k.text + "'", peek());
            } else if (!(starts_atom(k) && k.space_before)) {
                fail(k.kind == tok::close ? "expected ×, ',' or the end — this bracket closes nothing"
                                          : "expected ×, ',' or an operator between dimensions",
                     k);
            }
            s.dims.push_back(product());
        }
    }
};

}  // namespace

symbolic_shape parse_shape(std::string_view text) {
    lexer lex{text};
    parser ps{lex, lex.run()};
    return ps.shape();
}

dim parse_dim(std::string_view text) {
    lexer lex{text};
    parser ps{lex, lex.run()};
    if (ps.peek().kind == tok::end) ps.fail("expected a dimension", ps.peek());
    const dim d = ps.product();
    if (ps.peek().kind != tok::end)
        ps.fail(ps.peek().kind == tok::sep ? "expected one dimension, not a shape" : "expected the end of the dimension",
                ps.peek());
    return d;
}

}  // namespace attn
