#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/readers/reader_registry.h"

#include "unit_options.h"

namespace CLI {
class App;
}

namespace gpuroof {

// analyze's --window, unit, --attribute, --by-stream and --overlap flags, checked (InputError
// naming the flag) and turned into the engine-load options and what to read for them. Shared
// with the Python module (src/python), so both front ends read and analyse alike.
struct AnalyzePlan {
  EngineLoadOptions load;
  ReadOptions read;        // threads left at 0 (automatic)
  std::string units_text;  // "--units 2000", "--units-from kernel:k" or "", for report headers
};
AnalyzePlan PlanAnalyze(const std::string& window, const UnitOptions& unit,
                        const std::string& attribute, bool by_stream, bool overlap);

// The notes analyze prints for one trace's devices, as (where, note): "device 0[ stream 7]" and
// each device's window and units notes, then what its GB/s leave out (RateNotes); empty notes
// are left out.
std::vector<std::pair<std::string, std::string>> DeviceLoadNotes(
    const std::vector<DeviceLoad>& devices);

// Registers `gpuroof analyze`: per-device engine busy time, duty cycle and the roofline.
void AddAnalyzeCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
