#include "gpuroof/model/exact_duplicates.h"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <utility>

namespace gpuroof {

namespace {

constexpr size_t kScan = 64;  // kept ops of one start compared with a new one, at most

bool HasCorrelation(const ActivityBlock& block) {
  return block.correlation.size() == block.size();
}

// Ops a and b, of one start, are the same op.
bool SameOp(const ActivityBlock& x, size_t a, const ActivityBlock& y, size_t b) {
  return x.end_ns[a] == y.end_ns[b] && x.stream[a] == y.stream[b] &&
         x.signature[a] == y.signature[b] && x.bytes[a] == y.bytes[b] &&
         (!HasCorrelation(x) || !HasCorrelation(y) || x.correlation[a] == y.correlation[b]);
}

// Keeps the ops whose `remove` is false, in order; returns how many went.
size_t RemoveOps(ActivityBlock& block, const std::vector<bool>& remove) {
  const size_t n = block.size();
  const bool correlated = HasCorrelation(block);
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (remove[i]) continue;
    if (kept != i) {
      block.start_ns[kept] = block.start_ns[i];
      block.end_ns[kept] = block.end_ns[i];
      block.bytes[kept] = block.bytes[i];
      block.signature[kept] = block.signature[i];
      block.stream[kept] = block.stream[i];
      if (correlated) block.correlation[kept] = block.correlation[i];
      block.engine[kept] = block.engine[i];
    }
    ++kept;
  }
  block.start_ns.resize(kept);
  block.end_ns.resize(kept);
  block.bytes.resize(kept);
  block.signature.resize(kept);
  block.stream.resize(kept);
  if (correlated) block.correlation.resize(kept);
  block.engine.resize(kept);
  return n - kept;
}

// The start times two or more blocks' [first start, last start] share, as closed ranges in
// order: only there can an op of one block repeat an op of another.
std::vector<std::pair<int64_t, int64_t>> SharedStartRanges(
    const std::vector<ActivityBlock>& blocks) {
  std::vector<std::pair<int64_t, int>> edges;  // (time, +1 at a first start, -1 after a last)
  for (const ActivityBlock& block : blocks) {
    if (block.size() == 0) continue;
    edges.emplace_back(block.start_ns.front(), 1);
    edges.emplace_back(block.start_ns.back(), -1);
  }
  // Closed ranges: at one time, openings before closings.
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  std::vector<std::pair<int64_t, int64_t>> shared;
  int open = 0;
  for (const auto& [time, step] : edges) {
    if (step > 0 && ++open == 2) shared.emplace_back(time, time);
    if (step < 0 && open-- == 2) shared.back().second = time;
  }
  return shared;
}

}  // namespace

bool MayBeExactDuplicate(const ActivityBlock& block, size_t i) {
  return block.end_ns[i] > block.start_ns[i] && !IsUvmEngine(block.engine[i]);
}

size_t DropExactDuplicates(ActivityBlock& block) {
  const size_t n = block.size();
  std::vector<bool> remove(n, false);
  size_t removed = 0;
  std::vector<size_t> kept_of_start;  // candidates kept with the current start
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || block.start_ns[i - 1] != block.start_ns[i]) kept_of_start.clear();
    if (!MayBeExactDuplicate(block, i)) continue;
    const size_t from = kept_of_start.size() > kScan ? kept_of_start.size() - kScan : 0;
    const bool duplicate =
        std::any_of(kept_of_start.begin() + static_cast<std::ptrdiff_t>(from), kept_of_start.end(),
                    [&](size_t k) { return SameOp(block, k, block, i); });
    if (duplicate) {
      remove[i] = true;
      ++removed;
    } else {
      kept_of_start.push_back(i);
    }
  }
  return removed == 0 ? 0 : RemoveOps(block, remove);
}

std::vector<size_t> DropExactDuplicatesAcrossBlocks(std::vector<ActivityBlock>& blocks) {
  std::vector<size_t> removed(blocks.size(), 0);
  if (blocks.size() < 2) return removed;
  const std::vector<std::pair<int64_t, int64_t>> shared = SharedStartRanges(blocks);
  if (shared.empty()) return removed;
  // Each block's ops in the shared ranges, as index ranges [begin, end): merged by (start,
  // block), so that of equal ops the one of the earliest block comes first and is kept.
  struct Segment {
    size_t block;
    size_t at;
    size_t end;
  };
  auto later = [&blocks](const Segment& a, const Segment& b) {
    const int64_t x = blocks[a.block].start_ns[a.at];
    const int64_t y = blocks[b.block].start_ns[b.at];
    return x != y ? x > y : a.block > b.block;
  };
  std::priority_queue<Segment, std::vector<Segment>, decltype(later)> merge(later);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const Column<int64_t>& starts = blocks[b].start_ns;
    for (const auto& [first, last] : shared) {
      const auto begin = std::lower_bound(starts.begin(), starts.end(), first);
      const auto end = std::upper_bound(begin, starts.end(), last);
      if (begin != end) {
        merge.push({b, static_cast<size_t>(begin - starts.begin()),
                    static_cast<size_t>(end - starts.begin())});
      }
    }
  }
  std::vector<std::vector<bool>> remove(blocks.size());
  std::vector<std::pair<size_t, size_t>> kept_of_start;  // (block, op) candidates kept
  bool have_start = false;
  int64_t current_start = 0;
  while (!merge.empty()) {
    Segment segment = merge.top();
    merge.pop();
    const ActivityBlock& block = blocks[segment.block];
    const size_t i = segment.at;
    if (!have_start || block.start_ns[i] != current_start) {
      have_start = true;
      current_start = block.start_ns[i];
      kept_of_start.clear();
    }
    if (MayBeExactDuplicate(block, i)) {
      const size_t from = kept_of_start.size() > kScan ? kept_of_start.size() - kScan : 0;
      const bool duplicate = std::any_of(
          kept_of_start.begin() + static_cast<std::ptrdiff_t>(from), kept_of_start.end(),
          [&](const std::pair<size_t, size_t>& k) {
            return k.first != segment.block && SameOp(blocks[k.first], k.second, block, i);
          });
      if (duplicate) {
        if (remove[segment.block].empty()) remove[segment.block].assign(block.size(), false);
        remove[segment.block][i] = true;
      } else {
        kept_of_start.emplace_back(segment.block, i);
      }
    }
    if (++segment.at < segment.end) merge.push(segment);
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (!remove[b].empty()) removed[b] = RemoveOps(blocks[b], remove[b]);
  }
  return removed;
}

}  // namespace gpuroof
