#pragma once

#include <string>

#include "gpuroof/analyses/engine_load.h"

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

// A whole number > 0; throws InputError naming `option` otherwise.
int64_t ParsePositiveCount(const std::string& text, const std::string& option);

}  // namespace gpuroof
