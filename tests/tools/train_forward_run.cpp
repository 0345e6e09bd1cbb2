// tests/tools/train_forward_run.cpp — a test-only executable (never installed, no verb):
// runs model/train_step's forward and backward on a whole model whose parameters a Python
// test wrote as .npy files, and writes every stage, every stage's gradient and every
// parameter's gradient beside them, so that tests/python/test_model_train_llama.py can
// hold them against an independent PyTorch forward and autograd.
//
//   train_forward_run DIR family=llama layers=2 heads=4 kv_heads=2 d_model=16 vocab=11
//                     positions=8 d_mlp=24 [eps= theta= rotary_dims= pairing=adjacent|half_split
//                     qkv_bias=0|1 tied=0|1 threads=N]
//   in DIR:  tokens.npy, targets.npy [B, T] (float64 holding integers; target −1: ignored),
//            p.NAME.npy for every parameter (for_each_param's NAME, model_params' layout [in, out];
//            its element type, float32 or float64, is the run's)
//   out DIR: s.STAGE.npy (list_stages), g.STAGE.npy (list_stages of the gradients, "grad."
//            dropped), d.NAME.npy (dLoss/dparameter), loss.npy [1]
// Exit 2 with a message on a bad file or argument.
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "model/train_layers.hpp"
#include "model/train_step.hpp"
#include "npy_io.hpp"

namespace {

using namespace attn::model;
using test_tools::fail;

struct job {
    std::string dir;
    std::map<std::string, std::string> args;
    std::string str(const std::string& key, const std::string& fallback) const {
        auto it = args.find(key);
        return it == args.end() ? fallback : it->second;
    }
    double num(const std::string& key, double fallback) const {
        auto it = args.find(key);
        return it == args.end() ? fallback : std::stod(it->second);
    }
    std::size_t size(const std::string& key) const {
        auto it = args.find(key);
        if (it == args.end()) fail("missing " + key + "=");
        return static_cast<std::size_t>(std::stoul(it->second));
    }
};

architecture config_of(const job& j) {
    const architecture_row* row = find_architecture(j.str("family", "llama"));
    if (row == nullptr) fail("unknown family " + j.str("family", ""));
    architecture c = row->defaults;
    c.n_layer = j.size("layers");
    c.n_head = j.size("heads");
    c.n_kv_head = static_cast<std::size_t>(j.num("kv_heads", 0));
    c.n_embd = j.size("d_model");
    c.vocab_size = j.size("vocab");
    c.n_positions = j.size("positions");
    c.mlp_width = static_cast<std::size_t>(j.num("d_mlp", 0));
    c.ln_eps = j.num("eps", c.ln_eps);
    c.rope_theta = j.num("theta", c.rope_theta);
    c.rotary_dims = static_cast<std::size_t>(j.num("rotary_dims", 0));
    if (j.args.count("pairing"))
        c.pairing = j.str("pairing", "") == "adjacent" ? rotary_pairing::adjacent : rotary_pairing::half_split;
    if (j.args.count("qkv_bias")) c.qkv_bias = j.num("qkv_bias", 0) != 0;
    if (j.args.count("tied")) c.tied = j.num("tied", 0) != 0;
    return c;
}

template <class T>
void save(const std::string& path, const T* data, const std::vector<std::size_t>& shape) {
    std::size_t n = 1;
    for (auto d : shape) n *= d;
    test_tools::write_npy(path, std::vector<T>(data, data + n), shape);
}

template <class T>
void run(const job& j, const architecture& c) {
    model_params<T> p = zero_params<T>(c);
    for_each_param(p, [&](const std::string& name, param_kind, auto& t) {
        const test_tools::npy a = test_tools::read_npy(j.dir + "/p." + name + ".npy");
        if (a.size() != t.size()) fail("p." + name + ".npy: " + std::to_string(a.size()) + " values, expected " +
                                       std::to_string(t.size()));
        std::copy(a.data.begin(), a.data.end(), t.begin());
    });
    const test_tools::npy tok = test_tools::read_npy(j.dir + "/tokens.npy"),
                          tgt = test_tools::read_npy(j.dir + "/targets.npy");
    if (tok.shape.size() != 2 || tgt.shape != tok.shape) fail("tokens and targets must be [B, T] alike");
    const std::size_t B = tok.shape[0], Tn = tok.shape[1];
    std::vector<std::int32_t> tokens(tok.data.begin(), tok.data.end()), targets(tgt.data.begin(), tgt.data.end());
    auto acts = make_train_acts<T>(c, B, Tn), grad_acts = make_train_acts<T>(c, B, Tn);
    model_params<T> grads = p;
    const double loss = train_forward(p, acts, tokens.data(), targets.data());
    train_backward(p, grads, acts, grad_acts, tokens.data(), targets.data());
    for (const auto& s : list_stages(c, acts)) save(j.dir + "/s." + s.name + ".npy", s.data, s.shape);
    for (const auto& s : list_stages(c, grad_acts, "grad."))
        save(j.dir + "/g." + s.name.substr(5) + ".npy", s.data, s.shape);
    for_each_param(grads, [&](const std::string& name, param_kind, const auto& t) {
        save(j.dir + "/d." + name + ".npy", t.data(), std::vector<std::size_t>(t.shape().begin(), t.shape().end()));
    });
    const T l = static_cast<T>(loss);
    save(j.dir + "/loss.npy", &l, {1});
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (argc < 2) fail("usage: train_forward_run DIR [key=value …]");
        job j;
        j.dir = argv[1];
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            const auto eq = a.find('=');
            if (eq == std::string::npos) fail("expected key=value, found " + a);
            j.args[a.substr(0, eq)] = a.substr(eq + 1);
        }
        training::set_threads(static_cast<unsigned>(j.num("threads", 1)));
        const architecture c = config_of(j);
        if (test_tools::read_npy(j.dir + "/p.embed.W_E.npy").f32)
            run<float>(j, c);
        else
            run<double>(j, c);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "train_forward_run: " << e.what() << "\n";
        return 2;
    }
}
