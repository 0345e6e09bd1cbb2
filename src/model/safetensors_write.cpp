// model/safetensors_write.cpp — writing a safetensors file (see write_safetensors in
// safetensors.hpp): the JSON header built here, the bytes streamed through
// io::staged_file, which puts the file in place only when it is complete.
#include <stdexcept>

#include "core/internal_error.hpp"
#include "io/output_writer.hpp"
#include "model/safetensors.hpp"

namespace attn::model {

namespace {

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') out += '\\', out += ch;
        else if (c < 0x20) {
            const char* hex = "0123456789abcdef";
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

// The header text, padded with spaces to a multiple of 8 bytes; fills the byte count.
std::string header_text(const std::string& dtype, const std::vector<st_out>& tensors,
                        const std::map<std::string, std::string>& metadata, std::uint64_t& data_bytes) {
    const std::size_t es = dtype_size(dtype);
    std::string h = "{";
    if (!metadata.empty()) {
        h += "\"__metadata__\":{";
        bool first = true;
        for (const auto& [k, v] : metadata) h += (first ? "" : ",") + json_string(k) + ":" + json_string(v), first = false;
        h += "}";
    }
    data_bytes = 0;
    for (const auto& t : tensors) {
        std::uint64_t count = 1;
        std::string shape;
        for (const auto d : t.shape) count *= d, shape += (shape.empty() ? "" : ",") + std::to_string(d);
        const std::uint64_t end = data_bytes + count * es;
        h += (h.size() > 1 ? "," : "") + json_string(t.name) + ":{\"dtype\":\"" + dtype + "\",\"shape\":[" + shape +
             "],\"data_offsets\":[" + std::to_string(data_bytes) + "," + std::to_string(end) + "]}";
        data_bytes = end;
    }
    h += "}";
    while (h.size() % 8 != 0) h += ' ';
    return h;
}

}  // namespace

void write_safetensors(const std::string& path, const std::string& dtype, const std::vector<st_out>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    if (dtype != "F32" && dtype != "F64") throw internal_error("write_safetensors: dtype F32 or F64, not " + dtype);
    std::uint64_t data_bytes = 0;
    const std::string header = header_text(dtype, tensors, metadata, data_bytes);
    unsigned char len[8];
    for (int k = 0; k < 8; ++k) len[k] = static_cast<unsigned char>(static_cast<std::uint64_t>(header.size()) >> (8 * k));
    io::staged_file out(path);  // checks the target: never an input, a symlink or a special file
    out.write(len, 8);
    out.write(header);
    const std::size_t es = dtype_size(dtype);
    for (const auto& t : tensors) {
        std::uint64_t count = 1;
        for (const auto d : t.shape) count *= d;
        out.write(t.data, count * es);
    }
    out.commit();
}

}  // namespace attn::model
