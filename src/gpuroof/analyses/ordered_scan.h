#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// Calls `visit(block, index)` for every activity of `trace` in nondecreasing start order. Each
// block is already sorted, so this is a k-way merge over the blocks' heads (k is small: one block
// per table chunk) and needs no copy of the trace.
template <typename Visit>
void ForEachInStartOrder(const Trace& trace, Visit&& visit) {
  const std::vector<ActivityBlock>& blocks = trace.blocks;
  std::vector<size_t> next(blocks.size(), 0);
  while (true) {
    size_t best = blocks.size();
    int64_t best_start = std::numeric_limits<int64_t>::max();
    int64_t runner_up = std::numeric_limits<int64_t>::max();
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (next[b] >= blocks[b].size()) continue;
      int64_t start = blocks[b].start_ns[next[b]];
      if (best == blocks.size() || start < best_start) {
        runner_up = best_start;
        best = b;
        best_start = start;
      } else if (start < runner_up) {
        runner_up = start;
      }
    }
    if (best == blocks.size()) return;
    // Drain the chosen block while it stays ahead of every other head: long sorted runs cost one
    // comparison per op instead of k.
    const ActivityBlock& block = blocks[best];
    size_t i = next[best];
    do {
      visit(block, i);
      ++i;
    } while (i < block.size() && block.start_ns[i] <= runner_up);
    next[best] = i;
  }
}

}  // namespace gpuroof
