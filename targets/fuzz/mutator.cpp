#include "mutator.h"

#include <stddef.h>
#include <string.h>

#include "tinyaot/runtime.h"

namespace tinyaot::fuzz {
namespace {

// What an area holds, for the mutations that understand it.
enum class Holds : uint8_t { kFields, kKernelTable, kOperandRefs };

// A region of the program a mutation aims at, and how often.
struct Area {
  const char* name;
  uint32_t begin;
  uint32_t end;
  uint32_t weight;
  Holds holds;
  bool empty() const { return end <= begin; }
};

constexpr uint32_t kMaxAreas = 8;

struct Areas {
  Area list[kMaxAreas];
  uint32_t count = 0;
};

// Values at the edges of what a field may hold: sizes and counts near
// powers of two, the int32 and uint32 limits, negatives (offsets, padding),
// and 2^20 (a stride that made int32 products overflow in a device kernel).
constexpr uint32_t kInterestingWords[] = {
    0,          1,          2,          3,          4,          7,          8,          15,
    16,         17,         31,         32,         63,         64,         127,        128,
    255,        256,        1000,       1024,       4095,       4096,       8191,       8192,
    32767,      32768,      65535,      65536,      65537,      1u << 20,   1u << 24,   0x0fffffff,
    0x3fffffff, 0x40000000, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
    0xfffffff0, 0xffffff80, 0xffffff7f, 0xffff8000, 0xffff0000, 0xfff00000, 0xc0000000,
};
constexpr uint16_t kInterestingHalves[] = {0,    1,     2,      0x7f,   0x80,
                                           0xff, 0x100, 0x7fff, 0x8000, 0xffff};
constexpr uint8_t kInterestingBytes[] = {0, 1, 2, 3, 4, 8, 16, 0x7f, 0x80, 0x81, 0xfe, 0xff};

template <typename T, size_t N>
constexpr uint32_t count_of(const T (&)[N]) {
  return static_cast<uint32_t>(N);
}

uint32_t clamp_end(uint32_t begin, uint64_t items, uint32_t item_bytes, uint32_t file_bytes) {
  const uint64_t end = uint64_t{begin} + items * item_bytes;
  return end < file_bytes ? static_cast<uint32_t>(end) : file_bytes;
}

void add_area(Areas* areas, const char* name, uint32_t begin, uint64_t items, uint32_t item_bytes,
              uint32_t file_bytes, uint32_t weight, Holds holds = Holds::kFields) {
  const uint32_t b = begin < file_bytes ? begin : file_bytes;
  areas->list[areas->count++] = {name, b, clamp_end(b, items, item_bytes, file_bytes), weight,
                                 holds};
}

// The whole program by its sections, clamped to the file (a seed may be a
// refused regression input whose header lies). The last area, the whole
// file, is never empty.
Areas program_areas(const ProgramHeader& h, uint32_t bytes) {
  Areas a;
  add_area(&a, "header", 0, sizeof(ProgramHeader), 1, bytes, 8);
  add_area(&a, "inputs/outputs", h.inputs_offset, uint64_t{h.num_inputs} + h.num_outputs,
           sizeof(IoDesc), bytes, 6);
  add_area(&a, "operations", h.ops_offset, h.num_ops, sizeof(OpRecord), bytes, 14);
  add_area(&a, "operands", h.operands_offset, h.num_operands, sizeof(BufferRef), bytes, 20,
           Holds::kOperandRefs);
  add_area(&a, "kernel table", h.kernels_offset, h.num_kernels, sizeof(AbiEntry), bytes, 10,
           Holds::kKernelTable);
  add_area(&a, "params", h.params_offset, h.params_bytes, 1, bytes, 34);
  add_area(&a, "constants", h.constants_offset, h.constants_bytes, 1, bytes, 3);
  add_area(&a, "anywhere", 0, bytes, 1, bytes, 5);
  return a;
}

// One operation's parts: its parameter struct, operand references, record
// and kernel table entry, so that several mutations meet in one kernel
// call (a stride and a variant switch, say). False if the seed's record
// does not lie where its header says.
bool operation_areas(const uint8_t* program, const ProgramHeader& h, uint32_t bytes, Random& random,
                     Areas* a) {
  if (h.num_ops == 0) return false;
  const uint32_t index = random.below(h.num_ops);
  const uint64_t record = uint64_t{h.ops_offset} + uint64_t{index} * sizeof(OpRecord);
  if (record + sizeof(OpRecord) > bytes) return false;
  OpRecord op;
  memcpy(&op, program + record, sizeof(op));
  add_area(a, "its params", h.params_offset + op.params_offset, op.params_bytes, 1, bytes, 60);
  add_area(a, "its operands", h.operands_offset + op.first_operand * sizeof(BufferRef),
           uint64_t{op.num_inputs} + op.num_outputs, sizeof(BufferRef), bytes, 15,
           Holds::kOperandRefs);
  add_area(a, "its record", static_cast<uint32_t>(record), 1, sizeof(OpRecord), bytes, 10);
  add_area(a, "its kernel entry", h.kernels_offset + op.kernel * sizeof(AbiEntry), 1,
           sizeof(AbiEntry), bytes, 15, Holds::kKernelTable);
  add_area(a, "anywhere", 0, bytes, 1, bytes, 1);
  return true;
}

const Area& pick_area(const Areas& areas, Random& random) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < areas.count; ++i)
    total += areas.list[i].empty() ? 0 : areas.list[i].weight;
  uint32_t pick = random.below(total);
  for (uint32_t i = 0; i < areas.count; ++i) {
    const uint32_t weight = areas.list[i].empty() ? 0 : areas.list[i].weight;
    if (pick < weight) return areas.list[i];
    pick -= weight;
  }
  return areas.list[areas.count - 1];
}

uint32_t load_word(const uint8_t* at) {
  uint32_t value;
  memcpy(&value, at, sizeof(value));
  return value;
}

void store_word(uint8_t* at, uint32_t value) { memcpy(at, &value, sizeof(value)); }

// A random 4-aligned offset of a whole word inside the area, or the area's
// end when it holds none.
uint32_t pick_word(const Area& area, Random& random) {
  const uint32_t first = (area.begin + 3u) & ~3u;
  if (first + 4 > area.end) return area.end;
  return first + 4 * random.below((area.end - first) / 4);
}

uint32_t interesting_word(Random& random) {
  if (random.one_in(4)) {  // any power of two, or one either side of it
    const uint32_t power = 1u << random.below(32);
    return power + random.below(3) - 1u;
  }
  return kInterestingWords[random.below(count_of(kInterestingWords))];
}

// Switches a kernel table entry to another variant of the same operator
// with the same parameter struct size (one of this core's ISA class more
// often), rewriting everything the loader compares but the fingerprint,
// which the fix-up sets.
bool switch_variant(uint8_t* program, const Area& table, Random& random, Mutation* m) {
  const uint32_t entries = (table.end - table.begin) / sizeof(AbiEntry);
  if (entries == 0) return false;
  uint8_t* const at = program + table.begin + sizeof(AbiEntry) * random.below(entries);
  AbiEntry e;
  memcpy(&e, at, sizeof(e));
  const KernelDescriptor* from = find_kernel(e.kernel_id);
  if (from == nullptr) return false;
  const bool same_isa_only = !random.one_in(4);
  uint32_t candidates[64];
  uint32_t count = 0;
  for (uint32_t pass = 0; pass < 2 && count == 0; ++pass) {
    for (uint32_t id = 0; id < kernel_count() && count < count_of(candidates); ++id) {
      const KernelDescriptor* d = find_kernel(id);
      if (id == e.kernel_id || strcmp(d->op, from->op) != 0 ||
          d->params_bytes != from->params_bytes)
        continue;
      if (pass == 0 && same_isa_only && d->isa != runtime_isa()) continue;
      candidates[count++] = id;
    }
  }
  if (count == 0) return false;
  const uint32_t id = candidates[random.below(count)];
  const KernelDescriptor& to = *find_kernel(id);
  memset(e.name, 0, sizeof(e.name));
  strncpy(e.name, to.name, sizeof(e.name) - 1);
  e.kernel_id = id;
  e.version = to.version;
  e.params_bytes = to.params_bytes;
  e.min_inputs = to.min_inputs;
  e.max_inputs = to.max_inputs;
  e.num_outputs = to.num_outputs;
  e.isa = static_cast<uint8_t>(to.isa);
  memcpy(at, &e, sizeof(e));
  *m = {"switch variant", table.name, static_cast<uint32_t>(at - program), id};
  return true;
}

// Copies one operand reference over another: aliasing, and an operand
// with another's size.
bool copy_operand(uint8_t* program, const Area& refs, Random& random, Mutation* m) {
  const uint32_t count = (refs.end - refs.begin) / sizeof(BufferRef);
  if (count < 2) return false;
  const uint32_t from = refs.begin + sizeof(BufferRef) * random.below(count);
  const uint32_t to = refs.begin + sizeof(BufferRef) * random.below(count);
  memmove(program + to, program + from, sizeof(BufferRef));
  *m = {"copy operand", refs.name, to, from};
  return true;
}

bool mutate_word(uint8_t* program, const Area& area, Random& random, Mutation* m) {
  const uint32_t offset = pick_word(area, random);
  if (offset == area.end) return false;
  uint8_t* const at = program + offset;
  const uint32_t old = load_word(at);
  uint32_t value = old;
  const char* what = nullptr;
  switch (random.below(4)) {
    case 0:
      value = interesting_word(random);
      what = "set word";
      break;
    case 1: {
      const uint32_t delta = 1 + random.below(16);
      value = random.one_in(2) ? old + delta : old - delta;
      what = "add to word";
      break;
    }
    case 2: {
      const uint32_t shift = 1 + random.below(24);
      value = random.one_in(3) ? 0u - old : random.one_in(2) ? old << shift : old >> shift;
      what = "scale word";
      break;
    }
    default: {
      const uint32_t from = pick_word(area, random);
      value = load_word(program + from);
      what = "copy word";
      break;
    }
  }
  store_word(at, value);
  *m = {what, area.name, offset, value};
  return true;
}

bool mutate_small(uint8_t* program, const Area& area, Random& random, Mutation* m) {
  const uint32_t offset = area.begin + random.below(area.end - area.begin);
  uint8_t* const at = program + offset;
  switch (random.below(3)) {
    case 0:
      *at ^= static_cast<uint8_t>(1u << random.below(8));
      *m = {"flip bit", area.name, offset, *at};
      return true;
    case 1:
      *at = kInterestingBytes[random.below(count_of(kInterestingBytes))];
      *m = {"set byte", area.name, offset, *at};
      return true;
    default: {
      const uint32_t aligned = offset & ~1u;
      if (aligned < area.begin || aligned + 2 > area.end) return false;
      const uint16_t half = kInterestingHalves[random.below(count_of(kInterestingHalves))];
      memcpy(program + aligned, &half, sizeof(half));
      *m = {"set halfword", area.name, aligned, half};
      return true;
    }
  }
}

bool mutate_once(uint8_t* program, const Areas& areas, Random& random, Mutation* m) {
  const Area& area = pick_area(areas, random);
  if (area.holds == Holds::kKernelTable && !random.one_in(4))
    return switch_variant(program, area, random, m);
  if (area.holds == Holds::kOperandRefs && random.one_in(8))
    return copy_operand(program, area, random, m);
  if (random.below(10) < 7) return mutate_word(program, area, random, m);
  return mutate_small(program, area, random, m);
}

}  // namespace

// splitmix64 (Steele, Lea, Flood): a new stream per (seed, index), so the
// programs of a run need not be generated in order to be reproduced.
Random::Random(uint64_t seed, uint64_t index)
    : state_(seed * 0x9e3779b97f4a7c15u ^ (index + 1) * 0xd1b54a32d192ed03u) {}

uint64_t Random::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

uint32_t Random::below(uint32_t bound) { return static_cast<uint32_t>((next() >> 32) % bound); }

void mutate_program(uint8_t* program, uint32_t bytes, Random& random, MutationTrace* trace) {
  trace->count = 0;
  if (bytes == 0) return;
  ProgramHeader h{};
  if (bytes >= sizeof(h)) memcpy(&h, program, sizeof(h));
  Areas areas;
  // Half the programs aim at one operation, half anywhere in the program.
  if (!random.one_in(2) || !operation_areas(program, h, bytes, random, &areas))
    areas = program_areas(h, bytes);
  uint32_t wanted = 1;
  while (wanted < kMaxMutations && random.one_in(2)) ++wanted;
  // A mutation that finds nothing to change (an empty table) is drawn again.
  for (uint32_t attempt = 0; trace->count < wanted && attempt < 4 * kMaxMutations; ++attempt) {
    if (mutate_once(program, areas, random, &trace->applied[trace->count])) ++trace->count;
  }
}

}  // namespace tinyaot::fuzz
