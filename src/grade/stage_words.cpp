// grade/stage_words.cpp — see stage_words.hpp: the words, copied once from the
// tracer's table.
#include "grade/stage_words.hpp"

#include <map>

namespace attn::grade::stage_word {

const std::string& of(trace::stage s) {
    static const std::map<trace::stage, std::string> words = [] {
        std::map<trace::stage, std::string> m;
        for (const auto& i : trace::all_stages()) m[i.id] = i.alias;
        return m;
    }();
    return words.at(s);
}

const std::string& of(trace::stage_quantity q) {
    static const std::string scale_word = trace::quantity_word(trace::stage_quantity::scale);
    static const std::string argmax_word = trace::quantity_word(trace::stage_quantity::argmax);
    return q == trace::stage_quantity::scale ? scale_word : argmax_word;
}

}  // namespace attn::grade::stage_word
