// Status codes: the runtime's only error channel (no exceptions, no errno).
#pragma once

#include <stdint.h>

namespace tinyaot {

// Each failure the loader or a kernel can detect has its own code, so a
// caller (or a test) can tell exactly which check refused a program. New
// codes go at the end: the values are part of the C API.
#define TINYAOT_STATUS_LIST(X)                                            \
  X(kOk, "ok")                                                            \
  X(kNullArgument, "null argument")                                       \
  X(kTruncated, "program shorter than its header or its declared size")   \
  X(kBadMagic, "not a tinyaot program (bad magic)")                       \
  X(kUnsupportedVersion, "unsupported program format version")            \
  X(kChecksumMismatch, "program checksum mismatch (corrupt file)")        \
  X(kMisaligned, "program, arena or section not aligned")                 \
  X(kBadHeader, "inconsistent program header")                            \
  X(kSectionOutOfFile, "a section lies outside the program")              \
  X(kUnknownTarget, "unknown target core or ISA class")                   \
  X(kIsaMismatch, "program was planned for another ISA class")            \
  X(kBadRounding, "rounding mode unknown or not built into this runtime") \
  X(kUnknownKernel, "unknown kernel id")                                  \
  X(kAbiMismatch, "operator ABI differs from the runtime's")              \
  X(kBadOperation, "operation record is malformed")                       \
  X(kOperandOutOfBounds, "operand outside the arena or the constants")    \
  X(kOperandNotWritable, "output or scratch operand is not in the arena") \
  X(kBadParams, "operation parameters do not match its operands")         \
  X(kBadIo, "input/output description is malformed")                      \
  X(kArenaTooSmall, "arena smaller than the program needs")               \
  X(kScratchMismatch, "planned scratch differs from the kernel's need")   \
  X(kBadArgument, "bad argument")                                         \
  X(kOperandsOverlap, "operands of an operation overlap in the arena")    \
  X(kBadState, "state region is malformed or outside the arena")

enum class Status : uint8_t {
#define TINYAOT_STATUS_ENUM(name, text) name,
  TINYAOT_STATUS_LIST(TINYAOT_STATUS_ENUM)
#undef TINYAOT_STATUS_ENUM
};

// Stable short name ("kBadMagic") and one-line description of a status.
const char* status_name(Status status);
const char* status_text(Status status);

// Logging hook: the runtime reports the detail behind a failed status
// (which operation, which operand, planned against needed) through this
// function. The default does nothing; a host tool or a firmware sets it.
using LogHook = void (*)(const char* message);
void set_log_hook(LogHook hook);
// Formats with a tiny printf subset (%s %d %u %x) into a fixed buffer and
// passes the line to the hook; never allocates.
void log_message(const char* format, ...);

}  // namespace tinyaot
