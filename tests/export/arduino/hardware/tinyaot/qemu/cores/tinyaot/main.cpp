// The emulated board's program: setup(), loop() once, then exit through
// semihosting (the board's startup exits with main's result and prints its
// stack high-water mark). A test run needs one pass of loop().
#include "Arduino.h"

namespace {

constexpr uint32_t kSysClock = 0x10;  // semihosting SYS_CLOCK: centiseconds since start

uint32_t centiseconds() {
  register uint32_t r0 asm("r0") = kSysClock;
  register uint32_t r1 asm("r1") = 0;
  asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace

// At the resolution of QEMU's semihosting clock, 10 ms.
unsigned long micros() { return centiseconds() * 10000ul; }

// loop() runs once and the program then exits: waiting would serve
// nothing here, so delay returns at once.
void delay(unsigned long) {}

int main() {
  setup();
  loop();
  return 0;
}
