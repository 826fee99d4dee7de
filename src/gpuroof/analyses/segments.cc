#include "gpuroof/analyses/segments.h"

#include <algorithm>

namespace gpuroof {

void AppendMerged(Segments& segments, int64_t start, int64_t end) {
  if (!segments.empty() && start <= segments.back().second) {
    segments.back().second = std::max(segments.back().second, end);
  } else {
    segments.emplace_back(start, end);
  }
}

int64_t SegmentsLengthNs(const Segments& segments) {
  int64_t total = 0;
  for (const auto& [start, end] : segments)
    total += end - start;
  return total;
}

int64_t IntersectionLengthNs(const Segments& a, const Segments& b) {
  int64_t total = 0;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t start = std::max(a[i].first, b[j].first);
    const int64_t end = std::min(a[i].second, b[j].second);
    if (end > start) total += end - start;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

namespace {

// Calls `part(start, end)` for every part of `a` not covered by `b` (both sorted and disjoint),
// in time order.
template <typename Part>
void ForEachUncovered(const Segments& a, const Segments& b, Part part) {
  size_t j = 0;
  for (const auto& [start, end] : a) {
    int64_t cursor = start;
    while (j < b.size() && b[j].second <= cursor)
      ++j;
    size_t k = j;
    while (k < b.size() && b[k].first < end) {
      if (b[k].first > cursor) part(cursor, b[k].first);
      cursor = std::max(cursor, b[k].second);
      if (cursor >= end) break;
      ++k;
    }
    if (cursor < end) part(cursor, end);
  }
}

}  // namespace

int64_t UncoveredLengthNs(const Segments& a, const Segments& b) {
  int64_t uncovered = 0;
  ForEachUncovered(a, b, [&uncovered](int64_t start, int64_t end) { uncovered += end - start; });
  return uncovered;
}

Segments UncoveredSegments(const Segments& a, const Segments& b) {
  Segments out;
  ForEachUncovered(a, b, [&out](int64_t start, int64_t end) { out.emplace_back(start, end); });
  return out;
}

}  // namespace gpuroof
