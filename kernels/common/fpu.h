// TINYAOT_FPU_F32: defined when the build runs float32 arithmetic on a
// single-precision FPU (VCVT, VMUL.F32, VCVTR): an Arm core with one and a
// float ABI that lets code use it (hard or softfp; -mfloat-abi=soft leaves
// __ARM_FP undefined). Mode onnx's output step (onnx_requantize.h) and the
// assembly that inlines it (depthwise_dsp_pixels.S) choose the FPU or the
// integer emulation by it. Preprocessor only: assembly includes it too.
#pragma once

#if defined(__arm__) && defined(__ARM_FP) && (__ARM_FP & 4)
#define TINYAOT_FPU_F32 1
#endif
