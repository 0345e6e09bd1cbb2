// model/train.hpp — the training loop's state: a model, its optimiser, a task and
// the buffers of one batch, advanced one step at a time so the caller (cli/model_train)
// can draw progress, watch a head and stop cleanly between steps.
//
// One step: draw a batch (the task's generator, or the data file's lines), forward,
// backward, clip, AdamW. Nothing is allocated after construction. Deterministic: the
// seed decides the initial weights (init_params with combine_seed(seed, 1)) and the
// batches (combine_seed(seed, 2)); every loop runs in a fixed order.
#pragma once

#include <cstdint>
#include <vector>

#include "core/prng.hpp"
#include "model/adamw.hpp"
#include "model/params.hpp"
#include "model/tasks.hpp"
#include "model/train_step.hpp"

namespace attn::model {

struct train_options {
    std::size_t iters = 2000;
    std::size_t batch = 64;
    std::uint64_t seed = 1;
    adamw_config optim;       // lr, betas, weight decay, clip, schedule
    bool sequential = false;  // --data: batches take the lines in order (else at random)
};

template <class T>
class trainer {
public:
    // Starts from `initial` (init_params of the seed, or a checkpoint's weights).
    trainer(const train_task& task, const train_options& options, model_params<T> initial);

    // One step; returns the batch's mean loss (before the update).
    double step() {
        const double loss = forward_backward();
        update();
        return loss;
    }
    // The step's two halves: draw a batch, forward and backward (grads() then holds the
    // gradients, not yet clipped); then clip and update.
    double forward_backward();
    void update();

    std::size_t steps_done() const { return opt_.steps_done(); }
    const model_params<T>& params() const { return params_; }
    const model_params<T>& grads() const { return grads_; }
    const train_acts<T>& acts() const { return acts_; }
    const train_acts<T>& grad_acts() const { return grad_acts_; }
    double last_norm() const { return last_norm_; }

    // A fixed batch's loss and head patterns under the current weights (the watch view
    // and the lessons): runs the forward on `tokens` [B, seq_len] into probe buffers.
    const train_acts<T>& probe(const std::vector<std::int32_t>& tokens, const std::vector<std::int32_t>& targets,
                               std::size_t B, double* loss);

private:
    void next_batch();

    const train_task& task_;
    train_options options_;
    model_params<T> params_, grads_;
    adamw<T> opt_;
    train_acts<T> acts_, grad_acts_, probe_;
    std::vector<std::int32_t> tokens_, targets_;  // [B, seq_len]
    prng data_rng_;
    std::size_t next_line_ = 0;
    double last_norm_ = 0;
};

// The threads of the matrix products (core/matmul); results do not depend on it.
void set_train_threads(unsigned threads);

// The seeds of the two streams (exposed so tests and docs can say what a seed does).
std::uint64_t init_seed(std::uint64_t seed);
std::uint64_t data_seed(std::uint64_t seed);

}  // namespace attn::model
