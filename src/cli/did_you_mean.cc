#include "did_you_mean.h"

#include <algorithm>

#include "gpuroof/model/edit_distance.h"

namespace gpuroof {

std::string ClosestSpelling(const std::string& typed, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::min<size_t>(3, std::max<size_t>(1, typed.size() / 3)) + 1;
  for (const std::string& candidate : candidates) {
    size_t distance = EditDistance(typed, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace gpuroof
