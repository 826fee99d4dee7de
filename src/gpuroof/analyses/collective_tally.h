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
#include <utility>
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

// A step in which the ranks compared do not issue the same collectives in the same order (NCCL
// requires it: a rank whose sequence differs lost or gained records): its instances cannot be
// aligned past the difference, so none of them is compared.
struct DifferingStep {
  size_t step = 0;
  size_t common_count = 0;  // collectives of the commonest sequence (the larger count on a tie)
  // The ranks (indices) whose sequence is not the commonest one, with their counts, by index.
  std::vector<std::pair<size_t, size_t>> differing;
  size_t instances = 0;  // distinct (order, name) instances of the step, none compared
};

struct SkewSummary {
  std::vector<CollectiveSkew> instances;  // on every rank; largest spread first, then by key
  size_t partial_instances = 0;           // present on some ranks only: not compared
  // On every rank but in a step whose collective sequences differ between ranks: not compared.
  size_t unaligned_instances = 0;
  std::vector<DifferingStep> differing_steps;  // by step
  std::vector<size_t> times_last;              // per rank index: instances it arrived last at
  std::vector<size_t> collectives_per_rank;    // per rank index: its collective kernels, all steps
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

  // A rank's collectives in one step: how many, and a hash of their names in order (the same
  // whichever process folded the rank).
  struct Sequence {
    bool whole_trace = false;
    uint32_t step = 0;
    uint32_t input = 0;
    uint32_t count = 0;
    uint64_t hash = 0;
    bool operator==(const Sequence&) const = default;
  };

  // Folds in the arrivals of `rank`, whose number among the inputs is `input`. Each input once.
  void Add(uint32_t input, const RankSummary& rank);
  // Folds in another tally (of other inputs): an MPI process's share.
  void Merge(const CollectiveTally& other);

  // The instances on every one of `ranks` ranks, and those on fewer counted. position_of_input[i]
  // is where input i stands among the ranks analysed (an index into RankSetAnalysis::ranks); of
  // ranks that arrive last together, the first in that order is named.
  SkewSummary Match(const std::vector<size_t>& position_of_input, size_t ranks) const;
  // Instances of a step whose collective sequences (count, names in order) differ between the
  // ranks compared are not matched: counted in unaligned_instances (those on every rank) or
  // partial_instances, and the step listed in differing_steps.
  // The same for the instances of ranks with step ranges only, when some ranks fell back to the
  // whole trace as their step (those are not compared): an instance is matched when it is on
  // every rank with compared[position] set (the ranks with step ranges); times_last has
  // compared.size() entries.
  SkewSummary MatchStepRanges(const std::vector<size_t>& position_of_input,
                              const std::vector<bool>& compared) const;

  // The tally as plain parts and back (MPI messages). FromParts throws std::invalid_argument on
  // parts no tally has: a name id out of range, an instance twice or without a latest input.
  const std::vector<std::string>& names() const { return names_; }
  std::vector<Instance> Instances() const;
  std::vector<Sequence> Sequences() const;
  // Also throws on a sequence twice (the same whole trace flag, step and input).
  static CollectiveTally FromParts(std::vector<std::string> names, std::vector<Instance> instances,
                                   std::vector<Sequence> sequences = {});

  bool operator==(const CollectiveTally&) const = default;

 private:
  void Fold(Instance instance);
  SkewSummary MatchWhere(const std::vector<size_t>& position_of_input,
                         const std::vector<bool>& compared, bool step_ranges_only) const;

  std::vector<std::string> names_;  // each distinct collective kernel name once
  // By (whole trace, step, order, name id).
  std::map<std::tuple<bool, uint32_t, uint32_t, uint32_t>, Instance> instances_;
  // By (whole trace, step, input): (count, hash) of the input's collectives in that step.
  std::map<std::tuple<bool, uint32_t, uint32_t>, std::pair<uint32_t, uint64_t>> sequences_;
};

}  // namespace gpuroof
