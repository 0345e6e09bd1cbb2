// lessons/show_trained.cpp — show kinds of lessons 20–23, on models that learned: a
// built-in checkpoint (lessons/trained_models.hpp) run on a sequence the lesson gives,
// and one of its heads shown as any lesson shows a run (`model_head`: a stage table,
// a heatmap or one query's walk-through); greedy decoding step by step
// (`greedy_decode`); the head detector's scores (`head_scores`); what removing each
// head does to the loss (`head_ablation`). Every number is computed when shown, from
// the checkpoint's float64 forward (model/traced_forward).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/attention.hpp"
#include "core/mask.hpp"
#include "lessons/counting.hpp"
#include "lessons/show_kinds.hpp"
#include "lessons/show_trained_inputs.hpp"
#include "lessons/trained_models.hpp"
#include "model/decode.hpp"
#include "io/terminal_safe.hpp"
#include "model/head_detector.hpp"
#include "model/init.hpp"
#include "model/train.hpp"
#include "trace/number_format.hpp"
#include "trace/text_width.hpp"
#include "trace/explain.hpp"
#include "trace/heatmap.hpp"
#include "trace/stages.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

// show::whole (show_trained_inputs.hpp) is called qualified: in a unity build another
// show file's file-local `whole` would hide it inside this file's anonymous namespace.
namespace {

model::model_params<double> weights_at(const show_item& item, const trained_model& m, std::size_t step);

// The query of `token`: a position counted from 0 ("5") or its label ("2₅").
std::size_t need_position(const show_item& item, const sequence& s) {
    const std::string t = need_string(item, "token");
    for (std::size_t i = 0; i < s.at.size(); ++i)
        if (t == s.at[i] || t == std::to_string(i)) return i;
    bad(item, fmt::format("'token' must be a position from 0 to {} or its label ({} … {}), found '{}'", s.at.size() - 1,
                          s.at.front(), s.at.back(), t), "token");
}

std::string rtrim(std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// The bins sit between the weights of evenly spread rows (1, 1/2, 1/3, 1/4 …), never
// on them: an untrained row of 1/2s or 1/4s draws one shade, not ▒▓ or ░▒ by rounding.
std::string shade(double w) {
    return w < 0.3 ? "░" : w < 0.6 ? "▒" : w < 0.75 ? "▓" : "█";
}

std::string shade_legend() { return "░ < 0.3 ≤ ▒ < 0.6 ≤ ▓ < 0.75 ≤ █, · blocked"; }

// A trained head's heatmap has a cell of 4 characters and a gap, 6 with colour (the cell
// holds its value): 21 keys (lesson 21's input) are 105 columns, 126 with colour
// (trace::heatmap_columns). Wider than the terminal, the same shades go one to a cell
// of 3, 2 or 1 characters, under the keys' positions (lesson 21 reads its stripe by them).

bool fits(const std::string& text, std::size_t width) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (trace::display_width(line) > width) return false;
    return true;
}

std::string compact_heatmap(const matrix& w, const trace::run_labels& labels, std::size_t width) {
    const auto& at = labels.query_tokens;
    const std::size_t P = at.size();  // w: [P, P]
    std::size_t label_w = 0;
    for (const auto& l : at) label_w = std::max(label_w, trace::display_width(l));
    std::size_t cell = 3;
    while (cell > 1 && label_w + 3 + cell * P > width) --cell;
    const std::size_t every = cell >= 3 ? 1 : cell == 2 ? 2 : 5;  // which positions the header names
    std::string head = std::string(label_w + 3, ' ');
    for (std::size_t j = 0; j < P; ++j) {
        const std::string n = j % every == 0 ? std::to_string(j) : "";
        const std::size_t at_col = label_w + 3 + j * cell + cell;  // numbers end at their cell's right edge
        if (!n.empty() && at_col >= head.size() + n.size()) head += std::string(at_col - head.size() - n.size(), ' ') + n;
    }
    const std::string title = labels.title + " weights  [" + std::to_string(P) + " × " + std::to_string(P) + "]",
                      axes = "(rows: queries · columns: keys, by position)";
    const bool one_line = trace::display_width(title) + 2 + trace::display_width(axes) <= width;
    std::string out = title + (one_line ? "  " : "\n  ") + axes + "\n" + head + "\n";
    for (std::size_t i = 0; i < P; ++i) {
        std::string line = "  " + at[i] + std::string(label_w - trace::display_width(at[i]) + 1, ' ');
        for (std::size_t j = 0; j < P; ++j) {
            std::string c;
            for (std::size_t k = 0; k < cell; ++k) c += j > i ? (k + 1 == cell ? "·" : " ") : shade(w(i, j));
            line += c;
        }
        out += rtrim(line) + "\n";
    }
    return out + "  legend: " + shade_legend() + "\n";
}

// Per query: the key it weights most, by how many positions it looks back, and the
// runner-up (a stripe of a trained head, read as numbers).
std::string strongest_keys(const matrix& w, const trace::run_labels& labels, const trace::style& st) {
    const std::size_t P = w.shape(0);  // w: [P, P]
    trace::table t;
    t.title = labels.title + " where each query looks";
    t.axes = "rows: queries · the two keys with the largest weights";
    t.corner = "query";
    t.col_labels = {"looks most at", "weight", "query − key", "then at", "weight"};
    t.row_labels = labels.query_tokens;
    for (std::size_t i = 0; i < P; ++i) {
        std::size_t best = 0, second = P;
        for (std::size_t j = 1; j <= i; ++j)
            if (w(i, j) > w(i, best)) second = best, best = j;
            else if (second == P || w(i, j) > w(i, second)) second = j;
        const auto key = [&](std::size_t j) { return j == P ? std::string("-") : labels.key_tokens[j]; };
        t.cells.push_back({key(best), trace::fixed(w(i, best), 2), std::to_string(i - best), key(second),
                           second == P ? std::string("-") : trace::fixed(w(i, second), 2)});
    }
    t.shape = "[" + std::to_string(P) + " × " + std::to_string(P) + "]";
    return trace::render(t, st);
}

// One head of a forward as an attention computation of the core: the model's own q,
// k, v of that head (biases included; rotated q and k with rotary positions; k and v
// of its key/value head with grouped-query attention), causal, divided by √d_head. Its
// weights are the model's hook_pattern (the same formula on the same numbers).
attention_steps head_steps(const model::forward_acts<double>& a, std::size_t layer, std::size_t head) {
    const auto& b = a.blocks[layer];
    const std::size_t P = a.n_pos, dh = b.q.shape(3);
    const bool rotary = b.rot_q.size() != 0;
    const std::size_t g = head / (b.q.shape(2) / b.k.shape(2));  // the key/value head query head `head` reads
    matrix q({P, dh}), k({P, dh}), v({P, dh});  // [P, d_head]
    for (std::size_t i = 0; i < P; ++i)
        for (std::size_t d = 0; d < dh; ++d) {
            q(i, d) = rotary ? b.rot_q(0, i, head, d) : b.q(0, i, head, d);
            k(i, d) = rotary ? b.rot_k(0, i, g, d) : b.k(0, i, g, d);
            v(i, d) = b.v(0, i, g, d);
        }
    recipe_options o;
    o.mask = causal_mask(P, P);
    return attention_recipe_head(q, k, v, o).forward;
}

std::string show_model_head(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item);
    const auto& c = s.model->params.config;
    const std::size_t layer = show::whole(item, "layer", 0, static_cast<std::int64_t>(c.n_layer) - 1);
    const std::size_t head = show::whole(item, "head", 0, static_cast<std::int64_t>(c.n_head) - 1);
    const bool at_step = item.spec->get("step") != nullptr;
    const std::size_t step = at_step ? show::whole(item, "step", 0, 100000000) : 0;
    const attention_steps steps =
        head_steps(forward_one(at_step ? weights_at(item, *s.model, step) : s.model->params, s.ids), layer, head);
    trace::run_labels labels;
    labels.title = opt_string(item, "title", at_step ? fmt::format("{} at step {}:", head_label(layer, head), step)
                                                     : head_label(layer, head) + ":");
    labels.query_tokens = labels.key_tokens = s.at;
    const std::string stage = opt_string(item, "stage", "weights");
    if (stage == "trace") return trace::explain_query(steps, need_position(item, s), labels, st);
    if (stage == "strongest") return strongest_keys(steps.weights, labels, st);
    if (stage == "heatmap") {
        trace::heatmap_input in;
        in.width = st.width;
        in.title = labels.title + " weights";
        in.row_labels = in.col_labels = s.at;
        in.values = &steps.weights;
        in.attend = &steps.attend;
        in.unit_range = true;
        const trace::heatmap_style hs = trace::heatmap_style_for(st.color);
        if (trace::heatmap_columns(in, hs) > st.width) return compact_heatmap(steps.weights, labels, st.width);
        const std::string full = trace::render_heatmap(in, hs);
        // Wide labels widen the full heatmap's cells: beyond the width, the compact one.
        return fits(full, st.width) ? full : compact_heatmap(steps.weights, labels, st.width);
    }
    const auto id = parse_stage(stage);
    if (!id) bad(item, "'stage' must be heatmap, strongest, trace or a stage name such as weights" + stage_hint(stage), "stage");
    return trace::render(trace::stage_table(steps, *id, labels, opt_decimals(item, -1)), st);
}

model::model_params<double> to_double(const model::model_params<float>& f, const model::model_params<double>& like) {
    model::model_params<double> d = like;  // same config and shapes
    std::vector<std::vector<float>> flat;
    model::for_each_param(f, [&](const std::string&, model::param_kind, const auto& t) {
        flat.emplace_back(t.begin(), t.end());
    });
    std::size_t i = 0;
    model::for_each_param(d, [&](const std::string&, model::param_kind, auto& t) {
        std::copy(flat[i].begin(), flat[i].end(), t.begin());
        ++i;
    });
    return d;
}

struct panel {
    std::string title, note;
    matrix weights;  // [P, P]
};

// Panels of P columns (plus a gap of 3) beside the row labels, as many a row as fit.
std::string side_by_side(const std::vector<panel>& panels, const std::vector<std::string>& labels, std::size_t width) {
    std::size_t label_w = 0;
    for (const auto& l : labels) label_w = std::max(label_w, trace::display_width(l));
    const std::size_t P = labels.size(), cell = std::max<std::size_t>(P, 12) + 3;
    const std::size_t per_row = std::max<std::size_t>(1, (std::max(width, label_w + 2 + cell) - label_w - 2) / cell);
    std::string out;
    const auto pad = [](const std::string& t, std::size_t w) { return t + std::string(w - std::min(w, trace::display_width(t)), ' '); };
    for (std::size_t first = 0; first < panels.size(); first += per_row) {
        const std::size_t last = std::min(panels.size(), first + per_row);
        for (std::string panel::*what : {&panel::title, &panel::note}) {
            std::string line = std::string(label_w + 2, ' ');
            for (std::size_t p = first; p < last; ++p) line += pad(panels[p].*what, cell);
            out += rtrim(line) + "\n";
        }
        for (std::size_t i = 0; i < P; ++i) {
            std::string line = "  " + pad(labels[i], label_w);
            for (std::size_t p = first; p < last; ++p) {
                std::string row;
                for (std::size_t j = 0; j < P; ++j) row += j > i ? "·" : shade(panels[p].weights(i, j));
                line += " " + pad(row, cell - 1);
            }
            out += rtrim(line) + "\n";
        }
    }
    return out;
}

// The two most likely next tokens after the last position: (id, probability) each.
std::pair<std::pair<int, double>, std::pair<int, double>> top_two(const model::forward_acts<double>& a) {
    const std::size_t last = a.n_pos - 1, V = a.probs.shape(2);
    std::size_t best = 0, second = V > 1 ? 1 : 0;
    if (V > 1 && a.probs(0, last, 1) > a.probs(0, last, 0)) std::swap(best, second);
    for (std::size_t v = 2; v < V; ++v) {
        if (a.probs(0, last, v) > a.probs(0, last, best)) second = best, best = v;
        else if (a.probs(0, last, v) > a.probs(0, last, second)) second = v;
    }
    return {{static_cast<int>(best), a.probs(0, last, best)}, {static_cast<int>(second), a.probs(0, last, second)}};
}

std::string show_greedy_decode(const lesson&, const show_item& item, const trace::style& st) {
    sequence s = need_sequence(item);
    const std::size_t room = s.model->params.config.n_positions - s.ids.size() + 1;
    const std::size_t steps = show::whole(item, "steps", 1, static_cast<std::int64_t>(room));
    trace::table t;
    t.title = opt_string(item, "title", "Greedy decoding: feed the sequence, append the likeliest token");
    t.axes = "rows: decoding steps";
    t.corner = "step";
    t.col_labels = {"fed", "next", "p", "runner-up", "p"};
    std::string answer;
    for (std::size_t k = 0; k < steps; ++k) {
        const auto [best, second] = top_two(forward_one(s.model->params, s.ids));
        t.row_labels.push_back(std::to_string(k + 1));
        t.cells.push_back({s.words(), s.vocab[static_cast<std::size_t>(best.first)], fmt::format("{:.4f}", best.second),
                           s.vocab[static_cast<std::size_t>(second.first)], fmt::format("{:.4f}", second.second)});
        s.ids.push_back(best.first);
        answer += (answer.empty() ? "" : " ") + s.vocab[static_cast<std::size_t>(best.first)];
    }
    t.shape = fmt::format("[{} steps]", steps);
    return trace::render(t, st) + "  answer: " + answer + "\n";
}

// `text` broken at spaces into lines of at most `width` columns (a long input sequence).
std::string wrapped(const std::string& text, std::size_t width) {
    std::istringstream words(text);
    std::string out, line;
    for (std::string w; words >> w;) {
        if (!line.empty() && trace::display_width(line) + 1 + trace::display_width(w) > width) out += line + "\n", line = "  ";
        line += (line.empty() || line == "  " ? "" : " ") + w;
    }
    return out + line + "\n";
}

// A model's text from its pieces: ▁ is a space (a GGUF's SentencePiece vocabulary);
// without pieces, the labels with spaces between.
std::string story_text(const sequence& s, const std::vector<int>& ids) {
    const std::string mark = "\xe2\x96\x81";  // ▁, U+2581
    std::string out;
    for (int id : ids) {
        const auto i = static_cast<std::size_t>(id);
        if (i >= s.model->pieces.size()) {
            out += (out.empty() ? "" : " ") + s.vocab[i];
            continue;
        }
        std::string piece = s.model->pieces[i];
        for (std::size_t at = piece.find(mark); at != std::string::npos; at = piece.find(mark, at + 1))
            piece.replace(at, mark.size(), " ");
        out += io::terminal_safe(piece);
    }
    while (!out.empty() && out.front() == ' ') out.erase(0, 1);
    return out;
}

// Generation through a KV cache (model/decode, float64), lesson 13's on a real model:
// each row feeds one token, one query row per head against the keys and values cached
// so far; the table says what the cache then holds, for G key/value heads and for H.
std::string show_cached_decode(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item);
    const auto& c = s.model->params.config;
    const std::size_t steps = show::whole(item, "steps", 1, static_cast<std::int64_t>(c.n_positions - s.ids.size()));
    model::decoder<double> d = model::make_decoder(s.model->params, s.ids.size() + steps);
    const std::size_t per_token = 2 * c.n_layer * c.kv_heads() * c.d_head(), per_token_h = 2 * c.n_layer * c.n_head * c.d_head();
    trace::table t;
    t.title = opt_string(item, "title", "Decoding through the KV cache, one token a step");
    t.axes = fmt::format("rows: steps · cached: K and V numbers, {} layers × {} K/V heads × {}", c.n_layer, c.kv_heads(), c.d_head());
    t.corner = "step";
    t.col_labels = {"fed", "next", "p", "cached", fmt::format("with {} K/V heads", c.n_head)};
    std::vector<int> fed = s.ids, made;  // [P + steps] everything fed; the new tokens
    for (std::size_t k = 0; k < s.ids.size() + steps - 1; ++k) {
        const std::vector<double>& logits = model::decode_step(d, fed[k]);
        std::vector<double> p(logits.size());  // [vocab] softmax of the logits
        const double top = *std::max_element(logits.begin(), logits.end());
        double z = 0;
        for (std::size_t v = 0; v < p.size(); ++v) z += (p[v] = std::exp(logits[v] - top));
        const auto best = static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
        if (k + 1 >= s.ids.size()) fed.push_back(static_cast<int>(best)), made.push_back(static_cast<int>(best));
        if (k + 1 < s.ids.size()) continue;  // a prompt token: the next one is the prompt's
        t.row_labels.push_back(std::to_string(k + 1));
        t.cells.push_back({s.vocab[static_cast<std::size_t>(fed[k])] + position_subscript(k), s.vocab[best],
                           fmt::format("{:.4f}", p[best] / z), std::to_string(d.position() * per_token),
                           std::to_string(d.position() * per_token_h)});
    }
    t.shape = fmt::format("[{} steps]", steps);
    return wrapped("Prompt: " + story_text(s, s.ids), st.width) + trace::render(t, st) +
           wrapped("  story: " + story_text(s, fed), st.width);
}

// One row a head, one column a pattern: a lesson reads every head's three scores at once.
std::string show_head_scores(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item);
    const auto a = forward_one(s.model->params, s.ids);
    const model::head_scores scores = model::detect_heads(a, s.model->params.config);
    trace::table t;
    t.title = "Head detector scores";
    t.axes = "rows: heads · columns: the pattern scored";
    t.corner = "head";
    t.col_labels = {"previous-token", "duplicate-token", "induction"};
    for (std::size_t l = 0; l < scores.n_layer; ++l)
        for (std::size_t h = 0; h < scores.n_head; ++h) {
            const std::size_t i = l * scores.n_head + h;  // scores: [n_layer, n_head]
            t.row_labels.push_back(head_label(l, h, false));
            t.cells.push_back({trace::fixed(scores.previous_token[i], 3), trace::fixed(scores.duplicate_token[i], 3),
                               trace::fixed(scores.induction[i], 3)});
        }
    t.shape = fmt::format("[{} × 3]", t.row_labels.size());
    return wrapped("Input: the sequence " + s.words() + ".", st.width) + trace::render(t, st) +
           "  score: the share of the head's attention on the cells the pattern names,\n"
           "  as TransformerLens's head detector computes it; 1 = all of it\n";
}

// Loss on the first part (positions 1 … from − 1) and the rest (from … P − 1), for
// the whole model and with each head removed in turn.
std::string show_head_ablation(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item, "tokens", 1);
    const auto& p = s.model->params;
    const std::size_t P = s.ids.size(), from = show::whole(item, "from", 2, static_cast<std::int64_t>(P) - 1);
    const std::vector<int> fed(s.ids.begin(), s.ids.end() - 1);  // [P − 1]: the last token is a target only
    trace::table t;
    t.title = opt_string(item, "title", "Loss per token with one head removed (its W_O rows set to 0)");
    t.axes = "rows: which head is removed";
    t.corner = "removed";
    t.col_labels = {"first part", "second part"};
    const auto row = [&](const std::string& label, const model::model_params<double>& q) {
        const auto a = forward_one(q, fed);
        t.row_labels.push_back(label);
        t.cells.push_back({fmt::format("{:.4f}", span_loss(a, s.ids, 1, from)), fmt::format("{:.4f}", span_loss(a, s.ids, from, P))});
    };
    row("nothing", p);
    for (std::size_t l = 0; l < p.config.n_layer; ++l)
        for (std::size_t h = 0; h < p.config.n_head; ++h) row(head_label(l, h, false), without_head(p, l, h));
    t.shape = fmt::format("[{} × 2]", t.row_labels.size());
    return trace::render(t, st) + fmt::format("  first part: tokens 1 … {}; second part: tokens {} … {} (counted from 0)\n",
                                              from - 1, from, P - 1);
}

// The model `name` after `step` training steps: the built-in checkpoint itself when it
// was saved at that step, else the built-in "NAME-STEP", and step 0 is its initial
// weights (the trainer's init_params of its seed, in float32 as it trains).
model::model_params<double> weights_at(const show_item& item, const trained_model& m, std::size_t step) {
    const auto meta = [&](const std::string& key) {
        const auto it = m.metadata.find(key);
        return it == m.metadata.end() ? std::string() : it->second;
    };
    if (meta("attn.steps") == std::to_string(step)) return m.params;
    if (step > 0) {
        try {
            return find_trained_model(m.name + "-" + std::to_string(step)).params;
        } catch (const error&) {  // no checkpoint at that step
            bad(item, fmt::format("no built-in checkpoint of '{}' at step {}", m.name, step), item.spec->get("step") ? "step" : "steps");
        }
    }
    const std::string seed = meta("attn.seed");
    if (seed.empty() || meta("attn.dtype") != "float32")
        bad(item, fmt::format("'{}' does not say its seed and dtype: its step 0 is unknown", m.name), "steps");
    return to_double(model::init_params<float>(m.params.config, model::init_seed(std::stoull(seed))), m.params);
}

std::vector<std::size_t> need_steps(const show_item& item) {
    const toml::array* a = item.spec->get("steps") ? item.spec->get("steps")->as_array() : nullptr;
    if (!a || a->empty() || a->size() > 8) bad(item, "needs 'steps', a list of 1 to 8 training steps such as [0, 100]", "steps");
    std::vector<std::size_t> steps;
    for (const auto& n : *a) {
        if (!n.is_integer() || *n.value<int64_t>() < 0) bad(item, "'steps' must hold whole numbers ≥ 0", "steps");
        steps.push_back(static_cast<std::size_t>(*n.value<int64_t>()));
    }
    return steps;
}

// One small panel per step: the head's weights one character a cell (the heatmap's
// shades), side by side as the width allows, each titled with its step and its loss on
// the sequence's second part.
std::string show_head_over_steps(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item);
    const auto& c = s.model->params.config;
    const std::size_t layer = show::whole(item, "layer", 0, static_cast<std::int64_t>(c.n_layer) - 1);
    const std::size_t head = show::whole(item, "head", 0, static_cast<std::int64_t>(c.n_head) - 1);
    const std::size_t P = s.ids.size(), from = show::whole(item, "from", 2, static_cast<std::int64_t>(P) - 1);
    std::vector<panel> panels;
    for (std::size_t step : need_steps(item)) {
        const auto a = forward_one(weights_at(item, *s.model, step), s.ids);
        panels.push_back({fmt::format("step {}", step), fmt::format("loss {:.3f}", span_loss(a, s.ids, from, P)),
                          head_steps(a, layer, head).weights});
    }
    return head_label(layer, head) + " as it trains (rows: queries · columns: keys)\n" +
           side_by_side(panels, s.at, st.width) + "  legend: " + shade_legend() + "\n" +
           fmt::format("  loss: mean over the second part, tokens {} … {} (counted from 0)\n", from, P - 1);
}

// The losses a training run wrote (`attn model train … --losses FILE`: "step,loss"
// lines), built in as lessons/models/FILE.
std::vector<double> need_losses(const show_item& item) {
    const std::string name = need_string(item, "losses");
    const std::string_view* text = find_model_file(name);
    if (!text) bad(item, "no built-in file '" + name + "' in lessons/models", "losses");
    std::vector<double> losses;
    std::istringstream in{std::string(*text)};
    for (std::string line; std::getline(in, line);) {
        const auto comma = line.find(',');
        if (comma == std::string::npos || line.compare(0, 4, "step") == 0) continue;
        losses.push_back(std::stod(line.substr(comma + 1)));
    }
    if (std::none_of(losses.begin(), losses.end(), [](double v) { return v > 0; }) ||
        !std::all_of(losses.begin(), losses.end(), [](double v) { return v >= 0 && std::isfinite(v); }))
        bad(item, "'" + name + "' must hold losses ≥ 0, some of them > 0", "losses");
    return losses;
}

// The x axis under `cols` columns of `steps` steps: a tick (┬) at step 1 and at every
// multiple of a round spacing (1, 2 or 5 × 10^k, at least 12 columns apart), its step
// number centred under it; a label that would touch the one before is left out.
std::string step_axis(std::size_t steps, std::size_t cols) {
    const auto col_of = [&](std::size_t s) { return std::min(cols - 1, (s - 1) * cols / steps); };  // step s counts from 1
    const double want = static_cast<double>(steps) * 12.0 / static_cast<double>(cols);
    const auto round_spacing = [want] {
        for (double p = 1;; p *= 10)
            for (const double m : {1.0, 2.0, 5.0})
                if (m * p >= want) return static_cast<std::size_t>(m * p);
    };
    const std::size_t spacing = round_spacing();
    std::vector<std::size_t> ticks{1};
    for (std::size_t s = spacing; s <= steps; s += spacing)
        if (col_of(s) > col_of(ticks.back())) ticks.push_back(s);
    std::string axis = std::string(9, ' ') + "└", labels(10, ' ');  // the axis's first column is column 10
    for (std::size_t c = 0, t = 0; c < cols; ++c) {
        const bool tick = t < ticks.size() && col_of(ticks[t]) == c;
        axis += tick ? "┬" : "─";
        if (!tick) continue;
        const std::string label = std::to_string(ticks[t++]);
        const std::size_t at = std::max<std::size_t>(10 + c - std::min(c, label.size() / 2), 10);
        if (labels.size() > 10 && at < labels.size() + 1) continue;  // would touch the label before
        labels += std::string(at - labels.size(), ' ') + label;
    }
    return axis + "\n" + labels + "\n";
}

// The loss of every step as columns on a log scale: each column the mean over its
// share of the steps, each row a factor of √10 (ten when the range spans over five decades).
std::string show_loss_curve(const lesson&, const show_item& item, const trace::style& st) {
    const std::vector<double> losses = need_losses(item);
    const std::size_t cols = std::min<std::size_t>(losses.size(), std::max<std::size_t>(20, std::min<std::size_t>(60, st.width - 12)));
    std::vector<double> y(cols);  // [cols] log10 of the mean loss of each column's steps
    for (std::size_t c = 0; c < cols; ++c) {
        const std::size_t a = c * losses.size() / cols, b = (c + 1) * losses.size() / cols;
        double sum = 0;
        for (std::size_t i = a; i < b; ++i) sum += losses[i];
        y[c] = sum > 0 ? std::log10(sum / static_cast<double>(b - a)) : -HUGE_VAL;  // a loss of 0: no bar
    }
    double low = HUGE_VAL;
    for (double v : y)
        if (std::isfinite(v)) low = std::min(low, v);
    const double top = std::ceil(*std::max_element(y.begin(), y.end()));
    const double bottom = std::min(top - 1, std::floor(low));
    // Two rows a decade while the chart fits a 24-row terminal with its text, one beyond.
    const std::size_t decades = static_cast<std::size_t>(top - bottom);
    const std::size_t per_decade = decades <= 5 ? 2 : 1;
    const std::size_t rows = decades * per_decade;
    std::string out = opt_string(item, "title", "Training loss, every step (log scale)") + "\n";
    for (std::size_t r = 0; r < rows; ++r) {
        const double level = top - (static_cast<double>(r) + 0.5) * (top - bottom) / static_cast<double>(rows);
        const double power = top - static_cast<double>(r / per_decade);  // the decade this row starts
        const std::string axis = r % per_decade == 0 ? fmt::format("{:>8} ┤", trace::fixed(std::pow(10.0, power), std::max(0, -static_cast<int>(power)))) : std::string(8, ' ') + " │";
        std::string line = axis;
        for (double v : y) line += v >= level ? "█" : " ";
        out += rtrim(line) + "\n";
    }
    out += step_axis(losses.size(), cols);
    out += fmt::format("  x: training step · first loss {:.4f}, last {:.6f}\n", losses.front(), losses.back());
    const auto zeros = static_cast<std::size_t>(std::count(losses.begin(), losses.end(), 0.0));
    if (zeros > 0)
        out += fmt::format("  {} of the {} steps have a loss of exactly 0 (no bar): the float32\n"
                           "  probability of every right token rounded to 1; the first is step {}\n",
                           zeros, losses.size(), std::find(losses.begin(), losses.end(), 0.0) - losses.begin() + 1);
    return out;
}

// ── Load-time checks: each kind's `check` validates every field its render reads, with
// the render's own readers, so a model lesson that loads never fails mid-way. They read
// the built-in checkpoint (find_trained_model keeps it) and run no forward.

void check_layer_head(const show_item& item, const sequence& s) {
    const auto& c = s.model->params.config;
    show::whole(item, "layer", 0, static_cast<std::int64_t>(c.n_layer) - 1);
    show::whole(item, "head", 0, static_cast<std::int64_t>(c.n_head) - 1);
}

void check_model_head(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item);
    check_layer_head(item, s);
    const std::string stage = opt_string(item, "stage", "weights");
    if (stage != "trace" && stage != "heatmap" && stage != "strongest" && !parse_stage(stage))
        bad(item, "'stage' must be heatmap, strongest, trace or a stage name such as weights" + stage_hint(stage), "stage");
    if (stage == "trace") need_position(item, s);
    else if (item.spec->get("token")) bad(item, "'token' goes with stage = \"trace\" only", "token");
    if (item.spec->get("step")) weights_at(item, *s.model, show::whole(item, "step", 0, 100000000));
    opt_decimals(item, -1);
}

void check_greedy_decode(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item);
    show::whole(item, "steps", 1, static_cast<std::int64_t>(s.model->params.config.n_positions - s.ids.size() + 1));
}

void check_cached_decode(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item);
    show::whole(item, "steps", 1, static_cast<std::int64_t>(s.model->params.config.n_positions - s.ids.size()));
}

void check_head_scores(const lesson& l, const show_item& item) {
    check_references(l, item);
    need_sequence(item);
}

void check_head_over_steps(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item);
    check_layer_head(item, s);
    show::whole(item, "from", 2, static_cast<std::int64_t>(s.ids.size()) - 1);
    for (const std::size_t step : need_steps(item)) weights_at(item, *s.model, step);
}

void check_loss_curve(const lesson& l, const show_item& item) {
    check_references(l, item);
    need_losses(item);
}

void check_head_ablation(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item, "tokens", 1);
    show::whole(item, "from", 2, static_cast<std::int64_t>(s.ids.size()) - 1);
}

}  // namespace

std::vector<show_kind> trained_kinds() {
    return {
        {"model_head", show_model_head, {"model", "tokens", "layer", "head"}, {"stage", "token", "step", "labels", "decimals", "title"},
         "one head of a built-in trained model on a sequence: a stage table, a heatmap, or one query's walk-through",
         check_model_head},
        {"greedy_decode", show_greedy_decode, {"model", "tokens", "steps"}, {"labels", "title"},
         "greedy decoding by a built-in trained model: each step's input, the likeliest next token and the runner-up",
         check_greedy_decode},
        {"cached_decode", show_cached_decode, {"model", "tokens", "steps"}, {"labels", "title"},
         "greedy generation through a real KV cache: each new token, its probability and the numbers cached",
         check_cached_decode},
        {"head_scores", show_head_scores, {"model", "tokens"}, {"labels"},
         "the head detector's previous-token, duplicate-token and induction scores of every head", check_head_scores},
        {"head_over_steps", show_head_over_steps, {"model", "tokens", "layer", "head", "steps", "from"}, {"labels"},
         "one head's weights after each of several training steps, side by side, with the loss on the second part",
         check_head_over_steps},
        {"loss_curve", show_loss_curve, {"losses"}, {"title"},
         "the loss of every training step (a built-in --losses file) as columns on a log scale", check_loss_curve},
        {"head_ablation", show_head_ablation, {"model", "tokens", "from"}, {"labels", "title"},
         "the loss on the first and second part of a sequence with each head removed in turn", check_head_ablation},
    };
}

}  // namespace attn::lessons::show
