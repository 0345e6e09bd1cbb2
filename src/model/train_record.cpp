// model/train_record.cpp — the loss history and the kept steps of a training run, to and
// from a checkpoint's __metadata__ (see the header for the format).
#include "model/train_record.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "model/file_error.hpp"

namespace attn::model {

namespace {

constexpr std::size_t max_loss_entries = 10000;

// The step list comes from the command line: its errors name the option as their place.
const source_pos keep_steps_place{"--keep-steps"};

// A whole decimal number of at most 12 digits; false for anything else.
bool parse_count(const std::string& s, std::size_t& out) {
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = static_cast<std::size_t>(std::stoull(s));
    return true;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) parts.push_back(s.substr(start, i - start)), start = i + 1;
    return parts;
}

[[noreturn]] void bad(const std::string& file, const std::string& key, const std::string& what) {
    throw file_error("invalid", file, 8, "__metadata__ \"" + key + "\": " + what);
}

std::vector<double> parse_losses(const std::string& text, const std::string& file) {
    std::vector<double> out;
    if (text.empty()) return out;
    for (const auto& part : split(text, ' ')) {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(part.c_str(), &end);
        if (part.empty() || end != part.c_str() + part.size() || errno != 0 || !std::isfinite(v))
            bad(file, "attn.losses", "expected finite numbers separated by spaces, found '" + shown(part) + "'");
        out.push_back(v);
    }
    return out;
}

}  // namespace

std::string kept_step_path(const std::string& out, std::size_t step) {
    static const std::string ext = ".safetensors";
    const bool has_ext = out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0;
    const std::string stem = has_ext ? out.substr(0, out.size() - ext.size()) : out;
    return stem + ".step" + std::to_string(step) + (has_ext ? ext : "");
}

std::vector<std::size_t> parse_step_list(const std::string& text, std::size_t max_step) {
    std::vector<std::size_t> steps;
    for (const auto& part : split(text, ',')) {
        std::size_t s = 0;
        if (!parse_count(part, s))
            throw attn::error(keep_steps_place, "expected steps separated by commas like 0,100,500,2000, found '" + shown(part) + "'");
        if (s > max_step)
            throw attn::error(keep_steps_place, "step " + std::to_string(s) + " is beyond the last step, " + std::to_string(max_step));
        steps.push_back(s);
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    return steps;
}

std::size_t loss_every_for(std::size_t iters) { return std::max<std::size_t>(1, (iters + max_loss_entries - 1) / max_loss_entries); }

std::string encode_losses(const std::vector<double>& losses, std::size_t every) {
    std::string out;
    char buf[32];
    for (std::size_t i = 0; i < losses.size(); i += every) {
        const std::size_t n = std::min(every, losses.size() - i);
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += losses[i + j];
        std::snprintf(buf, sizeof buf, "%.9g", sum / static_cast<double>(n));
        if (!out.empty()) out += ' ';
        out += buf;
    }
    return out;
}

std::string encode_steps(const std::vector<std::size_t>& steps) {
    std::string out;
    for (const auto s : steps) out += (out.empty() ? "" : ",") + std::to_string(s);
    return out;
}

train_record read_train_record(const checkpoint_info& info, const std::string& file) {
    train_record r;
    const auto get = [&](const char* key) -> const std::string* {
        const auto it = info.metadata.find(key);
        return it == info.metadata.end() ? nullptr : &it->second;
    };
    if (const auto* s = get("attn.steps"); s && !parse_count(*s, r.steps)) bad(file, "attn.steps", "expected a step count");
    if (const auto* s = get("attn.losses_every"); s && (!parse_count(*s, r.loss_every) || r.loss_every == 0))
        bad(file, "attn.losses_every", "expected a whole number of at least 1");
    if (const auto* s = get("attn.losses")) r.losses = parse_losses(*s, file);
    if (const auto* s = get("attn.kept_steps"); s && !s->empty()) {
        for (const auto& part : split(*s, ',')) {
            std::size_t step = 0;
            if (!parse_count(part, step) || (!r.kept_steps.empty() && step <= r.kept_steps.back()))
                bad(file, "attn.kept_steps", "expected ascending steps separated by commas, found '" + shown(part) + "'");
            r.kept_steps.push_back(step);
        }
    }
    return r;
}

}  // namespace attn::model
