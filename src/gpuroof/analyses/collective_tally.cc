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
  auto key =
      std::make_tuple(instance.whole_trace, instance.step, instance.name_id, instance.occurrence);
  // try_emplace moves from `instance` only when it inserts.
  auto [it, inserted] = instances_.try_emplace(key, std::move(instance));
  if (inserted) return;
  Instance& held = it->second;
  held.ranks_present += instance.ranks_present;
  if (instance.order_input < held.order_input) {
    held.order = instance.order;
    held.order_input = instance.order_input;
  }
  held.earliest_arrival_ns = std::min(held.earliest_arrival_ns, instance.earliest_arrival_ns);
  if (instance.latest_arrival_ns > held.latest_arrival_ns) {
    held.latest_arrival_ns = instance.latest_arrival_ns;
    held.latest_inputs = std::move(instance.latest_inputs);
  } else if (instance.latest_arrival_ns == held.latest_arrival_ns) {
    held.latest_inputs.insert(held.latest_inputs.end(), instance.latest_inputs.begin(),
                              instance.latest_inputs.end());
  }
}

void CollectiveTally::Add(uint32_t input, const RankSummary& rank) {
  std::vector<uint32_t> name_ids;
  for (const std::string& name : rank.collective_names)
    name_ids.push_back(CollectiveNameId(names_, name));
  // The rank's collectives per step in start order: (step, order, arrival index). The k-th of a
  // name in a step is its occurrence k.
  std::vector<std::tuple<uint32_t, uint32_t, size_t>> in_order;
  in_order.reserve(rank.collectives.size());
  for (size_t i = 0; i < rank.collectives.size(); ++i)
    in_order.emplace_back(rank.collectives[i].step, rank.collectives[i].order, i);
  std::sort(in_order.begin(), in_order.end());
  for (const auto& [step, order, i] : in_order) {
    const CollectiveArrival& arrival = rank.collectives[i];
    const uint32_t name_id = name_ids.at(arrival.name_id);
    uint32_t& count = counts_[std::make_tuple(rank.whole_trace, step, name_id, input)];
    Instance instance;
    instance.step = step;
    instance.occurrence = count++;
    instance.name_id = name_id;
    instance.order = order;
    instance.order_input = input;
    instance.ranks_present = 1;
    instance.earliest_arrival_ns = arrival.arrival_ns;
    instance.latest_arrival_ns = arrival.arrival_ns;
    instance.latest_inputs = {input};
    instance.whole_trace = rank.whole_trace;
    Fold(std::move(instance));
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
  for (const auto& [key, count] : other.counts_) {
    const auto& [whole_trace, step, name_id, input] = key;
    counts_.emplace(std::make_tuple(whole_trace, step, name_ids[name_id], input), count);
  }
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
  // Each (step, name)'s count per rank compared (0 for a rank with none there); the instances of
  // a (step, name) whose counts are not all the same cannot be paired.
  std::map<std::tuple<bool, uint32_t, uint32_t>, std::vector<size_t>> by_name;
  std::vector<size_t> collectives_per_rank(ranks, 0);
  for (const auto& [key, count] : counts_) {
    const auto& [whole_trace, step, name_id, input] = key;
    if (step_ranges_only && whole_trace) continue;
    const size_t position = position_of_input.at(input);
    if (position >= ranks || !compared[position]) continue;
    collectives_per_rank[position] += count;
    auto [it, inserted] = by_name.try_emplace(std::make_tuple(whole_trace, step, name_id));
    if (inserted) it->second.assign(ranks, 0);
    it->second[position] = count;
  }
  std::map<std::tuple<bool, uint32_t, uint32_t>, DifferingStep> differing;
  for (const auto& [name_key, per_rank] : by_name) {
    std::map<size_t, size_t> ranks_with;  // count -> ranks compared with it
    for (size_t r = 0; r < ranks; ++r) {
      if (compared[r]) ++ranks_with[per_rank[r]];
    }
    if (ranks_with.size() < 2) continue;
    // The commonest count; on a tie the larger (Kineto drops records, it adds none).
    auto common = ranks_with.begin();
    for (auto it = ranks_with.begin(); it != ranks_with.end(); ++it) {
      if (it->second >= common->second) common = it;
    }
    DifferingStep step;
    step.step = std::get<1>(name_key);
    step.name = names_[std::get<2>(name_key)];
    step.common_count = common->first;
    for (size_t r = 0; r < ranks; ++r) {
      if (compared[r] && per_rank[r] != common->first) step.differing.emplace_back(r, per_rank[r]);
    }
    differing.emplace(name_key, std::move(step));
  }
  // In (step, order, name) order, as ranks would list them; then largest spread first.
  std::vector<const Instance*> ordered;
  ordered.reserve(instances_.size());
  for (const auto& [key, instance] : instances_) {
    if (step_ranges_only && instance.whole_trace) continue;
    ordered.push_back(&instance);
  }
  std::sort(ordered.begin(), ordered.end(), [&](const Instance* a, const Instance* b) {
    return std::tie(a->whole_trace, a->step, a->order, names_[a->name_id], a->occurrence) <
           std::tie(b->whole_trace, b->step, b->order, names_[b->name_id], b->occurrence);
  });
  SkewSummary skew;
  skew.times_last.assign(ranks, 0);
  skew.collectives_per_rank = std::move(collectives_per_rank);
  for (const Instance* instance : ordered) {
    if (differing.contains(
            std::make_tuple(instance->whole_trace, instance->step, instance->name_id))) {
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

std::vector<CollectiveTally::NameCount> CollectiveTally::NameCounts() const {
  std::vector<NameCount> counts;
  counts.reserve(counts_.size());
  for (const auto& [key, count] : counts_) {
    const auto& [whole_trace, step, name_id, input] = key;
    counts.push_back({whole_trace, step, input, name_id, count});
  }
  return counts;
}

CollectiveTally CollectiveTally::FromParts(std::vector<std::string> names,
                                           std::vector<Instance> instances,
                                           std::vector<NameCount> counts) {
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
        std::make_tuple(instance.whole_trace, instance.step, instance.name_id, instance.occurrence);
    if (!tally.instances_.try_emplace(key, std::move(instance)).second) {
      throw std::invalid_argument("collective tally: an instance twice");
    }
  }
  for (const NameCount& count : counts) {
    if (count.name_id >= tally.names_.size()) {
      throw std::invalid_argument("collective tally: a count without a name");
    }
    auto key = std::make_tuple(count.whole_trace, count.step, count.name_id, count.input);
    if (!tally.counts_.try_emplace(key, count.count).second) {
      throw std::invalid_argument("collective tally: a step's count of a name twice");
    }
  }
  return tally;
}

}  // namespace gpuroof
