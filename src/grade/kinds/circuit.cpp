// grade/kinds/circuit.cpp — the circuit kind (lessons 24–26): a part is one number of
// a trained model on the student's own input, drawn from the course secret as lessons
// 20–22 draw theirs (the exercise's model, tokens, layer, head and [exercise.variant]):
// a term of a score's decomposition, a head's direct logit attribution to the next
// token, or the repeated half's loss with one head patched from the clean run into the
// corrupted one (lessons/show_circuits_numbers.hpp computes each, and the catalogued
// mistakes' values: a term read from the wrong position, the norm's scale forgotten,
// clean and corrupted swapped, layers and heads counted from 0). A wrong answer that
// one of them reproduces is named and earns half the part's points, as a named
// mistake does in the numeric kind; a draw on which a mistake gives the right answer
// is redrawn (input_fault).
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "grade/variant.hpp"
#include "io/toml_read.hpp"
#include "io/typed_line.hpp"
#include "io/value_matrix.hpp"
#include "lessons/model_head_inputs.hpp"
#include "trace/number_format.hpp"

namespace attn::grade {

namespace {

// A named mistake's share of the part's points.
constexpr double circuit_mistake_credit = 0.5;

void circuit_read_part(const io::toml_reader& rd, const exercise& x, part_spec& p) {
    const toml::table& t = *p.spec;
    p.tol = lessons::read_tolerance(rd, t, x.tol);
    if (!x.setup.model) return;  // exercise.cpp says what is missing
    const auto& m = *x.setup.model;
    const auto P = static_cast<std::int64_t>(m.tokens.size());
    lessons::circuit_ask& a = p.circuit;
    a.quantity = rd.choice(t, "quantity", true, {"score_term", "dla", "patched_loss"}).value_or("dla");
    a.layer = static_cast<std::size_t>(
        rd.integer(t, "layer", false, 0, static_cast<std::int64_t>(lessons::model_layers(m.model)) - 1).value_or(static_cast<std::int64_t>(m.layer)));
    a.head = static_cast<std::size_t>(
        rd.integer(t, "head", false, 0, static_cast<std::int64_t>(lessons::model_heads(m.model)) - 1).value_or(static_cast<std::int64_t>(m.head)));
    const bool patch = a.quantity == "patched_loss";
    if (!patch) a.query = static_cast<std::size_t>(rd.integer(t, "query", true, 0, P - 2).value_or(0));
    if (a.quantity == "score_term") {
        a.key = static_cast<std::size_t>(rd.integer(t, "key", true, 0, static_cast<std::int64_t>(a.query)).value_or(0));
        a.query_side = rd.string(t, "query_side", true).value_or("embed");
        a.key_side = rd.string(t, "key_side", true).value_or("embed");
    }
    if (patch) {
        a.from = static_cast<std::size_t>(rd.integer(t, "from", true, 0, P - 2).value_or(0));
        a.shift = static_cast<std::size_t>(rd.integer(t, "corrupt_shift", true, 1, 1 << 20).value_or(1));
        if (x.variant.hi - x.variant.lo + static_cast<double>(a.shift) + 1 >= static_cast<double>(lessons::model_vocab(m.model)))
            rd.fail(t.get("corrupt_shift"), "a drawn token + corrupt_shift must never wrap round onto the drawn range: the "
                                            "range's width + corrupt_shift must stay below the vocabulary's " +
                                            std::to_string(lessons::model_vocab(m.model)) + " ids");
    }
    try {  // the lesson's own input answers it (an unknown component, a masked key are the lesson's problem)
        (void)lessons::circuit_value(m, m.tokens, a);
    } catch (const error& e) {
        rd.fail(&t, e.what());
    }
}

bool circuit_read_mistake(const io::toml_reader&, const exercise&, declared_mistake&) { return false; }

// The worked answer and mistakes of every part on one input.
std::vector<lessons::circuit_answer> circuit_answers(const exercise& x, const std::vector<int>& ids) {
    std::vector<lessons::circuit_answer> out;
    for (const auto& p : x.parts) out.push_back(lessons::circuit_value(*x.setup.model, ids, p.circuit));
    return out;
}

void circuit_grade_part(const part_spec& p, const io::value_node& a, const lessons::circuit_answer& right, part_result& r) {
    const io::matrix_read rr = io::read_matrix(a);
    if (!rr.m || rr.m->size() != 1) {
        r.status = part_status::invalid;
        r.feedback = rr.m ? a.where.str() + ": expected one number" : rr.error;
        return;
    }
    const double got = rr.m->flat(0);
    if (is_close(got, right.value, p.tol)) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct (within " + p.tol.str() + ")";
        return;
    }
    r.status = part_status::wrong;
    r.feedback = "not within " + p.tol.str() + " of the answer";
    r.feedback.full_only(fmt::format(" (expected {}, found {})", trace::fixed(right.value, 4),
                                     std::isnan(got) ? std::string("not a number") : trace::fixed(got, 4)));
    for (const auto& f : right.mistakes)
        if (is_close(got, f.value, p.tol)) {
            r.mistake = f.mistake;
            r.mistake_name = f.name;
            r.explained = true;
            r.score = r.max * circuit_mistake_credit;
            r.feedback += ". Your answer matches the mistake \"" + f.name + "\"";
            r.feedback.full_only(": " + f.explanation);
            r.feedback += fmt::format(". A named mistake earns {}% of this part's points", std::lround(100.0 * circuit_mistake_credit));
            return;
        }
}

void circuit_grade(const exercise& x, const io::value_node* answer, const kind_grading& g, exercise_result& r) {
    const exercise_numbers n = numbers_for(x, g.request);
    take_variant(n, r);
    const auto answers = circuit_answers(x, n.inputs.model_tokens);
    for (std::size_t i = 0; i < x.parts.size(); ++i) {
        const part_spec& p = x.parts[i];
        const io::value_node* a = part_answer(x, p, answer);
        part_result& pr = r.parts.emplace_back(start_part(p, x.kind->name, a));
        pr.tolerance = p.tol.str();
        if (!is_unanswered(a)) circuit_grade_part(p, *a, answers[i], pr);
    }
}

std::string circuit_placeholder(const exercise&, const part_spec&) { return "TODO: one number, e.g. 0.0"; }

std::string circuit_solve(const exercise& x, const variant_request& request) {
    const exercise_numbers n = numbers_for(x, request);
    const auto answers = circuit_answers(x, n.inputs.model_tokens);
    std::string out;
    for (std::size_t i = 0; i < x.parts.size(); ++i) out += "  " + x.parts[i].id + ": " + answers[i].how + "\n";
    return out;
}

// The part whose corrupted twin the input words show (patching), else 0.
std::size_t circuit_shift(const exercise& x) {
    for (const auto& p : x.parts)
        if (p.circuit.shift) return p.circuit.shift;
    return 0;
}

std::string circuit_input_words(const exercise& x, const variant_request& request) {
    const exercise_numbers n = numbers_for(x, request);
    std::string head;
    if (n.personal && n.student.empty()) head = fmt::format("Numbers from seed {:#018x} ({}):\n", n.seed, n.parameters);
    else if (n.personal) head = "Your input (student " + n.student + ", variant " + n.code + ", " + n.parameters + "):\n";
    else if (n.practice) head = "PRACTICE input (" + n.parameters + "): the same for everyone, not any class's.\n";
    else head = "Input: " + n.parameters + (x.variant.enabled ? " (give --student to get your own)" : "") + "\n";
    return head + lessons::circuit_input_words(*x.setup.model, n.inputs.model_tokens, circuit_shift(x));
}

// A draw is good when no catalogued mistake's value is within a part's tolerance of its answer.
std::optional<std::string> circuit_input_fault(const exercise& x, const std::vector<int>& ids) {
    const auto answers = circuit_answers(x, ids);
    for (std::size_t i = 0; i < x.parts.size(); ++i)
        for (const auto& f : answers[i].mistakes)
            if (is_close(f.value, answers[i].value, x.parts[i].tol)) return x.parts[i].id + ": " + f.mistake;
    return std::nullopt;
}

}  // namespace

const exercise_kind circuit_kind{
    "circuit",
    "a part is one number of a trained model on the student's own drawn input (a term of a score's decomposition, a "
    "head's direct logit attribution, a patched loss), read off attn model explain or patch",
    false, false, false, false,
    circuit_read_part, circuit_read_mistake, circuit_grade, circuit_placeholder, circuit_solve,
    "Type one number (0.25).",
    io::typed_numbers,
    circuit_input_words, circuit_input_fault,
};

}  // namespace attn::grade
