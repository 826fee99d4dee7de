#include "gpuroof/analyses/collective_tally.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>

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

void CollectiveTally::Add(uint32_t input, const RankSummary& rank) {
  std::vector<uint32_t> name_ids;
  for (const std::string& name : rank.collective_names)
    name_ids.push_back(CollectiveNameId(names_, name));
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
}

SkewSummary CollectiveTally::Match(const std::vector<size_t>& position_of_input,
                                   size_t ranks) const {
  return MatchWhere(position_of_input, ranks, ranks, false);
}

SkewSummary CollectiveTally::MatchStepRanges(const std::vector<size_t>& position_of_input,
                                             size_t ranks, size_t compared) const {
  return MatchWhere(position_of_input, ranks, compared, true);
}

SkewSummary CollectiveTally::MatchWhere(const std::vector<size_t>& position_of_input, size_t ranks,
                                        size_t compared, bool step_ranges_only) const {
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
  for (const Instance* instance : ordered) {
    if (instance->ranks_present != compared) {
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
  return skew;
}

std::vector<CollectiveTally::Instance> CollectiveTally::Instances() const {
  std::vector<Instance> instances;
  instances.reserve(instances_.size());
  for (const auto& [key, instance] : instances_)
    instances.push_back(instance);
  return instances;
}

CollectiveTally CollectiveTally::FromParts(std::vector<std::string> names,
                                           std::vector<Instance> instances) {
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
  return tally;
}

}  // namespace gpuroof
