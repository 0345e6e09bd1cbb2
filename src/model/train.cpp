// model/train.cpp — one training step at a time (see the header).
#include "model/train.hpp"

#include "model/train_layers.hpp"

namespace attn::model {

void set_train_threads(unsigned threads) { training::set_threads(threads); }

std::uint64_t init_seed(std::uint64_t seed) { return combine_seed(seed, 1); }
std::uint64_t data_seed(std::uint64_t seed) { return combine_seed(seed, 2); }

template <class T>
trainer<T>::trainer(const train_task& task, const train_options& options, model_params<T> initial)
    : task_(task),
      options_(options),
      params_(std::move(initial)),
      grads_(zero_params<T>(params_.config)),
      opt_(options.optim, params_.config),
      acts_(make_train_acts<T>(params_.config, options.batch, task.seq_len)),
      grad_acts_(make_train_acts<T>(params_.config, options.batch, task.seq_len)),
      tokens_(options.batch * task.seq_len),
      targets_(options.batch * task.seq_len),
      data_rng_(data_seed(options.seed)) {
    own_params(params_);  // --init's checkpoint may be views of its file: writable copies, before any thread writes
}

template <class T>
void trainer<T>::next_batch() {
    if (!options_.sequential || task_.lines.empty()) {
        task_.fill_batch(data_rng_, tokens_.data(), targets_.data(), options_.batch);
        return;
    }
    const std::size_t L = task_.seq_len;
    for (std::size_t b = 0; b < options_.batch; ++b) {
        task_.fill_line(task_.lines[next_line_], tokens_.data() + b * L, targets_.data() + b * L);
        next_line_ = (next_line_ + 1) % task_.lines.size();
    }
}

template <class T>
double trainer<T>::forward_backward() {
    next_batch();
    const double loss = train_forward(params_, acts_, tokens_.data(), targets_.data());
    train_backward(params_, grads_, acts_, grad_acts_, tokens_.data(), targets_.data());
    return loss;
}

template <class T>
void trainer<T>::update() {
    last_norm_ = opt_.step(params_, grads_);
}

template <class T>
const train_acts<T>& trainer<T>::probe(const std::vector<std::int32_t>& tokens,
                                       const std::vector<std::int32_t>& targets, std::size_t B, double* loss) {
    if (probe_.B != B || probe_.Tn != task_.seq_len) probe_ = make_train_acts<T>(params_.config, B, task_.seq_len);
    const double l = train_forward(params_, probe_, tokens.data(), targets.data());
    if (loss != nullptr) *loss = l;
    return probe_;
}

template class trainer<float>;
template class trainer<double>;

}  // namespace attn::model
