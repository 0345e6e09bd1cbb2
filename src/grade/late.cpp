// grade/late.cpp — see late.hpp: the times (ISO 8601 with a zone), the CSVs of times
// (extensions, submissions), and the deduction applied to a report, visibly.
#include "grade/late.hpp"

#include <cctype>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "grade/report.hpp"
#include "grade/variant.hpp"
#include "io/csv_rows.hpp"
#include "io/shown_text.hpp"
#include "io/text_decode.hpp"
#include "io/input_read.hpp"
#include "io/terminal_safe.hpp"
#include "io/utf8.hpp"

namespace attn::grade {

namespace {

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Reads `n` digits at s[i] into *v; false when they are not there.
bool digits(const std::string& s, std::size_t& i, int n, int* v) {
    *v = 0;
    for (int k = 0; k < n; ++k, ++i) {
        if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
        *v = *v * 10 + (s[i] - '0');
    }
    return true;
}

bool expect(const std::string& s, std::size_t& i, const char* any_of) {
    if (i >= s.size() || !std::strchr(any_of, s[i])) return false;
    ++i;
    return true;
}

// The zone at s[i]: Z, or ±HH:MM (±HHMM), as an offset east of UTC in minutes.
std::optional<int> zone_minutes(const std::string& s, std::size_t& i) {
    if (expect(s, i, "Zz")) return 0;
    if (i >= s.size() || (s[i] != '+' && s[i] != '-')) return std::nullopt;
    const int sign = s[i++] == '-' ? -1 : 1;
    int h = 0, m = 0;
    if (!digits(s, i, 2, &h)) return std::nullopt;
    if (i < s.size() && s[i] == ':') ++i;
    if (!digits(s, i, 2, &m) || h > 23 || m > 59) return std::nullopt;
    return sign * (h * 60 + m);
}

std::string period_word(const late_policy& p, long long n) {
    return std::to_string(n) + (p.per_hour ? (n == 1 ? " started hour" : " started hours") : (n == 1 ? " started day" : " started days"));
}

}  // namespace

std::optional<std::int64_t> parse_time(const std::string& text, std::string* why) {
    const std::string s = text.substr(std::min(text.find_first_not_of(" \t"), text.size()));
    std::size_t i = 0;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    *why = "expected a date and time with its time zone, such as 2026-03-01T23:59:00Z or 2026-03-01 23:59+01:00, found '" +
           io::terminal_safe(io::capped_text(text, 60)) + "'";
    if (!digits(s, i, 4, &y) || !expect(s, i, "-") || !digits(s, i, 2, &mo) || !expect(s, i, "-") || !digits(s, i, 2, &d) ||
        !expect(s, i, "Tt ") || !digits(s, i, 2, &h) || !expect(s, i, ":") || !digits(s, i, 2, &mi))
        return std::nullopt;
    long long frac_us = 0;
    if (i < s.size() && s[i] == ':') {
        ++i;
        if (!digits(s, i, 2, &sec)) return std::nullopt;
        if (i < s.size() && s[i] == '.') {
            ++i;
            long long scale = 100000;
            if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
            for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, scale /= 10) frac_us += (s[i] - '0') * scale;
        }
    }
    static const int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || sec > 59) {
        *why = "no such date or time: '" + io::terminal_safe(io::capped_text(text, 60)) + "'";
        return std::nullopt;
    }
    const std::optional<int> zone = zone_minutes(s, i);
    if (!zone) {
        *why += " (the time zone, Z or +01:00, is needed)";
        return std::nullopt;
    }
    if (s.find_first_not_of(" \t", i) != std::string::npos) return std::nullopt;
    const std::int64_t secs = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
                              mi * 60 + sec - std::int64_t{*zone} * 60;
    return secs * 1000000 + frac_us;
}

std::map<std::string, time_stamp> read_times_csv(const std::string& path, const std::string& column, const std::string& what) {
    const std::string file = path == "-" ? io::stdin_name : path;
    // UTF-16/32 with a byte-order mark and CR-only lines are read; a NUL byte is UTF-16 without one.
    const std::string text = io::decoded_text(io::read_input_file(path, {io::default_max_input_bytes, false, what}), file);
    std::size_t bad = text.find('\0');
    if (bad != std::string::npos || !io::valid_utf8(text, &bad))
        throw error(source_pos::at_offset(file, static_cast<std::int64_t>(bad)), "the " + what + " is not UTF-8 text; save it as UTF-8 CSV");
    const io::csv_table t = io::read_csv_table(text, file);
    for (const std::string& need : {std::string("student"), column})
        if (!t.columns.count(need)) throw error(source_pos{file, 1, 1}, "the " + what + " needs a header with the columns student," + column);
    std::map<std::string, time_stamp> out;
    for (std::size_t n = 1; n < t.rows.size(); ++n) {
        const io::csv_field* who = t.cell(n, "student");
        const io::csv_field* when = t.cell(n, column);
        if (!who || !when) throw error(t.rows[n][0].where, "the row has fewer cells than the header (student," + column + ")");
        const std::string id = normalize_student_id(io::spreadsheet_text(who->text));
        if (id.empty()) throw error(who->where, "expected a student id, found an empty cell");
        std::string why;
        const auto us = parse_time(when->text, &why);
        if (!us) throw error(when->where, why);
        auto [it, fresh] = out.emplace(id, time_stamp{*us, when->text, when->where});
        if (!fresh) throw error(who->where, "student '" + io::terminal_safe(id) + "' is listed twice (also at " + it->second.where.str() + ")");
    }
    return out;
}

void apply_late(grade_report& r, const late_work& w) {
    if (!r.gradable) return;
    const auto at = w.times.find(normalize_student_id(r.student));
    if (at == w.times.end()) {
        r.flags.push_back("no submission time for this student in " + w.times_file + ": not counted late");
        return;
    }
    const auto ext = w.policy.extensions.find(normalize_student_id(r.student));
    const time_stamp& due = ext != w.policy.extensions.end() ? ext->second : w.policy.due;
    late_result l;
    l.due = due.text;
    l.submitted = at->second.text;
    l.extended = ext != w.policy.extensions.end();
    l.before = r.score;
    const std::int64_t late_us = at->second.us - due.us;
    const std::int64_t period_us = (w.policy.per_hour ? 3600LL : 86400LL) * 1000000LL;
    bool floored = false;
    if (late_us > 0) {
        l.hours = static_cast<double>(late_us) / 3.6e9;
        l.periods = (late_us + period_us - 1) / period_us;  // every started day or hour
        const double lowest = std::min(r.score, w.policy.floor / 100.0 * r.max);
        const double raw = r.score - static_cast<double>(l.periods) * w.policy.deduction / 100.0 * r.max;
        floored = raw < lowest;
        r.score = std::max(raw, lowest);
    }
    l.deduction = l.before - r.score;
    const std::string due_words = "due " + due.text + (l.extended ? ", an extension" : "");
    l.note = l.periods == 0 ? "on time (" + due_words + ")"
                            : fmt::format("{:.2f} hours late ({}): {} × {}% of {} points{}: {} − {} = {}", l.hours, due_words,
                                          period_word(w.policy, l.periods), points_str(w.policy.deduction), points_str(r.max),
                                          floored ? ", not below the floor of " + points_str(w.policy.floor) + "%" : "",
                                          points_str(l.before), points_str(l.deduction), points_str(r.score));
    r.late = l;
}

}  // namespace attn::grade
