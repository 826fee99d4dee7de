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

// The length of the union of [start, end) intervals (empty ones ignored).
int64_t UnionNs(std::vector<std::pair<int64_t, int64_t>> intervals);

// How many stretches the union is: touching or overlapping intervals make one.
int64_t UnionStretches(std::vector<std::pair<int64_t, int64_t>> intervals);

}  // namespace gpuroof::testing
