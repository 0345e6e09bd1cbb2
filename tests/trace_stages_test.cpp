// tests/trace_stages_test.cpp — what one head's matrix of a stage runs along, read off
// the stage table's export axes, against the shapes docs/trace.md's table gives by hand.
#include <catch2/catch.hpp>

#include "core/stages.hpp"

using namespace attn;

TEST_CASE("a stage's matrix runs along queries or keys and its last export axis", "[trace][stages]") {
    struct want {
        stage s;
        const char* rows;
        const char* cols;
    };
    for (const want& w : {want{stage::q, "query_pos", "d_head"}, want{stage::k, "key_pos", "d_head"},
                          want{stage::v, "key_pos", "d_head_v"}, want{stage::weights, "query_pos", "key_pos"},
                          want{stage::z, "query_pos", "d_head_v"}, want{stage::attn_out, "query_pos", "d_model"},
                          want{stage::rot_k, "key_pos", "d_head"}, want{stage::grad_v, "key_pos", "d_head_v"},
                          want{stage::tiled_running_max, "query_pos", "block"},
                          want{stage::tiled_partial_output, "query_pos", "d_head_v"}}) {
        INFO(stage_info_of(w.s).hook);
        const matrix_axes a = matrix_axes_of(w.s);
        CHECK(a.rows == w.rows);
        CHECK(a.cols == w.cols);
    }
}
