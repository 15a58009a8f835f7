// Reads and patches the fixed-layout structs of a .tao program, for the
// tests that hand the loader damaged programs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "tinyaot/program_format.h"

namespace tinyaot::test {

struct TaoEditor {
  std::vector<uint8_t> bytes;

  ProgramHeader header() const {
    ProgramHeader h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    return h;
  }
  template <typename T>
  T get(size_t offset) const {
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof(T));
    return value;
  }
  template <typename T>
  void set(size_t offset, const T& value) {
    std::memcpy(bytes.data() + offset, &value, sizeof(T));
  }
  template <typename T>
  void edit(size_t offset, const std::function<void(T&)>& change) {
    T value = get<T>(offset);
    change(value);
    set(offset, value);
  }
  void edit_header(const std::function<void(ProgramHeader&)>& change) {
    edit<ProgramHeader>(0, change);
  }
  size_t input_at(uint32_t i) const { return header().inputs_offset + i * sizeof(IoDesc); }
  size_t output_at(uint32_t i) const { return header().outputs_offset + i * sizeof(IoDesc); }
  size_t op_at(uint32_t i) const { return header().ops_offset + i * sizeof(OpRecord); }
  size_t operand_at(uint32_t i) const { return header().operands_offset + i * sizeof(BufferRef); }
  size_t kernel_at(uint32_t i) const { return header().kernels_offset + i * sizeof(AbiEntry); }
  OpRecord op(uint32_t i) const { return get<OpRecord>(op_at(i)); }
  AbiEntry kernel(uint32_t i) const { return get<AbiEntry>(kernel_at(i)); }

  // Recomputes the CRC so the loader's structural checks see the edit.
  void fix_checksum() {
    if (bytes.size() < sizeof(ProgramHeader)) return;
    const uint32_t n = std::min<uint32_t>(header().file_bytes, static_cast<uint32_t>(bytes.size()));
    const uint32_t crc = program_checksum(bytes.data(), n);
    set(offsetof(ProgramHeader, checksum), crc);
  }
};

}  // namespace tinyaot::test
