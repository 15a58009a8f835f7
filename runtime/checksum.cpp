#include <stddef.h>

#include "tinyaot/program_format.h"

namespace tinyaot {

// Bitwise CRC-32: no 1 KiB table in flash; the loader runs it once.
uint32_t program_checksum(const uint8_t* data, uint32_t bytes) {
  const uint32_t field_begin = offsetof(ProgramHeader, checksum);
  const uint32_t field_end = field_begin + sizeof(uint32_t);
  uint32_t crc = 0xffffffffu;
  for (uint32_t i = 0; i < bytes; ++i) {
    const uint8_t byte = (i >= field_begin && i < field_end) ? 0 : data[i];
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

}  // namespace tinyaot
