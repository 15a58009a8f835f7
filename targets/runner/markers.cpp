#include "markers.h"

// Never inlined, cloned or folded into one function (identical code
// folding would give the markers one address). Each body is a single
// return instruction, which the measuring script subtracts. GCC's noipa
// says all of that; clang knows no noipa and neither clones nor folds
// functions unasked, so there noinline is enough.
#if defined(__clang__)
#define TINYAOT_MARKER __attribute__((noinline))
#else
#define TINYAOT_MARKER [[gnu::noipa]]
#endif

extern "C" {
TINYAOT_MARKER void tinyaot_mark_start() { asm volatile("" ::: "memory"); }
TINYAOT_MARKER void tinyaot_mark_stop() { asm volatile("" ::: "memory"); }
TINYAOT_MARKER void tinyaot_op_boundary() { asm volatile("" ::: "memory"); }
}
