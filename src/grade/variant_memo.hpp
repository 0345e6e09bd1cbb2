// grade/variant_memo.hpp — how many draws each student's variant took, found once per class.
//
// Drawing a student's numbers is cheap; checking a draw is not: every catalogued mistake
// is computed to be sure none gives the right answer (variant_check.hpp), and a draw
// that fails is redrawn. A class grader needs each student's numbers two or three times
// (the copy index, the grading, the copy check), so it learns each variant's draw count
// once, on every core, and numbers_for then replays the same PRNG stream that many draws
// without checking again: the same numbers, bit for bit (variant.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attn::grade {

struct exercise;

// A learnt variant: the draws rejected before the one kept, and whether the kept one
// passed the check (false only when every one of the 64 draws failed).
struct variant_draws {
    int redraws = 0;
    bool distinguishable = true;
};

class variant_memo {
public:
    // Every student's variant of x under secret, checked once (on every core).
    void learn(const exercise& x, const std::string& secret, const std::vector<std::string>& students);
    // What was learnt for this exercise and seed; nullopt when it was not (then the draw is checked as usual).
    std::optional<variant_draws> find(const std::string& exercise_id, std::uint64_t seed) const;

private:
    struct table {
        std::vector<std::uint64_t> seeds;  // [students] sorted
        std::vector<std::uint8_t> draws;   // [students] redraws, bit 7 set when not distinguishable
    };
    std::map<std::string, table> by_exercise_;
};

}  // namespace attn::grade
