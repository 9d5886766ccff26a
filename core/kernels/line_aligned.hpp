#pragma once
// std::vector storage that starts on a 64-byte cache line. A large std::vector comes from glibc's
// mmap path at 16 bytes past a page boundary, so every 64-byte (AVX-512) load of its rows straddled
// two cache lines, which halves the rate L1 delivers them: the BRBM row sums (kernels/panels.hpp)
// ran at 1.9 instead of 2.7 vector adds per ns.
#include <cstddef>
#include <new>
#include <vector>

namespace rbm::detail {

inline constexpr std::size_t kCacheLine = 64;

template <class T>
struct LineAligned {
    using value_type = T;
    LineAligned() = default;
    template <class U>
    LineAligned(const LineAligned<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kCacheLine})); }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete (p, std::align_val_t{kCacheLine}); }
    template <class U>
    bool operator==(const LineAligned<U>&) const noexcept {
        return true;
    }
};

template <class T>
using LineVector = std::vector<T, LineAligned<T>>;

// The same allocator whose resize() leaves new elements uninitialized (default-initialized), for
// storage the caller writes in full at once: a training run rebuilds the panels of W at every
// update, and zeroing them first was a third of their cost.
template <class T>
struct LineAlignedUninit : LineAligned<T> {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = LineAlignedUninit<U>;
    };
    LineAlignedUninit() = default;
    template <class U>
    LineAlignedUninit(const LineAlignedUninit<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(static_cast<Args&&>(args)...);
    }
};

template <class T>
using LineVectorUninit = std::vector<T, LineAlignedUninit<T>>;

}  // namespace rbm::detail
