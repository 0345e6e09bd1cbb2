// trace/html_report.cpp — see html_report.hpp. Plain HTML and CSS only: the
// hover/focus explanation of a heatmap cell is a hidden child element that CSS
// shows on :hover and :focus, so the file works with scripts disabled and needs
// nothing from the network. Every number is formatted by number_format.hpp.
#include "trace/html_report.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "trace/explain.hpp"
#include "trace/heatmap.hpp"
#include "trace/number_format.hpp"
#include "trace/stage_view.hpp"
#include "trace/trace_extras.hpp"

namespace attn::trace {

namespace {

const char* const css = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5rem;color:#1d1d1f;background:#fff;max-width:80rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ccc}h3{font-size:1rem}
table{border-collapse:collapse;margin:.5rem 0 1rem}
caption{text-align:left;font-weight:600;padding:.2rem 0}
caption .meta{font-weight:400;color:#555}
th,td{padding:.2rem .5rem;text-align:right;font-variant-numeric:tabular-nums}
th{color:#0a5b75}
table.stage td,table.stage th{border:1px solid #ddd}
table.heatmap td.cell{position:relative;min-width:3.5rem;height:2rem;text-align:center;cursor:default;border:1px solid #fff}
table.heatmap td.cell:focus{outline:3px solid #e4572e;outline-offset:-3px}
table.heatmap td.blocked{background:#eee;color:#888}
.calc{display:none;position:absolute;z-index:10;left:50%;top:100%;width:max-content;max-width:34rem;text-align:left;
  background:#fffbe6;color:#1d1d1f;border:1px solid #c9a400;border-radius:4px;padding:.5rem .7rem;
  box-shadow:0 2px 8px rgba(0,0,0,.25);font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.8rem;white-space:pre}
td.cell:hover .calc,td.cell:focus .calc{display:block}
.legend span{display:inline-block;width:1.2rem;height:1rem;vertical-align:middle}
pre.trace{background:#f6f8fa;padding:.7rem;overflow-x:auto;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.85rem}
.note{color:#8a4b00}
)";

std::string esc(const std::string& t) { return html_escape(t); }

std::string shape_text(std::size_t a, std::size_t b) { return "[" + std::to_string(a) + " × " + std::to_string(b) + "]"; }

// One stage table: caption with title, shape and axes; header of column labels.
std::string stage_html(const table& t) {
    std::string out = "<table class=\"stage\"><caption>" + esc(t.title) + " <span class=\"meta\">" + esc(t.shape) +
                      " (" + esc(t.axes) + ")</span></caption>\n<tr><th>" + esc(t.corner) + "</th>";
    for (const auto& c : t.col_labels) out += "<th scope=\"col\">" + esc(c) + "</th>";
    out += "</tr>\n";
    for (std::size_t i = 0; i < t.cells.size(); ++i) {
        out += "<tr><th scope=\"row\">" + esc(t.row_labels[i]) + "</th>";
        for (const auto& c : t.cells[i]) out += "<td>" + esc(c) + "</td>";
        out += "</tr>\n";
    }
    return out + "</table>\n";
}

// What hovering cell (i, j) explains: every term of q·k, the scaling, bias and
// mask, exp of the max-shifted score and the share of the row.
std::string cell_computation(const attention_steps& s, const run_labels& l, std::size_t i, std::size_t j, double row_max,
                             double row_sum, bool has_bias) {
    const std::string& qt = l.query_tokens[i];
    const std::string& kt = l.key_tokens[j];
    std::vector<std::string> products;  // [d_k] every term of q·k
    for (std::size_t d = 0; d < s.d_k(); ++d) products.push_back(product_term(s.q(i, d), s.k(j, d)));
    const std::string terms = sum_of_terms(products);
    std::string out = "query '" + qt + "' → key '" + kt + "'\n";
    out += "q·k = " + terms + " = " + fixed(s.scores_raw(i, j), 4) + "\n";
    out += "scaled: " + fixed(s.scores_raw(i, j), 4) + " ÷ " + compact(s.scale, 6) + " = " + fixed(s.scores_scaled(i, j), 4) + "\n";
    if (!s.attend(i, j)) return out + "blocked by the mask → −∞, exp(−∞) = 0\nweight = 0 (share of the row: 0%)";
    if (has_bias) out += "+ bias " + signed_fixed(s.scores_masked(i, j) - s.scores_scaled(i, j), 4) + " = " + fixed(s.scores_masked(i, j), 4) + "\n";
    if (s.row_fully_masked[i]) return out + "every key of this row is blocked: weight 0";
    const double e = std::exp(s.scores_masked(i, j) - row_max);
    out += "exp(" + fixed(s.scores_masked(i, j), 4) + " − max " + fixed(row_max, 4) + ") = " + fixed(e, 4) + "\n";
    out += "share of the row: " + fixed(e, 4) + " ÷ Σexp " + fixed(row_sum, 4) + " = " + fixed(s.weights(i, j), 4) + " (" +
           fixed(100.0 * s.weights(i, j), 1) + "%)";
    return out;
}

std::string heatmap_html(const attention_steps& s, const run_labels& l, const std::string& id, bool has_bias) {
    std::string out = "<table class=\"heatmap\" id=\"" + id + "\"><caption>Weights " + std::string(stage_info_of(stage::weights).hook) + " " +
                      shape_text(s.n_q(), s.n_k()) +
                      " <span class=\"meta\">(rows: queries · columns: keys; hover or focus a cell for its computation)</span>"
                      "</caption>\n<tr><th>Q \\ K</th>";
    for (const auto& k : l.key_tokens) out += "<th scope=\"col\">" + esc(k) + "</th>";
    out += "</tr>\n";
    for (std::size_t i = 0; i < s.n_q(); ++i) {
        double row_max = -std::numeric_limits<double>::infinity(), row_sum = 0.0;
        for (std::size_t j = 0; j < s.n_k(); ++j) row_max = std::max(row_max, s.scores_masked(i, j));
        if (std::isfinite(row_max))
            for (std::size_t j = 0; j < s.n_k(); ++j) row_sum += std::exp(s.scores_masked(i, j) - row_max);
        out += "<tr><th scope=\"row\">" + esc(l.query_tokens[i]) + "</th>";
        for (std::size_t j = 0; j < s.n_k(); ++j) {
            const std::string cid = fmt::format("{}-q{}-k{}", id, i, j);
            const std::string value = fixed(s.weights(i, j), 4);
            std::string attrs = fmt::format(" tabindex=\"0\" data-q=\"{}\" data-k=\"{}\" data-value=\"{}\" aria-describedby=\"{}-calc\"", i, j, value, cid);
            if (s.attend(i, j)) {
                const rgb_color c = heatmap_color(s.weights(i, j));
                const char* ink = s.weights(i, j) < 0.6 ? "#fff" : "#111";
                out += fmt::format("<td class=\"cell\" id=\"{}\"{} style=\"background:rgb({},{},{});color:{}\">", cid, attrs, c.r, c.g, c.b, ink);
            } else {
                out += "<td class=\"cell blocked\" id=\"" + cid + "\"" + attrs + ">";
            }
            out += "<span class=\"v\">" + value + "</span><div class=\"calc\" role=\"tooltip\" id=\"" + cid + "-calc\">" +
                   esc(cell_computation(s, l, i, j, row_max, row_sum, has_bias)) + "</div></td>";
        }
        out += "</tr>\n";
    }
    out += "</table>\n<p class=\"legend\">colour scale: 0 ";
    for (int k = 0; k <= 10; ++k) {
        const rgb_color c = heatmap_color(k / 10.0);
        out += fmt::format("<span style=\"background:rgb({},{},{})\"></span>", c.r, c.g, c.b);
    }
    return out + " 1 · grey: blocked by the mask</p>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string html_report(const trace_run& r, const report_options& o) {
    const std::size_t all = std::numeric_limits<std::size_t>::max();
    const bool has_bias = !r.inputs.bias.empty();
    const bool masked_matters = r.inputs.has_mask || has_bias;
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                      "<title>attn trace — " + esc(r.labels.title) + "</title>\n<style>" + css + "</style>\n</head>\n<body>\n";
    out += "<h1>" + esc(r.labels.title) + "</h1>\n";
    out += fmt::format("<p id=\"summary\">kind: {} · batch: {} · heads: {} · n_q = {} · n_k = {} · d_head = {} · scale = ÷ {}</p>\n",
                       esc(r.inputs.kind), r.batch, r.heads, r.n_q(), r.n_k(), r.inputs.d_head, compact(r.scale(), 6));
    out += "<p>Rows are always queries and columns always keys. Stage names follow TransformerLens:</p>\n<dl>";
    for (const auto& si : all_stages())
        if (stage_available(r, si.id))
            out += "<dt>" + esc(si.hook) + " " + esc(axes_text(si)) + "</dt><dd>" + esc(si.what) + "</dd>";
    out += "</dl>\n";
    for (std::size_t b = 0; b < r.batch; ++b) {
        if (o.batch && *o.batch != b) continue;
        for (std::size_t h = 0; h < r.heads; ++h) {
            if (o.head && *o.head != h) continue;
            const attention_steps s = r.head_steps(b, h);  // [n_q, n_k] stages materialised: the HTML is for small runs
            run_labels l = told_apart(r.labels);  // equal tokens apart, as on the terminal
            if (r.batch > 1) l.title += fmt::format(" · batch {} of {}", b, r.batch);
            if (r.heads > 1) l.title += fmt::format(" · head {} of {}", h + 1, r.heads);  // from 1, as the lessons
            const std::string id = fmt::format("b{}-h{}", b, h);
            out += "<section id=\"section-" + id + "\">\n<h2>" + esc(l.title) + "</h2>\n";
            out += heatmap_html(s, l, "heatmap-" + id, has_bias);
            for (std::size_t i = 0; i < r.n_q(); ++i)
                if (s.row_fully_masked[i])
                    out += "<p class=\"note\">Every key is blocked for query '" + esc(l.query_tokens[i]) + "': its weights are 0, not 0/0.</p>\n";
            out += "<h3>Stages</h3>\n";
            for (const auto& si : head_stages())
                if (si.id != stage::scores_masked || masked_matters) out += stage_html(stage_table(s, si.id, l, user_stage_decimals(s, si.id)));
            if (r.has_result) out += stage_html(stage_view_table(r, stage::result, b, h, l, stage_info_of(stage::result).decimals, all));
            if (r.extras.has_tile()) {  // the online softmax, block by block (tile)
                out += "<h3>Online softmax, " + std::to_string(r.extras.tiled(0).tile) + " keys per block</h3>\n";
                for (const auto& [id, t] : tiled_tables(r, b, h)) out += stage_html(t);
            }
            out += "<h3>Per-token traces</h3>\n";
            for (std::size_t i = 0; i < r.n_q(); ++i)
                out += "<details id=\"trace-" + id + "-q" + std::to_string(i) + "\"><summary>Trace of query '" + esc(l.query_tokens[i]) +
                       "'</summary>\n<pre class=\"trace\">" + esc(explain_query(s, i, l, style{})) + "</pre></details>\n";
            out += "</section>\n";
        }
        if (r.has_result && r.heads > 1 && !o.head) {
            run_labels l = told_apart(r.labels);  // equal tokens apart, as on the terminal
            if (r.batch > 1) l.title += fmt::format(" · batch {} of {}", b, r.batch);
            out += stage_html(stage_view_table(r, stage::attn_out, b, 0, l, stage_info_of(stage::attn_out).decimals, all));
        }
    }
    return out + "</body>\n</html>\n";
}

}  // namespace attn::trace
