#include "kineto_raw_events.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <zlib.h>

namespace gpuroof::testing {

std::string Gunzip(const std::filesystem::path& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  std::string text;
  if (gz == nullptr) return text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(gz, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<size_t>(n));
  gzclose(gz);
  return text;
}

int64_t Ns(simdjson::dom::element value) {
  if (value.is_int64()) return int64_t{value.get_int64()} * 1000;
  return std::llround(double{value.get_double()} * 1000.0);
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

namespace {

// The merged stretches of `intervals`, in order.
std::vector<std::pair<int64_t, int64_t>> Merge(std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& [start, end] : intervals) {
    if (end <= start) continue;
    if (!merged.empty() && start <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, end);
    } else {
      merged.emplace_back(start, end);
    }
  }
  return merged;
}

}  // namespace

int64_t UnionNs(std::vector<std::pair<int64_t, int64_t>> intervals) {
  int64_t total = 0;
  for (const auto& [start, end] : Merge(std::move(intervals)))
    total += end - start;
  return total;
}

int64_t UnionStretches(std::vector<std::pair<int64_t, int64_t>> intervals) {
  return static_cast<int64_t>(Merge(std::move(intervals)).size());
}

bool RawCollectiveKernel(std::string_view name) {
  std::string lower = Lower(name);
  if (lower.starts_with("void ")) lower.erase(0, 5);
  for (std::string_view family : {"nccl", "rccl", "msccl"}) {
    if (lower.starts_with(family)) return true;
  }
  const std::string anonymous = "(anonymous namespace)::";
  for (size_t at = lower.find(anonymous); at != std::string::npos; at = lower.find(anonymous))
    lower.erase(at, anonymous.size());
  lower.resize(std::min(lower.size(), lower.find_first_of("(<")));
  if (const size_t scope = lower.rfind("::"); scope != std::string::npos) lower.erase(0, scope + 2);
  // An operation starts a word: the name's start, or after '_' or a digit. No fixture spells one
  // in camel case or names a warp- or block-wide reduction, the rule's other cases.
  for (char& c : lower) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) c = '_';
  }
  lower.insert(0, "_");
  for (std::string_view operation :
       {"_all_reduce", "_allreduce", "_all_gather", "_allgather", "_reduce_scatter",
        "_reducescatter", "_all_to_all", "_alltoall", "_cross_device_reduce"}) {
    if (lower.find(operation) != std::string::npos) return true;
  }
  return false;
}

}  // namespace gpuroof::testing
