// lessons/show_circuits_numbers.cpp — see show_circuits_numbers.hpp: lessons 24–26's
// exercise numbers and their mistakes, from the built-in checkpoint's float64 forward
// (model/explain, model/patching), each mistake recomputed the way it goes wrong.
#include "lessons/show_circuits_numbers.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "lessons/counting.hpp"
#include "lessons/trained_models.hpp"
#include "model/explain.hpp"
#include "model/patching.hpp"
#include "trace/number_format.hpp"

namespace attn::lessons {

namespace {

// The catalogue: id → the name a student reads.
const char* const circuit_wrong_position = "term_wrong_position";
const char* const circuit_scale_forgotten = "norm_scale_forgotten";
const char* const circuit_swapped = "clean_corrupt_swapped";
const char* const circuit_from_0 = "head_counted_from_0";

std::string circuit_name_of(const std::string& id) {
    for (const auto& [i, n] : circuit_mistake_names())
        if (i == id) return n;
    return id;
}

circuit_form circuit_mistake(const std::string& id, std::string explanation, double value) {
    return {id, circuit_name_of(id), std::move(explanation), value};
}

std::string circuit_head_name(std::size_t layer, std::size_t head) {
    return "blocks." + std::to_string(layer) + ".attn.head." + std::to_string(head);
}

// How `attn model explain` labels a component (counted from 0): embed, pos, L0H0, 0_mlp, bias.
std::string circuit_cli_label(const std::string& name) {
    if (name == "pos_embed") return "pos";
    if (name.rfind("blocks.", 0) != 0) return name;
    const std::string l = name.substr(7, name.find('.', 7) - 7);
    if (name.find(".attn.head.") != std::string::npos) return "L" + l + "H" + name.substr(name.rfind('.') + 1);
    return l + "_mlp";
}

// A component in the lessons' words, counted from 1: "layer 1, head 1's output".
std::string circuit_words(const std::string& name) {
    if (name == "embed") return "the token embedding";
    if (name == "pos_embed") return "the position embedding";
    if (name == "bias") return "the biases";
    const std::size_t l = std::stoul(name.substr(7, name.find('.', 7) - 7));
    if (name.find(".attn.head.") != std::string::npos)
        return head_label(l, std::stoul(name.substr(name.rfind('.') + 1)), false) + "'s output";
    return "layer " + std::to_string(l + 1) + "'s MLP";
}

std::size_t circuit_index(const std::vector<std::string>& names, const std::string& name) {
    const auto at = std::find(names.begin(), names.end(), name);
    if (at == names.end()) throw attn::error("no component '" + name + "' in this score's decomposition");
    return static_cast<std::size_t>(at - names.begin());
}

// The head the lessons' count read as attn's would name instead: layer + 1, and head + 1
// when the layer has it (layer 1, head 1 read off the row attn labels L1H0 or L1H1).
bool circuit_shifted_head(const model::architecture& c, std::size_t layer, std::size_t head, std::size_t& l2, std::size_t& h2) {
    if (layer + 1 >= c.n_layer) return false;
    l2 = layer + 1;
    h2 = head + 1 < c.n_head ? head + 1 : head;
    return true;
}

std::string circuit_ids(const std::vector<int>& ids) {
    std::string s;
    for (int t : ids) s += (s.empty() ? "" : ",") + std::to_string(t);
    return s;
}

circuit_answer score_term(const model_source& m, const std::vector<int>& ids, const circuit_ask& a) {
    const auto& p = find_trained_model(m.model).params;
    const auto r = model::record_run(p, ids);
    const auto d = model::explain_score(p, r, a.layer, a.head, a.query, a.key);
    const std::size_t qi = circuit_index(d.components, a.query_side), ki = circuit_index(d.components, a.key_side);
    circuit_answer out;
    out.value = d.terms[qi][ki];
    const std::string cell = fmt::format("{} at the key × {} at the query", circuit_words(a.key_side), circuit_words(a.query_side));
    out.how = fmt::format("attn model explain {} --tokens {} --layer={} --head={} --query {} --key {}: the terms table's row {} "
                          "(the query side), column {} (the key side): {} at the key × {} at the query = {}",
                          m.model, circuit_ids(ids), a.layer, a.head, a.query, a.key, circuit_cli_label(a.query_side),
                          circuit_cli_label(a.key_side), circuit_words(a.key_side), circuit_words(a.query_side),
                          trace::fixed(out.value, 4));
    if (qi != ki)
        out.mistakes.push_back(circuit_mistake(
            circuit_wrong_position,
            fmt::format("{} at the key × {} at the query ({}) is the cell with each part at the other position; rows are the "
                        "query's parts, columns the key's, and {} asks for {}",
                        circuit_words(a.query_side), circuit_words(a.key_side), trace::fixed(d.terms[ki][qi], 4),
                        head_label(a.layer, a.head, false) + "'s score", cell),
            d.terms[ki][qi]));
    if (a.query_side != "bias" && a.key_side != "bias") {
        const double* rstd = model::norm_rstd(r.acts, "blocks." + std::to_string(a.layer) + ".ln1");
        out.mistakes.push_back(circuit_mistake(
            circuit_scale_forgotten,
            fmt::format("without dividing each side by its position's norm scale (1/rstd: {} at the query, {} at the key) the term "
                        "is {}; the norm divides each position's stream by its own scale before W_Q and W_K",
                        trace::fixed(1.0 / rstd[a.query], 4), trace::fixed(1.0 / rstd[a.key], 4),
                        trace::fixed(out.value / (rstd[a.query] * rstd[a.key]), 4)),
            out.value / (rstd[a.query] * rstd[a.key])));
    }
    return out;
}

// One component's direct logit attribution to `target` at pos.
double circuit_dla(const model::model_params<double>& p, const model::forward_record<double>& r, std::size_t pos, int target,
                   const std::string& component) {
    const auto at = model::attribute_logit(p, r, pos, static_cast<std::size_t>(target));
    return at.values[circuit_index(at.components, component)];
}

circuit_answer dla(const model_source& m, const std::vector<int>& ids, const circuit_ask& a) {
    const auto& p = find_trained_model(m.model).params;
    if (a.query + 1 >= ids.size()) throw attn::error(fmt::format("position {} has no next token in this input", a.query));
    const auto r = model::record_run(p, ids);
    const int target = ids[a.query + 1];
    const std::string head = circuit_head_name(a.layer, a.head);
    circuit_answer out;
    out.value = circuit_dla(p, r, a.query, target, head);
    out.how = fmt::format("attn model explain {} --tokens {} --layer={} --head={} --query {} --target {}: the direct logit "
                          "attribution table, layer {}, head {} = {} ({} to the next token, {}, at position {})",
                          m.model, circuit_ids(ids), a.layer, a.head, a.query, target, a.layer, a.head, trace::fixed(out.value, 4),
                          head_label(a.layer, a.head, false) + "'s attribution", target, a.query);
    const double* rstd = model::norm_rstd(r.acts, "ln_final");
    out.mistakes.push_back(circuit_mistake(
        circuit_scale_forgotten,
        fmt::format("the head's output through W_U without the final norm's scale at position {} (divide by {}) gives {}",
                    a.query, trace::fixed(1.0 / rstd[a.query], 4), trace::fixed(out.value / rstd[a.query], 4)),
        out.value / rstd[a.query]));
    if (a.query + 2 < ids.size()) {
        const double next = circuit_dla(p, r, a.query + 1, target, head);
        out.mistakes.push_back(circuit_mistake(
            circuit_wrong_position,
            fmt::format("{} is the attribution at position {}, one to the right: positions count from 0 (BOS is position 0)",
                        trace::fixed(next, 4), a.query + 1),
            next));
    }
    std::size_t l2 = 0, h2 = 0;
    if (circuit_shifted_head(p.config, a.layer, a.head, l2, h2)) {
        const double other = circuit_dla(p, r, a.query, target, circuit_head_name(l2, h2));
        out.mistakes.push_back(circuit_mistake(
            circuit_from_0,
            fmt::format("{} is {}'s attribution (attn's row L{}H{}), not {}'s: the lessons count layers and heads from 1, "
                        "attn model from 0",
                        trace::fixed(other, 4), head_label(l2, h2, false), l2, h2, head_label(a.layer, a.head, false)),
            other));
    }
    return out;
}

// The loss of `run`'s tokens (from a.from on, each next token of `targets`) with head
// (layer, head)'s hook_z taken from `from` at every position.
double circuit_patched(const model::model_params<double>& p, const std::vector<int>& run, const model::forward_record<double>& from,
                       std::size_t layer, std::size_t head, const std::vector<int>& targets, std::size_t first) {
    const auto& c = p.config;
    const std::string zname = "blocks." + std::to_string(layer) + ".attn.hook_z";
    const double* z = model::stage_of(c, from.acts, zname).data;  // [P, H·hs]
    const std::size_t P = run.size(), C = c.n_head * c.d_head(), hs = c.d_head();
    const model::stage_patch<double> patch = [&](const std::string& s, double* data) {
        if (s != zname) return;
        for (std::size_t pos = 0; pos < P; ++pos) std::copy_n(z + pos * C + head * hs, hs, data + pos * C + head * hs);
    };
    const auto patched = model::record_run(p, run, &patch);
    model::patch_metric m;
    m.kind = model::metric_kind::loss;
    m.from = first;
    return model::metric_value(m, patched, std::vector<std::int32_t>(targets.begin(), targets.end()), c);
}

circuit_answer patched_loss(const model_source& m, const std::vector<int>& ids, const circuit_ask& a) {
    const auto& p = find_trained_model(m.model).params;
    if (a.from + 1 >= ids.size()) throw attn::error(fmt::format("no next token to predict from position {}", a.from));
    const std::vector<int> corrupt = corrupted_input(m, ids, a.shift);
    const auto rc = model::record_run(p, ids), rx = model::record_run(p, corrupt);
    circuit_answer out;
    out.value = circuit_patched(p, corrupt, rc, a.layer, a.head, ids, a.from);
    out.how = fmt::format("attn model patch {} --clean-tokens {} --corrupt-tokens {} --metric loss:{}: the corrupted run's loss "
                          "plus the change in row L{}H{} of the head-patching table = {}",
                          m.model, circuit_ids(ids), circuit_ids(corrupt), a.from, a.layer, a.head, trace::fixed(out.value, 4));
    const double into_clean = circuit_patched(p, ids, rx, a.layer, a.head, ids, a.from);
    const double flags_swapped = circuit_patched(p, ids, rx, a.layer, a.head, corrupt, a.from);
    const std::string why = "activation patching runs the corrupted input with the head's output from the clean run, not the "
                            "clean input with the corrupted run's";
    out.mistakes.push_back(circuit_mistake(
        circuit_swapped, fmt::format("{} is the clean run with {}'s output from the corrupted run: {}", trace::fixed(into_clean, 4),
                                     head_label(a.layer, a.head, false), why),
        into_clean));
    out.mistakes.push_back(circuit_mistake(
        circuit_swapped,
        fmt::format("{} is what attn model patch prints with --clean-tokens and --corrupt-tokens swapped: {}", trace::fixed(flags_swapped, 4), why),
        flags_swapped));
    std::size_t l2 = 0, h2 = 0;
    if (circuit_shifted_head(p.config, a.layer, a.head, l2, h2)) {
        const double other = circuit_patched(p, corrupt, rc, l2, h2, ids, a.from);
        out.mistakes.push_back(circuit_mistake(
            circuit_from_0,
            fmt::format("{} is the loss with {} patched (attn's row L{}H{}), not {}: the lessons count layers and heads from 1, "
                        "attn model from 0",
                        trace::fixed(other, 4), head_label(l2, h2, false), l2, h2, head_label(a.layer, a.head, false)),
            other));
    }
    return out;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& circuit_mistake_names() {
    static const std::vector<std::pair<std::string, std::string>> names{
        {circuit_wrong_position, "a term read from the wrong position"},
        {circuit_scale_forgotten, "the norm's scale forgotten"},
        {circuit_swapped, "clean and corrupted swapped"},
        {circuit_from_0, "layer and head counted from 0"},
    };
    return names;
}

std::vector<int> corrupted_input(const model_source& m, const std::vector<int>& ids, std::size_t shift) {
    std::vector<int> out = ids;  // [P]
    const std::size_t end = std::min(ids.size(), m.keep + m.drawn);
    const int V = static_cast<int>(model_vocab(m.model));  // past the last id it wraps to 1 (0 is BOS)
    for (std::size_t i = m.keep; i < end; ++i) out[i] = (ids[i] - 1 + static_cast<int>(shift)) % (V - 1) + 1;
    return out;
}

std::string circuit_input_words(const model_source& m, const std::vector<int>& ids, std::size_t shift) {
    std::string out = "The input (" + std::to_string(ids.size()) + " tokens, positions 0 to " + std::to_string(ids.size() - 1) +
                      "):\n  --tokens " + circuit_ids(ids) + "\n";
    if (shift) out += "Corrupted (the first block's tokens each + " + std::to_string(shift) + ", wrapped to 1 past the last id):\n  --tokens " +
                      circuit_ids(corrupted_input(m, ids, shift)) + "\n";
    return out;
}

circuit_answer circuit_value(const model_source& m, const std::vector<int>& ids, const circuit_ask& a) {
    const auto& c = find_trained_model(m.model).params.config;
    if (a.layer >= c.n_layer || a.head >= c.n_head)
        throw attn::error(fmt::format("the {} model has no layer {} head {}", m.model, a.layer, a.head));
    if (a.quantity == "score_term") return score_term(m, ids, a);
    if (a.quantity == "dla") return dla(m, ids, a);
    return patched_loss(m, ids, a);
}

}  // namespace attn::lessons
