// lessons/show_trained_inputs.hpp — the inputs every show kind on a built-in trained
// model reads (show_trained.cpp for lessons 20–22, show_circuits.cpp for 24–26): a whole
// number of the item in a range, the built-in model it names, and a token sequence
// (`tokens`, labelled by the item's `labels` or the ids) with each position's label
// ("7₁₁"). Internal to src/lessons.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"
#include "lessons/trained_models.hpp"

namespace attn::lessons::show {

// The item's `key`, a whole number from lo to hi (a bad one is reported at the key).
std::size_t whole(const show_item& item, const std::string& key, std::int64_t lo, std::int64_t hi);

// The built-in checkpoint the item's `model` names.
const trained_model& need_model(const show_item& item);

// A sequence of the item: its token ids, each token's label (the item's `labels`,
// one per vocabulary id, or the id itself) and each position's label ("0₆").
struct sequence {
    const trained_model* model = nullptr;
    std::vector<int> ids;                    // [P]
    std::vector<std::string> vocab;          // [vocab_size]
    std::vector<std::string> at;             // [P] label + position
    std::string words() const;
};

// The sequence in the item's `key` (default "tokens"); `extra` = 1: one token more than
// the model's positions may be given, a target only.
sequence need_sequence(const show_item& item, const std::string& key = "tokens", std::size_t extra = 0);

}  // namespace attn::lessons::show
