// trace/export.cpp — see export.hpp. One flat C-order buffer per stage, then
// three serialisations of the same buffers (JSON, .npy, CSV).
#include "trace/export.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

namespace attn::trace {

namespace {

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

// The 2-D slice of stage s for batch item b and head h (attn_out: h is ignored).
const matrix& slice_of(const trace_run& r, stage s, std::size_t b, std::size_t h) {
    if (s == stage::result) return r.result[b * r.heads + h];
    if (s == stage::attn_out) return r.attn_out[b];
    return stage_matrix(r.at(b, h), s);
}

// One stage in its export layout (stage_layout), C order.
export_stage export_one(const trace_run& r, const stage_info& si) {
    const matrix& first = slice_of(r, si.id, 0, 0);
    const std::size_t rows = first.shape(0), cols = first.shape(1);
    export_stage out{si.id, si.hook, {si.axes.begin(), si.axes.end()}, {}, {}};
    switch (si.layout) {
        case stage_layout::per_position: out.shape = {r.batch, rows, r.heads, cols}; break;
        case stage_layout::per_head: out.shape = {r.batch, r.heads, rows, cols}; break;
        case stage_layout::summed_heads: out.shape = {r.batch, rows, cols}; break;
    }
    out.data.reserve(r.batch * r.heads * rows * cols);
    for (std::size_t b = 0; b < r.batch; ++b) {
        if (si.layout == stage_layout::per_head) {
            for (std::size_t h = 0; h < r.heads; ++h) {
                const matrix& m = slice_of(r, si.id, b, h);
                out.data.insert(out.data.end(), m.begin(), m.end());
            }
        } else if (si.layout == stage_layout::per_position) {
            for (std::size_t i = 0; i < rows; ++i)
                for (std::size_t h = 0; h < r.heads; ++h)
                    for (std::size_t j = 0; j < cols; ++j) out.data.push_back(slice_of(r, si.id, b, h)(i, j));
        } else {
            const matrix& m = slice_of(r, si.id, b, 0);
            out.data.insert(out.data.end(), m.begin(), m.end());
        }
    }
    return out;
}

}  // namespace

std::vector<export_stage> export_stages(const trace_run& r) {
    std::vector<export_stage> out;
    for (const auto& si : all_stages())
        if (si.id <= stage::attn_out && stage_available(r, si.id)) out.push_back(export_one(r, si));
    // Lessons 15–19 (trace_extras.hpp): with rope, hook_q/hook_k are the vectors before
    // the rotation; the extra stages follow the forward ones.
    for (auto& s : out)
        if ((s.id == stage::q || s.id == stage::k) && !r.extras.rope_q.empty()) s.data = unrotated(r, s.id == stage::k);
    for (auto& e : extra_stages(r)) out.push_back({e.id, info(e.id).hook, {info(e.id).axes.begin(), info(e.id).axes.end()}, e.shape, std::move(e.data)});
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
        const stage_info& si = info(s.id);
        const bool key_rows = si.layout == stage_layout::per_position && std::string(si.axes[1]) == "key_pos";
        const bool key_cols = std::string(si.axes.back()) == "key_pos";
        for (std::size_t b = 0; b < r.batch; ++b) {
            const std::string base = s.name + ".b" + std::to_string(b);
            if (si.layout == stage_layout::summed_heads) {  // [batch, query_pos, d_model]
                files[base + ".csv"] = csv_matrix(qt, dims("d", sh[2]), "query\\dim", s.data, b * sh[1] * sh[2], sh[2], 1);
                continue;
            }
            for (std::size_t h = 0; h < r.heads; ++h) {
                const std::string name = base + ".h" + std::to_string(h) + ".csv";
                if (si.layout == stage_layout::per_head)  // [batch, head, query_pos, key_pos | block]
                    files[name] = csv_matrix(qt, key_cols ? kt : dims("block", sh[3]), key_cols ? "query\\key" : "query\\block",
                                             s.data, (b * sh[1] + h) * sh[2] * sh[3], sh[3], 1);
                else  // [batch, pos, head, d]: rows stride heads·d
                    files[name] = csv_matrix(key_rows ? kt : qt, dims("d", sh[3]), key_rows ? "key\\dim" : "query\\dim",
                                             s.data, b * sh[1] * sh[2] * sh[3] + h * sh[3], sh[2] * sh[3], 1);
            }
        }
    }
    return files;
}

}  // namespace attn::trace
