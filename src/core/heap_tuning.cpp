// core/heap_tuning.cpp — see heap_tuning.hpp.
#include "core/heap_tuning.hpp"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attn {

void keep_freed_heap() {
#if defined(__GLIBC__)
    constexpr int mib = 1024 * 1024;
    mallopt(M_TRIM_THRESHOLD, 64 * mib);  // freed heap kept up to this much before it goes back to the kernel
    mallopt(M_MMAP_THRESHOLD, 32 * mib);  // blocks this large and larger: their own mapping, returned on free
#endif
}

void release_freed_heap() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace attn
