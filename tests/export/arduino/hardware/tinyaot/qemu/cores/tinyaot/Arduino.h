// The Arduino API of the tinyaot emulated boards: the part an exported
// library's example sketch uses. setup() and loop() are the sketch's;
// Serial writes to QEMU's console through semihosting.
#pragma once

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus

enum : int { BIN = 2, OCT = 8, DEC = 10, HEX = 16 };

// Serial over semihosting: text goes to QEMU's standard output as written.
class SemihostingSerial {
 public:
  void begin(unsigned long baud);
  explicit operator bool() const { return true; }  // the console is always there

  void print(const char* text);
  void print(char c);
  void print(unsigned long value, int base = DEC);
  void print(long value, int base = DEC);
  void print(unsigned int value, int base = DEC) { print(static_cast<unsigned long>(value), base); }
  void print(int value, int base = DEC) { print(static_cast<long>(value), base); }
  void print(unsigned char value, int base = DEC) {
    print(static_cast<unsigned long>(value), base);
  }

  void println() { print('\n'); }
  template <typename T>
  void println(T value) {
    print(value);
    println();
  }
  template <typename T>
  void println(T value, int base) {
    print(value, base);
    println();
  }
};

extern SemihostingSerial Serial;

extern "C" {
#endif

void setup(void);
void loop(void);
unsigned long micros(void);
void delay(unsigned long ms);

#ifdef __cplusplus
}
#endif
