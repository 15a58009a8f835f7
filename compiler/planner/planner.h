// The memory planner: every buffer (activation tensor or kernel scratch)
// gets an offset in one arena, fixed at compile time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyaot {

struct BufferRequest {
  enum class Kind : uint8_t { kTensor, kScratch };
  std::string name;
  Kind kind = Kind::kTensor;
  int32_t tensor = -1;  // graph tensor id for kTensor, operation index for kScratch
  uint32_t bytes = 0;
  int32_t first_op = 0;  // live from the start of this operation...
  int32_t last_op = 0;   // ...to the end of this one (inclusive)
};

struct Plan {
  std::vector<uint32_t> offsets;  // one per request
  uint32_t arena_bytes = 0;
  uint32_t lower_bound_bytes = 0;  // most bytes alive at any one operation
  std::string strategy;            // which heuristic produced the plan
};

constexpr uint32_t kPlanAlignment = 16;

inline uint32_t align_up(uint32_t value, uint32_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Largest total of (aligned) bytes alive at any one operation: no plan can
// use a smaller arena.
uint32_t lower_bound_bytes(const std::vector<BufferRequest>& buffers);

struct PlanOptions {
  // The exact search runs only when no heuristic reached the lower bound,
  // and gives up after this many search steps (buffer placements tried):
  // a count, not a time, so that the same buffers give the same plan on
  // any machine however busy. About 0.3 s in a release build (3 M steps/s
  // on random 60-buffer graphs), 5 s under the sanitizers; the wall-clock
  // budget it replaces was 2 s. No shared model reaches the search at all:
  // a heuristic meets the bound on each.
  uint64_t exact_search_max_steps = 1'000'000;
  size_t exact_search_max_buffers = 512;
};

// Plans with several heuristics and keeps the smallest arena; when none
// reaches the lower bound, an exact search bounded by a step count tries to.
Plan plan_memory(const std::vector<BufferRequest>& buffers, const PlanOptions& options = {});

// Independent check of a plan: every buffer aligned and inside the arena,
// no two buffers alive at the same time overlapping. Returns "" when sound,
// else the first problem found.
std::string verify_plan(const std::vector<BufferRequest>& buffers, const Plan& plan);

}  // namespace tinyaot
