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

}  // namespace rbm::detail
