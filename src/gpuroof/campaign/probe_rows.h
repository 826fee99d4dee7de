#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/campaign/sweep_plan.h"

namespace gpuroof {

// One row of probes.csv (docs/formats.md): one device of one configuration's trace, or one
// failed configuration.
struct ProbeRow : ResultRowIdentity {
  std::string device;  // "" for a failed configuration
  std::string status = "ok";
  bool quotable = true;
  std::optional<int64_t> units;
  std::string unit_name = "frame";
  std::optional<double> window_ms;
  std::optional<double> kernel_busy_ms;
  std::optional<double> h2d_busy_ms;
  std::optional<double> d2h_busy_ms;
  std::optional<double> kernel_us_per_unit;
  std::optional<double> h2d_us_per_unit;
  std::optional<double> d2h_us_per_unit;
  std::string bottleneck;
  std::optional<double> roofline_us_per_unit;
  std::optional<double> roofline_units_per_s;
  std::optional<int64_t> streams;  // streams with GPU work on the device
  std::optional<double> profiled_wall_s;
  std::optional<int> exit_code;
  std::string error;
  std::string warnings;
  std::string trace;  // file name inside the results folder
  std::string timestamp;
  // The workdir's git revision when the row was made, "-dirty" appended when tracked files were
  // modified; "" outside git. Per row, as env.json describes only the folder's latest sweep.
  std::string git_rev;
};

const std::vector<std::string>& ProbesHeader();
std::vector<std::string> ProbeCells(const ProbeRow& row);

// What `gpuroof analyze` would say about a probe trace besides its figures.
struct ProbeNotes {
  // The reader's skipped records (its one-line summary with counts and reasons) and its notes
  // (zero-length ops kept, fallbacks): the same on every device's row.
  std::vector<std::string> trace;
  // Per row of AnalyzeProbeTrace's result: the device's window note (ops outside the window,
  // with their count and busy time; devices left out) and its units note.
  std::vector<std::vector<std::string>> devices;
  // The reader skipped records that held GPU work (Severity::kDataLoss or worse): the figures
  // may miss work, so the rows are not quotable.
  bool data_loss = false;
};

// The engine figures and roofline of every device of `trace`, through the same pipeline as
// `gpuroof analyze` (ReadTrace, ComputeEngineLoad, ComputeRoofline). `row` supplies the
// identifying columns copied into every device's row. What analyze would say beside the figures
// goes to `notes` when given. Throws InputError when the trace cannot be read or analysed.
std::vector<ProbeRow> AnalyzeProbeTrace(const std::filesystem::path& trace,
                                        const std::string& window, const ProbeRow& row,
                                        ProbeNotes* notes = nullptr);

}  // namespace gpuroof
