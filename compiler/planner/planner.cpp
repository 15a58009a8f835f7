#include "compiler/planner/planner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace tinyaot {
namespace {

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_op <= b.last_op && b.first_op <= a.last_op;
}

// Places buffers in the given order, each at the lowest aligned offset
// where it overlaps no already placed buffer alive at the same time.
Plan place_in_order(const std::vector<BufferRequest>& buffers, const std::vector<size_t>& order) {
  Plan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> placed;
  uint32_t arena = 0;
  for (size_t index : order) {
    const BufferRequest& b = buffers[index];
    if (b.bytes == 0) continue;
    std::vector<std::pair<uint32_t, uint32_t>> busy;  // [begin, end) of conflicting buffers
    for (size_t other : placed) {
      if (lifetimes_overlap(b, buffers[other]))
        busy.emplace_back(plan.offsets[other], plan.offsets[other] + buffers[other].bytes);
    }
    std::sort(busy.begin(), busy.end());
    uint32_t candidate = 0;
    for (const auto& [begin, end] : busy) {
      if (candidate + b.bytes <= begin) break;
      candidate = std::max(candidate, align_up(end, kPlanAlignment));
    }
    plan.offsets[index] = candidate;
    arena = std::max(arena, candidate + b.bytes);
    placed.push_back(index);
  }
  plan.arena_bytes = align_up(arena, kPlanAlignment);
  return plan;
}

using Order = std::function<bool(const BufferRequest&, const BufferRequest&)>;

}  // namespace

uint32_t lower_bound_bytes(const std::vector<BufferRequest>& buffers) {
  int32_t last = 0;
  for (const auto& b : buffers) last = std::max(last, b.last_op);
  uint32_t best = 0;
  for (int32_t step = 0; step <= last; ++step) {
    uint32_t alive = 0;
    for (const auto& b : buffers)
      if (b.bytes > 0 && b.first_op <= step && step <= b.last_op) alive += align_up(b.bytes, kPlanAlignment);
    best = std::max(best, alive);
  }
  return best;
}

Plan plan_memory(const std::vector<BufferRequest>& buffers) {
  const uint32_t bound = lower_bound_bytes(buffers);
  // Each heuristic is an ordering; ties fall back to the request order so
  // that plans are deterministic.
  const std::vector<std::pair<const char*, Order>> heuristics = {
      {"greedy-by-size",
       [](const BufferRequest& a, const BufferRequest& b) { return a.bytes > b.bytes; }},
      {"greedy-by-size-first-use",
       [](const BufferRequest& a, const BufferRequest& b) {
         return a.bytes != b.bytes ? a.bytes > b.bytes : a.first_op < b.first_op;
       }},
      {"greedy-by-first-use",
       [](const BufferRequest& a, const BufferRequest& b) {
         return a.first_op != b.first_op ? a.first_op < b.first_op : a.bytes > b.bytes;
       }},
      {"greedy-by-breadth",
       [](const BufferRequest& a, const BufferRequest& b) {
         const int32_t la = a.last_op - a.first_op, lb = b.last_op - b.first_op;
         return la != lb ? la > lb : a.bytes > b.bytes;
       }},
  };
  Plan best;
  bool have_best = false;
  for (const auto& [name, less] : heuristics) {
    std::vector<size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return less(buffers[x], buffers[y]); });
    Plan plan = place_in_order(buffers, order);
    plan.strategy = name;
    if (!have_best || plan.arena_bytes < best.arena_bytes) {
      best = plan;
      have_best = true;
    }
    if (best.arena_bytes <= bound) break;
  }
  best.lower_bound_bytes = bound;
  return best;
}

std::string verify_plan(const std::vector<BufferRequest>& buffers, const Plan& plan) {
  if (plan.offsets.size() != buffers.size()) return "plan has a different number of buffers";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const auto& b = buffers[i];
    if (b.bytes == 0) continue;
    if (plan.offsets[i] % kPlanAlignment != 0) return "buffer '" + b.name + "' is not aligned";
    if (static_cast<uint64_t>(plan.offsets[i]) + b.bytes > plan.arena_bytes)
      return "buffer '" + b.name + "' ends past the arena";
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const auto& c = buffers[j];
      if (c.bytes == 0 || !lifetimes_overlap(b, c)) continue;
      const uint64_t b0 = plan.offsets[i], b1 = b0 + b.bytes;
      const uint64_t c0 = plan.offsets[j], c1 = c0 + c.bytes;
      if (b0 < c1 && c0 < b1) return "buffers '" + b.name + "' and '" + c.name + "' overlap while both alive";
    }
  }
  return "";
}

}  // namespace tinyaot
