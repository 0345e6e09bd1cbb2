// model/tokenizer_load.cpp — tokenizer::load: which source a path is, from a registry
// whose rows carry their loader, tried in order:
//   a GGUF file (its first bytes "GGUF", or .gguf) → the tokenizer in its metadata
//   a file (tokenizer.json, any name)           → Hugging Face tokenizer.json
//   a folder holding tokenizer.json             → that file
//   a folder holding vocab.json + merges.txt or encoder.json + vocab.bpe → GPT-2's files
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/input_error.hpp"
#include "model/gguf_tokenizer.hpp"
#include "model/tokenizer.hpp"
#include "model/tokenizer_json.hpp"

namespace attn::model {

namespace {

namespace fs = std::filesystem;

bool is_folder(const std::string& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool is_file(const std::string& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

struct tokenizer_source {
    const char* words;  // for the refusal
    bool (*matches)(const std::string& path);
    tokenizer (*load)(const std::string& path);
};

const std::vector<tokenizer_source>& sources() {
    static const std::vector<tokenizer_source> s = {
        {"a GGUF file", [](const std::string& p) { return is_file(p) && (tokenizer::is_gguf(p) || fs::path(p).extension() == ".gguf"); },
         [](const std::string& p) { return tokenizer_from_gguf(read_gguf_tokenizer_fields(p)); }},
        {"a tokenizer.json", [](const std::string& p) { return is_file(p); },
         [](const std::string& p) { return read_tokenizer_json(p); }},
        {"a folder holding tokenizer.json", [](const std::string& p) { return is_folder(p) && is_file((fs::path(p) / "tokenizer.json").string()); },
         [](const std::string& p) { return read_tokenizer_json((fs::path(p) / "tokenizer.json").string()); }},
        {"a folder holding vocab.json + merges.txt (or encoder.json + vocab.bpe)", [](const std::string& p) { return is_folder(p); },
         [](const std::string& p) { return tokenizer(std::make_shared<bpe_tokenizer>(bpe_tokenizer::load(p))); }},
    };
    return s;
}

}  // namespace

bool tokenizer::is_gguf(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::string(magic, 4) == "GGUF";
}

tokenizer tokenizer::load(const std::string& path) {
    for (const tokenizer_source& s : sources())
        if (s.matches(path)) return s.load(path);
    std::string what;
    for (const tokenizer_source& s : sources()) what += std::string(what.empty() ? "" : ", ") + s.words;
    std::error_code ec;
    throw io::input_error("not-found", {path, 0, 0},
                          "expected a tokenizer: " + what + "; found " +
                              (fs::exists(path, ec) ? "something that is neither a file nor a folder" : "nothing there"));
}

}  // namespace attn::model
