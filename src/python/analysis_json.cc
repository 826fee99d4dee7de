#include "analysis_json.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpuroof/analyses/copy_contention.h"
#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/engine_overlap.h"
#include "gpuroof/analyses/gpu_gaps.h"
#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/format/json_writer.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/reports/analyze_report.h"
#include "gpuroof/reports/contention_report.h"
#include "gpuroof/reports/copy_report.h"
#include "gpuroof/reports/gaps_report.h"
#include "gpuroof/reports/kernel_report.h"
#include "gpuroof/reports/ranges_report.h"
#include "gpuroof/reports/report_json.h"

#include "analyze_command.h"
#include "ranges_command.h"
#include "unit_options.h"

namespace gpuroof::python {

namespace {

// The CLI's PrintNote lines without their "gpuroof: note: " prefix.
void AddNotes(std::vector<std::string>& notes, const Trace& trace,
              const std::vector<std::pair<std::string, std::string>>& where_notes) {
  for (const auto& [where, note] : where_notes)
    notes.push_back(fmt::format("{}: {}: {}", trace.source, where, note));
}

// PrintWindowNotes (src/cli/trace_loading.h) as notes.
template <typename Devices>
void AddWindowNotes(std::vector<std::string>& notes, const Trace& trace, const Devices& devices) {
  std::vector<std::pair<std::string, std::string>> where_notes;
  for (const auto& device : devices) {
    if (!device.window.note.empty())
      where_notes.emplace_back(fmt::format("device {}", device.device_id), device.window.note);
  }
  AddNotes(notes, trace, where_notes);
}

// The CLI's JSON for `report`, with doubles marked (JsonDoublesMarked) so that Python's json
// types them as floats: DataFrame columns keep one dtype whatever the values.
template <typename Report>
std::string Render(std::string (*render)(const Report&), const Report& report) {
  JsonDoublesMarked marked;
  return render(report);
}

ReadOptions ReadWith(ReadDetail detail, bool api_calls) {
  ReadOptions read;
  read.detail = detail;
  read.api_calls = api_calls;
  return read;
}

// The shape every command shares on one trace: read as the command does, let `analyse` fill
// the trace's part of the report and the notes, render the CLI's JSON.
template <typename Analysed, typename Report, typename Analyse>
AnalysisJson OneTraceJson(TraceFile& file, const ReadOptions& read, Report& report, Analyse analyse,
                          std::string (*render)(const Report&)) {
  report.tool_version = GPUROOF_VERSION;
  AnalysisJson result;
  std::vector<std::string> read_now;  // the reader's messages, when this call read the file
  const Trace& trace = file.Read(read, &read_now);
  auto in = [](const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  // Every result carries the reader's messages of its trace; the read that made them said them.
  std::vector<std::string> said_before;
  for (std::string& message : ReaderMessages(trace)) {
    if (in(result.notes, message)) continue;
    if (!in(read_now, message)) said_before.push_back(message);
    result.notes.push_back(std::move(message));
  }
  Analysed analysed;
  analysed.trace = &trace;
  std::vector<std::string> own;
  analyse(trace, analysed, own);
  for (std::string& note : own) {
    if (!in(result.notes, note)) result.notes.push_back(std::move(note));
  }
  for (const std::string& note : result.notes) {
    if (!in(said_before, note)) result.warn.push_back(note);
  }
  report.traces.push_back(std::move(analysed));
  result.json = Render(render, report);
  return result;
}

// kernels, copies and copies --contention: per device in a window (read as `read` plus what an
// NVTX window needs), with the window notes.
template <typename Analysed, typename Report, typename Compute>
AnalysisJson WindowedJson(TraceFile& file, ReadOptions read, const WindowSpec& window,
                          const std::string& window_text, Report& report, Compute compute,
                          std::string (*render)(const Report&)) {
  report.window_text = window_text;
  ReadForRanges(window, UnitsSpec{}, read);
  return OneTraceJson<Analysed>(
      file, read, report,
      [&](const Trace& trace, Analysed& analysed, std::vector<std::string>& notes) {
        analysed.devices = compute(trace);
        AddWindowNotes(notes, trace, analysed.devices);
      },
      render);
}

}  // namespace

ReadOptions DefaultAnalyzeRead() {
  return PlanAnalyze("processing", UnitOptions{}, "", false, false).read;
}

ReadOptions OpsRead() {
  return ReadWith(ReadDetail::kFull, false);
}

AnalysisJson AnalyzeJson(TraceFile& file, const AnalyzeArgs& args) {
  UnitOptions unit;
  unit.units = args.units;
  unit.unit_name = args.unit_name;
  unit.units_from = args.units_from;
  const AnalyzePlan plan =
      PlanAnalyze(args.window, unit, args.attribute, args.by_stream, args.overlap);
  if (plan.load.window.kind == WindowSpec::Kind::kSteady) {
    throw InputError("--window", "steady is not offered by the Python module yet; use the CLI");
  }
  AnalyzeReport report;
  report.window_text = args.window;
  report.units_text = plan.units_text;
  return OneTraceJson<AnalyzedTrace>(
      file, plan.read, report,
      [&](const Trace& trace, AnalyzedTrace& analyzed, std::vector<std::string>& notes) {
        analyzed.devices = ComputeEngineLoad(trace, plan.load);
        if (args.overlap) analyzed.overlaps = ComputeEngineOverlap(trace, analyzed.devices);
        AddNotes(notes, trace, DeviceLoadNotes(analyzed.devices));
      },
      RenderAnalyzeJson);
}

AnalysisJson KernelsJson(TraceFile& file, const std::string& key, const std::string& top,
                         const std::string& window, const std::string& attribute) {
  KernelSummaryOptions options;
  options.window = ParseWindowOptions(window, attribute);
  options.key = ParseKernelKey(key);
  if (!top.empty()) options.top = ParsePositiveCount(top, "--top");
  KernelReport report;
  report.key = options.key;
  report.top = options.top;
  return WindowedJson<SummarizedTrace>(
      file, ReadWith(ReadDetail::kFull, false), options.window, window, report,
      [&](const Trace& trace) { return ComputeKernelSummary(trace, options); }, RenderKernelJson);
}

AnalysisJson CopiesJson(TraceFile& file, const std::string& window, bool contention,
                        const std::string& attribute) {
  if (contention) {
    CopyContentionOptions options;
    options.window = ParseWindowOptions(window, attribute);
    ContentionReport report;
    return WindowedJson<ContendedTrace>(
        file, ReadWith(ReadDetail::kEngineLoad, true), options.window, window, report,
        [&](const Trace& trace) { return ComputeCopyContention(trace, options); },
        RenderContentionJson);
  }
  CopySummaryOptions options;
  options.window = ParseWindowOptions(window, attribute);
  CopyReport report;
  report.window_text = window;
  ReadOptions read = ReadWith(ReadDetail::kBreakdown, false);
  ReadForRanges(options.window, UnitsSpec{}, read);
  return OneTraceJson<CopiedTrace>(
      file, read, report,
      [&](const Trace& trace, CopiedTrace& copied, std::vector<std::string>& notes) {
        copied.devices = ComputeCopySummary(trace, options);
        AddWindowNotes(notes, trace, copied.devices);
        // What the GB/s leave out, as the CLI's table says under it (CopyRateNotes).
        std::vector<std::pair<std::string, std::string>> where_notes;
        for (const DeviceCopies& device : copied.devices) {
          for (std::string& note : CopyRateNotes(device))
            where_notes.emplace_back(fmt::format("device {}", device.device_id), std::move(note));
        }
        AddNotes(notes, trace, where_notes);
      },
      RenderCopyJson);
}

AnalysisJson GapsJson(TraceFile& file, const std::string& min) {
  GapOptions options;
  options.min_ns = ParseDurationNs(min, "--min");
  if (options.min_ns <= 0) {
    throw InputError("--min", fmt::format("must be longer than 0, got '{}'", min));
  }
  GapsReport report;
  report.min_ns = options.min_ns;
  report.min_text = min;
  return OneTraceJson<GappedTrace>(
      file, ReadWith(ReadDetail::kBreakdown, false), report,
      [&](const Trace& trace, GappedTrace& gapped, std::vector<std::string>&) {
        gapped.devices = ComputeGaps(trace, options);
      },
      RenderGapsJson);
}

AnalysisJson RangesJson(TraceFile& file, const std::string& name, const std::string& attribute) {
  RangeSummaryOptions options;
  options.name = name;
  options.scope = ParseAttribute(attribute);
  RangesReport report;
  report.name = name;
  return OneTraceJson<RangesOfTrace>(
      file, ReadWith(ReadDetail::kFull, true), report,
      [&](const Trace& trace, RangesOfTrace& ranges, std::vector<std::string>& notes) {
        ranges.result = SummarizeRanges(trace, options);
        AddNotes(notes, trace, RangesNotes(ranges.result));
      },
      RenderRangesJson);
}

std::string DiagnosticsJson(const Diagnostics& diagnostics) {
  JsonWriter json;
  WriteDiagnosticsJson(json, diagnostics);
  return json.str();
}

}  // namespace gpuroof::python
