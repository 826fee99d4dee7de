// Exact duplicate GPU ops: a file merged with itself or with an overlapping capture repeats ops
// that CUPTI reported once. Counted twice they double sums and busy time, and make each launch
// look like a CUDA graph's (several ops per call). Both readers drop them by the same rule
// (docs/formats.md, "Exact duplicates").
#pragma once

#include <cstddef>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// Whether the op can be called a duplicate at all: an op that takes time and is not a unified-
// memory migration. A stream runs one op at a time, so two equal non-zero intervals on it cannot
// both be real; zero-duration ops can (the nodes of one CUDA graph share the launch's correlation
// id, and sub-microsecond ones read as one instant in whole-microsecond traces), and migrations
// run on no stream of their own. The rule is the same whatever a command reads, so that every
// command counts the same ops.
bool MayBeExactDuplicate(const ActivityBlock& block, size_t i);

// Removes, in a start-sorted block, each op that repeats an op kept before it: the same start,
// end, stream, signature, bytes and (when the block has the column) correlation id. Of the ops
// of one start, at most 64 kept ones are compared: one pass. Keeps the order; returns how many
// were removed.
size_t DropExactDuplicates(ActivityBlock& block);

// The same across blocks, each start-sorted and already cleared of its own duplicates: an op
// that repeats one of an earlier block (blocks are in file order) is removed. Only the time
// ranges that two or more blocks' starts share are merged, so blocks in time order cost a few
// comparisons at their edges. Returns per block how many were removed.
std::vector<size_t> DropExactDuplicatesAcrossBlocks(std::vector<ActivityBlock>& blocks);

}  // namespace gpuroof
