// Reading the shared Kineto fixtures' raw events in tests, independently of gpuroof's reader:
// what the e2e tests compute their expected figures from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

namespace gpuroof::testing {

// The whole text of a gzip file ("" when it cannot be opened).
std::string Gunzip(const std::filesystem::path& path);

// A Kineto time in us as written (integer or decimal) to ns.
int64_t Ns(simdjson::dom::element value);

std::string Lower(std::string_view text);

// Whether a kernel is a collective by docs/metrics.md's rule ("Communication"): an NCCL-family
// name, or a collective operation in the function's name.
bool RawCollectiveKernel(std::string_view name);

// The length of the union of [start, end) intervals (empty ones ignored).
int64_t UnionNs(std::vector<std::pair<int64_t, int64_t>> intervals);

// How many stretches the union is: touching or overlapping intervals make one.
int64_t UnionStretches(std::vector<std::pair<int64_t, int64_t>> intervals);

// One complete ("ph": "X") event with a category, a name and args, as the tests read them.
struct RawEvent {
  std::string category;  // lower case
  std::string_view name;
  simdjson::dom::element args;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Calls `visit(const RawEvent&)` for every such event of a gzipped Kineto trace, in file order.
template <typename Visit>
void ForEachCompleteEvent(const std::filesystem::path& path, Visit visit) {
  const std::string text = Gunzip(path);
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(text);
  for (simdjson::dom::element event : root["traceEvents"].get_array()) {
    std::string_view phase;
    std::string_view category;
    RawEvent raw;
    if (event["ph"].get(phase) != simdjson::SUCCESS || phase != "X") continue;
    if (event["cat"].get(category) != simdjson::SUCCESS) continue;
    if (event["name"].get(raw.name) != simdjson::SUCCESS) continue;
    if (event["args"].get(raw.args) != simdjson::SUCCESS) continue;
    raw.category = Lower(category);
    raw.start_ns = Ns(event["ts"]);
    raw.end_ns = raw.start_ns + Ns(event["dur"]);
    visit(raw);
  }
}

}  // namespace gpuroof::testing
