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
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (remove[i]) continue;
    if (kept != i) block.MoveOp(i, kept);
    ++kept;
  }
  block.Truncate(kept);
  return n - kept;
}

// The start times two or more of the blocks `members` ([first start, last start] each) share, as
// closed ranges in order: only there can an op of one block repeat an op of another.
std::vector<std::pair<int64_t, int64_t>> SharedStartRanges(const std::vector<ActivityBlock>& blocks,
                                                           const std::vector<size_t>& members) {
  std::vector<std::pair<int64_t, int>> edges;  // (time, +1 at a first start, -1 after a last)
  for (size_t b : members) {
    const ActivityBlock& block = blocks[b];
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

namespace {

// One block's ops in one shared range, as the index range [at, end).
struct Segment {
  size_t block;
  size_t at;
  size_t end;
};

std::vector<Segment> SegmentsIn(const std::vector<ActivityBlock>& blocks, size_t b,
                                const std::vector<std::pair<int64_t, int64_t>>& shared) {
  std::vector<Segment> segments;
  const Column<int64_t>& starts = blocks[b].start_ns;
  for (const auto& [first, last] : shared) {
    const auto begin = std::lower_bound(starts.begin(), starts.end(), first);
    const auto end = std::upper_bound(begin, starts.end(), last);
    if (begin != end) {
      segments.push_back({b, static_cast<size_t>(begin - starts.begin()),
                          static_cast<size_t>(end - starts.begin())});
    }
  }
  return segments;
}

// The blocks whose ops may repeat each other's, as groups of two or more block indices: a copy
// is on the same stream as its original, so blocks are grouped when the streams of their
// candidate ops in the shared ranges meet. Blocks of two devices (or streams) that share times
// but no stream, as a table in device order has them, are then never merged.
std::vector<std::vector<size_t>> BlocksThatMayShareOps(
    const std::vector<ActivityBlock>& blocks,
    const std::vector<std::pair<int64_t, int64_t>>& shared) {
  std::vector<std::vector<uint32_t>> streams(blocks.size());  // sorted, distinct
  std::vector<bool> seen;  // by stream id (the trace's stream index: dense)
  for (size_t b = 0; b < blocks.size(); ++b) {
    seen.assign(seen.size(), false);
    for (const Segment& segment : SegmentsIn(blocks, b, shared)) {
      for (size_t i = segment.at; i < segment.end; ++i) {
        if (!MayBeExactDuplicate(blocks[b], i)) continue;
        const uint32_t stream = blocks[b].stream[i];
        if (stream >= seen.size()) seen.resize(size_t{stream} + 1, false);
        if (!seen[stream]) {
          seen[stream] = true;
          streams[b].push_back(stream);
        }
      }
    }
    std::sort(streams[b].begin(), streams[b].end());
  }
  std::vector<size_t> group(blocks.size());  // union-find parents
  for (size_t b = 0; b < blocks.size(); ++b)
    group[b] = b;
  auto root = [&group](size_t b) {
    while (group[b] != b)
      b = group[b] = group[group[b]];
    return b;
  };
  auto meet = [](const std::vector<uint32_t>& x, const std::vector<uint32_t>& y) {
    for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
      if (x[i] == y[j]) return true;
      x[i] < y[j] ? ++i : ++j;
    }
    return false;
  };
  for (size_t a = 0; a < blocks.size(); ++a) {
    for (size_t b = a + 1; b < blocks.size(); ++b) {
      if (root(a) != root(b) && meet(streams[a], streams[b])) group[root(b)] = root(a);
    }
  }
  std::vector<std::vector<size_t>> members(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (!streams[b].empty()) members[root(b)].push_back(b);
  }
  std::erase_if(members, [](const std::vector<size_t>& m) { return m.size() < 2; });
  return members;
}

// Marks in `remove` the ops of the blocks `members` that repeat an op of an earlier one of them.
void MarkCopiesAcross(const std::vector<ActivityBlock>& blocks, const std::vector<size_t>& members,
                      std::vector<std::vector<bool>>& remove) {
  const std::vector<std::pair<int64_t, int64_t>> shared = SharedStartRanges(blocks, members);
  // Merged by (start, block), so that of equal ops the one of the earliest block comes first
  // and is kept.
  auto later = [&blocks](const Segment& a, const Segment& b) {
    const int64_t x = blocks[a.block].start_ns[a.at];
    const int64_t y = blocks[b.block].start_ns[b.at];
    return x != y ? x > y : a.block > b.block;
  };
  std::priority_queue<Segment, std::vector<Segment>, decltype(later)> merge(later);
  for (size_t b : members) {
    for (const Segment& segment : SegmentsIn(blocks, b, shared))
      merge.push(segment);
  }
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
}

}  // namespace

std::vector<size_t> DropExactDuplicatesAcrossBlocks(std::vector<ActivityBlock>& blocks) {
  std::vector<size_t> removed(blocks.size(), 0);
  if (blocks.size() < 2) return removed;
  std::vector<size_t> all(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b)
    all[b] = b;
  const std::vector<std::pair<int64_t, int64_t>> shared = SharedStartRanges(blocks, all);
  if (shared.empty()) return removed;
  std::vector<std::vector<bool>> remove(blocks.size());
  for (const std::vector<size_t>& members : BlocksThatMayShareOps(blocks, shared))
    MarkCopiesAcross(blocks, members, remove);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (!remove[b].empty()) removed[b] = RemoveOps(blocks[b], remove[b]);
  }
  return removed;
}

}  // namespace gpuroof
