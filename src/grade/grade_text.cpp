// grade/grade_text.cpp — shape, choice and short-answer parts, and the helpers
// every part grader shares (finding a part's answer, "not answered yet").
#include <cctype>
#include <cstdio>

#include "core/shapes.hpp"
#include "grade/grade_parts.hpp"

namespace attn::grade {

std::string normalize_text(const std::string& s) {
    std::string out;
    bool space = true;
    for (unsigned char c : s) {
        const bool word = std::isalnum(c) || c >= 0x80;  // keep non-ASCII letters (Hangul, ×, é) as they are
        if (word) {
            out += static_cast<char>(c < 0x80 ? std::tolower(c) : c);
            space = false;
        } else if (!space) {
            out += ' ';
            space = true;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

bool is_unanswered(const answer_value* v) {
    if (!v || v->kind == answer_value::type::null) return true;
    if (v->is_string()) {
        const auto b = v->text.find_first_not_of(" \t\r\n");
        if (b == std::string::npos) return true;
        return v->text.compare(b, 4, "TODO") == 0;
    }
    return false;
}

const answer_value* part_answer(const exercise& x, const part_spec& p, const answer_value* exercise_answer) {
    if (!exercise_answer) return nullptr;
    if (exercise_answer->is_table()) return exercise_answer->get(p.id);
    if (x.parts.size() == 1) return exercise_answer;  // "01-scale" = 2.0
    return nullptr;
}

namespace {

bool contains_phrase(const std::string& normalized_answer, const std::string& phrase) {
    const std::string a = " " + normalized_answer + " ";
    const std::string p = " " + normalize_text(phrase) + " ";
    return p.size() > 2 && a.find(p) != std::string::npos;
}

std::optional<std::string> answer_text(const answer_value& a) {
    if (a.is_string()) return a.text;
    if (a.is_number()) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", a.number);
        return std::string(buf);
    }
    return std::nullopt;
}

// The part's id, kind and points, and "not answered" or the answer's location.
part_result open_part(const part_spec& p, const char* what, const answer_value* a) {
    part_result r;
    r.id = p.id;
    r.what = what;
    r.max = p.points;
    if (is_unanswered(a)) r.feedback = "not answered";
    else r.where = a->where;
    return r;
}

}  // namespace

part_result grade_shape_part(const exercise&, const part_spec& p, const answer_value* a) {
    part_result r = open_part(p, "shape", a);
    if (is_unanswered(a)) return r;
    std::string text;
    if (a->is_string()) {
        text = a->text;
    } else if (a->is_array()) {  // ["B", "n_tgt", "d_q"] or [2, 5, 4]
        for (const auto& e : a->items) {
            auto t = answer_text(e);
            if (!t) {
                r.status = part_status::invalid;
                r.feedback = e.where.str() + ": a shape's axes are names or numbers, found " + type_name(e);
                return r;
            }
            text += (text.empty() ? "" : " × ") + *t;
        }
    } else {
        r.status = part_status::invalid;
        r.feedback = a->where.str() + ": expected a shape such as \"B × n_tgt × d_q\", found " + type_name(*a);
        return r;
    }
    symbolic_shape got, want;
    try {
        want = parse_shape(p.answer);
    } catch (const std::exception& e) {
        r.status = part_status::invalid;
        r.feedback = "the exercise's own answer does not parse (" + std::string(e.what()) + "); tell your teacher";
        return r;
    }
    try {
        got = parse_shape(text);
    } catch (const shape_parse_error& e) {
        r.status = part_status::invalid;
        r.feedback = a->where.str() + ": cannot read \"" + text + "\" as a shape: " + e.what() + " (at character " +
                     std::to_string(e.column) + ", found " + e.found + "); write axes like \"B × n_tgt × d_q\"";
        return r;
    }
    const shape_comparison c = compare_shapes(want, got);
    if (c.verdict == shape_verdict::equal) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct: " + c.expected;
        return r;
    }
    r.status = part_status::wrong;
    for (const auto& m : p.mistakes) {
        try {
            if (compare_shapes(parse_shape(m.answer), got).verdict == shape_verdict::equal) {
                r.mistake = m.id;
                r.mistake_name = m.id;
                r.feedback = "found " + c.actual + ": " + m.feedback;
                r.feedback_without_expected = "found " + c.actual + ", not the asked shape";
                return r;
            }
        } catch (const std::exception&) {
        }
    }
    r.feedback = c.explain();
    r.feedback_without_expected = "found " + c.actual + ", not the asked shape";  // the explanation names the expected one
    auto has = [](const std::string& dim, const char* name) { return dim == name; };
    switch (c.verdict) {
        case shape_verdict::permuted:
            r.mistake = c.last_two_swapped ? "shape_transposed" : "shape_permuted";
            r.mistake_name = c.last_two_swapped ? "transposed shape" : "axes in the wrong order";
            if (c.last_two_swapped) {
                r.feedback += "; rows are the queries, columns the keys (or the features)";
                r.feedback_without_expected += "; rows are the queries, columns the keys (or the features)";
            }
            break;
        case shape_verdict::rank_differs:
            r.mistake = c.missing_axis ? "shape_missing_axis" : "shape_extra_axis";
            r.mistake_name = c.missing_axis ? "an axis missing" : "an extra axis";
            break;
        case shape_verdict::dim_differs:
            r.mistake = "shape_wrong_dim";
            r.mistake_name = "a dimension differs";
            if ((has(c.expected_dim, "n_src") && has(c.actual_dim, "n_tgt")) ||
                (has(c.expected_dim, "n_tgt") && has(c.actual_dim, "n_src"))) {
                r.mistake = "shape_wrong_sequence";
                r.mistake_name = "source and target lengths confused";
                r.feedback += "; queries come from the target (n_tgt), keys and values from the source (n_src)";
            } else if (has(c.actual_dim, "d") && c.expected_dim.rfind("d_", 0) == 0) {
                r.mistake = "shape_d_for_projection";
                r.mistake_name = "d instead of the projected width";
                r.feedback += "; the projections map the model width d to " + c.expected_dim;
            }
            break;
        case shape_verdict::equal: break;
    }
    return r;
}

part_result grade_choice_part(const exercise& x, const part_spec& p, const answer_value* a) {
    part_result r = open_part(p, "choice", a);
    if (is_unanswered(a)) return r;
    auto text = answer_text(*a);
    std::string list;
    for (const auto& c : x.choices) list += (list.empty() ? "" : " | ") + c;
    if (!text) {
        r.status = part_status::invalid;
        r.feedback = a->where.str() + ": expected one of the choices (" + list + "), found " + type_name(*a);
        r.feedback_without_expected = a->where.str() + ": expected one of the exercise's choices, found " + type_name(*a);
        return r;
    }
    const std::string t = normalize_text(*text);
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < x.choices.size(); ++i) {
        const std::string letter(1, static_cast<char>('a' + i));
        const std::string c = normalize_text(x.choices[i]);
        if (t == c || t == letter || t == letter + " " + c) pick = i;  // "source", "b", "(b) source"
    }
    if (!pick) {
        r.status = part_status::invalid;
        r.feedback = a->where.str() + ": \"" + *text + "\" is not one of the choices (" + list + ")";
        r.feedback_without_expected = a->where.str() + ": \"" + *text + "\" is not one of the exercise's choices";
        return r;
    }
    const std::string& chosen = x.choices[*pick];
    if (chosen == p.answer) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct: " + chosen;
        return r;
    }
    r.status = part_status::wrong;
    r.feedback = "not " + chosen;
    r.feedback_without_expected = r.feedback;  // the teacher's explanation below may name the right choice
    for (const auto& m : p.mistakes)
        if (normalize_text(m.answer) == normalize_text(chosen)) {
            r.mistake = m.id;
            r.mistake_name = m.id;
            r.feedback += ": " + m.feedback;
            return r;
        }
    if (auto it = x.choice_feedback.find(chosen); it != x.choice_feedback.end()) r.feedback += ": " + it->second;
    return r;
}

part_result grade_short_part(const exercise&, const part_spec& p, const answer_value* a) {
    part_result r = open_part(p, "short", a);
    if (is_unanswered(a)) return r;
    auto text = answer_text(*a);
    if (!text) {
        r.status = part_status::invalid;
        r.feedback = a->where.str() + ": expected a short text answer, found " + type_name(*a);
        return r;
    }
    const std::string t = normalize_text(*text);
    for (const auto& form : p.accept)
        if (contains_phrase(t, form)) {
            r.status = part_status::correct;
            r.score = r.max;
            r.feedback = "correct";
            return r;
        }
    r.status = part_status::wrong;
    for (const auto& m : p.mistakes)
        for (const auto& phrase : m.match)
            if (contains_phrase(t, phrase)) {
                r.mistake = m.id;
                r.mistake_name = m.id;
                r.feedback = m.feedback;
                return r;
            }
    r.feedback = "not one of the accepted answers";
    return r;
}

}  // namespace attn::grade
