// trace/export.cpp — see export.hpp. One flat C-order buffer per stage, then
// three serialisations of the same buffers (JSON, .npy, CSV).
#include "trace/export.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

namespace attn::trace {

namespace {

using getter = double (*)(const attention_steps&, std::size_t, std::size_t);

// [batch, pos, head, d]: rows of a per-head matrix laid out the TransformerLens way.
export_stage per_position(const trace_run& r, const char* name, const char* pos, const char* d,
                          const matrix& (*pick)(const attention_steps&)) {
    const matrix& first = pick(r.at(0, 0));
    const std::size_t n = first.shape(0), dd = first.shape(1);
    export_stage s{name, {"batch", pos, "head", d}, {r.batch, n, r.heads, dd}, {}};
    s.data.reserve(r.batch * n * r.heads * dd);
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t h = 0; h < r.heads; ++h)
                for (std::size_t j = 0; j < dd; ++j) s.data.push_back(pick(r.at(b, h))(i, j));
    return s;
}

// [batch, head, query_pos, key_pos]
export_stage per_head(const trace_run& r, const char* name, const matrix& (*pick)(const attention_steps&)) {
    export_stage s{name, {"batch", "head", "query_pos", "key_pos"}, {r.batch, r.heads, r.n_q(), r.n_k()}, {}};
    s.data.reserve(r.batch * r.heads * r.n_q() * r.n_k());
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t h = 0; h < r.heads; ++h) {
            const matrix& m = pick(r.at(b, h));
            s.data.insert(s.data.end(), m.begin(), m.end());
        }
    return s;
}

nlohmann::ordered_json nested(const export_stage& s, std::size_t axis, std::size_t& flat) {
    auto arr = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < s.shape[axis]; ++i) {
        if (axis + 1 == s.shape.size()) arr.push_back(s.data[flat++]);  // ±inf → null
        else arr.push_back(nested(s, axis + 1, flat));
    }
    return arr;
}

std::string csv_cell(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string q = "\"";
    for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string csv_matrix(const std::vector<std::string>& rows, const std::vector<std::string>& cols, const std::string& corner,
                       const std::vector<double>& data, std::size_t offset, std::size_t stride_row, std::size_t stride_col) {
    std::string out = csv_cell(corner);
    for (const auto& c : cols) out += "," + csv_cell(c);
    out += "\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out += csv_cell(rows[i]);
        for (std::size_t j = 0; j < cols.size(); ++j) out += "," + fmt::format("{}", data[offset + i * stride_row + j * stride_col]);
        out += "\n";
    }
    return out;
}

std::vector<std::string> dims(const char* prefix, std::size_t n) {
    std::vector<std::string> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = prefix + std::to_string(i);
    return d;
}

}  // namespace

std::vector<export_stage> export_stages(const trace_run& r) {
    std::vector<export_stage> out;
    out.push_back(per_position(r, "hook_q", "query_pos", "d_head", [](const attention_steps& s) -> const matrix& { return s.q; }));
    out.push_back(per_position(r, "hook_k", "key_pos", "d_head", [](const attention_steps& s) -> const matrix& { return s.k; }));
    out.push_back(per_position(r, "hook_v", "key_pos", "d_head_v", [](const attention_steps& s) -> const matrix& { return s.v; }));
    out.push_back(per_head(r, "hook_attn_scores_raw", [](const attention_steps& s) -> const matrix& { return s.scores_raw; }));
    out.push_back(per_head(r, "hook_attn_scores_scaled", [](const attention_steps& s) -> const matrix& { return s.scores_scaled; }));
    out.push_back(per_head(r, "hook_attn_scores", [](const attention_steps& s) -> const matrix& { return s.scores_masked; }));
    out.push_back(per_head(r, "hook_pattern", [](const attention_steps& s) -> const matrix& { return s.weights; }));
    out.push_back(per_position(r, "hook_z", "query_pos", "d_head_v", [](const attention_steps& s) -> const matrix& { return s.output; }));
    if (r.has_result) {
        const std::size_t d_model = r.result[0].shape(1);
        export_stage res{"hook_result", {"batch", "query_pos", "head", "d_model"}, {r.batch, r.n_q(), r.heads, d_model}, {}};
        for (std::size_t b = 0; b < r.batch; ++b)
            for (std::size_t i = 0; i < r.n_q(); ++i)
                for (std::size_t h = 0; h < r.heads; ++h)
                    for (std::size_t j = 0; j < d_model; ++j) res.data.push_back(r.result[b * r.heads + h](i, j));
        out.push_back(std::move(res));
        export_stage sum{"hook_attn_out", {"batch", "query_pos", "d_model"}, {r.batch, r.n_q(), d_model}, {}};
        for (std::size_t b = 0; b < r.batch; ++b) sum.data.insert(sum.data.end(), r.attn_out[b].begin(), r.attn_out[b].end());
        out.push_back(std::move(sum));
    }
    // Lessons 15–19 (trace_extras.hpp): with rope, hook_q/hook_k are the vectors before
    // the rotation; the extra stages follow the forward ones.
    for (auto& s : out)
        if ((s.name == "hook_q" || s.name == "hook_k") && !r.extras.rope_q.empty()) s.data = unrotated(r, s.name == "hook_k");
    for (auto& e : extra_stages(r)) out.push_back({e.name, e.axes, e.shape, std::move(e.data)});
    return out;
}

std::string to_json(const trace_run& r) {
    using json = nlohmann::ordered_json;
    json j;
    j["format"] = "attn-trace";
    j["version"] = 1;
    j["kind"] = r.inputs.kind;
    j["title"] = r.inputs.title;
    j["tokens"] = {{"query", r.labels.query_tokens}, {"key", r.labels.key_tokens}};
    j["batch"] = r.batch;
    j["heads"] = r.heads;
    j["n_q"] = r.n_q();
    j["n_k"] = r.n_k();
    j["d_head"] = r.inputs.d_head;
    j["d_head_v"] = r.inputs.d_head_v;
    j["scale"] = r.steps.at(0).scale;
    auto mask = json::array();  // [batch, query_pos, key_pos] true = may attend
    for (std::size_t b = 0; b < r.batch; ++b) {
        auto rows = json::array();
        for (std::size_t i = 0; i < r.n_q(); ++i) {
            auto row = json::array();
            for (std::size_t k = 0; k < r.n_k(); ++k) row.push_back(static_cast<bool>(r.at(b, 0).attend(i, k)));
            rows.push_back(row);
        }
        mask.push_back(rows);
    }
    j["attend"] = {{"axes", {"batch", "query_pos", "key_pos"}}, {"data", mask}};
    auto fully = json::array();
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t h = 0; h < r.heads; ++h)
            for (std::size_t i = 0; i < r.n_q(); ++i)
                if (r.at(b, h).row_fully_masked[i]) fully.push_back({{"batch", b}, {"head", h}, {"query_pos", i}});
    j["fully_masked_rows"] = fully;
    json stages = json::object();
    for (const auto& s : export_stages(r)) {
        std::size_t flat = 0;
        stages[s.name] = {{"axes", s.axes}, {"shape", s.shape}, {"data", nested(s, 0, flat)}};
    }
    // One line per metadata key and one per stage: readable, and diff-friendly in goldens.
    std::string out = "{\n";
    for (auto it = j.begin(); it != j.end(); ++it) out += " " + json(it.key()).dump() + ": " + it.value().dump() + ",\n";
    out += " \"stages\": {\n";
    for (auto it = stages.begin(); it != stages.end(); ++it)
        out += "  " + json(it.key()).dump() + ": " + it.value().dump() + (std::next(it) == stages.end() ? "\n" : ",\n");
    return out + " }\n}\n";
}

std::map<std::string, std::string> npy_files(const trace_run& r) {
    std::map<std::string, std::string> files;
    for (const auto& s : export_stages(r)) files[s.name + ".npy"] = xt::dump_npy(xt::adapt(s.data, s.shape));
    return files;
}

std::map<std::string, std::string> csv_files(const trace_run& r) {
    std::map<std::string, std::string> files;
    const auto& qt = r.labels.query_tokens;
    const auto& kt = r.labels.key_tokens;
    for (const auto& s : export_stages(r)) {
        const auto& sh = s.shape;
        for (std::size_t b = 0; b < r.batch; ++b) {
            const std::string base = s.name + ".b" + std::to_string(b);
            if (s.axes.size() == 3) {  // [batch, query_pos, d_model]
                files[base + ".csv"] = csv_matrix(qt, dims("d", sh[2]), "query\\dim", s.data, b * sh[1] * sh[2], sh[2], 1);
                continue;
            }
            for (std::size_t h = 0; h < r.heads; ++h) {
                const std::string name = base + ".h" + std::to_string(h) + ".csv";
                if (s.axes[1] == "head")  // [batch, head, query_pos, key_pos]
                    files[name] = csv_matrix(qt, s.axes[3] == "key_pos" ? kt : dims("block", sh[3]),
                                             s.axes[3] == "key_pos" ? "query\\key" : "query\\block", s.data,
                                             (b * sh[1] + h) * sh[2] * sh[3], sh[3], 1);
                else  // [batch, pos, head, d]: rows stride heads·d
                    files[name] = csv_matrix(s.axes[1] == "key_pos" ? kt : qt, dims("d", sh[3]),
                                             s.axes[1] == "key_pos" ? "key\\dim" : "query\\dim", s.data,
                                             b * sh[1] * sh[2] * sh[3] + h * sh[3], sh[2] * sh[3], 1);
            }
        }
    }
    return files;
}

}  // namespace attn::trace
