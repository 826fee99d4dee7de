#include "ranges_command.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/ranges_report.h"

#include "breakdown_command.h"
#include "command_help.h"
#include "unit_options.h"

namespace gpuroof {

std::vector<std::pair<std::string, std::string>> RangesNotes(const RangeSummary& summary) {
  std::vector<std::pair<std::string, std::string>> notes;
  if (!summary.method_note.empty()) notes.emplace_back("ranges", summary.method_note);
  for (const RangeGroup& group : summary.groups) {
    if (group.other_thread_ops == 0) continue;
    notes.emplace_back("range '" + group.name + "'", OtherThreadNote(group.other_thread_ops));
  }
  return notes;
}

int RunRanges(const RangesOptions& options) {
  RangesReport report;
  report.name = options.name;
  report.tool_version = GPUROOF_VERSION;
  RangeSummaryOptions summary_options;
  summary_options.name = options.name;
  summary_options.scope = ParseAttribute(options.attribute);
  // Full detail: attribution needs the API calls and the ops' correlation ids.
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kFull;
  return RunBreakdown(options, read_options, report,
                      [&](const Trace& trace, const std::string& path) {
                        RangesOfTrace ranges{&trace, SummarizeRanges(trace, summary_options)};
                        for (const auto& [where, note] : RangesNotes(ranges.result))
                          PrintNote(options.output, path, where, note);
                        return ranges;
                      },
                      {RangesDocument, RenderRangesJson});
}

void AddRangesCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(
      app, "ranges", exit_code, RunRanges, [](CLI::App& command, RangesOptions& options) {
        command.add_option("--name", options.name,
                           "Only this range (\"Domain:name\", name, NAME@N or NAME@*), one row "
                           "per instance");
        AddAttributeOption(command, options.attribute);
      });
}

}  // namespace gpuroof
