// The words a refused program is named with, written once for the two
// places that refuse one: the loader (through the log hook, so an exported
// library's NAME_init) and `tinyaot verify --runtime` (from a runtime's
// manifest, before flashing). Both print
//   FAIL <model> op <index> <variant>: <what differs>
// for an operation, or FAIL <model>: <what differs> for the whole program.
// printf formats (the loader's log_message takes %s, %u and %x), so a
// mismatched argument is a compile-time warning in either place.
#pragma once

#define TINYAOT_REFUSE_PROGRAM "FAIL %s: "
#define TINYAOT_REFUSE_OPERATION "FAIL %s op %u %s: "

#define TINYAOT_DIFFERS_FORMAT "program format version %u, runtime reads version %u"
#define TINYAOT_DIFFERS_ISA "program planned for %s (ISA class %s), runtime built for %s"
#define TINYAOT_DIFFERS_ROUNDING "program uses rounding mode %s, runtime accepts %s"
#define TINYAOT_DIFFERS_NO_ONNX "variant has no rounding mode onnx (kernels/onnx_kernels.h)"

#define TINYAOT_DIFFERS_MISSING "variant missing from the runtime"
#define TINYAOT_DIFFERS_KERNEL_ID "program calls kernel id %u, runtime has the variant at id %u"
#define TINYAOT_DIFFERS_VERSION "program built for version %u, runtime has version %u"
#define TINYAOT_DIFFERS_PARAMS "program supplies %u parameter bytes, runtime expects %u"
#define TINYAOT_DIFFERS_INPUTS "program supplies %u inputs, runtime expects %u"
#define TINYAOT_DIFFERS_INPUT_RANGE "program supplies %u inputs, runtime expects %u to %u"
#define TINYAOT_DIFFERS_OUTPUTS "program supplies %u outputs, runtime expects %u"
#define TINYAOT_DIFFERS_VARIANT_ISA "program uses the variant for ISA class %s, runtime's is for %s"
#define TINYAOT_DIFFERS_SIGNATURE "argument signature differs (program 0x%x, runtime 0x%x)"
