// grade/report_junit.cpp — JUnit XML, the whole of it: the <testsuites> envelope (with
// its counts for one document, without them for a class written suite by suite), one
// <testsuite> per student, one <testcase> per part, <failure> for lost points.
#include "grade/report.hpp"
#include "io/terminal_safe.hpp"

namespace attn::grade {

namespace {

// ` tests="T" failures="F" errors="E"`: a <testsuite>'s, and a whole document's <testsuites>.
std::string counts(std::size_t tests, std::size_t failures, std::size_t errors) {
    return " tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
           std::to_string(errors) + "\"";
}

}  // namespace

std::string junit_suite(const grade_report& r, std::size_t* tests_out, std::size_t* failures_out) {
    std::size_t t = 0, f = 0;
    std::string cases;
    const std::string suite = r.student.empty() ? "submission" : r.student;
    if (!r.gradable) {
        ++t;
        cases += "    <testcase classname=\"" + io::xml_safe(suite) + "\" name=\"submission\">\n      <error type=\"" +
                 io::xml_safe(r.reason_word) + "\" message=\"" + io::xml_safe(r.reason) + "\"/>\n    </testcase>\n";
    }
    for (const auto& x : r.exercises)
        for (const auto& p : x.parts) {
            ++t;
            const bool full = p.score >= p.max - 1e-9;
            cases += "    <testcase classname=\"" + io::xml_safe(suite + "." + x.id) + "\" name=\"" + io::xml_safe(p.id) + "\">\n";
            if (!full) {
                ++f;
                cases += "      <failure type=\"" + std::string(status_name(p.status)) + "\" message=\"" +
                         io::xml_safe(points_str(p.score) + "/" + points_str(p.max) + ": " + shown_feedback(x, p)) + "\">" +
                         io::xml_safe(part_output(x, p)) + "</failure>\n";
            }
            cases += "    </testcase>\n";
        }
    if (tests_out) *tests_out += t;
    if (failures_out) *failures_out += f;
    return "  <testsuite name=\"" + io::xml_safe(suite) + "\"" + counts(t, f, r.gradable ? 0 : 1) + ">\n" + cases + "  </testsuite>\n";
}

std::string junit_open(const std::string& attributes) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"attn grade\"" + attributes + ">\n";
}

std::string junit_close() { return "</testsuites>\n"; }

std::string junit_xml(const grade_report& r) {
    std::size_t tests = 0, failures = 0;
    const std::string suite = junit_suite(r, &tests, &failures);
    return junit_open(counts(tests, failures, r.gradable ? 0 : 1)) + suite + junit_close();
}

}  // namespace attn::grade
