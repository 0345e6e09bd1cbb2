// trace/stage_quantities.cpp — see stage_quantities.hpp: the only place their words are written.
#include "trace/stage_quantities.hpp"

namespace attn::trace {

const char* quantity_word(stage_quantity q) {
    switch (q) {
        case stage_quantity::scale: return "scale";
        case stage_quantity::argmax: return "argmax";
    }
    return "?";
}

}  // namespace attn::trace
