#pragma once

#include <string>
#include <vector>

#include "gpuroof/readers/reader_registry.h"

#include "trace_file.h"

namespace gpuroof::python {

// What one analysis of a trace file hands to Python: exactly the CLI's `--format json` output
// for the same options, and the warnings and notes the CLI prints on stderr ("PATH: SUMMARY",
// "PATH: WHERE: NOTE"), which the module turns into Python warnings. Rendering with the CLI's own
// JSON writers keeps the two from ever drifting; this file is the module's one dependency on the
// report writers. Each function checks its options first, then reads the file as the CLI's
// command does (TraceFile::Read; keep the read options in step with src/cli/*_command.cc, which
// tests/python/test_cli_parity.py checks through the "inputs" diagnostics).
// `notes` are every message of the result, each once: the reader's messages of the trace it was
// computed from (ReaderMessages), then the analysis' own. `warn` is those of them to give as
// Python warnings now: all but the reader's messages an earlier read of the same trace already
// gave (load() warns the default read's), so none is warned twice.
struct AnalysisJson {
  std::string json;
  std::vector<std::string> notes;
  std::vector<std::string> warn;
};

// `gpuroof analyze` options (src/cli/analyze_command.cc), as given on the command line.
struct AnalyzeArgs {
  std::string window = "processing";
  std::string units;  // a fixed count; empty: none
  std::string unit_name = "frame";
  std::string units_from;  // kernel:NAME | nvtx:NAME; empty: none
  bool overlap = false;
  bool by_stream = false;
  std::string attribute;  // thread | process | "" (each rule's default)
};

// What `gpuroof analyze` reads with its default options: gpuroof.load() reads this first.
ReadOptions DefaultAnalyzeRead();

// What the raw ops with correlation ids need (Trace.ops(correlation=True)): full detail, no API
// calls. Without them, ops() uses the first read (DefaultAnalyzeRead) and reads nothing more.
ReadOptions OpsRead();

// Each throws InputError (naming the option, as the CLI does) for a bad value or input.
AnalysisJson AnalyzeJson(TraceFile& file, const AnalyzeArgs& args);
AnalysisJson KernelsJson(TraceFile& file, const std::string& key, const std::string& top,
                         const std::string& window, const std::string& attribute);
AnalysisJson CopiesJson(TraceFile& file, const std::string& window, bool contention,
                        const std::string& attribute);
AnalysisJson GapsJson(TraceFile& file, const std::string& min);
AnalysisJson RangesJson(TraceFile& file, const std::string& name, const std::string& attribute);

// The "diagnostics" object of the JSON reports, for Trace.diagnostics.
std::string DiagnosticsJson(const Diagnostics& diagnostics);

}  // namespace gpuroof::python
