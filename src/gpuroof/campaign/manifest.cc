#include "gpuroof/campaign/manifest.h"

#include "gpuroof/campaign/csv_store.h"
#include "gpuroof/campaign/sha256.h"

namespace gpuroof {

const std::vector<std::string>& ManifestHeader() {
  static const std::vector<std::string> header = {"artifact",    "kind",      "config", "build",
                                                  "produced_by", "timestamp", "sha256"};
  return header;
}

void RecordArtifacts(const std::filesystem::path& results, const std::vector<Artifact>& artifacts,
                     const std::string& config, const std::string& build,
                     const std::string& produced_by, const std::string& timestamp) {
  if (artifacts.empty()) return;
  std::vector<std::vector<std::string>> rows;
  for (const Artifact& artifact : artifacts) {
    rows.push_back({artifact.path.lexically_relative(results).generic_string(), artifact.kind,
                    config, build, produced_by, timestamp, Sha256OfFile(artifact.path)});
  }
  MergeCsvRows(results / "manifest.csv", ManifestHeader(), "artifact", rows);
}

}  // namespace gpuroof
