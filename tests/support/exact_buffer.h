// Exactly `size` bytes, 16-byte aligned: the sanitizer then catches a read
// one byte past the end, which a padded std::vector would hide. For
// programs and arenas handed to the runtime in tests and fuzzers.
#pragma once

#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

namespace tinyaot {

class ExactBuffer {
 public:
  explicit ExactBuffer(size_t size)
      : size_(size),
        data_(static_cast<uint8_t*>(::operator new (size ? size : 1, std::align_val_t{16}))) {}
  explicit ExactBuffer(const std::vector<uint8_t>& bytes) : ExactBuffer(bytes.size()) {
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
  }
  ExactBuffer(const ExactBuffer&) = delete;
  ExactBuffer& operator=(const ExactBuffer&) = delete;
  ~ExactBuffer() { ::operator delete (data_, std::align_val_t{16}); }
  uint8_t* data() const { return data_; }
  uint32_t size() const { return static_cast<uint32_t>(size_); }

 private:
  size_t size_;
  uint8_t* data_;
};

}  // namespace tinyaot
