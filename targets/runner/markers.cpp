#include "markers.h"

// noipa: never inlined, cloned or folded into one function (identical
// code folding would give both markers one address).
extern "C" {
[[gnu::noipa]] void tinyaot_mark_start() { asm volatile("" ::: "memory"); }
[[gnu::noipa]] void tinyaot_mark_stop() { asm volatile("" ::: "memory"); }
}
