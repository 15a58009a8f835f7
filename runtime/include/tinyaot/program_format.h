// The .tao program format: one little-endian binary, used in place (from
// flash, no copy). The compiler's writer and the runtime's loader both use
// these structs, so the layout has one definition.
//
// Layout (every section offset is from the start of the file):
//   ProgramHeader
//   IoDesc[num_inputs], IoDesc[num_outputs]
//   OpRecord[num_ops]
//   BufferRef[num_operands]           operands of all operations, in order
//   AbiEntry[num_kernels]             one per kernel variant used
//   StateRegion[num_state_regions]    state kept between inferences
//   params                            parameter structs, 4-byte aligned
//   constants                         16-byte aligned blobs (weights, ...)
//   debug                             optional JSON (names, plan); ignored
//                                     by the runtime, read by `report`
#pragma once

#include <stdint.h>

namespace tinyaot {

constexpr uint8_t kProgramMagic[4] = {'T', 'A', 'O', 'P'};
constexpr uint32_t kProgramFormatVersion = 4;
constexpr uint32_t kConstantAlignment = 16;
constexpr uint32_t kArenaAlignment = 16;
constexpr uint32_t kMaxRank = 6;
constexpr uint32_t kMaxOperands = 16;  // per operation
constexpr uint32_t kNameBytes = 32;

enum class Region : uint32_t { kArena = 0, kConstants = 1 };

// kInt64 only for constants (the int64 biases of int16x8 operators); a
// program's inputs and outputs are never int64.
enum class DType : uint32_t { kInt8 = 0, kInt32 = 1, kFloat32 = 2, kInt16 = 3, kInt64 = 4 };

struct BufferRef {
  uint32_t region;  // Region
  uint32_t offset;  // within the region
  uint32_t bytes;
};

struct ProgramHeader {
  uint8_t magic[4];
  uint32_t format_version;
  uint32_t file_bytes;
  uint32_t checksum;  // CRC-32 of the whole file with this field zero
  uint32_t core;      // Core
  uint32_t isa;       // IsaClass the kernels were chosen for
  uint32_t rounding;  // Rounding
  uint32_t arena_bytes;
  uint32_t num_inputs;
  uint32_t inputs_offset;
  uint32_t num_outputs;
  uint32_t outputs_offset;
  uint32_t num_ops;
  uint32_t ops_offset;
  uint32_t num_operands;
  uint32_t operands_offset;
  uint32_t num_kernels;
  uint32_t kernels_offset;
  uint32_t params_offset;
  uint32_t params_bytes;
  uint32_t constants_offset;
  uint32_t constants_bytes;
  uint32_t debug_offset;
  uint32_t debug_bytes;
  uint32_t num_state_regions;
  uint32_t state_regions_offset;
};

// A model input or output: lives in the arena at arena_offset.
struct IoDesc {
  char name[kNameBytes];  // NUL-terminated, truncated
  uint32_t dtype;         // DType
  int32_t zero_point;
  float scale;
  uint32_t rank;
  int32_t dims[kMaxRank];
  uint32_t arena_offset;
  uint32_t bytes;
};

struct OpRecord {
  uint16_t kernel;         // index into the AbiEntry table
  uint16_t source_index;   // operator index in the imported model
  uint32_t params_offset;  // within the params section
  uint32_t params_bytes;
  uint32_t first_operand;  // inputs then outputs, in the BufferRef table
  uint8_t num_inputs;
  uint8_t num_outputs;
  uint16_t reserved;
  BufferRef scratch;  // region arena; bytes 0 when none
};

// A variable tensor (an LSTM's hidden and cell state, an SVDF's memory):
// bytes of the arena no other buffer ever uses, carried from one run to
// the next; reset_state sets every byte to `fill` (an int8 state's zero
// point, else 0, as TFLite Micro's reset does).
struct StateRegion {
  uint32_t arena_offset;
  uint32_t bytes;
  uint32_t fill;  // 0..255
};

// What the program was built against, per kernel variant it uses.
struct AbiEntry {
  char name[kNameBytes];
  uint32_t kernel_id;  // index in the runtime registry
  uint16_t version;
  uint16_t params_bytes;
  uint8_t min_inputs;
  uint8_t max_inputs;
  uint8_t num_outputs;
  uint8_t isa;
  uint32_t fingerprint;
};

static_assert(sizeof(StateRegion) == 12, "StateRegion layout is part of the ABI");
static_assert(sizeof(ProgramHeader) == 104, "header layout is part of the ABI");
static_assert(sizeof(IoDesc) == 80, "IoDesc layout is part of the ABI");
static_assert(sizeof(OpRecord) == 32, "OpRecord layout is part of the ABI");
static_assert(sizeof(AbiEntry) == 48, "AbiEntry layout is part of the ABI");

// CRC-32 (IEEE, reflected) with the checksum field treated as zero.
uint32_t program_checksum(const uint8_t* data, uint32_t bytes);

}  // namespace tinyaot
