#include "markers.h"

// noipa: never inlined, cloned or folded into one function (identical
// code folding would give the markers one address). Each body is a single
// return instruction, which the measuring script subtracts.
extern "C" {
[[gnu::noipa]] void tinyaot_mark_start() { asm volatile("" ::: "memory"); }
[[gnu::noipa]] void tinyaot_mark_stop() { asm volatile("" ::: "memory"); }
[[gnu::noipa]] void tinyaot_op_boundary() { asm volatile("" ::: "memory"); }
}
