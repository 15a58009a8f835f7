#include "Arduino.h"
#include "semihosting.h"  // targets/boards/common

SemihostingSerial Serial;

namespace {

int32_t console() {
  static int32_t handle = -1;
  if (handle < 0) handle = tinyaot::semihosting::open(":tt", tinyaot::semihosting::kModeWrite);
  return handle;
}

void write(const char* text, uint32_t bytes) {
  if (bytes != 0) tinyaot::semihosting::write(console(), text, bytes);
}

}  // namespace

void SemihostingSerial::begin(unsigned long) {}

void SemihostingSerial::print(const char* text) {
  write(text, static_cast<uint32_t>(strlen(text)));
}

void SemihostingSerial::print(char c) { write(&c, 1); }

// Digits as Arduino's Print does: no padding, upper-case letters, no
// prefix ("7F" for 127 in HEX).
void SemihostingSerial::print(unsigned long value, int base) {
  if (base < 2 || base > 16) base = DEC;
  char digits[8 * sizeof(value)];
  uint32_t n = 0;
  do {
    digits[sizeof(digits) - 1 - n++] = "0123456789ABCDEF"[value % base];
    value /= base;
  } while (value != 0);
  write(digits + sizeof(digits) - n, n);
}

// Negative numbers in base 10 only, as Arduino's Print: other bases print
// the two's complement bits.
void SemihostingSerial::print(long value, int base) {
  if (base == DEC && value < 0) {
    print('-');
    print(0ul - static_cast<unsigned long>(value), DEC);
  } else {
    print(static_cast<unsigned long>(value), base);
  }
}
