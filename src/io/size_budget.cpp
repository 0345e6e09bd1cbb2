// io/size_budget.cpp — see size_budget.hpp.
#include "io/size_budget.hpp"

#include <atomic>
#include <limits>
#include <string>

namespace attn::io {

namespace {
std::atomic<std::size_t> budget{default_max_elements};
std::atomic<std::size_t> charged{0};  // what this run holds so far
}  // namespace

std::size_t max_elements() { return budget.load(); }
void set_max_elements(std::size_t n) {
    budget.store(n);
    charged.store(0);  // a new budget starts a new run
}

std::optional<std::size_t> checked_product(const std::vector<std::size_t>& dims) {
    std::size_t p = 1;
    for (std::size_t d : dims) {
        if (d != 0 && p > std::numeric_limits<std::size_t>::max() / d) return std::nullopt;
        p *= d;
    }
    return p;
}

namespace {

std::string refusal(std::optional<std::size_t> count, const std::string& what, std::size_t held,
                    const char* remedy = nullptr) {
    const std::string n = count ? std::to_string(*count) : std::string("more than 2^64");
    return what + " would hold " + n + " numbers" +
           (held ? "; with the " + std::to_string(held) + " this run already holds, that is" : ",") +
           " more than the budget of " + std::to_string(max_elements()) + " " +
           (remedy ? remedy : "(raise it with --max-elements, or use smaller inputs)");
}
}  // namespace

void check_budget(std::optional<std::size_t> count, const std::string& what, const source_pos& where) {
    if (count && *count <= max_elements()) return;
    throw input_error("too-large", where, refusal(count, what, 0));
}

std::optional<std::string> over_budget(std::optional<std::size_t> count, const std::string& what, const char* remedy) {
    if (count && *count <= max_elements()) return std::nullopt;
    return refusal(count, what, 0, remedy);
}

void charge_budget(std::optional<std::size_t> count, const std::string& what, const source_pos& where) {
    std::size_t held = charged.load();
    for (;;) {
        if (!count || *count > max_elements() || held > max_elements() - *count)
            throw input_error("too-large", where, refusal(count, what, held));
        if (charged.compare_exchange_weak(held, held + *count)) return;
    }
}

std::size_t charged_elements() { return charged.load(); }
void reset_charged_elements() { charged.store(0); }

void check_trace_budget(std::size_t batch, std::size_t heads, std::size_t n_q, std::size_t n_k, const source_pos& where) {
    charge_budget(checked_product({score_stages, batch, heads, n_q, n_k}),
                 "the trace's score stages (4 stages · batch " + std::to_string(batch) + " · heads " +
                     std::to_string(heads) + " · n_q " + std::to_string(n_q) + " · n_k " + std::to_string(n_k) + ")",
                 where);
}

void check_html_cells(std::size_t batches_shown, std::size_t heads_shown, std::size_t n_q, std::size_t n_k) {
    const auto cells = checked_product({batches_shown, heads_shown, n_q, n_k});
    if (cells && *cells <= max_html_cells) return;
    throw input_error("too-large", source_pos{},
                      "--html: the report would show " + (cells ? std::to_string(*cells) : std::string("more than 2^64")) +
                          " query·key cells (batch " + std::to_string(batches_shown) + " × heads " +
                          std::to_string(heads_shown) + " × " + std::to_string(n_q) + " × " + std::to_string(n_k) +
                          "), more than the " + std::to_string(max_html_cells) +
                          " a page can hold; pick one with --head and --batch, look at a part in the terminal with "
                          "--stage and --query, or export the numbers with --json, --npy or --csv");
}

}  // namespace attn::io
