// cli/verb_hint.cpp — "did you mean" for a mistyped verb or sub-verb (`attn lessson 3`,
// `attn exercise chek F`): before CLI11 parses, the words of the command line are
// walked down the verb tree; the first one that is no verb where only verbs are
// accepted is refused with the closest verb by edit distance (lessons/key_check).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/verbs.hpp"
#include "io/terminal_safe.hpp"
#include "io/toml_read.hpp"

namespace attn::cli {

namespace {

// The option `word` of `app` or a parent it falls through to; nullptr when unknown.
const CLI::Option* option_named(const CLI::App& app, const std::string& word) {
    for (const CLI::App* a = &app; a; a = a->get_parent())
        for (const CLI::Option* o : a->get_options())
            if (!o->get_positional() && o->check_name(word)) return o;
    return nullptr;
}

bool has_positionals(const CLI::App& app) {
    for (const CLI::Option* o : app.get_options())
        if (o->get_positional()) return true;
    return false;
}

}  // namespace

void check_verbs(const CLI::App& top, int argc, const char* const* argv) {
    const CLI::App* app = &top;
    for (int i = 1; i < argc; ++i) {
        const std::string w = argv[i];
        if (w == "--") return;
        if (!w.empty() && w[0] == '-') {
            if (w.find('=') != std::string::npos) continue;
            const CLI::Option* o = option_named(*app, w);
            if (!o) return;  // an unknown option: CLI11 says so
            if (o->get_type_size() != 0) ++i;  // skip its value
            continue;
        }
        std::vector<std::string> verbs;
        const CLI::App* next = nullptr;
        for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; })) {
            verbs.push_back(s->get_name());
            if (s->get_name() == w) next = s;
        }
        if (next) {
            app = next;
            continue;
        }
        // A word where a verb or a positional may stand is the positional's (attn lesson 3).
        if (verbs.empty() || has_positionals(*app)) return;
        const std::string close = io::closest_word(w, verbs);
        std::string list;
        for (const auto& v : verbs) list += (list.empty() ? "" : ", ") + v;
        const std::string where = app == &top ? "attn" : "attn " + app->get_name();
        throw error("'" + io::terminal_safe(w) + "' is not a verb of `" + where + "`" +
                          (close.empty() ? "" : " (did you mean '" + close + "'?)") + "; verbs: " + list);
    }
}

}  // namespace attn::cli
