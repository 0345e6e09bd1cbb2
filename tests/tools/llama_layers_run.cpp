// tests/tools/llama_layers_run.cpp — a test-only executable (never installed, no verb):
// runs one layer of model/llama_layers, forward then backward, on .npy files a Python
// test wrote, and writes the results as .npy beside them, so that
// tests/python/test_model_llama_layers.py can hold them against PyTorch autograd.
//
//   llama_layers_run LAYER DIR [key=value …]
//     rmsnorm    x [N,C], w [C], dout [N,C]; eps              → out normalized rstd dx dw
//     rotary     x [B,T,H,dh], dout; theta dims pairing pos0  → out dx
//     attention  q [B,T,H,dh], k, v [B,T,KV,dh], dz          → z scores pattern dq dk dv dscores dpattern
//     decode     q, k, v as attention; theta dims pairing     → rot_q z pattern (row by row, KV cache)
//     swiglu     x [N,C], w_gate, w_up [C,F], w_down [F,C], b_gate b_up [F], b_down [C] (each bias
//                optional: read when its file exists), dout [N,C] → out gate up post dx dw_* db_*
//   threads=N (all layers): training::set_threads(N) first.
// The element type is the inputs' (float32 or float64, '<f4' / '<f8'). Exit 2 with a
// message on a bad file or argument.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/llama_layers.hpp"
#include "npy_io.hpp"
#include "model/train_layers.hpp"

namespace {

namespace ll = attn::model::llama;
using test_tools::fail;
using test_tools::npy;
using test_tools::read_npy;
using test_tools::write_npy;

struct job {
    std::string dir;
    std::map<std::string, std::string> args;
    bool f32 = false;
    bool has(const std::string& name) const { return std::ifstream(dir + "/" + name + ".npy").good(); }
    npy in(const std::string& name) const { return read_npy(dir + "/" + name + ".npy"); }
    double num(const std::string& key, double fallback) const {
        auto it = args.find(key);
        return it == args.end() ? fallback : std::stod(it->second);
    }
    template <class T>
    std::vector<T> load(const std::string& name, std::vector<std::size_t>* shape = nullptr) const {
        const npy a = in(name);
        if (a.f32 != (sizeof(T) == 4)) fail(name + ".npy: its element type differs from the first input's");
        if (shape) *shape = a.shape;
        return std::vector<T>(a.data.begin(), a.data.end());
    }
    template <class T>
    void save(const std::string& name, const std::vector<T>& data, const std::vector<std::size_t>& shape) const {
        write_npy(dir + "/" + name + ".npy", data, shape);
    }
    ll::rotary_spec rotary() const {
        ll::rotary_spec s;
        s.theta = num("theta", 10000.0);
        s.dims = static_cast<std::size_t>(num("dims", 0));
        auto it = args.find("pairing");
        s.pairing = it != args.end() && it->second == "adjacent" ? ll::rotary_pairing::adjacent
                                                                  : ll::rotary_pairing::half_split;
        return s;
    }
};

template <class T>
void run_rmsnorm(const job& j) {
    std::vector<std::size_t> xs;
    const auto x = j.load<T>("x", &xs), w = j.load<T>("w"), dout = j.load<T>("dout");
    const std::size_t C = xs.back(), N = x.size() / C;
    std::vector<T> out(N * C), normalized(N * C), rstd(N), dx(N * C, T(0)), dw(C, T(0));
    ll::rms_norm_forward(out.data(), normalized.data(), rstd.data(), x.data(), w.data(), N, C, j.num("eps", 1e-5));
    ll::rms_norm_backward(dx.data(), dw.data(), dout.data(), x.data(), w.data(), rstd.data(), N, C);
    j.save("out", out, xs);
    j.save("normalized", normalized, xs);
    j.save("rstd", rstd, {N});
    j.save("dx", dx, xs);
    j.save("dw", dw, {C});
}

template <class T>
void run_rotary(const job& j) {
    std::vector<std::size_t> xs;
    const auto x = j.load<T>("x", &xs), dout = j.load<T>("dout");
    const std::size_t B = xs[0], Tn = xs[1], H = xs[2], dh = xs[3], pos0 = static_cast<std::size_t>(j.num("pos0", 0));
    const auto tab = ll::make_rotary_table(j.rotary(), dh, pos0 + Tn);
    std::vector<T> out(x.size()), dx(x.size(), T(0));
    ll::rotary_forward(out.data(), x.data(), tab, B, Tn, H, pos0);
    ll::rotary_backward(dx.data(), dout.data(), tab, B, Tn, H, pos0);
    j.save("out", out, xs);
    j.save("dx", dx, xs);
}

template <class T>
void run_attention(const job& j) {
    std::vector<std::size_t> qs, ks;
    const auto q = j.load<T>("q", &qs), k = j.load<T>("k", &ks), v = j.load<T>("v"), dz = j.load<T>("dz");
    const std::size_t B = qs[0], Tn = qs[1], H = qs[2], dh = qs[3], KV = ks[2];
    const std::vector<std::size_t> maps{B, H, Tn, Tn};
    std::vector<T> z(q.size()), scores(B * H * Tn * Tn), pattern(scores.size()), dscores(scores.size()),
        dpattern(scores.size()), dq(q.size(), T(0)), dk(k.size(), T(0)), dv(k.size(), T(0));
    ll::gqa_attention_forward(z.data(), scores.data(), pattern.data(), q.data(), k.data(), v.data(), B, Tn, H, KV, dh);
    ll::gqa_attention_backward(dq.data(), dk.data(), dv.data(), dscores.data(), dpattern.data(), dz.data(), q.data(),
                               k.data(), v.data(), pattern.data(), B, Tn, H, KV, dh);
    j.save("z", z, qs);
    j.save("scores", scores, maps);
    j.save("pattern", pattern, maps);
    j.save("dscores", dscores, maps);
    j.save("dpattern", dpattern, maps);
    j.save("dq", dq, qs);
    j.save("dk", dk, ks);
    j.save("dv", dv, ks);
}

// Token by token through the KV cache; row t of each output from step t.
template <class T>
void run_decode(const job& j) {
    std::vector<std::size_t> qs, ks;
    const auto q = j.load<T>("q", &qs), k = j.load<T>("k", &ks), v = j.load<T>("v");
    const std::size_t B = qs[0], Tn = qs[1], H = qs[2], dh = qs[3], KV = ks[2];
    const auto tab = ll::make_rotary_table(j.rotary(), dh, Tn);
    auto cache = ll::make_kv_cache<T>(B, Tn, KV, dh);
    std::vector<T> rot_q(q.size()), z(q.size()), pattern(B * H * Tn * Tn, T(0));
    std::vector<T> qt(B * H * dh), kt(B * KV * dh), vt(B * KV * dh), zt(B * H * dh), rt(B * H * dh),
        st(B * H * Tn), at(B * H * Tn);
    // Copies n values from src + from to dst + to.
    const auto copy = [](const std::vector<T>& src, std::size_t from, std::vector<T>& dst, std::size_t to,
                         std::size_t n) { std::copy(src.data() + from, src.data() + from + n, dst.data() + to); };
    for (std::size_t t = 0; t < Tn; ++t) {
        for (std::size_t b = 0; b < B; ++b) {
            copy(q, (b * Tn + t) * H * dh, qt, b * H * dh, H * dh);
            copy(k, (b * Tn + t) * KV * dh, kt, b * KV * dh, KV * dh);
            copy(v, (b * Tn + t) * KV * dh, vt, b * KV * dh, KV * dh);
        }
        ll::gqa_decode_step(zt.data(), st.data(), at.data(), rt.data(), cache, qt.data(), kt.data(), vt.data(), tab, H);
        for (std::size_t b = 0; b < B; ++b) {
            copy(zt, b * H * dh, z, (b * Tn + t) * H * dh, H * dh);
            copy(rt, b * H * dh, rot_q, (b * Tn + t) * H * dh, H * dh);
            for (std::size_t h = 0; h < H; ++h)
                copy(at, (b * H + h) * (t + 1), pattern, ((b * H + h) * Tn + t) * Tn, t + 1);
        }
    }
    j.save("rot_q", rot_q, qs);
    j.save("z", z, qs);
    j.save("pattern", pattern, {B, H, Tn, Tn});
}

template <class T>
void run_swiglu(const job& j) {
    std::vector<std::size_t> xs, gs;
    const auto x = j.load<T>("x", &xs), wg = j.load<T>("w_gate", &gs), wu = j.load<T>("w_up"),
               wd = j.load<T>("w_down"), dout = j.load<T>("dout");
    const std::size_t C = gs[0], F = gs[1], N = x.size() / C;
    std::vector<T> bg, bu, bd;
    ll::swiglu_weights<T> w{wg.data(), nullptr, wu.data(), nullptr, wd.data(), nullptr};
    if (j.has("b_gate")) w.b_gate = (bg = j.load<T>("b_gate")).data();
    if (j.has("b_up")) w.b_up = (bu = j.load<T>("b_up")).data();
    if (j.has("b_down")) w.b_down = (bd = j.load<T>("b_down")).data();
    std::vector<T> out(N * C), gate(N * F), up(N * F), post(N * F), dx(N * C, T(0)), scratch(3 * N * F);
    std::vector<T> dwg(C * F, T(0)), dwu(C * F, T(0)), dwd(F * C, T(0)), dbg(F, T(0)), dbu(F, T(0)), dbd(C, T(0));
    ll::swiglu_grads<T> g{dwg.data(), w.b_gate ? dbg.data() : nullptr, dwu.data(), w.b_up ? dbu.data() : nullptr,
                          dwd.data(), w.b_down ? dbd.data() : nullptr};
    ll::swiglu_forward(out.data(), gate.data(), up.data(), post.data(), x.data(), w, N, C, F);
    ll::swiglu_backward(dx.data(), g, scratch.data(), dout.data(), x.data(), gate.data(), up.data(), post.data(), w, N,
                        C, F);
    j.save("out", out, xs);
    j.save("gate", gate, {N, F});
    j.save("up", up, {N, F});
    j.save("post", post, {N, F});
    j.save("dx", dx, xs);
    j.save("dw_gate", dwg, {C, F});
    j.save("dw_up", dwu, {C, F});
    j.save("dw_down", dwd, {F, C});
    if (w.b_gate) j.save("db_gate", dbg, {F});
    if (w.b_up) j.save("db_up", dbu, {F});
    if (w.b_down) j.save("db_down", dbd, {C});
}

template <class T>
void run(const std::string& layer, const job& j) {
    if (layer == "rmsnorm") return run_rmsnorm<T>(j);
    if (layer == "rotary") return run_rotary<T>(j);
    if (layer == "attention") return run_attention<T>(j);
    if (layer == "decode") return run_decode<T>(j);
    if (layer == "swiglu") return run_swiglu<T>(j);
    fail("unknown layer " + layer + " (rmsnorm, rotary, attention, decode, swiglu)");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (argc < 3) fail("usage: llama_layers_run LAYER DIR [key=value …]");
        job j;
        const std::string layer = argv[1];
        j.dir = argv[2];
        for (int i = 3; i < argc; ++i) {
            const std::string a = argv[i];
            const auto eq = a.find('=');
            if (eq == std::string::npos) fail("expected key=value, found " + a);
            j.args[a.substr(0, eq)] = a.substr(eq + 1);
        }
        attn::model::training::set_threads(static_cast<unsigned>(j.num("threads", 1)));
        const std::string first = layer == "attention" || layer == "decode" ? "q" : "x";
        if (read_npy(j.dir + "/" + first + ".npy").f32)
            run<float>(layer, j);
        else
            run<double>(layer, j);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "llama_layers_run: " << e.what() << "\n";
        return 2;
    }
}
