// The collective-skew match of a rank set (docs/metrics.md, "Collective skew") built one rank at
// a time: a rank's arrivals are folded in as soon as its trace is summarised and then dropped, so
// the set holds one entry per collective instance, not one per instance and rank (a rank has
// thousands; at 64 ranks they were most of `gpuroof ranks`'s memory, docs/performance.md §13).
// Folding is order-free: the same ranks give the same match whichever thread or MPI process
// folded which, and in whatever order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gpuroof/analyses/rank_summary.h"

namespace gpuroof {

// One instance of a collective, matched across ranks by step, order and name.
struct CollectiveSkew {
  size_t step = 0;
  size_t order = 0;
  std::string name;
  size_t ranks_present = 0;
  int64_t earliest_arrival_ns = 0;  // arrivals are kernel starts after the step's start
  int64_t latest_arrival_ns = 0;
  size_t last_rank_index = 0;  // the rank that arrives last: the one the others wait for
  int64_t spread_ns() const { return latest_arrival_ns - earliest_arrival_ns; }
};

struct SkewSummary {
  std::vector<CollectiveSkew> instances;  // on every rank; largest spread first, then by key
  size_t partial_instances = 0;           // present on some ranks only: not compared
  std::vector<size_t> times_last;         // per rank index: instances it arrived last at
};

class CollectiveTally {
 public:
  // An instance as folded so far. `inputs` name the ranks that arrive at the latest time: ties
  // are settled only by Match, once the ranks' final order is known.
  struct Instance {
    uint32_t step = 0;
    uint32_t order = 0;
    uint32_t name_id = 0;  // into names()
    uint32_t ranks_present = 0;
    int64_t earliest_arrival_ns = 0;
    int64_t latest_arrival_ns = 0;
    std::vector<uint32_t> latest_inputs;
    // Folded from ranks whose one step is the whole trace (RankSummary::whole_trace): kept apart
    // from the instances of ranks with step ranges, whose step 0 is another thing.
    bool whole_trace = false;
    bool operator==(const Instance&) const = default;
  };

  // Folds in the arrivals of `rank`, whose number among the inputs is `input`. Each input once.
  void Add(uint32_t input, const RankSummary& rank);
  // Folds in another tally (of other inputs): an MPI process's share.
  void Merge(const CollectiveTally& other);

  // The instances on every one of `ranks` ranks, and those on fewer counted. position_of_input[i]
  // is where input i stands among the ranks analysed (an index into RankSetAnalysis::ranks); of
  // ranks that arrive last together, the first in that order is named.
  SkewSummary Match(const std::vector<size_t>& position_of_input, size_t ranks) const;
  // The same for the instances of ranks with step ranges only, when some ranks fell back to the
  // whole trace as their step (those are not compared): an instance is matched when it is on
  // every one of the `compared` ranks with step ranges; times_last still has `ranks` entries.
  SkewSummary MatchStepRanges(const std::vector<size_t>& position_of_input, size_t ranks,
                              size_t compared) const;

  // The tally as plain parts and back (MPI messages). FromParts throws std::invalid_argument on
  // parts no tally has: a name id out of range, an instance twice or without a latest input.
  const std::vector<std::string>& names() const { return names_; }
  std::vector<Instance> Instances() const;
  static CollectiveTally FromParts(std::vector<std::string> names, std::vector<Instance> instances);

  bool operator==(const CollectiveTally&) const = default;

 private:
  void Fold(Instance instance);
  SkewSummary MatchWhere(const std::vector<size_t>& position_of_input, size_t ranks,
                         size_t compared, bool step_ranges_only) const;

  std::vector<std::string> names_;  // each distinct collective kernel name once
  // By (whole trace, step, order, name id).
  std::map<std::tuple<bool, uint32_t, uint32_t, uint32_t>, Instance> instances_;
};

}  // namespace gpuroof
