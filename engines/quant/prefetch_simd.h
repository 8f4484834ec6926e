// prefetch_simd.h — the software prefetcher of the SIMD kernels, included
// INSIDE the unnamed namespace of kernels_simd.h and kernels_q8_simd.h (so
// every file compiled with its own -m flags gets its own copy; see
// kernels_simd.h on linkage). Not a standalone header.
//
// Software prefetch running kPrefetchBytes ahead of the weight stream, one
// prefetch per cache line: rows are read once, front to back, and the
// hardware prefetchers alone leave DRAM bandwidth unused. (GCC's builtin:
// prefetcht0 on x86, PRFM PLDL1KEEP on aarch64.)
constexpr std::uintptr_t kPrefetchBytes = 8192;
struct Prefetcher {
  std::uintptr_t next, end;
  Prefetcher(const u8* w, std::size_t bytes)
      : next(reinterpret_cast<std::uintptr_t>(w) & ~std::uintptr_t{63}), end(reinterpret_cast<std::uintptr_t>(w) + bytes) {}
  void upto(const u8* p) {
    const std::uintptr_t want = reinterpret_cast<std::uintptr_t>(p) + kPrefetchBytes;
    for (; next < want && next < end; next += 64) __builtin_prefetch(reinterpret_cast<const void*>(next), 0, 3);
  }
};
