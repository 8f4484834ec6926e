// gguf_fuzz.cpp — libFuzzer target for the GGUF header reader: any byte
// string must parse or fail with an error, never crash, hang or allocate
// without bound. Build and run (clang with libFuzzer, see README):
//   cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DMOEBENCH_FUZZ=ON
//   cmake --build build-fuzz --target gguf_fuzz
//   build-fuzz/tests/fuzz/gguf_fuzz -max_total_time=300 -rss_limit_mb=2048 \
//       -max_len=65536 tests/fuzz/corpus
#include <cstddef>
#include <cstdint>

#include "engines/container/gguf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moebench::GgufLimits limits;
  limits.max_string_bytes = 1u << 20;  // keep single inputs small under ASan
  limits.max_array_elements = 1u << 20;
  auto parsed = moebench::parse_gguf(data, size, "fuzz", limits);
  if (parsed) {
    // Touch what a caller would use.
    std::uint64_t total = 0;
    for (const auto& t : parsed->tensors) total += t.bytes + t.elements();
    (void)parsed->get_string("general.architecture");
    (void)total;
  }
  return 0;
}
