// model/tokenizer_json_parts.cpp — reading a tokenizer.json's parts (see
// tokenizer_json_parts.hpp). An object's keys may come in any order, so each object is
// read whole into its fields first and interpreted after; unknown keys are skipped.
#include "model/tokenizer_json_parts.hpp"

#include "io/input_error.hpp"
#include "io/text_position.hpp"

namespace attn::model {

namespace {

// A pre-tokenizer or post-processor object, its fields as read.
struct step_object {
    std::string type;
    std::size_t at = 0;
    std::optional<std::string> regex;  // pattern.Regex
    bool pattern_string = false;        // pattern.String (not supported)
    std::string behavior;
    bool invert = false, add_prefix_space = false, use_regex = true;
    std::vector<step_object> children;  // a Sequence's pretokenizers / processors
};

}  // namespace

tj_reader::tj_reader(std::string name, std::string_view text)
    : name_(std::move(name)),
      text_(text),
      js_(
          text, [this](std::size_t at, const std::string& m) { fail(at, m); },
          [this](std::size_t at) {
              const auto p = io::position_in(name_, text_, at);
              return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column);
          }) {}

void tj_reader::fail(std::size_t at, const std::string& message) const {
    throw io::input_error("invalid", io::position_in(name_, text_, at), message);
}

std::string tj_reader::string_or_null() { return js_.literal("null") ? std::string() : js_.string_value(); }

void tj_reader::read_merge(tj_model& m) {
    const std::size_t at = js_.pos();
    if (js_.peek() == '[') {  // ["left", "right"]
        std::vector<std::string> halves;
        js_.array([&](std::size_t) { halves.push_back(js_.string_value()); });
        if (halves.size() != 2) fail(at, "expected a merge of two tokens [\"left\", \"right\"], found " + std::to_string(halves.size()));
        m.merges.push_back({halves[0], halves[1], at});
        return;
    }
    const std::string s = js_.string_value();  // "left right"
    const std::size_t sp = s.find(' ');
    if (sp == std::string::npos || sp == 0 || sp + 1 >= s.size() || s.find(' ', sp + 1) != std::string::npos)
        fail(at, "expected a merge \"left right\" (two tokens, one space), found \"" + s + "\"");
    m.merges.push_back({s.substr(0, sp), s.substr(sp + 1), at});
}

void tj_reader::read_model(tj_model& m) {
    std::string type;
    std::size_t type_at = js_.pos();
    js_.object([&](const std::string& key, std::size_t at) {
        if (key == "type") {
            type_at = at;
            type = js_.string_value();
        } else if (key == "vocab") {
            m.vocab_at = at;
            js_.object([&](const std::string& token, std::size_t tat) { m.vocab.push_back({token, js_.uint_value(), tat}); });
        } else if (key == "merges") {
            js_.array([&](std::size_t) { read_merge(m); });
        } else if (key == "ignore_merges") {
            m.ignore_merges = js_.bool_value();
        } else if (key == "dropout") {
            if (!js_.literal("null")) fail(at, "expected \"dropout\": null (attn tokenizes deterministically), found a value");
        } else if (key == "continuing_subword_prefix" || key == "end_of_word_suffix") {
            if (!string_or_null().empty())
                fail(at, "expected no " + key + " (a byte-level BPE has none), found one");
        } else {
            js_.skip_value();
        }
    });
    if (type != "BPE")
        fail(type_at, "expected a model of type \"BPE\" (byte-level BPE is what attn reads from tokenizer.json), found " +
                          (type.empty() ? std::string("none") : "\"" + type + "\""));
}

void tj_reader::read_added(std::vector<added_token>& out) {
    js_.array([&](std::size_t) {
        added_token t;
        const std::size_t at = js_.pos();
        bool has_id = false, has_content = false;
        js_.object([&](const std::string& key, std::size_t kat) {
            if (key == "id") {
                const std::uint64_t id = js_.uint_value();
                if (id >= max_token_id) fail(kat, "expected a token id below " + std::to_string(max_token_id) + ", found " + std::to_string(id));
                t.id = static_cast<std::uint32_t>(id);
                has_id = true;
            } else if (key == "content") {
                t.content = js_.string_value();
                has_content = true;
            } else if (key == "special") {
                t.control = js_.bool_value();
            } else if (key == "lstrip") {
                t.lstrip = js_.bool_value();
            } else if (key == "rstrip") {
                t.rstrip = js_.bool_value();
            } else if (key == "single_word") {
                if (js_.bool_value()) fail(kat, "expected \"single_word\": false (attn does not match added tokens as whole words), found true");
            } else {
                js_.skip_value();
            }
        });
        if (!has_id || !has_content) fail(at, "expected an added token with \"id\" and \"content\", found one without " +
                                                  std::string(has_id ? "\"content\"" : "\"id\""));
        if (t.content.empty()) fail(at, "expected an added token with some content, found \"\"");
        out.push_back(std::move(t));
    });
}

bool tj_reader::read_normalizer() {
    if (js_.literal("null")) return false;
    const std::size_t at = js_.pos();
    std::string type;
    js_.object([&](const std::string& key, std::size_t) {
        if (key == "type") type = js_.string_value();
        else js_.skip_value();
    });
    if (type == "NFC") return true;
    fail(at, "expected no normalizer or NFC (what attn can honour exactly), found \"" + type + "\"");
}

namespace {

// Reads one pre-tokenizer / post-processor object and its Sequence children.
step_object read_step(io::json_scan& js, const tj_reader& r, int depth) {
    step_object s;
    s.at = js.pos();
    js.object([&](const std::string& key, std::size_t at) {
        if (key == "type") {
            s.type = js.string_value();
        } else if (key == "pattern") {
            js.object([&](const std::string& k, std::size_t) {
                if (k == "Regex") s.regex = js.string_value();
                else if (k == "String") s.pattern_string = true, js.skip_value();
                else js.skip_value();
            });
        } else if (key == "behavior") {
            s.behavior = js.string_value();
        } else if (key == "invert") {
            s.invert = js.bool_value();
        } else if (key == "add_prefix_space") {
            s.add_prefix_space = js.bool_value();
        } else if (key == "use_regex") {
            s.use_regex = js.bool_value();
        } else if (key == "pretokenizers" || key == "processors") {
            if (depth > 0) r.fail(at, "expected a Sequence of simple steps, found a Sequence inside a Sequence");
            js.array([&](std::size_t) { s.children.push_back(read_step(js, r, depth + 1)); });
        } else {
            js.skip_value();
        }
    });
    return s;
}

// The pattern a Split step names, or a refusal.
const pretokenizer_kind& split_kind(const tj_reader& r, const step_object& s) {
    if (!s.regex) r.fail(s.at, "expected a Split by a regex pattern, found " + std::string(s.pattern_string ? "a string pattern" : "none"));
    if (s.behavior != "Isolated" || s.invert)
        r.fail(s.at, "expected a Split with behavior \"Isolated\" and invert false, found \"" + s.behavior + "\"");
    const pretokenizer_kind* k = pretokenizer_for_pattern(*s.regex);
    if (!k) r.fail(s.at, "expected one of the pre-tokenizing patterns attn implements (" + pretokenizer_names() + "), found another");
    return *k;
}

}  // namespace

void tj_reader::read_pre_tokenizer(tj_pre& pre) {
    const std::size_t at = js_.pos();
    if (js_.literal("null")) fail(at, "expected a byte-level pre-tokenizer, found null");
    const step_object s = read_step(js_, *this, 0);
    std::vector<step_object> steps = s.type == "Sequence" ? s.children : std::vector<step_object>{s};
    const step_object* split = nullptr;
    const step_object* byte_level = nullptr;
    for (const step_object& st : steps) {
        if (st.type == "Split" && !split) split = &st;
        else if (st.type == "ByteLevel" && !byte_level) byte_level = &st;
        else fail(st.at, "expected a Split and a ByteLevel pre-tokenizer (byte-level BPE), found \"" + st.type + "\"");
    }
    if (!byte_level) fail(s.at, "expected a ByteLevel pre-tokenizer (byte-level BPE), found none");
    if (split && byte_level->use_regex)
        fail(byte_level->at, "expected ByteLevel with use_regex false after a Split, found two patterns");
    if (!split && !byte_level->use_regex)
        fail(byte_level->at, "expected a Split pattern or ByteLevel with use_regex, found no pattern at all");
    if (split && split > byte_level) fail(split->at, "expected the Split before the ByteLevel step, found it after");
    pre.kind = split ? &split_kind(*this, *split) : &gpt2_pretokenizer();
    pre.add_prefix_space = byte_level->add_prefix_space;
}

void tj_reader::read_template(tj_post& post) {
    js_.array([&](std::size_t) {
        const std::size_t at = js_.pos();
        js_.object([&](const std::string& key, std::size_t) {
            std::string id;
            js_.object([&](const std::string& k, std::size_t) {
                if (k == "id") id = js_.string_value();
                else js_.skip_value();
            });
            if (key == "SpecialToken") post.single.push_back({true, id, at});
            else if (key == "Sequence") post.single.push_back({false, id, at});
            else fail(at, "expected \"SpecialToken\" or \"Sequence\" in the template, found \"" + key + "\"");
        });
    });
}

void tj_reader::read_post_processor(tj_post& post) {
    if (js_.literal("null")) return;
    const std::size_t at = js_.pos();
    std::string type;
    int templates = 0;
    std::function<void(int)> one = [&](int depth) {
        std::string t;
        js_.object([&](const std::string& key, std::size_t kat) {
            if (key == "type") {
                t = js_.string_value();
            } else if (key == "single") {
                ++templates;
                read_template(post);
            } else if (key == "special_tokens") {
                js_.object([&](const std::string& name, std::size_t) {
                    js_.object([&](const std::string& k, std::size_t) {
                        if (k != "ids") return js_.skip_value();
                        js_.array([&](std::size_t) {
                            const std::uint64_t id = js_.uint_value();
                            if (id >= max_token_id) fail(kat, "expected token ids below " + std::to_string(max_token_id));
                            post.special_ids[name].push_back(static_cast<std::uint32_t>(id));
                        });
                    });
                });
            } else if (key == "processors") {
                if (depth > 0) fail(kat, "expected a Sequence of simple processors, found a Sequence inside a Sequence");
                js_.array([&](std::size_t) { one(depth + 1); });
            } else {
                js_.skip_value();
            }
        });
        if (t != "TemplateProcessing" && t != "ByteLevel" && t != "Sequence")
            fail(at, "expected a post-processor attn knows (TemplateProcessing, ByteLevel, Sequence), found \"" + t + "\"");
    };
    one(0);
    if (templates > 1) fail(at, "expected at most one TemplateProcessing, found " + std::to_string(templates));
}

tj_file tj_reader::read_file() {
    tj_file f;
    bool has_model = false, has_pre = false;
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") fail(0, "expected JSON, found a byte-order mark");
    js_.object([&](const std::string& key, std::size_t) {
        if (key == "model") has_model = true, read_model(f.model);
        else if (key == "added_tokens") read_added(f.added);
        else if (key == "normalizer") f.nfc = read_normalizer();
        else if (key == "pre_tokenizer") has_pre = true, read_pre_tokenizer(f.pre);
        else if (key == "post_processor") read_post_processor(f.post);
        else js_.skip_value();
    });
    js_.finish();
    if (!has_model) fail(0, "expected a \"model\" object (a tokenizer.json), found none");
    if (!has_pre) fail(0, "expected a \"pre_tokenizer\" (byte-level BPE), found none");
    return f;
}

tj_config read_tokenizer_config(const std::string& name, std::string_view text) {
    tj_config c;
    io::json_scan js(
        text, [&](std::size_t at, const std::string& m) { throw io::input_error("invalid", io::position_in(name, text, at), m); },
        [&](std::size_t at) { return "byte " + std::to_string(at); });
    auto token_name = [&]() -> std::optional<std::string> {
        if (js.literal("null")) return std::nullopt;
        if (js.peek() == '"') return js.string_value();
        std::optional<std::string> content;
        js.object([&](const std::string& k, std::size_t) {
            if (k == "content") content = js.string_value();
            else js.skip_value();
        });
        return content;
    };
    js.object([&](const std::string& key, std::size_t) {
        if (key == "add_bos_token") c.add_bos_token = js.bool_value();
        else if (key == "bos_token") c.bos_token = token_name();
        else if (key == "eos_token") c.eos_token = token_name();
        else js.skip_value();
    });
    js.finish();
    return c;
}

}  // namespace attn::model
