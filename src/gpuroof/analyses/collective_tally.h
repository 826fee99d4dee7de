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

// One instance of a collective, matched across ranks by step, name and occurrence: the k-th
// collective of a name in a step on one rank meets the k-th of that name on the others.
struct CollectiveSkew {
  size_t step = 0;
  // Its position among the step's collectives (0-based, in start order) on the first trace given
  // that holds it: collectives of several communicators may start in another order on each rank.
  size_t order = 0;
  std::string name;
  size_t ranks_present = 0;
  int64_t earliest_arrival_ns = 0;  // arrivals are kernel starts after the step's start
  int64_t latest_arrival_ns = 0;
  size_t last_rank_index = 0;  // the rank that arrives last: the one the others wait for
  int64_t spread_ns() const { return latest_arrival_ns - earliest_arrival_ns; }
};

// A collective name of which the ranks compared issue different counts in a step (NCCL has every
// rank of a communicator issue its collectives: a rank whose count differs lost or gained
// records): its instances in that step cannot be paired, so none of them is compared.
struct DifferingStep {
  size_t step = 0;
  std::string name;
  size_t common_count = 0;  // the commonest count of the name (the larger on a tie)
  // The ranks (indices) whose count is not the commonest one, with their counts, by index.
  std::vector<std::pair<size_t, size_t>> differing;
};

struct SkewSummary {
  std::vector<CollectiveSkew> instances;  // on every rank; largest spread first, then by key
  size_t partial_instances = 0;           // present on some ranks only: not compared
  // On every rank but of a name whose count in the step differs between ranks: not compared.
  size_t unaligned_instances = 0;
  std::vector<DifferingStep> differing_steps;  // by step, then name
  std::vector<size_t> times_last;              // per rank index: instances it arrived last at
  std::vector<size_t> collectives_per_rank;    // per rank index: its collective kernels, all steps
};

class CollectiveTally {
 public:
  // An instance as folded so far. `inputs` name the ranks that arrive at the latest time: ties
  // are settled only by Match, once the ranks' final order is known.
  struct Instance {
    uint32_t step = 0;
    uint32_t occurrence = 0;  // k: the k-th (0-based) collective of its name in the step
    uint32_t name_id = 0;     // into names()
    // CollectiveSkew::order: the position on order_input, the first input folded that holds it.
    uint32_t order = 0;
    uint32_t order_input = 0;
    uint32_t ranks_present = 0;
    int64_t earliest_arrival_ns = 0;
    int64_t latest_arrival_ns = 0;
    std::vector<uint32_t> latest_inputs;
    // Folded from ranks whose one step is the whole trace (RankSummary::whole_trace): kept apart
    // from the instances of ranks with step ranges, whose step 0 is another thing.
    bool whole_trace = false;
    bool operator==(const Instance&) const = default;
  };

  // How many collectives of one name a rank issues in one step.
  struct NameCount {
    bool whole_trace = false;
    uint32_t step = 0;
    uint32_t input = 0;
    uint32_t name_id = 0;  // into names()
    uint32_t count = 0;
    bool operator==(const NameCount&) const = default;
  };

  // Folds in the arrivals of `rank`, whose number among the inputs is `input`. Each input once.
  void Add(uint32_t input, const RankSummary& rank);
  // Folds in another tally (of other inputs): an MPI process's share.
  void Merge(const CollectiveTally& other);

  // The instances on every one of `ranks` ranks, and those on fewer counted. position_of_input[i]
  // is where input i stands among the ranks analysed (an index into RankSetAnalysis::ranks); of
  // ranks that arrive last together, the first in that order is named.
  SkewSummary Match(const std::vector<size_t>& position_of_input, size_t ranks) const;
  // Instances of a name whose count in a step differs between the ranks compared are not
  // matched: counted in unaligned_instances (those on every rank) or partial_instances, and the
  // (step, name) listed in differing_steps.
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
  std::vector<NameCount> NameCounts() const;
  // Also throws on a count twice (the same whole trace flag, step, input and name).
  static CollectiveTally FromParts(std::vector<std::string> names, std::vector<Instance> instances,
                                   std::vector<NameCount> counts = {});

  bool operator==(const CollectiveTally&) const = default;

 private:
  void Fold(Instance instance);
  SkewSummary MatchWhere(const std::vector<size_t>& position_of_input,
                         const std::vector<bool>& compared, bool step_ranges_only) const;

  std::vector<std::string> names_;  // each distinct collective kernel name once
  // By (whole trace, step, name id, occurrence).
  std::map<std::tuple<bool, uint32_t, uint32_t, uint32_t>, Instance> instances_;
  // By (whole trace, step, name id, input): the input's collectives of that name in that step.
  std::map<std::tuple<bool, uint32_t, uint32_t, uint32_t>, uint32_t> counts_;
};

}  // namespace gpuroof
