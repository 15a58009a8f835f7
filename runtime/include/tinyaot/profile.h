// Per-operation profiling hook. A runtime built with TINYAOT_PROFILE_OPS
// calls tinyaot_op_boundary() before each operation and once after the
// last, so a tool watching that function's entry (the instruction-counting
// QEMU plugin, tools/qemu/icount_plugin.c) can split one run into the
// operations in execution order. The build that uses it defines the
// function (not inlined, so its entry is one address); every other build
// compiles the hook away and pays nothing.
#pragma once

#if defined(TINYAOT_PROFILE_OPS)
extern "C" void tinyaot_op_boundary();
#define TINYAOT_OP_BOUNDARY() tinyaot_op_boundary()
#else
#define TINYAOT_OP_BOUNDARY() ((void)0)
#endif
