// Time as sorted, disjoint [start, end) segments: the union of ops or ranges kept with its parts,
// for rules that need where the busy time lies, not only how long it is (IntervalUnion).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace gpuroof {

// Sorted, disjoint [start, end) intervals.
using Segments = std::vector<std::pair<int64_t, int64_t>>;

// Adds [start, end) to `segments`, fed in nondecreasing start order: merged into the last
// segment when the two overlap or touch, else appended. A zero-length interval is kept (a point
// range can hold a point op); callers that measure only busy time leave those out.
void AppendMerged(Segments& segments, int64_t start, int64_t end);

// Total length of `segments`.
int64_t SegmentsLengthNs(const Segments& segments);
// Length of the time both `a` and `b` cover (each sorted and disjoint).
int64_t IntersectionLengthNs(const Segments& a, const Segments& b);
// Length of the part of `a` not covered by `b` (both sorted and disjoint).
int64_t UncoveredLengthNs(const Segments& a, const Segments& b);
// The parts of `a` not covered by `b` (both sorted and disjoint), sorted and disjoint.
Segments UncoveredSegments(const Segments& a, const Segments& b);

}  // namespace gpuroof
