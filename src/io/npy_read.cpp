// io/npy_read.cpp — see npy_read.hpp. xtensor's reader does the parsing; this
// file checks what it found (dtype, order, rank, length) before trusting it.
#include "io/npy_read.hpp"

#include <fstream>

#include <xtensor/xnpy.hpp>

namespace attn::io {

namespace {

template <class T>
void copy_out(xt::detail::npy_file& f, nd_array& out) {
    auto a = f.cast<T>(false);  // [shape] C order, checked by the caller
    out.data.resize(out.size());
    for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] = static_cast<double>(a.data()[i]);
}

}  // namespace

nd_array read_npy(const std::string& path, const npy_options& options) {
    const source_pos at{path, 0, 0};
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(at, "cannot open the .npy file (does it exist?)");
    xt::detail::npy_file f = [&] {
        try {
            return xt::detail::load_npy_file(in);
        } catch (const std::exception& e) {
            throw input_error(at, std::string("not a readable .npy file (") + e.what() + ")");
        }
    }();
    nd_array out;
    out.origin = path;
    out.shape = f.m_shape;
    if (!in) throw input_error(at, "the .npy file is truncated: its header promises " + out.shape_text() + " of " +
                                       f.m_typestring + " but the data ends early");
    if (f.m_fortran_order)
        throw input_error(at, "the array is stored in Fortran order; expected C order "
                              "(save numpy.ascontiguousarray(a) instead)");
    if (out.shape.empty() || out.shape.size() > 3)
        throw input_error(at, "expected an array of rank 1 to 3, found rank " + std::to_string(out.shape.size()));
    const std::string& t = f.m_typestring;
    if (t == "<f8") {
        copy_out<double>(f, out);
    } else if (t == "<f4") {
        copy_out<float>(f, out);
    } else if (t == "|b1" && options.allow_bool) {
        copy_out<bool>(f, out);
    } else {
        throw input_error(at, "expected dtype float64 ('<f8') or float32 ('<f4')" +
                                  std::string(options.allow_bool ? " or bool ('|b1')" : "") + ", found '" + t +
                                  "' (convert with a.astype(numpy.float64))");
    }
    return out;
}

}  // namespace attn::io
