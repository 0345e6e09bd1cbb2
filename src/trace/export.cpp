// trace/export.cpp — see export.hpp. One row walker (rows_of) feeds three writers:
// .npy (coalesces rows that lie next to each other in memory into one write()),
// JSON (nested brackets opened and closed around each row) and CSV (one file per
// 2-D slice). The extras of lessons 15–19 are small and come as flat buffers.
#include "trace/export.hpp"

#include <cmath>
#include <cstring>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/csv_cell.hpp"
#include "io/output_writer.hpp"
#include "trace/export_format.hpp"

namespace attn::trace {

namespace {

// Rows of computed stages go into a ring of this many rows; a writer that keeps
// pointers (npy) flushes before the ring wraps.
constexpr std::size_t ring_rows = 64;

// One stage as the exporters see it: its shape (vocabulary layout) and a way to walk
// its rows in C order. Forward stages come from the run row by row; the extras (and,
// with rope, the unrotated hook_q/hook_k) from a flat double buffer.
struct stage_source {
    stage id;
    std::vector<std::size_t> shape;
    const std::vector<double>* flat = nullptr;  // extras: the whole stage, C order
};

std::size_t row_length(const stage_source& s) { return s.shape.back(); }

// Calls emit(row) for each row of s in C order (T: the run's dtype) and before_reuse()
// whenever the scratch ring is about to be overwritten, and at the end (it is freed).
template <class T, class Emit, class Reuse>
void rows_of(const trace_run& r, const stage_source& s, Emit emit, Reuse before_reuse) {
    const std::size_t cols = row_length(s);
    std::vector<T> ring(ring_rows * cols);  // [ring_rows, cols]
    std::size_t slot = 0;
    const auto next_scratch = [&]() {
        if (slot == ring_rows) {
            before_reuse();
            slot = 0;
        }
        return ring.data() + (slot++) * cols;
    };
    if (s.flat) {
        const std::size_t n = s.flat->size() / (cols ? cols : 1);
        for (std::size_t i = 0; i < n; ++i) {
            T* row = next_scratch();
            for (std::size_t j = 0; j < cols; ++j) row[j] = static_cast<T>((*s.flat)[i * cols + j]);
            emit(static_cast<const T*>(row));
        }
        before_reuse();  // the ring dies with this call
        return;
    }
    const std::size_t rows = r.rows(s.id);
    const auto one = [&](std::size_t b, std::size_t h, std::size_t i) {
        if (slot == ring_rows) {
            before_reuse();
            slot = 0;
        }
        T* scratch = ring.data() + slot * cols;
        const T* p = stage_row<T>(r, s.id, b, h, i, scratch);
        if (p == scratch) ++slot;  // the row was computed into the ring: keep it until flushed
        emit(p);
    };
    for (std::size_t b = 0; b < r.batch; ++b) switch (stage_info_of(s.id).layout) {
            case stage_layout::per_position:
                for (std::size_t i = 0; i < rows; ++i)
                    for (std::size_t h = 0; h < r.heads; ++h) one(b, h, i);
                break;
            case stage_layout::per_head:
                for (std::size_t h = 0; h < r.heads; ++h)
                    for (std::size_t i = 0; i < rows; ++i) one(b, h, i);
                break;
            case stage_layout::summed_heads:
                for (std::size_t i = 0; i < rows; ++i) one(b, 0, i);
                break;
            case stage_layout::per_block:
                break;  // only extras are laid out per block, and they come flat (above)
        }
    before_reuse();  // the ring dies with this call
}

// Every stage the run has, in vocabulary order, with its shape.
std::vector<stage_source> sources(const trace_run& r, std::vector<extra_stage>& extras, std::vector<double>& unrot_q,
                                  std::vector<double>& unrot_k) {
    std::vector<stage_source> out;
    extras = extra_stages(r);
    const bool rope = r.extras.has_rope();
    if (rope) {
        unrot_q = unrotated(r, false);
        unrot_k = unrotated(r, true);
    }
    for (const auto& si : all_stages()) {
        if (!stage_available(r, si.id)) continue;
        if (si.id > stage::attn_out) {
            for (const auto& e : extras)
                if (e.id == si.id) out.push_back({si.id, e.shape, &e.data});
            continue;
        }
        const std::size_t rows = r.rows(si.id), cols = r.cols(si.id);
        stage_source s{si.id, {}, nullptr};
        switch (si.layout) {
            case stage_layout::per_position: s.shape = {r.batch, rows, r.heads, cols}; break;
            case stage_layout::per_head: s.shape = {r.batch, r.heads, rows, cols}; break;
            case stage_layout::summed_heads: s.shape = {r.batch, rows, cols}; break;
            case stage_layout::per_block: s.shape = {r.batch, r.heads, 1, rows, cols}; break;  // (extras only)
        }
        if (rope && si.id == stage::q) s.flat = &unrot_q;  // hook_q holds q before the rotation
        if (rope && si.id == stage::k) s.flat = &unrot_k;
        out.push_back(s);
    }
    return out;
}

// Calls fn with each stage of the run (sources stay alive for the call).
template <class Fn>
void for_each_source(const trace_run& r, Fn fn) {
    std::vector<extra_stage> extras;
    std::vector<double> uq, uk;
    for (const auto& s : sources(r, extras, uq, uk)) fn(s);
}

// ---- .npy ------------------------------------------------------------------

// Rows that follow each other in memory become one write.
template <class T>
void write_npy(const trace_run& r, const stage_source& s, staged_file& f) {
    f.write(npy_header(s.shape, sizeof(T) == 4));
    const char* pending = nullptr;
    std::size_t pending_bytes = 0;
    const std::size_t row_bytes = row_length(s) * sizeof(T);
    const auto flush = [&]() {
        if (pending_bytes) f.write(pending, pending_bytes);
        pending = nullptr;
        pending_bytes = 0;
    };
    rows_of<T>(r, s, [&](const T* row) {
        const char* p = reinterpret_cast<const char*>(row);
        if (pending && pending + pending_bytes == p) {
            pending_bytes += row_bytes;
        } else {
            flush();
            pending = p;
            pending_bytes = row_bytes;
        }
    }, flush);
    flush();
}

// ---- numbers as text -------------------------------------------------------

// ---- JSON ------------------------------------------------------------------

void put(fmt::memory_buffer& buf, const byte_sink& out, bool force = false) {
    if (force || buf.size() >= (std::size_t(1) << 20)) {
        out(buf.data(), buf.size());
        buf.clear();
    }
}

template <class T>
void json_stage(const trace_run& r, const stage_source& s, fmt::memory_buffer& buf, const byte_sink& out) {
    using json = nlohmann::ordered_json;
    const stage_info& si = stage_info_of(s.id);
    buf.append(json(si.hook).dump());
    buf.append(std::string_view(": {\"axes\":"));
    buf.append(json(std::vector<std::string>(si.axes.begin(), si.axes.end())).dump());
    buf.append(std::string_view(",\"shape\":"));
    buf.append(json(s.shape).dump());
    buf.append(std::string_view(",\"data\":"));
    // Brackets: before row k, open one for every axis whose index just became 0.
    const std::size_t outer = s.shape.size() - 1;
    std::vector<std::size_t> idx(outer, 0);
    std::size_t row_count = 1;
    for (std::size_t a = 0; a < outer; ++a) row_count *= s.shape[a];
    if (row_count == 0 || s.shape.back() == 0) {  // an empty axis: nested empty lists
        std::string open, close;
        for (std::size_t a = 0; a <= outer && (a == 0 || s.shape[a - 1] > 0); ++a) open += '[', close += ']';
        buf.append(open + close + "}");
        return;
    }
    std::size_t k = 0;
    rows_of<T>(r, s, [&](const T* row) {
        // opening brackets: axes whose index is 0 from the innermost changed one outward
        std::size_t opens = 0;
        for (std::size_t a = outer; a-- > 0;) {
            if (idx[a] != 0) break;
            ++opens;
        }
        if (k > 0) buf.push_back(',');
        for (std::size_t o = 0; o < opens; ++o) buf.push_back('[');
        buf.push_back('[');
        for (std::size_t j = 0; j < s.shape.back(); ++j) {
            if (j) buf.push_back(',');
            if (std::isfinite(row[j])) append_number(buf, row[j]);
            else buf.append(std::string_view("null"));
        }
        buf.push_back(']');
        // advance the index; close a bracket for every axis that wraps
        for (std::size_t a = outer; a-- > 0;) {
            if (++idx[a] < s.shape[a]) break;
            idx[a] = 0;
            buf.push_back(']');
        }
        ++k;
        put(buf, out);
    }, [] {});
    buf.push_back('}');
}

template <class T>
void json_all(const trace_run& r, const byte_sink& out) {
    using json = nlohmann::ordered_json;
    fmt::memory_buffer buf;
    const auto line = [&](const char* key, const json& v) {
        buf.append(" " + json(key).dump() + ": " + v.dump() + ",\n");
    };
    buf.append(std::string_view("{\n"));
    line("format", "attn-trace");
    line("version", 1);
    line("kind", r.inputs.kind);
    line("title", r.inputs.title);
    line("tokens", json{{"query", r.labels.query_tokens}, {"key", r.labels.key_tokens}});
    line("batch", r.batch);
    line("heads", r.heads);
    line("n_q", r.n_q());
    line("n_k", r.n_k());
    line("d_head", r.inputs.d_head);
    line("d_head_v", r.inputs.d_head_v);
    line("dtype", r.dtype == trace_dtype::float32 ? "float32" : "float64");
    line("scale", r.scale());
    // The mask applied, [batch, query_pos, key_pos], true = may attend; row by row.
    buf.append(std::string_view(" \"attend\": {\"axes\":[\"batch\",\"query_pos\",\"key_pos\"],\"data\":["));
    for (std::size_t b = 0; b < r.batch; ++b) {
        buf.append(std::string_view(b ? ",[" : "["));
        for (std::size_t i = 0; i < r.n_q(); ++i) {
            buf.append(std::string_view(i ? ",[" : "["));
            for (std::size_t k = 0; k < r.n_k(); ++k) {
                if (k) buf.push_back(',');
                buf.append(std::string_view(r.attends(b, i, k) ? "true" : "false"));
            }
            buf.push_back(']');
            put(buf, out);
        }
        buf.push_back(']');
    }
    buf.append(std::string_view("]},\n"));
    auto fully = json::array();
    for (std::size_t b = 0; b < r.batch; ++b)
        for (std::size_t h = 0; h < r.heads; ++h)
            for (std::size_t i = 0; i < r.n_q(); ++i)
                if (r.row_fully_masked(b, h, i)) fully.push_back({{"batch", b}, {"head", h}, {"query_pos", i}});
    line("fully_masked_rows", fully);
    // One line per stage: readable, and diff-friendly in goldens.
    buf.append(std::string_view(" \"stages\": {\n"));
    bool first = true;
    for_each_source(r, [&](const stage_source& s) {
        buf.append(std::string_view(first ? "  " : ",\n  "));
        first = false;
        json_stage<T>(r, s, buf, out);
    });
    buf.append(std::string_view("\n }\n}\n"));
    put(buf, out, true);
}

// ---- CSV -------------------------------------------------------------------

std::string csv_cell(const std::string& text) { return io::csv_quoted(text); }

std::vector<std::string> numbered(const char* prefix, std::size_t n) {
    std::vector<std::string> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = prefix + std::to_string(i);
    return d;
}

// One CSV per (batch, head) slice of s, streamed: rows arrive in the stage's C order,
// so a per-position stage ([batch, pos, head, d]) fills the files of all its heads
// side by side, the others one file after the other. A per-block stage ([batch, head,
// block, query_pos, d]) writes each head's blocks one under the other, with a first
// column naming the block.
template <class T>
void csv_stage(const trace_run& r, const stage_source& s, staged_directory& dir) {
    const stage_info& si = stage_info_of(s.id);
    const bool key_rows = si.layout == stage_layout::per_position && std::string(si.axes[1]) == "key_pos";
    const bool per_block = si.layout == stage_layout::per_block;
    const std::string last = si.axes.back();
    const auto& row_labels = key_rows ? r.labels.key_tokens : r.labels.query_tokens;
    const std::vector<std::string> cols = last == "key_pos" ? r.labels.key_tokens
                                          : last == "block" ? numbered("block", s.shape.back())
                                                            : numbered("d", s.shape.back());
    const std::string corner = std::string(key_rows ? "key" : "query") + "\\" +
                               (last == "key_pos" ? "key" : last == "block" ? "block" : "dim");
    std::string header = (per_block ? "block," : "") + csv_cell(corner);
    for (const auto& c : cols) header += "," + csv_cell(c);
    header += "\n";
    const bool summed = si.layout == stage_layout::summed_heads;
    const std::size_t heads = summed ? 1 : r.heads;
    const std::size_t per_slice = si.layout == stage_layout::per_head ? s.shape[2] : s.shape[1];
    const std::size_t queries = per_block ? s.shape[3] : per_slice;  // rows of one block
    const std::size_t n_rows = per_block ? s.shape[2] * queries : per_slice;
    // One-query mode keeps one row of the query stages: its label is that query's.
    const bool query_rows = !key_rows && s.id != stage::q;
    const std::size_t first_row = r.one_query && query_rows ? *r.one_query : 0;
    const auto name_of = [&](std::size_t b, std::size_t h) {
        return summed ? fmt::format("{}.b{}.csv", si.hook, b) : fmt::format("{}.b{}.h{}.csv", si.hook, b, h);
    };

    std::size_t b = 0, h = 0, i = 0;  // the slice and row of the next row to arrive
    fmt::memory_buffer line;
    rows_of<T>(r, s, [&](const T* row) {
        if (i == 0) dir.open(name_of(b, h)).write(header);
        line.clear();
        if (per_block) fmt::format_to(std::back_inserter(line), "block{},", i / queries);
        line.append(csv_cell(row_labels[first_row + i % queries]));
        for (std::size_t j = 0; j < s.shape.back(); ++j) {
            line.push_back(',');
            if (std::isinf(row[j])) line.append(std::string_view(row[j] < 0 ? "-inf" : "inf"));
            else fmt::format_to(std::back_inserter(line), "{}", row[j]);
        }
        line.push_back('\n');
        staged_file& f = dir.file(name_of(b, h));
        f.write(line.data(), line.size());
        // Advance (b, h, i) in the stage's C order, closing each slice after its last row.
        const bool heads_inner = si.layout == stage_layout::per_position;
        if (heads_inner) {
            if (i + 1 == n_rows) dir.close(name_of(b, h));
            if (++h == heads) {
                h = 0;
                if (++i == n_rows) i = 0, ++b;
            }
        } else {
            if (++i == n_rows) {
                dir.close(name_of(b, h));
                i = 0;
                if (++h == heads) h = 0, ++b;
            }
        }
    }, [] {});
}

template <class T>
std::vector<export_stage> materialise(const trace_run& r) {
    std::vector<export_stage> out;
    for_each_source(r, [&](const stage_source& s) {
        const stage_info& si = stage_info_of(s.id);
        export_stage e{s.id, si.hook, {si.axes.begin(), si.axes.end()}, s.shape, {}};
        rows_of<T>(r, s, [&](const T* row) { e.data.insert(e.data.end(), row, row + row_length(s)); }, [] {});
        out.push_back(std::move(e));
    });
    return out;
}

}  // namespace

void write_json(const trace_run& r, const byte_sink& out) {
    if (r.dtype == trace_dtype::float32) json_all<float>(r, out);
    else json_all<double>(r, out);
}

std::string to_json(const trace_run& r) {
    std::string s;
    write_json(r, [&](const char* p, std::size_t n) { s.append(p, n); });
    return s;
}

void write_npy_files(const trace_run& r, staged_directory& d) {
    for_each_source(r, [&](const stage_source& s) {
        d.add(std::string(stage_info_of(s.id).hook) + ".npy", [&](staged_file& f) {
            if (r.dtype == trace_dtype::float32) write_npy<float>(r, s, f);
            else write_npy<double>(r, s, f);
        });
    });
}

void write_csv_files(const trace_run& r, staged_directory& d) {
    for_each_source(r, [&](const stage_source& s) {
        if (r.dtype == trace_dtype::float32) csv_stage<float>(r, s, d);
        else csv_stage<double>(r, s, d);
    });
}

std::vector<export_stage> export_stages(const trace_run& r) {
    return r.dtype == trace_dtype::float32 ? materialise<float>(r) : materialise<double>(r);
}

}  // namespace attn::trace
