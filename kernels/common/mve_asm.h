// What an inline asm statement of the MVE kernels declares, in one text
// for GCC and clang (freestanding, header-only; MVE cores only): that it
// writes the predicate register, and memory it reads whose extent is known
// only at run time.
//
// VPR.P0 holds the lanes that a VCTP or a VPT compare sets. GCC knows it
// as the register of constraint "Up" (and "p0" in a clobber list). Clang
// (14, and Arm Compiler 6 built on it) has no name for it, neither as a
// constraint nor as a clobber, and takes every asm statement to leave it
// as it was: a predicate it keeps in P0 across the statement must still be
// there after. So a statement that writes P0 is written
//
//   MveP0 p0;
//   __asm__(TINYAOT_P0_SAVE "vctp.8 %[n]\n\t" ... TINYAOT_P0_RESTORE
//           : outputs..., TINYAOT_WRITES_P0(p0)
//           : inputs...);
//
// and under GCC declares P0 an output (p0 is never read: the compiler
// rebuilds a predicate it kept live, as after a "p0" clobber), under clang
// saves P0 in a core register first (VMRS) and puts it back last (VMSR).
//
// A loop that reads `count` objects of type T from p on, the count known
// only at run time, names them "m"(TINYAOT_ASM_SPAN(T, p, count)): an
// array of variable length (one element more, so that a count of 0 makes
// none of length 0). The compiler then keeps the stores to them before the
// statement and anything else in registers across it, which a "memory"
// clobber would not. Clang rejects an array of unknown bound here; a
// variable length one is an extension GCC and clang take in C++ and warn
// about under -Wvla and -pedantic (clang 18 by default), so the function
// that uses it sits between TINYAOT_ASM_SPANS_BEGIN and
// TINYAOT_ASM_SPANS_END, which silence that warning there alone.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include <arm_mve.h>
#include <stdint.h>

namespace tinyaot {

#define TINYAOT_ASM_SPAN(T, p, count) (*(const T(*)[(count) + 1])(p))

#if defined(__clang__)
#define TINYAOT_ASM_SPANS_BEGIN                                                            \
  _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wvla-extension\"") \
      _Pragma("clang diagnostic ignored \"-Wvla\"")
#define TINYAOT_ASM_SPANS_END _Pragma("clang diagnostic pop")
#else
#define TINYAOT_ASM_SPANS_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wvla\"")
#define TINYAOT_ASM_SPANS_END _Pragma("GCC diagnostic pop")
#endif

#if defined(__clang__)
using MveP0 = uint32_t;
#define TINYAOT_P0_SAVE "vmrs %[p0], p0\n\t"
#define TINYAOT_P0_RESTORE "\n\tvmsr p0, %[p0]"
#define TINYAOT_WRITES_P0(saved) [p0] "=&r"(saved)
#else
using MveP0 = mve_pred16_t;
#define TINYAOT_P0_SAVE ""
#define TINYAOT_P0_RESTORE ""
#define TINYAOT_WRITES_P0(written) [p0] "=Up"(written)
#endif

}  // namespace tinyaot

#endif  // __ARM_FEATURE_MVE
