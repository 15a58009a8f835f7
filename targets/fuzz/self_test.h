// Proves the fuzzing firmware's net before it is trusted: sandboxed probes
// that return, write past either end of the arena, read and write memory
// they were not given, overflow their stack, trap and never end, each of which
// must be caught as what it is (`tinyaot-fuzz.elf -append --self-test`,
// run before every fuzzing round by tests/fuzz/soak-on-core.sh).
#pragma once

#include <stdint.h>

#include "harness.h"

namespace tinyaot::fuzz {

// Prints one line per probe; returns 0 when every probe was caught as
// expected, 1 otherwise.
uint32_t run_self_test(const Layout& layout);

}  // namespace tinyaot::fuzz
