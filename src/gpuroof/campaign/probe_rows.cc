#include "gpuroof/campaign/probe_rows.h"

#include <map>
#include <set>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/roofline.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/readers/reader_registry.h"

namespace gpuroof {

namespace {

std::string Text(const std::optional<int64_t>& value) {
  return value ? std::to_string(*value) : "";
}

std::optional<double> Ms(const EngineLoad& load) {
  if (load.ops == 0) return std::nullopt;
  return static_cast<double>(load.busy_ns) / 1e6;
}

std::optional<double> PerUnit(const EngineLoad& load, const DeviceLoad& device) {
  if (load.ops == 0) return std::nullopt;
  return PerUnitUs(load.busy_ns, device);
}

// Streams with at least one op, per device: more than one makes overlap (and so the roofline)
// depend on scheduling that differs between sessions.
std::map<int32_t, int64_t> StreamsPerDevice(const Trace& trace) {
  std::map<int32_t, std::set<uint32_t>> seen;
  for (const ActivityBlock& block : trace.blocks) {
    for (uint32_t stream : block.stream) {
      if (stream < trace.streams.size()) seen[trace.streams[stream].device_id].insert(stream);
    }
  }
  std::map<int32_t, int64_t> out;
  for (const auto& [device, streams] : seen)
    out[device] = static_cast<int64_t>(streams.size());
  return out;
}

}  // namespace

const std::vector<std::string>& ProbesHeader() {
  static const std::vector<std::string> header = {"key",
                                                  "label",
                                                  "params",
                                                  "build",
                                                  "device",
                                                  "status",
                                                  "quotable",
                                                  "units",
                                                  "unit_name",
                                                  "window_ms",
                                                  "kernel_busy_ms",
                                                  "H2D_busy_ms",
                                                  "D2H_busy_ms",
                                                  "kernel_us_per_unit",
                                                  "H2D_us_per_unit",
                                                  "D2H_us_per_unit",
                                                  "bottleneck",
                                                  "roofline_us_per_unit",
                                                  "roofline_units_per_s",
                                                  "streams",
                                                  "profiled_wall_s",
                                                  "exit_code",
                                                  "error",
                                                  "warnings",
                                                  "trace",
                                                  "timestamp",
                                                  "git_rev"};
  return header;
}

std::vector<std::string> ProbeCells(const ProbeRow& row) {
  return {row.key,
          row.label,
          row.params,
          row.build,
          row.device,
          row.status,
          row.quotable ? "yes" : "no",
          Text(row.units),
          row.unit_name,
          ShortestDouble(row.window_ms),
          ShortestDouble(row.kernel_busy_ms),
          ShortestDouble(row.h2d_busy_ms),
          ShortestDouble(row.d2h_busy_ms),
          ShortestDouble(row.kernel_us_per_unit),
          ShortestDouble(row.h2d_us_per_unit),
          ShortestDouble(row.d2h_us_per_unit),
          row.bottleneck,
          ShortestDouble(row.roofline_us_per_unit),
          ShortestDouble(row.roofline_units_per_s),
          Text(row.streams),
          ShortestDouble(row.profiled_wall_s),
          row.exit_code ? std::to_string(*row.exit_code) : "",
          row.error,
          row.warnings,
          row.trace,
          row.timestamp,
          row.git_rev};
}

std::vector<ProbeRow> AnalyzeProbeTrace(const std::filesystem::path& trace_path,
                                        const std::string& window, const ProbeRow& row,
                                        ProbeNotes* notes) {
  ReadOptions read_options;
  read_options.detail = ReadDetail::kFull;  // stream identity, for the stream count
  Trace trace = ReadTrace(trace_path, read_options);
  if (notes != nullptr) {
    *notes = ProbeNotes{};
    const Diagnostics& diagnostics = trace.diagnostics;
    if (diagnostics.records_skipped() > 0) {
      notes->trace.push_back("the trace reader " + diagnostics.Summary());
      notes->data_loss = diagnostics.has_data_loss();
    }
    for (const std::string& note : diagnostics.notes())
      notes->trace.push_back(note);
  }
  EngineLoadOptions options;
  options.window = ParseWindowSpec(window);
  if (row.units) {
    options.units.kind = UnitsSpec::Kind::kFixed;
    options.units.count = *row.units;
  }
  options.units.unit_name = row.unit_name;
  std::map<int32_t, int64_t> streams = StreamsPerDevice(trace);
  std::vector<ProbeRow> rows;
  for (const DeviceLoad& device : ComputeEngineLoad(trace, options)) {
    ProbeRow out = row;
    out.device = std::to_string(device.device_id);
    out.window_ms = static_cast<double>(device.window.length_ns()) / 1e6;
    const EngineLoad& kernel = device.engine(Engine::kKernel);
    const EngineLoad& h2d = device.engine(Engine::kH2D);
    const EngineLoad& d2h = device.engine(Engine::kD2H);
    out.kernel_busy_ms = Ms(kernel);
    out.h2d_busy_ms = Ms(h2d);
    out.d2h_busy_ms = Ms(d2h);
    out.kernel_us_per_unit = PerUnit(kernel, device);
    out.h2d_us_per_unit = PerUnit(h2d, device);
    out.d2h_us_per_unit = PerUnit(d2h, device);
    const Roofline& roofline = device.roofline;
    if (roofline.has_bottleneck) out.bottleneck = std::string(EngineName(roofline.bottleneck));
    out.roofline_us_per_unit = roofline.per_unit_us;
    out.roofline_units_per_s = roofline.units_per_s;
    auto it = streams.find(device.device_id);
    out.streams = it == streams.end() ? 0 : it->second;
    rows.push_back(std::move(out));
    if (notes != nullptr) {
      std::vector<std::string> said;
      for (const std::string* note : {&device.window.note, &device.units_note}) {
        if (!note->empty()) said.push_back(*note);
      }
      notes->devices.push_back(std::move(said));
    }
  }
  return rows;
}

}  // namespace gpuroof
