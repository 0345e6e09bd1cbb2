// tests/model_tokenizer_kinds_test.cpp — the tokenizer kinds beside GPT-2's files, on
// data written by hand here (no network): Llama 3's and Qwen2's pre-tokenising patterns
// piece by piece (expected pieces produced once by Node 20's regex engine running the
// pattern as transformers.js rewrites it), SentencePiece BPE (merge order by score,
// leftmost ties, byte fallback, refusal without it, decoding), a small tokenizer.json
// (added tokens first, lstrip/rstrip, the template's BOS, add_bos_token from
// tokenizer_config.json, errors at file:line:col). The real tokenizers are checked
// against transformers.js and SentencePiece in tests/python/test_model_tokenizer_hf.py
// and test_model_tokenizer_spm.py.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "io/input_error.hpp"
#include "model/byte_level.hpp"
#include "model/pretokenize.hpp"
#include "model/spm.hpp"
#include "model/tokenizer.hpp"
#include "model/tokenizer_json.hpp"

using namespace attn::model;

namespace {

std::vector<std::string> pieces_of(const std::string& text, const pretokenizer_kind& kind) {
    std::vector<std::string> out;
    for (const pretoken& p : pretokenize(text, kind)) out.push_back(text.substr(p.begin, p.end - p.begin));
    return out;
}

const pretokenizer_kind& kind_named(const char* name) {
    for (const auto& k : pretokenizer_kinds())
        if (std::string(k.name) == name) return k;
    FAIL("no pretokenizer " << name);
    return pretokenizer_kinds().front();
}

using pieces = std::vector<std::string>;

}  // namespace

TEST_CASE("Llama 3's pattern splits as JavaScript's regex does", "[model][tokenizer]") {
    const auto& l3 = kind_named("llama3");
    CHECK(pieces_of("Hello world", l3) == pieces{"Hello", " world"});
    CHECK(pieces_of("I'M here, you'Re", l3) == pieces{"I", "'M", " here", ",", " you", "'Re"});
    CHECK(pieces_of("12345 678", l3) == pieces{"123", "45", " ", "678"});
    CHECK(pieces_of(" \n x", l3) == pieces{" \n", " x"});
    CHECK(pieces_of("(hello) [x]", l3) == pieces{"(hello", ")", " [", "x", "]"});
    CHECK(pieces_of("a.\n\nb", l3) == pieces{"a", ".\n\n", "b"});
    CHECK(pieces_of("  two", l3) == pieces{" ", " two"});
    CHECK(pieces_of("\tif x:", l3) == pieces{"\tif", " x", ":"});
    CHECK(pieces_of("x  \n\n  y  ", l3) == pieces{"x", "  \n\n", " ", " y", "  "});
    CHECK(pieces_of("don't", l3) == pieces{"don", "'t"});
    CHECK(pieces_of("'sound", l3) == pieces{"'s", "ound"});
    CHECK(pieces_of("3abc", l3) == pieces{"3", "abc"});
    CHECK(pieces_of("é!?\r\n", l3) == pieces{"é", "!?\r\n"});
    CHECK(pieces_of("a  ", l3) == pieces{"a", "  "});
    CHECK(pieces_of(" 😀😀 ok", l3) == pieces{" 😀😀", " ok"});
    CHECK(pieces_of("\u00a0word", l3) == pieces{"\u00a0word"});
    CHECK(pieces_of("a\n \nb", l3) == pieces{"a", "\n \n", "b"});
    CHECK(pieces_of("'", l3) == pieces{"'"});
    CHECK(pieces_of("$1,000.00", l3) == pieces{"$", "1", ",", "000", ".", "00"});
    CHECK(pieces_of("12345 678", kind_named("qwen2")) == pieces{"1", "2", "3", "4", "5", " ", "6", "7", "8"});
    CHECK(pretokenizer_for_gguf("llama-bpe") == &l3);
    CHECK(pretokenizer_for_gguf("qwen2") == &kind_named("qwen2"));
    CHECK(pretokenizer_for_gguf("falcon") == nullptr);
    CHECK(pretokenizer_for_pattern(l3.pattern) == &l3);
}

namespace {

// A SentencePiece vocabulary: <unk> <s> </s>, optionally the 256 byte pieces, then the
// given pieces with their scores.
std::shared_ptr<spm_data> spm_vocab(const std::vector<std::pair<std::string, float>>& normal, bool bytes) {
    auto d = std::make_shared<spm_data>();
    auto add = [&](const std::string& p, float s, piece_type t) {
        const auto id = static_cast<std::uint32_t>(d->pieces.size());
        d->pieces.push_back(p);
        d->scores.push_back(s);
        d->types.push_back(t);
        if (t == piece_type::normal) d->ids.emplace(p, id);
        return id;
    };
    d->byte_ids.fill(-1);
    add("<unk>", 0, piece_type::unknown);
    d->bos = add("<s>", 0, piece_type::control);
    d->eos = add("</s>", 0, piece_type::control);
    if (bytes)
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            d->byte_ids[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(add(name, 0, piece_type::byte));
        }
    for (const auto& [p, s] : normal) add(p, s, piece_type::normal);
    d->files = "hand.gguf";
    return d;
}

std::vector<std::string> spm_pieces(const spm_tokenizer& t, const std::string& text) {
    std::vector<std::string> out;
    for (const auto id : t.encode(text)) out.push_back(t.token_piece(id));
    return out;
}

}  // namespace

TEST_CASE("SentencePiece BPE merges by score, leftmost first, with byte fallback", "[model][tokenizer]") {
    const std::string sp = "\xE2\x96\x81";  // ▁
    const spm_tokenizer t(spm_vocab({{sp, -1}, {"h", -2}, {"e", -3}, {"l", -4}, {"o", -5}, {"a", -6},
                                     {"ll", -1.5f}, {sp + "h", -1.2f}, {sp + "he", -2.5f}, {"llo", -3},
                                     {sp + "hello", -4}, {"aa", -1}},
                                    true));
    // ll (−1.5) then ▁h (−1.2 is higher: first), ▁he, llo, ▁hello
    CHECK(spm_pieces(t, "hello") == pieces{"<s>", sp + "hello"});
    // aaa: the leftmost pair merges first → aa a
    CHECK(spm_pieces(t, "aaa") == pieces{"<s>", sp, "aa", "a"});
    // é is no piece: its two UTF-8 bytes
    CHECK(spm_pieces(t, "hé") == pieces{"<s>", sp + "h", "<0xC3>", "<0xA9>"});
    CHECK(t.decode(t.encode("hé hello  a")) == "hé hello  a");
    CHECK(t.decode(t.encode(" lead")) == " lead");
    CHECK(t.token_bytes(1).empty());  // <s> stands for no text
    CHECK(tokenizer(std::make_shared<spm_tokenizer>(t)).token_label(1) == "<s>");

    const spm_tokenizer no_bytes(spm_vocab({{sp, -1}, {"h", -2}, {"i", -3}}, false));
    CHECK(no_bytes.decode(no_bytes.encode("hi hi")) == "hi hi");
    try {
        (void)no_bytes.encode("hi é");
        FAIL("é was encoded without a piece or byte fallback");
    } catch (const untokenizable_text& e) {
        CHECK(e.offset == 3);
        CHECK(std::string(e.what()).find("<0xC3>") != std::string::npos);
    }
}

namespace {

// A byte-level tokenizer.json: the 256 bytes, "he", "hel", "hell", "hello" and "Ġw";
// added tokens; the given pre_tokenizer and post_processor.
std::string tiny_json(const std::string& post, const std::string& added_extra = "") {
    std::string vocab;
    for (int b = 0; b < 256; ++b) {
        std::string s = spell_bytes(std::string(1, static_cast<char>(b)));
        if (s == "\"" || s == "\\") s = "\\" + s;
        vocab += (b ? ", \"" : "\"") + s + "\": " + std::to_string(b);
    }
    vocab += ", \"he\": 256, \"hel\": 257, \"hell\": 258, \"hello\": 259, \"Ġw\": 260";
    return "{\"version\": \"1.0\", \"added_tokens\": [{\"id\": 261, \"content\": \"<|bos|>\", \"special\": true},"
           " {\"id\": 262, \"content\": \"<|x|>\", \"special\": true, \"lstrip\": true, \"rstrip\": true}" + added_extra + "],\n"
           "\"normalizer\": null,\n\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},\n"
           "\"post_processor\": " + post + ",\n"
           "\"model\": {\"type\": \"BPE\", \"dropout\": null, \"vocab\": {" + vocab + "},\n"
           "\"merges\": [\"h e\", \"he l\", [\"hel\", \"l\"], \"hell o\", \"Ġ w\"]}}";
}

const std::string bos_template =
    R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|bos|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
       "special_tokens": {"<|bos|>": {"id": "<|bos|>", "ids": [261], "tokens": ["<|bos|>"]}}})";

}  // namespace

TEST_CASE("a tokenizer.json: added tokens first, the template's BOS, tokenizer_config.json", "[model][tokenizer]") {
    const tokenizer t = parse_tokenizer_json("tokenizer.json", tiny_json(bos_template), "", "");
    using ids = std::vector<std::uint32_t>;
    CHECK(t.encode("hello") == ids{261, 259});
    CHECK(t.encode("hello<|bos|>w") == ids{261, 259, 261, 'w'});
    // <|x|> strips the spaces around it
    CHECK(t.encode("hello  <|x|>  hello") == ids{261, 259, 262, 259});
    CHECK(t.encode(" w") == ids{261, 260});
    CHECK(t.decode(t.encode("hello<|bos|> w")) == "hello<|bos|> w");
    CHECK(t.token_label(261) == "<|bos|>");
    CHECK(t.vocab_size() == 263);

    const tokenizer no_bos = parse_tokenizer_json("tokenizer.json", tiny_json(bos_template), "tokenizer_config.json",
                                                  R"({"add_bos_token": false, "bos_token": "<|bos|>"})");
    CHECK(no_bos.encode("hello") == ids{259});
    const tokenizer add_bos = parse_tokenizer_json("tokenizer.json", tiny_json("null"), "tokenizer_config.json",
                                                   R"({"add_bos_token": true, "bos_token": {"content": "<|bos|>"}})");
    CHECK(add_bos.encode("hello") == ids{261, 259});
    CHECK(parse_tokenizer_json("tokenizer.json", tiny_json(R"({"type": "ByteLevel"})"), "", "").encode("hello") == ids{259});
}

TEST_CASE("a bad tokenizer.json is refused at file:line:col", "[model][tokenizer]") {
    auto refused = [](const std::string& text, const std::string& expect) {
        try {
            (void)parse_tokenizer_json("t.json", text, "", "");
            FAIL("accepted: " << text.substr(0, 80));
        } catch (const attn::io::input_error& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find(expect) != std::string::npos);
            CHECK(std::string(e.what()).rfind("t.json:", 0) == 0);
        }
    };
    refused(tiny_json(bos_template, ", {\"id\": 263, \"content\": \"x\", \"single_word\": true}"), "single_word");
    refused(tiny_json(R"({"type": "RobertaProcessing"})"), "post-processor");
    refused(tiny_json(R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|nope|>"}}]})"), "<|nope|>");
    std::string merges_bad = tiny_json("null");
    merges_bad.replace(merges_bad.find("\"hell o\""), 8, "\"hell x\"");
    refused(merges_bad, "merged token");
    std::string dup = tiny_json("null");
    const std::string w260 = "\"Ġw\": 260";
    dup.replace(dup.find(w260), w260.size(), "\"Ġw\": 259");
    refused(dup, "each id once");
    refused("{\"model\": {\"type\": \"Unigram\"}}", "BPE");
    refused("[1, 2]", "expected");
}
