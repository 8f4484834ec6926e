// hash_test.cpp — XXH64 against the reference implementation's published
// values, and streaming equals one-shot for every split.
#include <catch2/catch.hpp>

#include <string>

#include "vocab/hash.h"

using namespace moebench;

TEST_CASE("xxh64 known answers", "[hash]") {
  CHECK(xxh64("", 0) == 0xEF46DB3751D8E999ull);
  CHECK(xxh64("a", 1) == 0xD24EC4F1A98C6E5Bull);
  CHECK(xxh64("abc", 3) == 0x44BC2CF5AD770999ull);
}

TEST_CASE("streaming matches one-shot at every split", "[hash]") {
  std::string data;
  for (int i = 0; i < 200; ++i) data += static_cast<char>(i * 37 + 11);
  const std::uint64_t whole = xxh64(data.data(), data.size(), 7);
  for (std::size_t a = 0; a <= data.size(); a += 7) {
    for (std::size_t b = a; b <= data.size(); b += 13) {
      Xxh64 h(7);
      h.update(data.data(), a);
      h.update(data.data() + a, b - a);
      h.update(data.data() + b, data.size() - b);
      CHECK(h.digest() == whole);
    }
  }
}
