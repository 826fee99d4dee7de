#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpuroof/campaign/profiler.h"

namespace gpuroof {

// Columns of manifest.csv (docs/formats.md): artifact, kind, config, build, produced_by,
// timestamp, sha256.
const std::vector<std::string>& ManifestHeader();

// Adds (or replaces, by artifact name) one manifest row per artifact, with the SHA-256 of its
// content, under the results folder's lock (MergeCsvRows). Artifact paths are recorded relative
// to `results`. Throws InputError when an artifact cannot be read or the manifest written.
void RecordArtifacts(const std::filesystem::path& results, const std::vector<Artifact>& artifacts,
                     const std::string& config, const std::string& build,
                     const std::string& produced_by, const std::string& timestamp);

}  // namespace gpuroof
