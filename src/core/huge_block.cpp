// core/huge_block.cpp — see huge_block.hpp: an anonymous mapping 2 MiB larger than asked,
// its 2 MiB-aligned part handed out and advised for huge pages.
#include "core/huge_block.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace attn {

namespace {
constexpr std::size_t huge_page = std::size_t(2) << 20;  // 2 MiB, x86-64's transparent huge page
}  // namespace

void advise_huge_pages(void* data, std::size_t bytes) {
    const auto at = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (at + huge_page - 1) / huge_page * huge_page, end = (at + bytes) / huge_page * huge_page;
    if (data == nullptr || end <= first) return;  // no whole huge page inside
#ifdef MADV_HUGEPAGE
    madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#endif
}

huge_block::huge_block(std::size_t bytes) {
    if (bytes == 0) return;
    const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
    if (rounded < bytes || rounded + huge_page < rounded)
        throw attn::error("cannot hold " + std::to_string(bytes) + " bytes in memory");
    mapped_ = rounded + huge_page;
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        mapped_ = 0;
        throw attn::error("out of memory: " + std::to_string(bytes) + " bytes asked for");
    }
    map_ = p;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    start_ = reinterpret_cast<void*>((at + huge_page - 1) / huge_page * huge_page);
    bytes_ = bytes;
#ifdef MADV_HUGEPAGE
    madvise(start_, rounded, MADV_HUGEPAGE);  // a hint: without it the block still works, in small pages
#endif
}

huge_block::huge_block(huge_block&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)), mapped_(std::exchange(other.mapped_, 0)),
      start_(std::exchange(other.start_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

huge_block& huge_block::operator=(huge_block&& other) noexcept {
    if (this != &other) {
        release();
        map_ = std::exchange(other.map_, nullptr);
        mapped_ = std::exchange(other.mapped_, 0);
        start_ = std::exchange(other.start_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

huge_block::~huge_block() { release(); }

void huge_block::release() {
    if (map_) munmap(map_, mapped_);
    map_ = start_ = nullptr;
    mapped_ = bytes_ = 0;
}

}  // namespace attn
