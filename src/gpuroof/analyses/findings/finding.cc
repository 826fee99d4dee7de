#include "gpuroof/analyses/findings/finding.h"

#include <algorithm>

namespace gpuroof {

void KeepCostliestExamples(std::vector<FindingExample>& examples) {
  std::stable_sort(examples.begin(), examples.end(),
                   [](const FindingExample& a, const FindingExample& b) {
                     if (a.cost_ns != b.cost_ns) return a.cost_ns > b.cost_ns;
                     return a.start_ns < b.start_ns;
                   });
  if (examples.size() > kMaxFindingExamples) examples.resize(kMaxFindingExamples);
}

void AddExample(std::vector<FindingExample>& examples, FindingExample example) {
  examples.push_back(std::move(example));
  if (examples.size() >= 16 * kMaxFindingExamples) KeepCostliestExamples(examples);
}

}  // namespace gpuroof
