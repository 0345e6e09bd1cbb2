// grade/grader.cpp — see grader.hpp: picks the exercises, finds each answer,
// regenerates the student's numbers and hands every part to its kind's grader.
#include "grade/grader.hpp"
#include "core/error.hpp"

#include <algorithm>

#include "grade/reviews.hpp"
#include "io/shown_text.hpp"
#include "io/toml_read.hpp"
#include "trace/number_format.hpp"

namespace attn::grade {

const char* status_name(part_status s) {
    static const char* const names[] = {"correct", "carried", "partial", "wrong", "unanswered", "invalid", "review"};
    return names[static_cast<int>(s)];  // in part_status's order
}

std::string points_str(double p) { return trace::trimmed_fixed(p, 2); }

const char* feedback_level_name(feedback_level l) { return feedback_level_words[static_cast<int>(l)].c_str(); }

std::optional<feedback_level> feedback_level_from(const std::string& word) {
    for (std::size_t i = 0; i < feedback_level_words.size(); ++i)
        if (word == feedback_level_words[i]) return static_cast<feedback_level>(i);
    return std::nullopt;
}

std::string feedback_text::at(feedback_level level) const {
    std::string out;
    for (const auto& p : pieces)
        if (level == feedback_level::full ? p.at_full : level == feedback_level::mistakes && p.at_mistakes) out += p.text;
    return out;
}

bool feedback_text::empty() const {
    return std::all_of(pieces.begin(), pieces.end(), [](const piece& p) { return p.text.empty(); });
}

std::string shown_feedback(const exercise_result& x, const part_result& p) {
    if (x.feedback == feedback_level::score) return p.status == part_status::unanswered ? "not answered" : "";
    return p.feedback.at(x.feedback);
}

bool shows_mistakes(const exercise_result& x) { return x.feedback != feedback_level::score; }

bool grade_report::full_marks() const { return gradable && max > 0 && score >= max - 1e-9; }

bool grade_report::teacher_view() const {
    for (const auto& x : exercises)
        if (x.feedback != feedback_level::full) return false;
    return true;
}

std::vector<std::string> grade_report::mistake_ids(bool shown_only) const {
    std::vector<std::string> out;
    for (const auto& x : exercises)
        if (!shown_only || shows_mistakes(x))
            for (const auto& p : x.parts)
                if (!p.mistake.empty()) out.push_back(p.mistake);
    return out;
}

namespace {

exercise_result empty_result(const exercise& x) {
    exercise_result r;
    r.id = x.id;
    r.kind = x.kind->name;
    r.title = x.title.empty() ? io::first_line(x.prompt, 60) : x.title;
    r.lesson = x.lesson;
    r.max = x.points;
    r.parameters = "the lesson's own numbers";
    return r;
}

// The exercise as the assignment weighs it: its parts scaled to the new total.
exercise with_points(const exercise& x, double points) {
    exercise y = x;
    const double f = x.points > 0 ? points / x.points : 0.0;
    for (auto& p : y.parts) p.points *= f;
    y.points = points;
    return y;
}

// What the assignment says of one exercise (none: the lesson's points, the run's level).
const exercise_override& override_of(const grade_options& options, const std::string& id) {
    static const exercise_override none;
    const auto it = options.per_exercise.find(id);
    return it == options.per_exercise.end() ? none : it->second;
}

// An exercise's result into the report, at the level and visibility the assignment gives it.
void add_exercise(grade_report& rep, exercise_result r, const exercise_override& o, const grade_options& options) {
    r.feedback = o.feedback.value_or(options.feedback);
    r.visibility = o.visibility;
    rep.score += r.score;
    rep.max += r.max;
    rep.exercises.push_back(std::move(r));
}

}  // namespace

variant_request grade_options::request(const std::string& for_student) const {
    variant_request r = *this;
    r.student = for_student;
    return r;
}

exercise_set weighed_set(const exercise_set& set, const grade_options& options) {
    exercise_set out = set;
    for (auto& x : out.all)
        if (const auto& o = override_of(options, x.id); o.points) x = with_points(x, *o.points);
    return out;
}

exercise_result grade_exercise(const exercise& x, const io::value_node* answer, const kind_grading& g) {
    exercise_result r = empty_result(x);
    r.answered = answer && !is_unanswered(answer);
    if (answer && answer->is_table())  // keys the exercise does not have: said, not graded
        for (const auto& [key, v] : answer->fields)
            if (!x.find_part(key)) {
                std::vector<std::string> names;  // for "did you mean 'raw'?" after `raws = …`
                for (const auto& p : x.parts) names.push_back(p.id);
                g.notes.push_back(v.where.str() + ": exercise " + x.id + " has no part '" + key + "'" +
                                  io::hint_suffix(key, names) + " (ignored)");
            }
    if (answer && !answer->is_table() && x.parts.size() > 1)
        g.notes.push_back(answer->where.str() + ": exercise " + x.id + " has " + std::to_string(x.parts.size()) +
                          " parts; answer it with a table of parts ([" + x.id + "] then one key per part)");
    x.kind->grade(x, answer, g, r);
    r.score = 0.0;
    for (const auto& p : r.parts) r.score += p.score;
    return r;
}

grade_report grade_submission(const submission& sub, const exercise_set& set, const grade_options& options) {
    grade_report rep;
    // Who is graded: the submitter the teacher's side names (--student, the class folder's
    // file name, Gradescope's metadata); the file's `student` key only when nothing else does.
    const std::string submitter = normalize_student_id(options.student);
    const std::string claimed = normalize_student_id(sub.student);
    rep.student = submitter.empty() ? claimed : submitter;
    rep.files = sub.files;
    for (const auto& n : sub.notes) rep.notes.push_back(n.str());
    if (!submitter.empty() && !claimed.empty() && claimed != submitter) {
        rep.claimed_student = claimed;
        rep.flags.push_back("the file's student key says '" + claimed + "' (graded as '" + submitter + "', its submitter)");
        rep.notes.push_back(sub.student_where.str() + ": the file says student '" + claimed + "'; graded as '" + submitter +
                            "', who submitted it (the student key is never used to pick the numbers)");
    }
    if (submitter.empty() && !claimed.empty() && !options.secret.empty() && !options.lesson_numbers)
        rep.notes.push_back(sub.student_where.str() + ": graded as '" + claimed + "', whom the file's student key names: "
                            "nobody else named the submitter (give --student ID; a class folder and Gradescope never use the key)");
    std::vector<std::string> ids = options.exercise_ids;
    rep.answered_only = ids.empty();
    if (ids.empty())
        for (const auto& [id, v] : sub.answers)
            if (set.find(id)) ids.push_back(id);
    for (const auto& [id, v] : sub.answers)
        if (!set.find(id)) {
            std::vector<std::string> known;  // for "did you mean '04-cross-the'?" after `[04-cross-thee]`
            for (const auto& x : set.all) known.push_back(x.id);
            rep.notes.push_back(v.where.str() + ": no exercise '" + id + "'" + io::hint_suffix(id, known) +
                                " (ignored; `attn exercise list` shows them)");
        } else if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
            rep.notes.push_back(v.where.str() + ": exercise '" + id + "' is not part of this assignment (ignored)");
        }
    const variant_request req = options.request(rep.student);
    const kind_grading g{req, options.reviews.get(), rep.notes, rep.flags};
    for (const auto& id : ids) {
        const exercise* x = set.find(id);
        if (!x) throw attn::error("no exercise '" + id + "' (`attn exercise list` shows them)");
        const exercise_override& o = override_of(options, id);
        const io::value_node* answer = sub.find(id);
        exercise_result r = o.points ? grade_exercise(with_points(*x, *o.points), answer, g) : grade_exercise(*x, answer, g);
        add_exercise(rep, std::move(r), o, options);
    }
    if (options.late) apply_late(rep, *options.late);
    io::cap_lines(rep.notes, max_notes, max_note_bytes, "notes");
    io::cap_lines(rep.flags, max_notes, max_note_bytes, "flags");
    return rep;
}

bool better_report(const grade_report& a, const grade_report& b) {
    return a.gradable != b.gradable ? a.gradable : a.score > b.score + 1e-9;
}

grade_report grade_group(const submission& sub, const exercise_set& set, grade_options options,
                         const std::vector<std::string>& members) {
    grade_report best;
    for (std::size_t i = 0; i < members.size(); ++i) {
        options.student = members[i];
        grade_report r = grade_submission(sub, set, options);
        if (i == 0 || better_report(r, best)) best = std::move(r);
    }
    if (members.size() > 1) {
        std::string names;
        for (const auto& m : members) names += (names.empty() ? "" : ", ") + normalize_student_id(m);
        best.notes.push_back("a group submission of " + std::to_string(members.size()) + " (" + names + "): graded on " +
                             best.student + "'s numbers, which it answers best; the grade counts for every member");
    }
    return best;
}

grade_report not_gradable(const std::string& student, const std::string& path, const error& why,
                          const exercise_set& set, const grade_options& options) {
    grade_report rep;
    rep.student = student;
    rep.files = {path};
    rep.gradable = false;
    rep.reason_word = why.reason;
    rep.reason = why.what();
    for (const auto& id : options.exercise_ids)
        if (const exercise* x = set.find(id)) {
            const exercise_override& o = override_of(options, id);
            exercise_result r = empty_result(*x);
            if (o.points) r.max = *o.points;  // what with_points gives the exercise
            add_exercise(rep, std::move(r), o, options);
        }
    return rep;
}

}  // namespace attn::grade
