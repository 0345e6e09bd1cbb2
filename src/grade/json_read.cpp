// grade/json_read.cpp — see json_read.hpp: io::json_scan walks the text, this builds
// the answer tree from it with the line:column of every value (columns count
// characters, 1-based, as toml++ does).
#include "grade/json_read.hpp"

#include <cmath>
#include <limits>

#include "io/json_scan.hpp"
#include "io/text_position.hpp"

#include "grade/submission.hpp"

namespace attn::grade {

namespace {

struct json_builder {
    io::json_scan& js;
    io::text_position lines;  // values come in file order: the text is counted once

    answer_value value() {
        using t = answer_value::type;
        answer_value v;
        const char c = js.peek();
        v.where = lines.to(js.pos());
        if (c == '{') {
            v.kind = t::table;
            js.object([&](const std::string& key, std::size_t) { v.fields.emplace_back(key, value()); });
        } else if (c == '[') {
            v.kind = t::array;
            js.array([&](std::size_t) { v.items.push_back(value()); });
        } else if (c == '"') {
            v.kind = t::string;
            v.text = js.string_value();
        } else if (!word(v)) {
            if (c != '-' && !(c >= '0' && c <= '9'))
                js.fail_at(js.pos(), "expected a value (number, string, array, object, true, false or null), found " +
                                         js.found_char());
            v.kind = t::number;
            v.number = js.number_value(false);
        }
        return v;
    }

    // true, false, null, and NaN, Infinity and -Infinity as Python's json module writes
    // them (json.dump's default allow_nan=True): not standard JSON, but what students'
    // code produces. -Infinity is tried before a number's '-'.
    bool word(answer_value& v) {
        using t = answer_value::type;
        const double inf = std::numeric_limits<double>::infinity();
        const struct {
            const char* text;
            t kind;
            double number;
            bool flag;
        } words[] = {{"NaN", t::number, std::numeric_limits<double>::quiet_NaN(), false}, {"Infinity", t::number, inf, false},
                     {"-Infinity", t::number, -inf, false}, {"true", t::boolean, 0.0, true},
                     {"false", t::boolean, 0.0, false}, {"null", t::null, 0.0, false}};
        for (const auto& w : words) {
            if (!js.literal(w.text)) continue;
            v.kind = w.kind;
            v.number = w.number;
            v.flag = w.flag;
            return true;
        }
        return false;
    }
};

}  // namespace

answer_value parse_json_answer(const std::string& text, const std::string& file) {
    const auto place = [&](std::size_t at) { return io::position_in(file, text, at); };
    io::json_scan js(
        text, [&](std::size_t at, const std::string& message) {
            throw submission_error("syntax", place(at), place(at).str() + ": JSON syntax: " + message);
        },
        [&](std::size_t at) { return place(at).str(); });
    json_builder b{js, io::text_position(file, text)};
    answer_value v = b.value();
    js.finish();
    return v;
}

}  // namespace attn::grade
