// What the variant sweeps need besides the kernels (freestanding,
// header-only, no heap): a seeded random source that gives the same draws
// on the host and on every Cortex-M core, and a fixed-capacity text line.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace tinyaot::sweep {

// SplitMix64: 64-bit state, exact integer arithmetic only, so a seed means
// the same cases everywhere (std::uniform_int_distribution does not
// promise that across standard libraries).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [lo, hi] (the modulo bias is irrelevant for a test).
  int32_t uniform(int32_t lo, int32_t hi) {
    const uint32_t span = static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo) + 1u;
    const uint32_t draw = static_cast<uint32_t>(next() >> 32);
    return static_cast<int32_t>(static_cast<uint32_t>(lo) + (span == 0 ? draw : draw % span));
  }

  bool one_in(uint32_t n) { return static_cast<uint32_t>(next() >> 32) % n == 0; }

  template <typename T, size_t N>
  T pick(const T (&values)[N]) {
    return values[uniform(0, static_cast<int32_t>(N) - 1)];
  }

 private:
  uint64_t state_;
};

// FNV-1a of a name: variants get independent case streams from one seed.
inline uint64_t name_hash(const char* name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (; *name != '\0'; ++name) hash = (hash ^ static_cast<uint8_t>(*name)) * 0x100000001b3ull;
  return hash;
}

// The seed of case `index` of a variant: each case can be replayed alone.
inline uint64_t case_seed(uint64_t seed, const char* variant, uint32_t index) {
  Random mix(seed ^ name_hash(variant) ^ (uint64_t{index} * 0xD1B54A32D192ED03ull));
  return mix.next();
}

// A line of text in a fixed buffer (no printf: newlib-nano's needs a heap).
class Text {
 public:
  Text& text(const char* s) {
    for (; s != nullptr && *s != '\0'; ++s) put(*s);
    return *this;
  }
  Text& num(int64_t value) {
    uint64_t magnitude = static_cast<uint64_t>(value);
    if (value < 0) {
      put('-');
      magnitude = 0 - magnitude;
    }
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0);
    while (n > 0) put(digits[--n]);
    return *this;
  }
  // "name value" with a leading space, for key-value lists.
  Text& field(const char* name, int64_t value) { return text(" ").text(name).text(" ").num(value); }
  const char* c_str() {
    buffer_[length_] = '\0';
    return buffer_;
  }
  void clear() { length_ = 0; }

 private:
  void put(char c) {
    if (length_ + 1 < sizeof(buffer_)) buffer_[length_++] = c;
  }
  char buffer_[400];
  uint32_t length_ = 0;
};

using PrintFn = void (*)(const char* line);

}  // namespace tinyaot::sweep
