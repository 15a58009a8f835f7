#include "tinyaot/target.h"

namespace tinyaot {

const char* core_name(Core core) {
  switch (core) {
#define TINYAOT_CORE_NAME(id, name, isa) \
  case Core::id:                         \
    return name;
    TINYAOT_CORE_LIST(TINYAOT_CORE_NAME)
#undef TINYAOT_CORE_NAME
    case Core::kCount:
      break;
  }
  return "unknown-core";
}

IsaClass core_isa(Core core) {
  switch (core) {
#define TINYAOT_CORE_ISA(id, name, isa) \
  case Core::id:                        \
    return IsaClass::isa;
    TINYAOT_CORE_LIST(TINYAOT_CORE_ISA)
#undef TINYAOT_CORE_ISA
    case Core::kCount:
      break;
  }
  return IsaClass::kScalar;
}

const char* isa_name(IsaClass isa) {
  switch (isa) {
    case IsaClass::kScalar:
      return "scalar";
    case IsaClass::kDsp:
      return "dsp";
    case IsaClass::kMve:
      return "mve";
  }
  return "unknown-isa";
}

const char* rounding_name(Rounding rounding) {
  switch (rounding) {
    case Rounding::kDouble:
      return "tflm";
    case Rounding::kSingle:
      return "single";
    case Rounding::kOnnx:
      return "onnx";
  }
  return "unknown-rounding";
}

}  // namespace tinyaot
