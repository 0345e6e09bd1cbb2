// lessons/readable_name.hpp — the words a student reads for a matrix the lesson
// file names by id: "mha.q.h1" is "Q, head 1", "post.add_norm1.residual" is
// "residual after the first Add & Norm", "Xp_oven" is "Xp oven". Tables whose
// show item gives no title or corner use these, so no internal id reaches the
// screen.
#pragma once

#include <string>

namespace attn::lessons {

std::string readable_name(const std::string& id);

}  // namespace attn::lessons
