// The messages the processes of `mpirun -n P gpuroof ranks` exchange (ranks_mpi.h), as plain
// bytes: which process reads which trace, and the LoadedRank each trace became. Kept apart from
// MPI so that it is built and tested in every build. Integers are written little-endian in fixed
// widths, doubles as their IEEE-754 bits, strings as a length and their bytes: a summary comes
// back bit for bit, so the leading process writes the output a single process would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rank_set_loading.h"

namespace gpuroof {

// Which process reads each trace: the largest file first, each to the least-loaded process so
// far (bytes assigned; ties to the lower process number). Deterministic. Result[i] is the
// process of file i, in [0, processes).
std::vector<int> ShareByFileSize(const std::vector<uint64_t>& file_bytes, int processes);

// The traces and who reads them (sent by the leading process to all).
struct RankShares {
  std::vector<std::string> paths;
  std::vector<int> process_of;  // one per path
  bool operator==(const RankShares&) const = default;
};
std::string EncodeRankShares(const RankShares& shares);
RankShares DecodeRankShares(const std::string& bytes);

// The LoadedRanks of one process's share, with the index of the path each belongs to.
struct IndexedLoadedRank {
  uint64_t index = 0;
  LoadedRank loaded;
  bool operator==(const IndexedLoadedRank&) const = default;
};

// What one process sends the leading one: its share's LoadedRanks and their collectives, folded
// (rank_set_loading.h LoadedRanks, with each rank's path index).
struct LoadedShare {
  std::vector<IndexedLoadedRank> ranks;
  CollectiveTally collectives;
  bool operator==(const LoadedShare&) const = default;
};
std::string EncodeLoadedShare(const LoadedShare& share);
// Throws std::runtime_error (an internal error) on bytes that end early or run on, or that no
// share encodes.
LoadedShare DecodeLoadedShare(const std::string& bytes);

}  // namespace gpuroof
