// grade/grade_text.cpp — shape, choice and multi (select all that apply) parts, and the
// helpers every part grader shares (finding a part's answer, "not answered yet").
// Nothing here matches keywords in prose: an answer is a shape, or picks choices.
#include <cmath>
#include <cctype>
#include <cstdio>

#include "core/shapes.hpp"
#include <algorithm>

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

part_result start_part(const part_spec& p, const std::string& what, const answer_value* a) {
    part_result r;
    r.id = p.id;
    r.what = what;
    r.max = p.points;
    if (is_unanswered(a)) r.feedback = "not answered";
    else r.where = a->where;
    return r;
}

namespace {

std::optional<std::string> answer_text(const answer_value& a) {
    if (a.is_string()) return a.text;
    if (a.is_number()) {
        // A non-finite number in words: attn never prints the letters nan.
        if (!std::isfinite(a.number)) return std::string(std::isnan(a.number) ? "not-a-number" : "infinity");
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", a.number);
        return std::string(buf);
    }
    return std::nullopt;
}

// Which choice a text names: the choice itself, its letter, or both ("source", "b",
// "(b) source"), lower case and punctuation aside. Anything else names none.
std::optional<std::size_t> find_choice(const exercise& x, const std::string& text) {
    const std::string t = normalize_text(text);
    for (std::size_t i = 0; i < x.choices.size(); ++i) {
        const std::string letter(1, static_cast<char>('a' + i));
        const std::string c = normalize_text(x.choices[i]);
        if (t == c || t == letter || t == letter + " " + c) return i;
    }
    return std::nullopt;
}

std::string choice_list(const exercise& x) {
    std::string list;
    for (const auto& c : x.choices) list += (list.empty() ? "" : " | ") + c;
    return list;
}

// The feedback a wrong pick earns: a declared mistake (named), or the exercise's
// [exercise.feedback] sentence for that choice.
void explain_wrong_pick(const exercise& x, const part_spec& p, const std::string& chosen, part_result& r) {
    for (const auto& m : p.mistakes)
        if (normalize_text(m.answer) == normalize_text(chosen)) {
            if (r.mistake.empty()) {
                r.mistake = m.id;
                r.mistake_name = m.id;
            }
            r.feedback.full_only(": " + m.feedback);
            return;
        }
    if (auto it = x.choice_feedback.find(chosen); it != x.choice_feedback.end()) r.feedback.full_only(": " + it->second);
}

// A shape answer as text: a string, or an array of axis names or numbers joined by ×.
std::optional<std::string> shape_answer_text(const answer_value& a, part_result& r) {
    if (a.is_string()) return a.text;
    if (!a.is_array()) {
        r.status = part_status::invalid;
        r.feedback = a.where.str() + ": expected a shape such as \"B × n_tgt × d_q\", found " + type_name(a);
        return std::nullopt;
    }
    std::string text;  // ["B", "n_tgt", "d_q"] or [2, 5, 4]
    for (const auto& e : a.items) {
        auto t = answer_text(e);
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
std::optional<shape_comparison> compare_shape_answer(const part_spec& p, const answer_value& a, const std::string& text,
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
    switch (c.verdict) {
        case shape_verdict::permuted:
            r.mistake = c.last_two_swapped ? "shape_transposed" : "shape_permuted";
            r.mistake_name = c.last_two_swapped ? "transposed shape" : "axes in the wrong order";
            if (c.last_two_swapped) {
                r.feedback += "; rows are the queries, columns the keys (or the features)";
            }
            break;
        case shape_verdict::rank_differs:
            r.mistake = c.missing_axis ? "shape_missing_axis" : "shape_extra_axis";
            r.mistake_name = c.missing_axis ? "an axis missing" : "an extra axis";
            break;
        case shape_verdict::dim_differs:
            r.mistake = "shape_wrong_dim";
            r.mistake_name = "a dimension differs";
            if ((c.expected_dim == "n_src" && c.actual_dim == "n_tgt") || (c.expected_dim == "n_tgt" && c.actual_dim == "n_src")) {
                r.mistake = "shape_wrong_sequence";
                r.mistake_name = "source and target lengths confused";
                r.feedback.full_only("; queries come from the target (n_tgt), keys and values from the source (n_src)");
            } else if (c.actual_dim == "d" && c.expected_dim.rfind("d_", 0) == 0) {
                r.mistake = "shape_d_for_projection";
                r.mistake_name = "d instead of the projected width";
                r.feedback.full_only("; the projections map the model width d to " + c.expected_dim);
            }
            break;
        case shape_verdict::equal: break;
    }
}

}  // namespace

part_result grade_shape_part(const exercise&, const part_spec& p, const answer_value* a) {
    part_result r = start_part(p, "shape", a);
    if (is_unanswered(a)) return r;
    const auto text = shape_answer_text(*a, r);
    if (!text) return r;
    const auto c = compare_shape_answer(p, *a, *text, r);
    if (!c) return r;
    if (c->verdict == shape_verdict::equal) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct: " + c->expected;
        return r;
    }
    r.status = part_status::wrong;
    for (const auto& m : p.mistakes) {
        try {
            if (compare_shapes(parse_shape(m.answer), parse_shape(*text)).verdict == shape_verdict::equal) {
                r.mistake = m.id;
                r.mistake_name = m.id;
                r.feedback = "found " + c->actual;
                r.feedback.full_only(": " + m.feedback);
                r.feedback.mistakes_only(", not the asked shape");
                return r;
            }
        } catch (const std::exception&) {
        }
    }
    r.feedback.full_only(c->explain());  // names the expected shape
    r.feedback.mistakes_only("found " + c->actual + ", not the asked shape");
    name_shape_mistake(*c, r);
    return r;
}

part_result grade_choice_part(const exercise& x, const part_spec& p, const answer_value* a) {
    part_result r = start_part(p, "choice", a);
    if (is_unanswered(a)) return r;
    auto text = answer_text(*a);
    const std::string list = choice_list(x);
    if (!text) {
        r.status = part_status::invalid;
        r.feedback = a->where.str() + ": expected one of ";
        r.feedback.full_only("the choices (" + list + ")");
        r.feedback.mistakes_only("the exercise's choices");
        r.feedback += ", found " + type_name(*a);
        return r;
    }
    const std::optional<std::size_t> pick = find_choice(x, *text);
    if (!pick) {
        r.status = part_status::invalid;
        r.feedback = a->where.str() + ": \"" + *text + "\" is not one of ";
        r.feedback.full_only("the choices (" + list + ")");
        r.feedback.mistakes_only("the exercise's choices");
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
    r.feedback = "not " + chosen;  // the teacher's explanation below may name the right choice: full only
    explain_wrong_pick(x, p, chosen, r);
    return r;
}

part_result grade_multi_part(const exercise& x, const part_spec& p, const answer_value* a) {
    part_result r = start_part(p, "multi", a);
    if (is_unanswered(a)) return r;
    // ["a", "c"] or the choices' texts; one string is one pick.
    std::vector<const answer_value*> items;
    if (a->is_array())
        for (const auto& e : a->items) items.push_back(&e);
    else items.push_back(a);
    std::vector<bool> picked(x.choices.size(), false);
    for (const answer_value* e : items) {
        const auto text = answer_text(*e);
        const auto pick = text ? find_choice(x, *text) : std::nullopt;
        if (!pick) {
            r.status = part_status::invalid;
            r.feedback = e->where.str() + ": " + (text ? "\"" + *text + "\" is" : type_name(*e) + " is") +
                         " not one of the choices (" + choice_list(x) + "); answer with a list such as [\"a\", \"c\"]";
            return r;
        }
        picked[*pick] = true;
    }
    // Exact: every right choice picked and no other. Partial credit per choice would pay
    // for "pick everything".
    std::size_t missed = 0;
    std::vector<std::string> wrong;
    for (std::size_t i = 0; i < x.choices.size(); ++i) {
        bool right = false;
        for (const auto& ans : p.answers) right = right || ans == x.choices[i];
        if (right && !picked[i]) ++missed;
        if (!right && picked[i]) wrong.push_back(x.choices[i]);
    }
    if (missed == 0 && wrong.empty()) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct: every right choice and no other";
        return r;
    }
    r.status = part_status::wrong;
    if (std::count(picked.begin(), picked.end(), true) == static_cast<std::ptrdiff_t>(picked.size()) && picked.size() > 1) {
        // Ticking everything earns nothing and names nothing: "not b; not d" would hand
        // the student the answer as its complement.
        r.feedback = "every choice is picked: no credit, and no choice is named right or wrong (pick only the ones you mean)";
        return r;
    }
    const std::string missed_words =
        missed ? std::to_string(missed) + " right choice" + (missed > 1 ? "s" : "") + " not picked" : "";
    for (const auto& w : wrong) {
        r.feedback += (r.feedback.empty() ? "" : "; ") + std::string("not ") + w;
        explain_wrong_pick(x, p, w, r);  // the teacher's explanation may name a right choice
    }
    if (missed) {
        r.feedback += (r.feedback.empty() ? "" : "; ") + missed_words;
    }
    return r;
}

}  // namespace attn::grade
