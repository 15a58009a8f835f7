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

// Exact search for a plan that fits in `budget` bytes: depth-first over the
// buffers in order of first use, trying for each the offsets where it
// touches the arena's floor or ceiling or a neighbour's edge. Those
// candidate positions are enough to reach any packing that can be slid
// down (or up) into contact, and ceiling positions are what let a chain
// ping-pong between the two ends of the arena. Gives up after `max_steps`
// placements tried, so its result depends on the buffers alone.
class ExactSearch {
 public:
  ExactSearch(const std::vector<BufferRequest>& buffers, uint32_t budget, uint64_t max_steps)
      : buffers_(buffers),
        budget_(budget),
        max_steps_(max_steps),
        offsets_(buffers.size(), 0),
        placed_(buffers.size(), false) {
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].bytes > 0) order_.push_back(i);
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      if (buffers[a].first_op != buffers[b].first_op)
        return buffers[a].first_op < buffers[b].first_op;
      return buffers[a].bytes > buffers[b].bytes;
    });
    conflicts_.resize(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i)
      for (size_t j = 0; j < buffers.size(); ++j)
        if (i != j && buffers[i].bytes > 0 && buffers[j].bytes > 0 &&
            lifetimes_overlap(buffers[i], buffers[j]))
          conflicts_[i].push_back(j);
  }

  // True when a plan within the budget was found (offsets() holds it).
  bool run() { return place(0); }
  const std::vector<uint32_t>& offsets() const { return offsets_; }

 private:
  bool fits(size_t index, uint32_t offset) const {
    const uint64_t end = static_cast<uint64_t>(offset) + buffers_[index].bytes;
    if (end > budget_) return false;
    for (size_t other : conflicts_[index]) {
      if (!placed_[other]) continue;
      const uint64_t o0 = offsets_[other], o1 = o0 + buffers_[other].bytes;
      if (offset < o1 && o0 < end) return false;
    }
    return true;
  }

  bool place(size_t depth) {
    if (depth == order_.size()) return true;
    if (++steps_ > max_steps_) gave_up_ = true;
    if (gave_up_) return false;
    const size_t index = order_[depth];
    const uint32_t bytes = buffers_[index].bytes;
    const auto floor_of = [](int64_t value) {
      return static_cast<uint32_t>(value / kPlanAlignment * kPlanAlignment);
    };
    std::vector<uint32_t> candidates = {0};
    if (budget_ >= bytes) candidates.push_back(floor_of(static_cast<int64_t>(budget_) - bytes));
    for (size_t other : conflicts_[index]) {
      if (!placed_[other]) continue;
      candidates.push_back(align_up(offsets_[other] + buffers_[other].bytes, kPlanAlignment));
      if (offsets_[other] >= bytes)
        candidates.push_back(floor_of(static_cast<int64_t>(offsets_[other]) - bytes));
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (uint32_t offset : candidates) {
      if (!fits(index, offset)) continue;
      offsets_[index] = offset;
      placed_[index] = true;
      if (place(depth + 1)) return true;
      placed_[index] = false;
      if (gave_up_) return false;
    }
    return false;
  }

  const std::vector<BufferRequest>& buffers_;
  uint32_t budget_;
  uint64_t max_steps_;
  std::vector<uint32_t> offsets_;
  std::vector<bool> placed_;
  std::vector<size_t> order_;
  std::vector<std::vector<size_t>> conflicts_;
  uint64_t steps_ = 0;
  bool gave_up_ = false;
};

}  // namespace

uint32_t lower_bound_bytes(const std::vector<BufferRequest>& buffers) {
  int32_t last = 0;
  for (const auto& b : buffers) last = std::max(last, b.last_op);
  uint32_t best = 0;
  for (int32_t step = 0; step <= last; ++step) {
    uint32_t alive = 0;
    for (const auto& b : buffers)
      if (b.bytes > 0 && b.first_op <= step && step <= b.last_op)
        alive += align_up(b.bytes, kPlanAlignment);
    best = std::max(best, alive);
  }
  return best;
}

Plan plan_memory(const std::vector<BufferRequest>& buffers, const PlanOptions& options) {
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
  for (const auto& heuristic : heuristics) {
    const auto& less = heuristic.second;
    std::vector<size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return less(buffers[x], buffers[y]); });
    Plan plan = place_in_order(buffers, order);
    plan.strategy = heuristic.first;
    if (!have_best || plan.arena_bytes < best.arena_bytes) {
      best = plan;
      have_best = true;
    }
    if (best.arena_bytes <= bound) break;
  }
  // The heuristics missed the bound: search for a plan at the bound,
  // within the step budget.
  if (best.arena_bytes > bound && buffers.size() <= options.exact_search_max_buffers) {
    ExactSearch search(buffers, bound, options.exact_search_max_steps);
    if (search.run()) {
      best.offsets = search.offsets();
      best.arena_bytes = bound;
      best.strategy = "exact-search";
    }
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
      if (b0 < c1 && c0 < b1)
        return "buffers '" + b.name + "' and '" + c.name + "' overlap while both alive";
    }
  }
  return "";
}

}  // namespace tinyaot
