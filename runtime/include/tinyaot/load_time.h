// Marks a function that runs when a program is loaded or refused, never per
// inference: the kernels' validate functions and case checks, the loader's
// checks, status texts and the log. Compiled for size whatever the build's
// level: cold keeps it out of the hot sections and of their inlining, but
// GCC 12 still compiles a cold function nearer -O2 than -Os, hence
// optimize("Os") (a per-function option, as TINYAOT_NO_SCHEDULE); clang's
// minsize is the same. So a firmware built at -O2 carries this code at its -Os size
// (bench/size measures the library's flash) and its inferences run the same
// instructions.
#pragma once

#if defined(__clang__)
#define TINYAOT_LOAD_TIME __attribute__((cold, minsize))
#elif defined(__GNUC__)
#define TINYAOT_LOAD_TIME __attribute__((cold, optimize("Os")))
#else
#define TINYAOT_LOAD_TIME
#endif

// Marks a kernel's set-up, run once per kernel call before its loops (the
// driver that widens each block's weights and hands it to the pixel loops,
// the scratch it needs): compiled for size, out of line, but not cold. A
// cold function's callers predict the path that calls it never taken and
// GCC then compiles the functions called only from a cold one for size
// too: the loops this set-up drives. So TINYAOT_LOAD_TIME only where it
// is so. The set-up costs a few instructions per call more than at -O2;
// the loops it drives run thousands.
#if defined(__clang__)
#define TINYAOT_SETUP __attribute__((noinline, minsize))
#elif defined(__GNUC__)
#define TINYAOT_SETUP __attribute__((noinline, optimize("Os")))
#else
#define TINYAOT_SETUP
#endif

// Marks a kernel's rare path, what its fast loops leave over (channels past
// the last block, inputs the word loops cannot read), which none of the
// benchmark models reaches: compiled like load-time code, out of line, so
// the loops around it stay as they are and it costs little flash.
#if defined(__GNUC__)
#define TINYAOT_RARE_PATH __attribute__((noinline)) TINYAOT_LOAD_TIME
#else
#define TINYAOT_RARE_PATH
#endif
