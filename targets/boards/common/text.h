// Fixed-capacity line formatting (no printf in the firmware: newlib-nano's
// would pull in a heap).
#pragma once

#include <stdint.h>

namespace tinyaot::board {

class Line {
 public:
  Line& text(const char* s) {
    for (; s != nullptr && *s != '\0'; ++s) put(*s);
    return *this;
  }
  Line& dec(uint64_t value) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (n > 0) put(digits[--n]);
    return *this;
  }
  Line& hex(uint32_t value) {
    text("0x");
    for (int shift = 28; shift >= 0; shift -= 4) put("0123456789abcdef"[(value >> shift) & 0xf]);
    return *this;
  }
  const char* c_str() {
    buffer_[length_] = '\0';
    return buffer_;
  }

 private:
  void put(char c) {
    if (length_ + 1 < sizeof(buffer_)) buffer_[length_++] = c;
  }
  char buffer_[320];
  uint32_t length_ = 0;
};

}  // namespace tinyaot::board
