#include "markers.h"

// Never inlined, cloned or folded into one function (identical code
// folding would give the markers one address): GCC's noipa says all of
// it; clang has no noipa, and noinline is enough there, as it merges
// functions only when asked (-fmerge-functions). Built as the benchmarks
// build them (-O1 and above, no frame pointer), each body is a single
// return instruction, which the measuring script subtracts.
#if defined(__clang__)
#define TINYAOT_MARKER [[gnu::noinline]]
#else
#define TINYAOT_MARKER [[gnu::noipa]]
#endif

extern "C" {
TINYAOT_MARKER void tinyaot_mark_start() { asm volatile("" ::: "memory"); }
TINYAOT_MARKER void tinyaot_mark_stop() { asm volatile("" ::: "memory"); }
TINYAOT_MARKER void tinyaot_op_boundary() { asm volatile("" ::: "memory"); }
}
