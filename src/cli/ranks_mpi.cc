#include "ranks_mpi.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>

#include <fmt/format.h>
#include <mpi.h>

#include "exit_codes.h"
#include "rank_set_bytes.h"

namespace gpuroof {

namespace {

constexpr int kLeader = 0;
constexpr int kSummariesTag = 16;

// The number in the first of the launcher's variables that is set (OpenMPI's, then MPICH/Hydra's
// and Intel MPI's), or `absent`.
int LauncherNumber(const char* openmpi, const char* pmi, int absent) {
  for (const char* name : {openmpi, pmi}) {
    const char* value = std::getenv(name);
    if (value != nullptr) return std::atoi(value);
  }
  return absent;
}

// The world size the launcher announces.
int LauncherWorldSize() {
  return LauncherNumber("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 0);
}

// This process's position among the launched ones, or -1 when the launcher does not say.
int LauncherProcess() {
  return LauncherNumber("OMPI_COMM_WORLD_RANK", "PMI_RANK", -1);
}

// A broadcast of bytes from the leader: the length, then the bytes (none: the leader stops).
std::string BroadcastBytes(std::string bytes) {
  uint64_t size = bytes.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, kLeader, MPI_COMM_WORLD);
  bytes.resize(size);
  if (size > 0) MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_BYTE, kLeader, MPI_COMM_WORLD);
  return bytes;
}

std::vector<size_t> ShareOf(const RankShares& shares, int process) {
  std::vector<size_t> indices;
  for (size_t i = 0; i < shares.process_of.size(); ++i) {
    if (shares.process_of[i] == process) indices.push_back(i);
  }
  return indices;
}

LoadedShare LoadShare(const RankShares& shares, int process, const RankSetLoad& load) {
  std::vector<size_t> indices = ShareOf(shares, process);
  LoadedRanks loaded = LoadRanks(shares.paths, indices, load);
  LoadedShare share;
  share.ranks.resize(indices.size());
  for (size_t k = 0; k < indices.size(); ++k)
    share.ranks[k] = {indices[k], std::move(loaded.ranks[k])};
  share.collectives = std::move(loaded.collectives);
  return share;
}

class MpiRankSetSpread final : public RankSetSpread {
 public:
  ~MpiRankSetSpread() override {
    if (!initialised_) return;
    // The leader failed before it handed out the work (no trace found, say): release the
    // others, who wait for their share, before finalising.
    if (process_ == kLeader && !shares_sent_) BroadcastBytes("");
    MPI_Finalize();
  }

  bool Leads(const RankSetLoad& load) override {
    // Only the main thread calls MPI; the thread pool reads traces.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    initialised_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &process_);
    MPI_Comm_size(MPI_COMM_WORLD, &processes_);
    if (process_ == kLeader) return true;
    try {
      std::string bytes = BroadcastBytes("");
      if (bytes.empty()) return false;  // the leader stopped: it says why
      std::string summaries = EncodeLoadedShare(LoadShare(DecodeRankShares(bytes), process_, load));
      MPI_Send(summaries.data(), static_cast<int>(summaries.size()), MPI_BYTE, kLeader,
               kSummariesTag, MPI_COMM_WORLD);
    } catch (const std::exception& error) {
      // Anything but a trace that cannot be read (that is a LoadedRank's error) is internal:
      // say it and take the job down rather than leave the leader waiting.
      fmt::print(stderr, "gpuroof: internal error: MPI process {}: {}\n", process_, error.what());
      MPI_Abort(MPI_COMM_WORLD, kExitInternalError);
    }
    return false;
  }

  LoadedRanks LoadAll(const std::vector<std::string>& paths, const RankSetLoad& load) override {
    RankShares shares;
    shares.paths = paths;
    std::vector<uint64_t> bytes(paths.size(), 0);
    for (size_t i = 0; i < paths.size(); ++i) {
      std::error_code error;
      uintmax_t size = std::filesystem::file_size(paths[i], error);
      bytes[i] = error ? 0 : static_cast<uint64_t>(size);  // unreadable: its reader says why
    }
    shares.process_of = ShareByFileSize(bytes, processes_);
    BroadcastBytes(EncodeRankShares(shares));
    shares_sent_ = true;
    try {
      return CollectShares(shares, load);
    } catch (const std::exception& error) {
      // The others may be blocked sending their summaries to us: MPI_Finalize would wait for
      // them for ever. A trace that cannot be read is a LoadedRank's error, so this is internal:
      // say it and take the job down, as a later process does.
      fmt::print(stderr, "gpuroof: internal error: MPI process {}: {}\n", process_, error.what());
      MPI_Abort(MPI_COMM_WORLD, kExitInternalError);
      throw;  // not reached: MPI_Abort ends this process
    }
  }

 private:
  // The leader's own share, then every other process's summaries, checked against the shares.
  LoadedRanks CollectShares(const RankShares& shares, const RankSetLoad& load) {
    const std::vector<std::string>& paths = shares.paths;
    LoadedRanks loaded;
    loaded.ranks.resize(paths.size());
    LoadedShare own = LoadShare(shares, kLeader, load);
    for (IndexedLoadedRank& rank : own.ranks)
      loaded.ranks[rank.index] = std::move(rank.loaded);
    loaded.collectives = std::move(own.collectives);
    for (int process = 1; process < processes_; ++process) {
      MPI_Status status;
      MPI_Probe(process, kSummariesTag, MPI_COMM_WORLD, &status);
      int size = 0;
      MPI_Get_count(&status, MPI_BYTE, &size);
      std::string message(static_cast<size_t>(size), '\0');
      MPI_Recv(message.data(), size, MPI_BYTE, process, kSummariesTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      LoadedShare share = DecodeLoadedShare(message);
      auto given = [&](uint64_t index) {
        return index < paths.size() && shares.process_of[index] == process;
      };
      for (IndexedLoadedRank& rank : share.ranks) {
        if (!given(rank.index))
          throw std::runtime_error("ranks: MPI process sent a summary it was not given");
        loaded.ranks[rank.index] = std::move(rank.loaded);
      }
      for (const CollectiveTally::Instance& instance : share.collectives.Instances()) {
        if (!std::all_of(instance.latest_inputs.begin(), instance.latest_inputs.end(), given))
          throw std::runtime_error(
              "ranks: MPI process sent collectives of a trace it was not given");
      }
      for (const CollectiveTally::NameCount& count : share.collectives.NameCounts()) {
        if (!given(count.input))
          throw std::runtime_error(
              "ranks: MPI process sent collectives of a trace it was not given");
      }
      loaded.collectives.Merge(share.collectives);
    }
    return loaded;
  }

  bool initialised_ = false;
  bool shares_sent_ = false;
  int process_ = 0;
  int processes_ = 1;
};

}  // namespace

bool IsLaterLaunchedProcess() {
  return LauncherWorldSize() > 1 && LauncherProcess() > 0;
}

std::unique_ptr<RankSetSpread> MpiRankSetSpreadFromEnvironment() {
  if (LauncherWorldSize() <= 1) return nullptr;
  return std::make_unique<MpiRankSetSpread>();
}

}  // namespace gpuroof
