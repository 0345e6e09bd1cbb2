// core/huge_block.hpp — one large block of zeroed memory for numbers streamed again and
// again in order (a decoder's packed weights, read once per token): an anonymous mapping
// aligned to 2 MiB and marked for transparent huge pages (madvise MADV_HUGEPAGE, a hint
// the kernel may ignore). With 4 KiB pages a stream of weights crosses a page every
// 4 KiB (a TLB miss, and the hardware prefetcher stops at the boundary), and a VM may
// charge a fault per page touched first (~12 µs here, toolchain.md pitfall 6).
#pragma once

#include <cstddef>

namespace attn {

// Advises the kernel to back the 2 MiB-aligned part of [data, data + bytes) — memory the
// caller allocated and has not touched yet (a large std::vector's or xtensor's, which glibc
// maps on its own) — with transparent huge pages: its first writes then fault once per
// 2 MiB instead of once per 4 KiB (a traced forward's logits and probs: 400 MB, 100,000
// faults at ~8 µs each on this VM). A hint; nothing changes but the time.
void advise_huge_pages(void* data, std::size_t bytes);

class huge_block {
public:
    huge_block() = default;
    // At least `bytes` zeroed bytes (none for 0). Throws attn::error when the system has
    // no memory for them.
    explicit huge_block(std::size_t bytes);
    huge_block(huge_block&& other) noexcept;
    huge_block& operator=(huge_block&& other) noexcept;
    huge_block(const huge_block&) = delete;
    huge_block& operator=(const huge_block&) = delete;
    ~huge_block();

    void* data() const { return start_; }
    std::size_t size() const { return bytes_; }

private:
    void release();
    void* map_ = nullptr;     // the mapping (its start), or null
    std::size_t mapped_ = 0;  // the mapping's length
    void* start_ = nullptr;   // [bytes_] the 2 MiB-aligned block inside it
    std::size_t bytes_ = 0;
};

}  // namespace attn
