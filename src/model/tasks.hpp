// model/tasks.hpp — what `attn model train` learns: batches of token sequences with
// their targets (the next token, or −1 where no loss is taken), and each task's
// default model.
//
//   sort       minGPT's demo: 6 digits from {0, 1, 2}, then the same digits sorted;
//              the model is fed the first 11 tokens and scored only on the sorted half
//              (the first 5 targets are −1). 3 layers, 3 heads, d_model 48, untied.
//              Wider (make_digits_task): N digits from {0 … B − 1} (minGPT's
//              SortDataset(length=N, num_digits=B)), 2N − 1 tokens fed, N − 1 targets −1.
//   reverse    the same, the second half the input reversed.
//   copy       the same, the second half the input again.
//   induction  BOS (token 0), a prefix of p tokens, a block of L = 4 … 12 uniformly
//              random tokens from 1 … 63, the block again, then tokens to 33 in all;
//              L and p drawn per sequence. The prefix and the end come from a chain:
//              each token is one of 8 followers (a fixed random table) of the token
//              two before it, so a previous-token head pays off on its own. Only
//              finding the current token's earlier occurrence and copying the token
//              after it (an induction head) predicts the copy. 2 layers of 1 head,
//              d_model 64, attention only, 8,000 steps with the learning rate decayed
//              along a cosine; every position scored.
//   --data F   sequences read from a file (one per line, tokens as non-negative
//              integers separated by spaces or commas; '#' starts a comment; one '|'
//              may mark where the scored part starts: "2 0 1 | 0 1 2" scores only the
//              predictions of 0 1 2); a batch draws lines at random (or in order);
//              shorter lines are padded with ignored targets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/prng.hpp"
#include "model/params.hpp"

namespace attn::model {

struct train_task {
    std::string name;                          // "sort", or the data file's path
    std::size_t vocab_size = 0;
    std::size_t seq_len = 0;                   // tokens fed per sequence (T)
    std::size_t digits = 0;                    // sort/reverse/copy: the input's length
    std::size_t block = 0;                     // induction: the repeated block's longest length
    std::size_t min_block = 0;                 // induction: its shortest
    std::size_t followers = 0;                 // induction: tokens that may come two after a token
    std::vector<std::int32_t> follow;          // induction: [vocab_size, followers], fixed
    architecture model;                          // the default model (vocab and positions set)
    double lr = 5e-4;                          // the default learning rate (induction: 2e-3)
    std::size_t iters = 2000;                  // the default training steps (induction: 8,000)
    bool cosine = false;                       // the default decay of the learning rate (induction: on)
    struct data_line {
        std::vector<std::int32_t> tokens;
        std::size_t score_from = 1;  // the first token whose prediction is scored
    };
    std::vector<data_line> lines;  // --data: the sequences read

    // One data line's tokens and targets [seq_len] (padding: token 0, target −1).
    void fill_line(const data_line& line, std::int32_t* tokens, std::int32_t* targets) const;

    // One batch: tokens and targets [B, seq_len], drawn with g.
    void fill_batch(prng& g, std::int32_t* tokens, std::int32_t* targets, std::size_t B) const;
    // induction: one sequence's tokens and targets [seq_len].
    void fill_induction(prng& g, std::int32_t* tokens, std::int32_t* targets) const;
};

// The built-in tasks by name; throws std::invalid_argument naming the known ones.
train_task make_task(const std::string& name);
// sort, reverse or copy on `digits` digits from {0 … base − 1} (make_task's: 6 and 3);
// throws attn::error for another task, or digits outside 1 … max_task_digits, base
// outside 2 … max_task_base.
train_task make_digits_task(const std::string& name, std::size_t digits, std::size_t base);
constexpr std::size_t max_task_digits = 512, max_task_base = 65536;
// A task from a file of sequences (io/input_read); throws io::input_error with file:line:col.
train_task load_data_task(const std::string& path);

// The names of the built-in tasks, for help texts.
const std::vector<std::string>& task_names();

// A task's whole sequence for an input, for documentation and tests: sort's
// {2, 0, 1, 1, 0, 2} → {2,0,1,1,0,2, 0,0,1,1,2,2}; induction's block {3, 5, 7} → BOS
// and the block twice, {0, 3,5,7, 3,5,7} (the form the head detector scores).
std::vector<std::int32_t> task_sequence(const train_task& task, const std::vector<std::int32_t>& input);

}  // namespace attn::model
