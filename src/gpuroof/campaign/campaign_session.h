#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpuroof/campaign/csv_store.h"
#include "gpuroof/campaign/env_stamp.h"
#include "gpuroof/campaign/gpu_probe.h"
#include "gpuroof/campaign/sweep_plan.h"
#include "gpuroof/campaign/sweep_spec.h"
#include "gpuroof/campaign/system_view.h"
#include "gpuroof/format/table.h"
#include "gpuroof/process/process_runner.h"

namespace gpuroof {

// What a campaign touches outside the process: programs, the clock, file times, the GPUs and
// the user's terminal. Real implementations in the CLI; fakes in tests.
struct CampaignSystem {
  ProcessRunner& runner;
  Clock& clock;
  FileTimes& files;
  std::function<GpuStatus()> probe_gpus;
  std::function<void(const std::string&)> message;  // one line for stderr, without newline
  bool progress = false;                            // stderr is a terminal
};

// Flags shared by `sweep` and `bench`.
struct CampaignOptions {
  std::vector<std::string> only;
  std::vector<std::string> overrides;  // --set name=value
  std::string tag;
  bool allow_busy_gpu = false;
  bool dry_run = false;
  // Refuse (FILE:LINE, before anything runs) an argv[0] that names no executable file: set by
  // the CLI; tests whose fake runners run made-up programs leave it off. Under dry_run it is a
  // "(dry run) would refuse" warning, as a checkout that was not built yet still shows its plan.
  bool check_program = false;
  std::string results_root = "results";
  std::string gpuroof_version;
};

// A campaign that passed its guards: the plan, the stamp and the results folder (created unless
// dry_run).
struct CampaignSession {
  SweepSpec spec;
  SweepPlan plan;
  std::filesystem::path workdir;
  EnvStamp env;
  std::filesystem::path results;
  bool quotable = true;               // false when the GPU was busy and --allow-busy-gpu given
  std::vector<std::string> warnings;  // session-wide, copied into every row's warnings
};

// Plans the runs, stamps the environment, reads the build identity and applies the guards
// before anything runs. Throws InputError for a bad plan or build identity rule, and CheckFailed
// (exit 1) when the build is stale or the GPU is busy; a dry run reports those refusals as
// warnings instead and creates nothing.
CampaignSession OpenCampaign(const SweepSpec& spec, const CampaignOptions& options,
                             CampaignSystem& system);

// A campaign's summary table for people: the configuration, then figures already formatted
// (ColumnUnit::kFigure), one column per title. Rows are texts (CampaignRow).
Table CampaignTable(const std::vector<std::string>& titles);
std::vector<TableCell> CampaignRow(const std::vector<std::string>& cells);

// "results: FOLDER", the table, and how many configurations failed (see `csv_name`); `kept` of
// those failures are not in `csv_name`, which kept the earlier ok rows of their keys.
std::string RenderCampaignTable(const std::filesystem::path& results, const Table& table,
                                int failed, const std::string& csv_name, int kept = 0);

// Merges one configuration's rows into a campaign's CSV (probes.csv, ladder.csv: keyed by "key",
// with "status", "build" and "timestamp" columns). A failure never replaces earlier ok rows of
// its key (CsvMergeOptions::failures_keep_ok_rows): they stay, and a note names the file, the
// key, how many rows stayed and their build and time ("gpuroof: note: LABEL: ...").
CsvMergeResult MergeCampaignRows(const std::filesystem::path& csv,
                                 const std::vector<std::string>& header,
                                 const std::vector<std::vector<std::string>>& rows,
                                 const std::string& label, CampaignSystem& system);

// The ok rows of `key` in a campaign CSV (probes.csv, ladder.csv) run with other parameters (the
// `params` column) than `params`: what a successful run of `key` would replace. A parameter
// outside the key (a default edited in the sweep file) changes `params` but not the key.
struct EarlierRows {
  std::vector<std::vector<std::string>> rows;   // one cell per `header` column
  std::string params, build, timestamp, trace;  // of the first row ("" when absent)
};
EarlierRows FindEarlierRowsOfOtherParams(const std::filesystem::path& csv,
                                         const std::vector<std::string>& header,
                                         const std::string& key, const std::string& params);

// Files `earlier` under the key "<key>;replaced=<its timestamp, 20241004T000000Z>" ("-2", "-3",
// ... appended when the CSV has that key already), and, when
// `trace` is not empty, with that trace file name, so the run that replaces its key does not
// drop them. Returns the new key.
std::string RefileEarlierRows(const std::filesystem::path& csv,
                              const std::vector<std::string>& header, const EarlierRows& earlier,
                              const std::string& trace);

// "[3/8] cap1700: 41 s elapsed, about 68 s left" on stderr, only when it is a terminal.
class Progress {
 public:
  Progress(CampaignSystem& system, size_t total);
  void Starting(size_t index, const std::string& label);

 private:
  CampaignSystem& system_;
  size_t total_;
  WallTime started_;
};

}  // namespace gpuroof
