// model/train_record.hpp — what a training run records beside its weights, for the
// loss curve and for "watching attention form" (lesson 22): the loss history, kept in
// the checkpoint's __metadata__, and the weights at chosen steps (--keep-steps), each a
// checkpoint file of its own named after the final one.
//
// In __metadata__ (strings, like every safetensors metadata value):
//   attn.losses        the losses, space-separated, "%.9g"; entry i is the mean loss of
//                      steps i·k+1 … (i+1)·k (the last entry: of the steps left);
//   attn.losses_every  k (1: one entry per step);
//   attn.kept_steps    the steps whose weights were kept, comma-separated, ascending.
// Step 0 is the initial weights; step s the weights after s updates. A kept file is a
// plain checkpoint (attn model run/heads and PyTorch read it) whose attn.steps is s and
// whose attn.losses holds the losses up to s.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/checkpoint.hpp"

namespace attn::model {

// "runs/ind.safetensors", 100 → "runs/ind.step100.safetensors"; a name without the
// .safetensors extension gets ".step100" appended.
std::string kept_step_path(const std::string& out, std::size_t step);

// "0,100,500,2000" → {0, 100, 500, 2000}: sorted, duplicates dropped. Throws
// attn::error at "--keep-steps" naming what is wrong (not a number, empty, beyond max_step).
std::vector<std::size_t> parse_step_list(const std::string& text, std::size_t max_step);

// The loss entries' window: 1 for up to 10,000 steps, else enough that the history
// stays at most 10,000 entries (the header stays small whatever --iters).
std::size_t loss_every_for(std::size_t iters);

// The metadata values of the losses so far (one per step in `losses`).
std::string encode_losses(const std::vector<double>& losses, std::size_t every);
std::string encode_steps(const std::vector<std::size_t>& steps);

// The record read back from a checkpoint's metadata (read_checkpoint's info, or
// read_checkpoint_config's). A checkpoint without a record gives empty vectors;
// a malformed one throws file_error naming the file and the key.
struct train_record {
    std::size_t steps = 0;         // attn.steps
    std::size_t loss_every = 1;    // attn.losses_every
    std::vector<double> losses;    // attn.losses
    std::vector<std::size_t> kept_steps;  // attn.kept_steps
};
train_record read_train_record(const checkpoint_info& info, const std::string& file);

}  // namespace attn::model
