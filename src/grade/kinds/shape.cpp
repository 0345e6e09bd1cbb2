// grade/kinds/shape.cpp — the shape kind: a part is a symbolic shape ("B × n_tgt × d_q"),
// right when it names the same dimensions in the same order; a wrong one is named as a
// declared or catalogued mistake (axes swapped, one missing, n_src for n_tgt …).
#include "core/shapes.hpp"
#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "io/typed_line.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

namespace {
// A declared mistake's id as the words a student reads: "causal-is-padding" → "causal is padding".
std::string mistake_words(std::string id) {
    for (char& c : id)
        if (c == '-' || c == '_') c = ' ';
    return id;
}
}  // namespace

namespace {

// The shape text under `answer` of t, checked to parse.
std::string read_shape(const io::toml_reader& rd, const toml::table& t) {
    std::string text = rd.string(t, "answer", true).value_or("");
    if (text.empty()) return text;
    try {
        parse_shape(text);
    } catch (const shape_parse_error& e) {
        rd.fail(t.get("answer"),
                "'" + text + "' is not a shape: " + e.what() + " (character " + std::to_string(e.column) + ")");
    }
    return text;
}

void read_part(const io::toml_reader& rd, const exercise&, part_spec& p) { p.answer = read_shape(rd, *p.spec); }

bool read_mistake(const io::toml_reader& rd, const exercise&, declared_mistake& m) {
    m.answer = read_shape(rd, *m.spec);
    return true;
}

// A shape answer as text: a string, or an array of axis names or numbers joined by ×.
std::optional<std::string> shape_answer_text(const io::value_node& a, part_result& r) {
    if (a.is_string()) return a.text;
    if (!a.is_array()) {
        r.status = part_status::invalid;
        r.feedback = a.where.str() + ": expected a shape such as \"B × n_tgt × d_q\", found " + type_name(a);
        return std::nullopt;
    }
    std::string text;  // ["B", "n_tgt", "d_q"] or [2, 5, 4]
    for (std::size_t i = 0; i < a.length(); ++i) {  // a packed array of numbers too (io/value_tree)
        const io::value_node e = a.entry_at(i);
        auto t = io::value_text(e);
        if (!t) {
            r.status = part_status::invalid;
            r.feedback = e.where.str() + ": a shape's axes are names or numbers, found " + type_name(e);
            return std::nullopt;
        }
        text += (text.empty() ? "" : " × ") + *t;
    }
    return text;
}

// The student's shape compared with the asked one; nullopt (r says why) when either
// cannot be read or compared.
std::optional<shape_comparison> compare_shape_answer(const part_spec& p, const io::value_node& a, const std::string& text,
                                                     part_result& r) {
    r.status = part_status::invalid;
    symbolic_shape want;
    try {
        want = parse_shape(p.answer);
    } catch (const std::exception& e) {
        r.feedback = "the exercise's own answer does not parse (" + std::string(e.what()) + "); tell your teacher";
        return std::nullopt;
    }
    symbolic_shape got;
    try {
        got = parse_shape(text);
    } catch (const shape_parse_error& e) {
        r.feedback = a.where.str() + ": cannot read \"" + text + "\" as a shape: " + e.what() + " (at character " +
                     std::to_string(e.column) + ", found " + e.found + "); write axes like \"B × n_tgt × d_q\"";
        return std::nullopt;
    } catch (const std::exception& e) {  // parses, but its arithmetic can't be done: 64-bit overflow, ÷ 0
        r.feedback = a.where.str() + ": cannot read \"" + text + "\" as a shape: " + e.what() + "; write axes like \"B × n_tgt × d_q\"";
        return std::nullopt;
    }
    try {
        return compare_shapes(want, got);
    } catch (const std::exception& e) {  // e.g. 64-bit overflow while comparing with numbers
        r.feedback = a.where.str() + ": cannot compare \"" + text + "\" with the asked shape: " + e.what();
    }
    return std::nullopt;
}

// A wrong shape named as a catalogued mistake, with the hint that goes with it.
void name_shape_mistake(const shape_comparison& c, part_result& r) {
    auto name = [&r](const char* id, const char* words) {
        r.mistake = id;
        r.mistake_name = words;
    };
    const bool dim = c.verdict == shape_verdict::dim_differs, rank = c.verdict == shape_verdict::rank_differs;
    if (c.verdict == shape_verdict::permuted && c.last_two_swapped) {
        name("shape_transposed", "transposed shape");
        r.feedback += "; rows are the queries, columns the keys (or the features)";
    } else if (c.verdict == shape_verdict::permuted) {
        name("shape_permuted", "axes in the wrong order");
    } else if (rank) {
        name(c.missing_axis ? "shape_missing_axis" : "shape_extra_axis", c.missing_axis ? "an axis missing" : "an extra axis");
    } else if (dim && ((c.expected_dim == "n_src" && c.actual_dim == "n_tgt") ||
                       (c.expected_dim == "n_tgt" && c.actual_dim == "n_src"))) {
        name("shape_wrong_sequence", "source and target lengths confused");
        r.feedback.full_only("; queries come from the target (n_tgt), keys and values from the source (n_src)");
    } else if (dim && c.actual_dim == "d" && c.expected_dim.rfind("d_", 0) == 0) {
        name("shape_d_for_projection", "d instead of the projected width");
        r.feedback.full_only("; the projections map the model width d to " + c.expected_dim);
    } else if (dim) {
        name("shape_wrong_dim", "a dimension differs");
    }
}

void grade_part(const exercise&, const part_spec& p, const io::value_node& a, const kind_grading&, part_result& r) {
    const auto text = shape_answer_text(a, r);
    if (!text) return;
    const auto c = compare_shape_answer(p, a, *text, r);
    if (!c) return;
    if (c->verdict == shape_verdict::equal) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct: " + c->expected;
        return;
    }
    r.status = part_status::wrong;
    for (const auto& m : p.mistakes) {
        try {
            if (compare_shapes(parse_shape(m.answer), parse_shape(*text)).verdict == shape_verdict::equal) {
                r.mistake = m.id;
                r.mistake_name = mistake_words(m.id);
                r.feedback = "found " + c->actual;
                r.feedback.full_only(": " + m.feedback);
                r.feedback.mistakes_only(", not the asked shape");
                return;
            }
        } catch (const std::exception&) {
        }
    }
    r.feedback.full_only(c->explain());  // names the expected shape
    r.feedback.mistakes_only("found " + c->actual + ", not the asked shape");
    name_shape_mistake(*c, r);
}

std::string placeholder(const exercise&, const part_spec&) { return "TODO: a shape such as \"B × n × d\""; }

std::string solution(const exercise&, const part_spec& p) { return p.answer; }

}  // namespace

const exercise_kind shape_kind{
    "shape",
    "a part is a symbolic shape (\"B × n_tgt × d_q\")",
    false, false, false, false,
    read_part, read_mistake, grade_each_part<grade_part>, placeholder, solve_each_part<solution>,
    "Type a shape: [5, 4] or 5 × 4 (names work too: B × n × d_k).",
    io::typed_shape,
    nullptr, nullptr,
};

}  // namespace attn::grade
