// model/llama_threads.hpp — how model/llama_layers cuts its work (internal to those
// files): blocks whose bounds depend on the sizes only, each run whole by one of
// training::set_threads' threads (training::for_tasks), so no number depends on the
// thread count. The block sizes are train_layers'.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

#include "model/train_layers.hpp"

namespace attn::model::llama {

constexpr std::size_t row_block = 32;    // rows per block
constexpr std::size_t col_block = 16;    // columns of a weight gradient per block
constexpr std::size_t elem_block = 4096;  // elements of an elementwise pass per block

inline std::size_t count_blocks(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

// Calls body(first, last) over blocks of `block` items covering [0, n), in parallel.
inline void for_blocks(std::size_t n, std::size_t block, const std::function<void(std::size_t, std::size_t)>& body) {
    training::for_tasks(count_blocks(n, block),
                        [&](std::size_t b) { body(b * block, std::min(n, (b + 1) * block)); });
}

}  // namespace attn::model::llama
