#include "gpuroof/analyses/collective_tally.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

namespace gpuroof {

void CollectiveTally::Fold(Instance instance) {
  auto key = std::make_tuple(instance.whole_trace, instance.step, instance.order, instance.name_id);
  // try_emplace moves from `instance` only when it inserts.
  auto [it, inserted] = instances_.try_emplace(key, std::move(instance));
  if (inserted) return;
  Instance& held = it->second;
  held.ranks_present += instance.ranks_present;
  held.earliest_arrival_ns = std::min(held.earliest_arrival_ns, instance.earliest_arrival_ns);
  if (instance.latest_arrival_ns > held.latest_arrival_ns) {
    held.latest_arrival_ns = instance.latest_arrival_ns;
    held.latest_inputs = std::move(instance.latest_inputs);
  } else if (instance.latest_arrival_ns == held.latest_arrival_ns) {
    held.latest_inputs.insert(held.latest_inputs.end(), instance.latest_inputs.begin(),
                              instance.latest_inputs.end());
  }
}

namespace {

// FNV-1a over the names of a step's collectives in order (each name ended by a 0 byte): the same
// on every process, unlike name ids.
constexpr uint64_t kEmptySequenceHash = 14695981039346656037ull;
uint64_t HashName(uint64_t hash, std::string_view name) {
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash * 1099511628211ull;  // the 0 byte: hash ^= 0, then the multiplication
}

}  // namespace

void CollectiveTally::Add(uint32_t input, const RankSummary& rank) {
  std::vector<uint32_t> name_ids;
  for (const std::string& name : rank.collective_names)
    name_ids.push_back(CollectiveNameId(names_, name));
  // The rank's sequence of collectives per step: (step, order, arrival index), in order.
  std::vector<std::tuple<uint32_t, uint32_t, size_t>> in_order;
  in_order.reserve(rank.collectives.size());
  for (size_t i = 0; i < rank.collectives.size(); ++i)
    in_order.emplace_back(rank.collectives[i].step, rank.collectives[i].order, i);
  std::sort(in_order.begin(), in_order.end());
  for (const auto& [step, order, i] : in_order) {
    auto [it, inserted] = sequences_.try_emplace(std::make_tuple(rank.whole_trace, step, input), 0u,
                                                 kEmptySequenceHash);
    (void)inserted;
    ++it->second.first;
    it->second.second = HashName(it->second.second, rank.CollectiveName(rank.collectives[i]));
  }
  for (const CollectiveArrival& arrival : rank.collectives) {
    Fold({arrival.step,
          arrival.order,
          name_ids.at(arrival.name_id),
          1,
          arrival.arrival_ns,
          arrival.arrival_ns,
          {input},
          rank.whole_trace});
  }
}

void CollectiveTally::Merge(const CollectiveTally& other) {
  std::vector<uint32_t> name_ids;
  for (const std::string& name : other.names_)
    name_ids.push_back(CollectiveNameId(names_, name));
  for (const auto& [key, instance] : other.instances_) {
    Instance renamed = instance;
    renamed.name_id = name_ids[instance.name_id];
    Fold(std::move(renamed));
  }
  sequences_.insert(other.sequences_.begin(), other.sequences_.end());
}

SkewSummary CollectiveTally::Match(const std::vector<size_t>& position_of_input,
                                   size_t ranks) const {
  return MatchWhere(position_of_input, std::vector<bool>(ranks, true), false);
}

SkewSummary CollectiveTally::MatchStepRanges(const std::vector<size_t>& position_of_input,
                                             const std::vector<bool>& compared) const {
  return MatchWhere(position_of_input, compared, true);
}

SkewSummary CollectiveTally::MatchWhere(const std::vector<size_t>& position_of_input,
                                        const std::vector<bool>& compared,
                                        bool step_ranges_only) const {
  const size_t ranks = compared.size();
  const auto compared_count =
      static_cast<size_t>(std::count(compared.begin(), compared.end(), true));
  // Each step's sequence per rank compared ((0, empty) for a rank with no collective there); a
  // step where they are not all the same is not aligned.
  using Signature = std::pair<uint32_t, uint64_t>;
  std::map<std::pair<bool, uint32_t>, std::vector<Signature>> by_step;
  std::vector<size_t> collectives_per_rank(ranks, 0);
  for (const auto& [key, signature] : sequences_) {
    const auto& [whole_trace, step, input] = key;
    if (step_ranges_only && whole_trace) continue;
    const size_t position = position_of_input.at(input);
    if (position >= ranks || !compared[position]) continue;
    collectives_per_rank[position] += signature.first;
    auto [it, inserted] = by_step.try_emplace(std::make_pair(whole_trace, step));
    if (inserted) it->second.assign(ranks, Signature{0, kEmptySequenceHash});
    it->second[position] = signature;
  }
  std::map<std::pair<bool, uint32_t>, DifferingStep> differing;
  for (const auto& [step_key, signatures] : by_step) {
    std::map<Signature, size_t> counts;
    for (size_t r = 0; r < ranks; ++r) {
      if (compared[r]) ++counts[signatures[r]];
    }
    if (counts.size() < 2) continue;
    // The commonest sequence; on a tie the longer (Kineto drops records, it adds none).
    auto common = counts.begin();
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      if (it->second > common->second ||
          (it->second == common->second && it->first.first > common->first.first))
        common = it;
    }
    DifferingStep step;
    step.step = step_key.second;
    step.common_count = common->first.first;
    for (size_t r = 0; r < ranks; ++r) {
      if (compared[r] && signatures[r] != common->first)
        step.differing.emplace_back(r, signatures[r].first);
    }
    differing.emplace(step_key, std::move(step));
  }
  // In (step, order, name) order, as ranks would list them; then largest spread first.
  std::vector<const Instance*> ordered;
  ordered.reserve(instances_.size());
  for (const auto& [key, instance] : instances_) {
    if (step_ranges_only && instance.whole_trace) continue;
    ordered.push_back(&instance);
  }
  std::sort(ordered.begin(), ordered.end(), [&](const Instance* a, const Instance* b) {
    return std::tie(a->whole_trace, a->step, a->order, names_[a->name_id]) <
           std::tie(b->whole_trace, b->step, b->order, names_[b->name_id]);
  });
  SkewSummary skew;
  skew.times_last.assign(ranks, 0);
  skew.collectives_per_rank = std::move(collectives_per_rank);
  for (const Instance* instance : ordered) {
    auto unaligned = differing.find(std::make_pair(instance->whole_trace, instance->step));
    if (unaligned != differing.end()) {
      ++unaligned->second.instances;
      ++(instance->ranks_present == compared_count ? skew.unaligned_instances
                                                   : skew.partial_instances);
      continue;
    }
    if (instance->ranks_present != compared_count) {
      ++skew.partial_instances;
      continue;
    }
    CollectiveSkew matched;
    matched.step = instance->step;
    matched.order = instance->order;
    matched.name = names_[instance->name_id];
    matched.ranks_present = instance->ranks_present;
    matched.earliest_arrival_ns = instance->earliest_arrival_ns;
    matched.latest_arrival_ns = instance->latest_arrival_ns;
    matched.last_rank_index = std::numeric_limits<size_t>::max();
    for (uint32_t input : instance->latest_inputs)
      matched.last_rank_index = std::min(matched.last_rank_index, position_of_input.at(input));
    if (matched.spread_ns() > 0) ++skew.times_last.at(matched.last_rank_index);
    skew.instances.push_back(std::move(matched));
  }
  std::stable_sort(skew.instances.begin(), skew.instances.end(),
                   [](const auto& a, const auto& b) { return a.spread_ns() > b.spread_ns(); });
  for (auto& [key, step] : differing)
    skew.differing_steps.push_back(std::move(step));
  return skew;
}

std::vector<CollectiveTally::Instance> CollectiveTally::Instances() const {
  std::vector<Instance> instances;
  instances.reserve(instances_.size());
  for (const auto& [key, instance] : instances_)
    instances.push_back(instance);
  return instances;
}

std::vector<CollectiveTally::Sequence> CollectiveTally::Sequences() const {
  std::vector<Sequence> sequences;
  sequences.reserve(sequences_.size());
  for (const auto& [key, signature] : sequences_) {
    const auto& [whole_trace, step, input] = key;
    sequences.push_back({whole_trace, step, input, signature.first, signature.second});
  }
  return sequences;
}

CollectiveTally CollectiveTally::FromParts(std::vector<std::string> names,
                                           std::vector<Instance> instances,
                                           std::vector<Sequence> sequences) {
  CollectiveTally tally;
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument("collective tally: a name twice");
    }
  }
  tally.names_ = std::move(names);
  for (Instance& instance : instances) {
    if (instance.name_id >= tally.names_.size() || instance.latest_inputs.empty()) {
      throw std::invalid_argument("collective tally: an instance without a name or a rank");
    }
    auto key =
        std::make_tuple(instance.whole_trace, instance.step, instance.order, instance.name_id);
    if (!tally.instances_.try_emplace(key, std::move(instance)).second) {
      throw std::invalid_argument("collective tally: an instance twice");
    }
  }
  for (const Sequence& sequence : sequences) {
    auto key = std::make_tuple(sequence.whole_trace, sequence.step, sequence.input);
    if (!tally.sequences_.try_emplace(key, sequence.count, sequence.hash).second) {
      throw std::invalid_argument("collective tally: a step's sequence twice");
    }
  }
  return tally;
}

}  // namespace gpuroof
