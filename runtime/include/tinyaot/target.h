// Target cores and their ISA classes, shared by the compiler and the runtime.
#pragma once

#include <stdint.h>

namespace tinyaot {

// Kernel variants are written per ISA class, not per core: a core's class
// decides which variants a program planned for it may use.
enum class IsaClass : uint8_t { kScalar = 0, kDsp = 1, kMve = 2 };

#define TINYAOT_CORE_LIST(X)                 \
  X(kCortexM0, "cortex-m0", kScalar)         \
  X(kCortexM0Plus, "cortex-m0plus", kScalar) \
  X(kCortexM3, "cortex-m3", kScalar)         \
  X(kCortexM4, "cortex-m4", kDsp)            \
  X(kCortexM7, "cortex-m7", kDsp)            \
  X(kCortexM23, "cortex-m23", kScalar)       \
  X(kCortexM33, "cortex-m33", kDsp)          \
  X(kCortexM35P, "cortex-m35p", kDsp)        \
  X(kCortexM52, "cortex-m52", kMve)          \
  X(kCortexM55, "cortex-m55", kMve)          \
  X(kCortexM85, "cortex-m85", kMve)

enum class Core : uint8_t {
#define TINYAOT_CORE_ENUM(id, name, isa) id,
  TINYAOT_CORE_LIST(TINYAOT_CORE_ENUM)
#undef TINYAOT_CORE_ENUM
      kCount
};

const char* core_name(Core core);
IsaClass core_isa(Core core);
const char* isa_name(IsaClass isa);

// Rounding of the int32 -> int8 rescale; recorded in every program.
// kDouble is TFLite Micro's and CMSIS-NN's default (saturating doubling
// high multiply, then a rounding shift); kSingle is TFLITE_SINGLE_ROUNDING;
// kOnnx is onnxruntime's (a float32 multiplier, float32 multiply, round half
// to even: MlasRequantizeOutput), defined only for the operators whose
// kernels have it (kernels/common/onnx_rounding.h).
enum class Rounding : uint8_t { kDouble = 0, kSingle = 1, kOnnx = 2 };

constexpr Rounding kEveryRounding[] = {Rounding::kDouble, Rounding::kSingle, Rounding::kOnnx};
constexpr Rounding kLastRounding = Rounding::kOnnx;

const char* rounding_name(Rounding rounding);  // "tflm", "single" or "onnx"

}  // namespace tinyaot
