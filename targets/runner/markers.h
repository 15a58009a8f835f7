// The functions the instruction-counting QEMU plugin watches: it snapshots
// the count when the first instruction of each executes. Only run_program()
// is bracketed by start/stop; a runtime built with TINYAOT_PROFILE_OPS also
// calls tinyaot_op_boundary() between its operations (tinyaot/profile.h).
#pragma once

extern "C" {
void tinyaot_mark_start();
void tinyaot_mark_stop();
void tinyaot_op_boundary();
}
