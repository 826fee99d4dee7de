#include "rank_inputs.h"

#include <algorithm>
#include <filesystem>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"

namespace gpuroof {

namespace {

namespace fs = std::filesystem;

bool IsNsysReport(const fs::path& path) {
  return path.extension() == ".nsys-rep";
}

// The traces under `directory`, sorted by path.
std::vector<std::string> TracesIn(const fs::path& directory, RankInputs& inputs) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(directory, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) throw InputError(directory.string(), "cannot be listed: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<std::string> traces;
  for (const fs::path& file : files) {
    if (IsNsysReport(file)) {
      fs::path exported = file;
      exported.replace_extension(".sqlite");
      if (std::binary_search(files.begin(), files.end(), exported)) {
        ++inputs.exported_twice;
      } else {
        traces.push_back(file.string());
      }
      continue;
    }
    if (TraceFileExtension(file).empty()) {
      ++inputs.not_traces;
      continue;
    }
    traces.push_back(file.string());
  }
  if (traces.empty()) {
    throw InputError(directory.string(),
                     "no trace in the directory (looked for Kineto JSON, nsys SQLite exports "
                     "and .nsys-rep reports)");
  }
  return traces;
}

}  // namespace

RankInputs FindRankInputs(const std::vector<std::string>& inputs) {
  RankInputs found;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::string> traces = TracesIn(input, found);
      found.paths.insert(found.paths.end(), traces.begin(), traces.end());
    } else if (fs::exists(input, ec)) {
      found.paths.push_back(input);
    } else {
      throw InputError(input, "no such file or directory");
    }
  }
  return found;
}

}  // namespace gpuroof
