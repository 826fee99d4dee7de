#pragma once

#include <optional>
#include <string>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/readers/reader_registry.h"

namespace CLI {
class App;
}

namespace gpuroof {

// --units, --unit-name and --units-from, as `analyze` and `report` take them.
struct UnitOptions {
  std::string units;  // a fixed count, as given
  std::string unit_name = "frame";
  std::string units_from;  // kernel:NAME or nvtx:NAME
};

void AddUnitOptions(CLI::App& command, UnitOptions& options);

// Checks the options (not both counts, a plain unit name, a positive count) and returns the
// units; `text` gets what the user gave ("--units 2000", "--units-from kernel:k", or "") for
// report headers. Throws InputError naming the option.
UnitsSpec ParseUnitOptions(const UnitOptions& options, std::string* text);

// --window steady finds the warm-up over the series the units follow (--units-from; fixed slices
// without it), as `analyze` and `report` both must; a fixed --units count cannot be split between
// the warm-up and the steady state, so it is refused with --window steady or when
// `steady_report` (analyze --steady-report) asks for the comparison. Returns whether the
// steady-state comparison is made. Throws InputError naming --units.
bool PrepareSteadyState(EngineLoadOptions& load, bool steady_report);

// --attribute thread|process: whose launches are a range's work (docs/metrics.md, "Which GPU
// work belongs to a range"). `value` is left empty when not given.
void AddAttributeOption(CLI::App& command, std::string& value);

// The scope --attribute asks for; nullopt when it was not given (each rule's default). Throws
// InputError (source "--attribute") for any other word.
std::optional<RangeScope> ParseAttribute(const std::string& value);

// Makes `read` keep what attributing GPU work to ranges needs (correlation ids and the API
// calls) when the window or the units come from NVTX ranges.
void ReadForRanges(const WindowSpec& window, const UnitsSpec& units, ReadOptions& read);

// The --window value with --attribute's scope: the window kernels, copies and contention analyse.
// Throws InputError naming the option.
WindowSpec ParseWindowOptions(const std::string& window, const std::string& attribute);

// What a breakdown over `window` reads: `detail` on `threads` reader threads, no API calls unless
// the window is an NVTX range's (ReadForRanges).
ReadOptions BreakdownReadOptions(const WindowSpec& window, ReadDetail detail, int threads);

// BreakdownReadOptions with the CUDA API calls joined to their kernels (correlation ids): full
// detail for the launch keys; with `every_call` also the calls that launch nothing
// (synchronisations), at breakdown detail (no kernel shapes or demangled names).
ReadOptions ApiCallReadOptions(const WindowSpec& window, int threads, bool every_call);

// A duration (ns, or with us/ms/s) > 0; throws InputError naming `option` otherwise.
int64_t ParsePositiveDurationNs(const std::string& text, const std::string& option);

// --key: what identifies a kernel (name | demangled | launch), for ParseKernelKey.
void AddKernelKeyOption(CLI::App& command, std::string& key);

// A whole number > 0; throws InputError naming `option` otherwise.
int64_t ParsePositiveCount(const std::string& text, const std::string& option);

}  // namespace gpuroof
