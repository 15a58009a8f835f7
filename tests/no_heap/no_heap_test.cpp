// The runtime never touches the heap: every shared model is compiled here
// (the compiler may allocate freely), then load_program and run_program run
// with every allocation entry point counted. Also the error paths: a
// corrupt program refused with the log hook set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "no_heap/wrap_allocations.h"
#include "support/test_support.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;

// Fixed storage for the log hook: formatting a line must not allocate either.
char g_last_log[256];
void keep_log(const char* line) {
  std::strncpy(g_last_log, line, sizeof(g_last_log) - 1);
  g_last_log[sizeof(g_last_log) - 1] = '\0';
}

std::vector<std::string> shared_models() {
  std::vector<std::string> models;
  const auto shared = shared_dir();
  if (!shared) return models;
  for (const char* set : {"models", "golden-ops"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(*shared) / set))
      if (entry.path().extension() == ".tflite") models.push_back(entry.path().string());
  std::sort(models.begin(), models.end());
  return models;
}

// Heap-allocated before counting starts; 16-byte aligned as the runtime needs.
struct AlignedStorage {
  explicit AlignedStorage(size_t size) : bytes(size + 16) {}
  uint8_t* data() {
    return bytes.data() + (16 - reinterpret_cast<uintptr_t>(bytes.data()) % 16) % 16;
  }
  std::vector<uint8_t> bytes;
};

TEST(NoHeap, CounterSeesAllocationsMadeFromThisExecutable) {
  // Without this the test could pass because the wrapping silently failed.
  void* (*volatile allocate)(size_t) = std::malloc;
  start_counting_allocations();
  void* p = allocate(16);
  std::free(p);
  int* q = new int(3);
  delete q;
  EXPECT_EQ(stop_counting_allocations(), 4u);
}

TEST(NoHeap, LoadAndRunEverySharedModel) {
  const std::vector<std::string> models = shared_models();
  if (models.empty()) GTEST_SKIP() << "../shared not found";
  set_log_hook(keep_log);
  int checked = 0;
  for (const std::string& path : models) {
    for (const Core core : {Core::kCortexM4, Core::kCortexM0, Core::kCortexM55}) {
      CompileOptions options;
      options.target.core = core;
      options.target.isa = core_isa(core);
      std::optional<std::vector<uint8_t>> compiled = compile_shared_model(path, options);
      if (!compiled) continue;
      std::vector<uint8_t>& bytes = *compiled;
      AlignedStorage program(bytes.size());
      std::memcpy(program.data(), bytes.data(), bytes.size());
      // The arena size is read from the header before counting starts.
      uint32_t arena_bytes = 0;
      std::memcpy(&arena_bytes, program.data() + offsetof(ProgramHeader, arena_bytes), 4);
      AlignedStorage arena(arena_bytes);
      std::memset(arena.data(), 0x11, arena_bytes);
      Program loaded;

      start_counting_allocations();
      const Status load =
          load_program(program.data(), static_cast<uint32_t>(bytes.size()), &loaded);
      const Status reset =
          load == Status::kOk ? reset_state(loaded, arena.data(), arena_bytes) : load;
      const Status run =
          reset == Status::kOk ? run_program(loaded, arena.data(), arena_bytes) : reset;
      const unsigned long calls = stop_counting_allocations();

      ASSERT_EQ(load, Status::kOk) << path;
      ASSERT_EQ(run, Status::kOk) << path << ": " << g_last_log;
      EXPECT_EQ(calls, 0u) << path << " (" << core_name(core) << "): " << calls
                           << " heap call(s), first " << first_allocation_function();

      // Error paths (with the log hook formatting a message) allocate nothing.
      start_counting_allocations();
      const Status small = run_program(loaded, arena.data(), 0);
      const unsigned long small_calls = stop_counting_allocations();
      bytes[bytes.size() / 2] ^= 0x5a;
      std::memcpy(program.data(), bytes.data(), bytes.size());
      Program refused;
      start_counting_allocations();
      const Status corrupt =
          load_program(program.data(), static_cast<uint32_t>(bytes.size()), &refused);
      const unsigned long error_calls = small_calls + stop_counting_allocations();
      EXPECT_EQ(small, Status::kArenaTooSmall);
      EXPECT_EQ(corrupt, Status::kChecksumMismatch);
      EXPECT_EQ(error_calls, 0u) << path << ": error path allocated, first "
                                 << first_allocation_function();
      ++checked;
    }
  }
  set_log_hook(nullptr);
  std::cout << "  " << checked << " programs loaded and ran without a heap call\n";
}

}  // namespace
}  // namespace tinyaot::test
