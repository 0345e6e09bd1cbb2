// model/merges_file.cpp — reads a merges file (vocab.bpe / merges.txt): an optional
// "#version…" first line, then one merge a line, "left right", in rank order. Blank
// lines are skipped; a line ending in CR LF is read as if it ended in LF.
#include <string>

#include "io/input_read.hpp"
#include "model/byte_level.hpp"
#include "model/tokenizer_files.hpp"
#include "model/utf8.hpp"

namespace attn::model {

namespace {

struct word {
    std::size_t at;  // byte offset in the file
    std::string_view text;
};

// The words of one line, split at spaces and tabs.
std::vector<word> split_words(std::string_view line, std::size_t line_at) {
    std::vector<word> words;
    std::size_t k = 0;
    while (k < line.size()) {
        while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
        const std::size_t start = k;
        while (k < line.size() && line[k] != ' ' && line[k] != '\t') ++k;
        if (k > start) words.push_back({line_at + start, line.substr(start, k - start)});
    }
    return words;
}

class merges_reader {
public:
    merges_reader(const std::string& path, std::string_view text, const vocabulary& vocab)
        : path_(path), t_(text), vocab_(vocab) {}

    merge_table read();

private:
    [[noreturn]] void fail(std::size_t at, const std::string& message) const {
        throw io::input_error("syntax", position_in(path_, t_, at), message);
    }
    std::uint32_t token_id(const word& w, std::string* bytes_out) const;
    void add_line(std::string_view line, std::size_t line_at, merge_table& table, std::uint32_t& rank) const;

    const std::string& path_;
    std::string_view t_;
    const vocabulary& vocab_;
};

// The id of a token spelled in the byte-level alphabet; its raw bytes into *bytes_out.
std::uint32_t merges_reader::token_id(const word& w, std::string* bytes_out) const {
    std::string bytes;
    for (std::size_t k = 0; k < w.text.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_one(w.text, k, cp);
        if (len == 0) fail(w.at + k, "expected UTF-8 text, found a byte that is not valid UTF-8 here");
        const int b = char_byte(cp);
        if (b < 0) {
            fail(w.at + k, "expected a token spelled in GPT-2's byte-level alphabet (Ġ for a space), found '" +
                               std::string(w.text.substr(k, len)) + "'");
        }
        bytes += static_cast<char>(b);
        k += len;
    }
    const auto it = vocab_.ids.find(bytes);
    if (it == vocab_.ids.end()) fail(w.at, "expected a token of the vocabulary, found '" + std::string(w.text) + "', which it lacks");
    *bytes_out = std::move(bytes);
    return it->second;
}

void merges_reader::add_line(std::string_view line, std::size_t line_at, merge_table& table, std::uint32_t& rank) const {
    const std::vector<word> words = split_words(line, line_at);
    if (words.empty()) return;
    if (words.size() != 2) {
        const std::size_t at = words.size() > 2 ? words[2].at : line_at + line.size();
        fail(at, "expected two tokens separated by a space (\"left right\"), found " + std::to_string(words.size()));
    }
    std::string left, right;
    const std::uint32_t l = token_id(words[0], &left), r = token_id(words[1], &right);
    const auto joined = vocab_.ids.find(left + right);
    if (joined == vocab_.ids.end())
        fail(words[0].at, "expected the merged token '" + std::string(words[0].text) + std::string(words[1].text) +
                              "' in the vocabulary, found it missing");
    table.pairs[merge_table::key(l, r)] = {rank++, joined->second};
}

merge_table merges_reader::read() {
    merge_table table;
    std::uint32_t rank = 0;
    std::size_t at = 0;
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") at = 3;  // a byte-order mark
    bool first = true;
    while (at < t_.size()) {
        std::size_t end = t_.find_first_of("\r\n", at);  // LF, CR LF or a lone CR (old Mac files)
        if (end == std::string_view::npos) end = t_.size();
        const std::string_view line = t_.substr(at, end - at);
        if (!(first && line.substr(0, 8) == "#version")) add_line(line, at, table, rank);
        first = false;
        at = end + (t_.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    }
    return table;
}

}  // namespace

merge_table read_merges(const std::string& path, const vocabulary& vocab) {
    io::input_limits limits;
    limits.max_bytes = max_vocab_file_bytes;
    limits.what = "merges file";
    return parse_merges(path, io::read_input_file(path, limits), vocab);
}

merge_table parse_merges(const std::string& name, std::string_view text, const vocabulary& vocab) {
    return merges_reader(name, text, vocab).read();
}

}  // namespace attn::model
