// The two functions the instruction-counting QEMU plugin watches: it
// snapshots the count when the first instruction of each executes. Only
// run_program() is bracketed.
#pragma once

extern "C" {
void tinyaot_mark_start();
void tinyaot_mark_stop();
}
