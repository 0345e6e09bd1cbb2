// tests/tools/npy_io.hpp — NumPy .npy files for the test-only executables of tests/tools/
// (header-only; never in the product): read f4/f8 C-order arrays, widened to double, and
// write them back in either type.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_tools {

struct npy {
    bool f32 = false;
    std::vector<std::size_t> shape;
    std::vector<double> data;  // widened; written back in the file's type
    std::size_t size() const {
        std::size_t n = 1;
        for (auto d : shape) n *= d;
        return n;
    }
};

[[noreturn]] inline void fail(const std::string& what) { throw std::runtime_error(what); }

// NumPy's format 1.0–3.0, little-endian f4/f8, C order.
inline npy read_npy(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(path + ": cannot open");
    char magic[8];
    if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path + ": not a .npy file");
    std::uint32_t hlen = 0;
    unsigned char b[4] = {0, 0, 0, 0};
    const int width = magic[6] == 1 ? 2 : 4;
    if (!f.read(reinterpret_cast<char*>(b), width)) fail(path + ": truncated header");
    hlen = b[0] | (b[1] << 8) | (width == 4 ? (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24) : 0);
    std::string header(hlen, '\0');
    if (!f.read(header.data(), hlen)) fail(path + ": truncated header");
    npy a;
    if (header.find("'<f8'") != std::string::npos) a.f32 = false;
    else if (header.find("'<f4'") != std::string::npos) a.f32 = true;
    else fail(path + ": expected '<f4' or '<f8' data");
    if (header.find("'fortran_order': False") == std::string::npos) fail(path + ": expected C order");
    const auto open = header.find('(', header.find("'shape'")), close = header.find(')', open);
    std::stringstream dims(header.substr(open + 1, close - open - 1));
    for (std::string item; std::getline(dims, item, ',');)
        if (item.find_first_not_of(' ') != std::string::npos) a.shape.push_back(std::stoul(item));
    a.data.resize(a.size());
    for (auto& x : a.data) {
        if (a.f32) {
            float v = 0;
            if (!f.read(reinterpret_cast<char*>(&v), 4)) fail(path + ": truncated data");
            x = v;
        } else if (!f.read(reinterpret_cast<char*>(&x), 8)) {
            fail(path + ": truncated data");
        }
    }
    return a;
}

template <class T>
void write_npy(const std::string& path, const std::vector<T>& data, const std::vector<std::size_t>& shape) {
    std::string dims;
    for (auto d : shape) dims += std::to_string(d) + ",";
    std::string header = std::string("{'descr': '") + (sizeof(T) == 4 ? "<f4" : "<f8") +
                         "', 'fortran_order': False, 'shape': (" + dims + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream f(path, std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                  static_cast<unsigned char>(header.size() >> 8)};
    f.write(reinterpret_cast<const char*>(len), 2);
    f.write(header.data(), static_cast<std::streamsize>(header.size()));
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * sizeof(T)));
    if (!f) fail(path + ": cannot write");
}

}  // namespace test_tools
