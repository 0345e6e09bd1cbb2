// cli/step_viewer.cpp — see step_viewer.hpp. The pages are rendered by the
// lessons floor (header, intro, step k, recap + questions); this file keeps which
// page and which of its lines show, draws them with the prompt on the last row,
// and moves on the keys of step_viewer_keys.hpp.
#include "cli/step_viewer.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/practice.hpp"
#include "cli/step_viewer_keys.hpp"
#include "lessons/lesson_render.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

namespace {

using viewer::action;

const char* const key_help =
    "Keys of the lesson viewer\n"
    "\n"
    "  Enter or n            the rest of the page, then the next page\n"
    "  Space, PgDn, f        a screenful down (at the bottom: next page)\n"
    "  Down or j, Up or k    one line down, one line up\n"
    "  PgUp or u             a screenful up\n"
    "  Home or g, End or G   top, bottom of the page\n"
    "  p or b                previous page\n"
    "  a number, Enter       go to that step\n"
    "  a                     answer the lesson's questions\n"
    "  q                     quit (on the last step: the recap first)\n"
    "  ?                     this list\n";

std::vector<std::string> page_lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t at = text.find_first_not_of('\n');
    while (at != std::string::npos && at < text.size()) {
        const std::size_t end = text.find('\n', at);
        out.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
        at = end == std::string::npos ? end : end + 1;
    }
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

struct viewer_state {
    const lessons::lesson& l;
    const layout_options& layout;
    bool use_pager;
    trace::style st;
    int total;                 // steps; page 0 is the intro, total + 1 the recap and questions
    int page;
    int opening_page;          // the first page shown carries the lesson's header
    std::size_t top = 0;       // first line of the page on the screen
    std::vector<std::string> lines;
    std::string note;          // one line above the prompt ("this is the first page")
    bool help = false;
    bool closing_seen = false;
    bool more_below = false;   // the page goes on below the screen (set by draw)

    int closing() const { return total + 1; }

    void load() {
        std::string text;
        if (page == 0) text = lessons::render_lesson_header(l, st) + lessons::render_intro(l, st);
        else if (page == closing()) text = lessons::render_questions(l, st);
        else text = (page == opening_page ? lessons::render_lesson_header(l, st) : "") + lessons::render_step(l, page, st);
        lines = page_lines(text);
        if (page == closing()) closing_seen = true;
    }
    void go(int p) {
        page = p;
        top = 0;
        load();
    }
};

// What Enter does from here: the rest of the page while it goes on below the
// screen, then step 1, the next step or the end. The first of the long form, the
// short form and the short form without "? keys" that fits the width.
std::string prompt_line(const viewer_state& v) {
    if (v.help) return "[Enter: back to the page · q: quit] ";
    const bool answers = !v.l.exercises.empty();
    const std::string enter = v.more_below              ? "more below"
                              : v.page == 0             ? "step 1"
                              : v.page == v.closing()   ? "end"
                                                        : "next";
    const std::string where = v.page == 0 ? "intro" : v.page == v.closing() ? "recap" : fmt::format("step {}/{}", v.page, v.total);
    const std::string short_where = v.page == 0 || v.page == v.closing() ? where : fmt::format("{}/{}", v.page, v.total);
    const std::string back = v.page == 0 ? "" : " · p: back";
    const std::string wide = fmt::format("[{} · Enter: {}{}{} · ?: keys · q: quit] ", where, enter, back,
                                         answers ? " · a: answer" : "");
    const std::string narrow_back = v.page == 0 ? "" : " · p back";
    const std::string narrow_answer = answers ? " · a answer" : "";
    const std::string narrow = fmt::format("[{} · Enter {}{}{} · ? keys · q quit] ", short_where, enter, narrow_back, narrow_answer);
    const std::string narrowest = fmt::format("[{} · Enter {}{}{} · q quit] ", short_where, enter, narrow_back, narrow_answer);
    for (const std::string* s : {&wide, &narrow})
        if (trace::display_width(*s) < v.st.width) return *s;
    return narrowest;
}

// "↓ more below: lines 1–22 of 60 (Space ↓ down, ↑ up)" or, at the bottom, where
// the page ends; the short form below 60 columns.
std::string marker_line(std::size_t first, std::size_t last, std::size_t n, std::size_t width) {
    const bool bottom = last == n;
    if (width < 60)
        return fmt::format("{} {}–{}/{}", bottom ? "— end:" : "↓ more:", first, last, n);
    if (bottom) return fmt::format("— end of page: lines {}–{} of {} (↑ up, Enter next)", first, last, n);
    return fmt::format("↓ more below: lines {}–{} of {} (Enter or Space: down, ↑ up)", first, last, n);
}

// Clears the screen and shows as many lines from `top` as leave room for the
// marker, the note and the prompt; returns the number of page lines shown.
std::size_t draw(viewer_state& v) {
    static const std::vector<std::string> help_lines = page_lines(key_help);
    const std::vector<std::string>& body = v.help ? help_lines : v.lines;
    const std::size_t rows = viewer::screen_rows();
    std::size_t room = rows > 2 ? rows - 1 : 1;
    if (!v.note.empty() && room > 2) --room;
    const bool tall = body.size() > room;
    if (tall && room > 2) --room;
    const std::size_t last_top = body.size() > room ? body.size() - room : 0;
    v.top = std::min(v.top, last_top);
    v.more_below = !v.help && v.top + room < body.size();
    std::string out = "\x1b[H\x1b[2J";
    const std::string reset = v.st.color ? "\x1b[0m" : "";
    for (std::size_t i = v.top; i < std::min(body.size(), v.top + room); ++i) out += body[i] + reset + "\n";
    if (tall) out += v.st.muted(marker_line(v.top + 1, std::min(body.size(), v.top + room), body.size(), v.st.width)) + "\n";
    if (!v.note.empty()) out += v.note + "\n";
    std::cout << out;
    return room;
}

// Pager mode: the page printed, or through $PAGER when taller than the screen.
void print_page(const viewer_state& v) {
    std::string text;
    for (const auto& line : v.help ? page_lines(key_help) : v.lines) text += line + "\n";
    const bool tall = v.lines.size() + 2 > viewer::screen_rows();
    if (!v.help && tall && v.use_pager && viewer::through_pager(text)) return;
    std::cout << "\n" << text;
    if (!v.note.empty()) std::cout << v.note << "\n";
}

// The goodbye line; where to go on from is the page after the one shown.
void say_stopped(const viewer_state& v) {
    if (v.page == v.closing()) std::cout << fmt::format("\nend of lesson {:02d}\n", v.l.number);
    else if (v.page == 0)
        std::cout << fmt::format("\nstopped before step 1; go on later with `attn lesson {}`\n", v.l.number);
    else
        std::cout << fmt::format("\nstopped after step {} of {}; go on later with `attn lesson {} --step {}`\n", v.page,
                                 v.total, v.l.number, v.page < v.total ? v.page + 1 : v.page);
}

// One command applied; false when the lesson ends.
bool apply(viewer_state& v, const viewer::command& c, std::size_t room) {
    const std::size_t n = v.lines.size();
    const bool at_bottom = v.top + room >= n;
    v.note.clear();
    if (v.help && c.what != action::quit && c.what != action::redraw) {
        v.help = false;
        return true;
    }
    switch (c.what) {
        case action::quit:
            if (v.page == v.total && !v.closing_seen) {  // the recap is never skipped silently
                v.go(v.closing());
                v.note = "The recap and the questions close the lesson: q again quits.";
                return true;
            }
            say_stopped(v);
            return false;
        case action::more:
        case action::next:  // nothing unseen: the rest of the page first, then the next page
            if (!v.use_pager && !at_bottom) {
                v.top += room;
                return true;
            }
            if (v.page == v.closing()) {
                std::cout << fmt::format("\nend of lesson {:02d}\n", v.l.number);
                return false;
            }
            v.go(v.page + 1);
            return true;
        case action::line_down: v.top += at_bottom ? 0 : 1; return true;
        case action::line_up: v.top -= v.top > 0 ? 1 : 0; return true;
        case action::page_up: v.top -= std::min(v.top, room); return true;
        case action::home: v.top = 0; return true;
        case action::end: v.top = n; return true;  // draw() stops it at the last screenful
        case action::back:
            if (v.page == 0) v.note = "This is the first page.";
            else v.go(v.page - 1);
            return true;
        case action::jump:
            if (c.step < 1 || c.step > v.total) v.note = fmt::format("No step {}: steps are 1..{}.", c.step, v.total);
            else v.go(c.step);
            return true;
        case action::help: v.help = true; return true;
        case action::answer:
            std::cout << "\n";
            practise_questions(v.l, v.st);
            return true;
        case action::redraw:  // the terminal changed size: the same page at the new width
            v.st = make_style(v.layout);
            v.load();
            return true;
    }
    return true;
}

}  // namespace

void view_lesson(const lessons::lesson& l, const layout_options& layout, int first_step, bool use_pager) {
    const trace::style st = make_style(layout);
    if (first_step > 0) (void)lessons::render_step(l, first_step, st);  // a bad --step fails before anything is shown
    viewer::install_restorers();
    const int total = static_cast<int>(l.steps.size());
    const int first = first_step > 0 ? first_step : l.intro.empty() ? 1 : 0;
    viewer_state v{l, layout, use_pager, st, total, first, first, 0, {}, {}, false, false};
    v.load();
    for (;;) {
        std::size_t room = viewer::screen_rows();
        if (use_pager) print_page(v);
        else room = draw(v);
        const viewer::command c = viewer::read_command((use_pager ? "\n" : "") + prompt_line(v));
        if (!apply(v, c, room)) return;
    }
}

}  // namespace attn::cli
