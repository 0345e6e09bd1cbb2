// trace/stage_words.cpp — see stage_words.hpp: the only place the quantities' words are
// written; the stages' words are copied once from the table in stages.cpp.
#include "trace/stage_words.hpp"

#include <map>

namespace attn::trace {

const char* quantity_word(stage_quantity q) {
    switch (q) {
        case stage_quantity::scale: return "scale";
        case stage_quantity::argmax: return "argmax";
    }
    return "?";
}

namespace stage_word {

const std::string& of(stage s) {
    static const std::map<stage, std::string> words = [] {
        std::map<stage, std::string> m;
        for (const auto& i : all_stages()) m[i.id] = i.alias;
        return m;
    }();
    return words.at(s);
}

const std::string& of(stage_quantity q) {
    static const std::string scale_word = quantity_word(stage_quantity::scale);
    static const std::string argmax_word = quantity_word(stage_quantity::argmax);
    return q == stage_quantity::scale ? scale_word : argmax_word;
}

}  // namespace stage_word

}  // namespace attn::trace
