// grade/regrade.hpp — `attn grade --class DIR --regrade OLD.json`: this grading compared
// with a previous one (attn's class JSON, `--format json`), student by student as the
// reports come, and for each part whose points moved, why — found by elimination from
// what both gradings recorded: the part's points (the assignment), the student's answer
// (its digest), the student's numbers (the variant), a review (open parts), the
// tolerance; and when all of those are the same, the key (the expected answer or the
// grading itself changed). The late policy's deduction is compared on its own.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "grade/report.hpp"
#include "io/value_tree.hpp"

namespace attn::grade {

struct regrade_change {
    std::string exercise, part;  // both empty: the whole submission (gradable, the late policy)
    double before = 0.0, after = 0.0;
    std::string why;             // points, answer, numbers, review, tolerance, key, late policy, gradable, new, dropped
    std::string detail;          // "rtol 0, atol 0.001 → rtol 0, atol 0.1"
};

struct regrade_entry {
    std::string student;
    double before = 0.0, after = 0.0;  // totals
    std::vector<regrade_change> changes;
};

class regrade_base {
public:
    // Reads the old class JSON; throws attn::error (file: byte N, or what is missing).
    static regrade_base read(const std::string& path);
    // What changed for this report's student; nullopt when nothing did.
    std::optional<regrade_entry> compare(const grade_report& r);
    // The old students no report was compared for, in id order.
    std::vector<std::string> missing() const;
    const std::string& path() const { return path_; }

private:
    struct old_part {
        double score = 0.0, max = 0.0;
        std::string digest, tolerance, kind, variant;
    };
    struct old_student {
        double score = 0.0, late = 0.0;
        bool gradable = true;
        std::map<std::pair<std::string, std::string>, old_part> parts;  // (exercise, part)
    };
    std::string path_;
    std::map<std::string, old_student> students_;
    std::set<std::string> seen_;
};

// "Regrade against old.json: 2 of 3 students changed" and a block per student.
std::string regrade_text(const regrade_base& base, const std::vector<regrade_entry>& entries, std::size_t compared);
nlohmann::json regrade_json(const regrade_base& base, const std::vector<regrade_entry>& entries);

// A short digest of a student's answer (kind, numbers, text, in order): what a regrade
// compares to tell "the answer changed" from "the key changed".
std::string answer_digest(const io::value_node& v);

}  // namespace attn::grade
