// lessons/model_source_reader.cpp — see model_source_reader.hpp.
#include "lessons/model_source_reader.hpp"

#include <sstream>

#include "core/error.hpp"

namespace attn::lessons {

namespace {

// tokens = "2 0 1 1 0 2": ids below the vocabulary, separated by spaces.
std::vector<int> read_tokens(const toml::table& t, const io::toml_reader& rd, std::size_t vocab) {
    std::vector<int> ids;
    std::istringstream words(rd.string(t, "tokens", true).value_or(""));
    for (std::string w; words >> w;) {
        if (w.size() > 5 || w.find_first_not_of("0123456789") != std::string::npos || std::stoul(w) >= vocab) {
            rd.fail(t.get("tokens"), "'tokens' are token ids from 0 to " + std::to_string(vocab - 1) +
                                         " separated by spaces, found '" + w + "'");
            return {};
        }
        ids.push_back(std::stoi(w));
    }
    if (ids.empty() && t.get("tokens")) rd.fail(t.get("tokens"), "'tokens' is empty");
    return ids;
}

void read_variant_keys(const toml::table& t, const io::toml_reader& rd, std::size_t vocab, model_source& m) {
    const toml::node* vn = t.get("variant");
    if (!vn || !vn->as_table()) return;
    const toml::table& vt = *vn->as_table();
    const auto n = static_cast<std::int64_t>(m.tokens.size());
    m.keep = static_cast<std::size_t>(rd.integer(vt, "keep", false, 0, n - 1).value_or(0));  // BOS stays BOS
    m.drawn = static_cast<std::size_t>(rd.integer(vt, "drawn", false, 1, n - static_cast<std::int64_t>(m.keep)).value_or(0));
    m.then = rd.choice(vt, "then", false, {"greedy", "repeat", "none"}).value_or("greedy");
    m.same_input_as = rd.string(vt, "same_input_as", false).value_or("");
    const auto lohi = vt.get("range") ? rd.numbers(vt.get("range"), "'range'") : std::nullopt;
    if (!lohi || lohi->size() != 2 || (*lohi)[0] < 0 || (*lohi)[0] > (*lohi)[1] || (*lohi)[1] >= static_cast<double>(vocab))
        rd.fail(vt.get("range") ? vt.get("range") : vn,
                "a model's variant needs 'range' = [lo, hi], token ids from 0 to " + std::to_string(vocab - 1));
    else if (m.then == "repeat" && (*lohi)[1] - (*lohi)[0] + 1 < static_cast<double>(m.drawn ? m.drawn : m.tokens.size() - m.keep))
        rd.fail(vt.get("range"), "a block that repeats draws each token once: 'range' needs at least as many token ids "
                                 "as the block has tokens");
}

}  // namespace

std::optional<model_source> read_model_source(const toml::table& t, const io::toml_reader& rd) {
    const std::size_t before = rd.problems ? rd.problems->size() : 0;  // null: fail throws
    model_source m;
    m.model = rd.string(t, "model", true).value_or("");
    std::size_t layers = 0, heads = 0, vocab = 0;
    try {
        layers = model_layers(m.model);
        heads = model_heads(m.model);
        vocab = model_vocab(m.model);
    } catch (const error& e) {  // no such built-in model: the message names the ones there are
        rd.fail(t.get("model"), e.what());
        return std::nullopt;
    }
    m.tokens = read_tokens(t, rd, vocab);
    m.layer = static_cast<std::size_t>(rd.integer(t, "layer", true, 0, static_cast<std::int64_t>(layers) - 1).value_or(0));
    m.head = static_cast<std::size_t>(rd.integer(t, "head", true, 0, static_cast<std::int64_t>(heads) - 1).value_or(0));
    read_variant_keys(t, rd, vocab, m);
    if (m.tokens.size() > model_positions(m.model))
        rd.fail(t.get("tokens"), "'tokens' holds " + std::to_string(m.tokens.size()) + " tokens; the model reads at most " +
                                     std::to_string(model_positions(m.model)));
    if (rd.problems && rd.problems->size() != before) return std::nullopt;
    return m;
}

}  // namespace attn::lessons
