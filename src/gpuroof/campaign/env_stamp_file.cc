#include "gpuroof/campaign/env_stamp_file.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <simdjson.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

std::string StringAt(simdjson::dom::element parent, std::string_view key) {
  std::string_view value;
  if (parent[key].get_string().get(value) != simdjson::SUCCESS) return {};
  return std::string(value);
}

std::optional<double> NumberAt(simdjson::dom::element parent, std::string_view key) {
  double value = 0;
  if (parent[key].get_double().get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

}  // namespace

EnvStamp ParseEnvJson(std::string_view text, const std::string& source) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    throw InputError(
        source, fmt::format("env stamp is not valid JSON ({})", simdjson::error_message(error)));
  }
  if (StringAt(root, "schema") != "gpuroof.env/1") {
    throw InputError(source, "not an env stamp: \"schema\" is not \"gpuroof.env/1\"");
  }
  EnvStamp stamp;
  stamp.timestamp = StringAt(root, "timestamp");
  stamp.host = StringAt(root, "host");
  simdjson::dom::element git;
  if (root["git"].get(git) == simdjson::SUCCESS) {
    stamp.git_rev = StringAt(git, "rev");
    stamp.git_branch = StringAt(git, "branch");
    bool dirty = false;
    if (git["dirty"].get_bool().get(dirty) == simdjson::SUCCESS) stamp.git_dirty = dirty;
  }
  simdjson::dom::element build;
  if (root["build"].get(build) == simdjson::SUCCESS) {
    stamp.build = StringAt(build, "identity");
    stamp.build_source = StringAt(build, "source");
  }
  simdjson::dom::element gpus;
  if (root["gpus"].get(gpus) == simdjson::SUCCESS) {
    stamp.gpus.source = StringAt(gpus, "source");
    stamp.gpus.note = StringAt(gpus, "note");
    stamp.gpus.driver = StringAt(gpus, "driver");
    simdjson::dom::array devices;
    if (gpus["devices"].get_array().get(devices) == simdjson::SUCCESS) {
      for (simdjson::dom::element device : devices)
        stamp.gpus.gpus.push_back({StringAt(device, "name"), NumberAt(device, "utilisation_pct")});
    }
  }
  stamp.gpu_utilisation_pct = NumberAt(root, "gpu_utilisation_at_start_pct");
  stamp.nvcc_version = StringAt(root, "nvcc_version");
  stamp.gpuroof_version = StringAt(root, "gpuroof_version");
  return stamp;
}

std::vector<std::pair<std::string, std::string>> DescribeEnvStamp(const EnvStamp& stamp) {
  std::vector<std::pair<std::string, std::string>> lines;
  auto add = [&lines](std::string label, std::string value) {
    if (!value.empty()) lines.emplace_back(std::move(label), std::move(value));
  };
  if (!stamp.git_rev.empty()) {
    std::string detail = stamp.git_branch;
    if (stamp.git_dirty) {
      detail += fmt::format("{}{}", detail.empty() ? "" : ", ",
                            *stamp.git_dirty ? "dirty: uncommitted changes" : "clean");
    }
    add("git", detail.empty() ? stamp.git_rev : fmt::format("{} ({})", stamp.git_rev, detail));
  }
  if (!stamp.build.empty()) {
    add("build", stamp.build_source.empty()
                     ? stamp.build
                     : fmt::format("{} (from {})", stamp.build, stamp.build_source));
  }
  // "2 x NVIDIA H200, driver 565.57": devices counted by name, in first-seen order.
  std::vector<std::pair<std::string, int>> names;
  for (const GpuInfo& gpu : stamp.gpus.gpus) {
    auto it = std::find_if(names.begin(), names.end(),
                           [&gpu](const auto& entry) { return entry.first == gpu.name; });
    if (it == names.end()) {
      names.emplace_back(gpu.name, 1);
    } else {
      ++it->second;
    }
  }
  std::string devices;
  for (const auto& [name, count] : names)
    devices += fmt::format("{}{}{}", devices.empty() ? "" : ", ",
                           count > 1 ? fmt::format("{} x ", count) : "", name);
  if (!stamp.gpus.driver.empty()) {
    devices += fmt::format("{}driver {}", devices.empty() ? "" : ", ", stamp.gpus.driver);
  }
  if (devices.empty() && !stamp.gpus.note.empty()) devices = stamp.gpus.note;
  add("GPUs", devices);
  if (stamp.gpu_utilisation_pct) {
    add("GPU busy at start", fmt::format("{:g}%", *stamp.gpu_utilisation_pct));
  }
  add("nvcc", stamp.nvcc_version);
  add("host", stamp.host);
  add("recorded", stamp.timestamp);
  add("gpuroof", stamp.gpuroof_version);
  return lines;
}

}  // namespace gpuroof
