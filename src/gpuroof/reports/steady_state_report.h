#pragma once

#include <string>

#include "gpuroof/analyses/steady_state.h"
#include "gpuroof/format/json_writer.h"

namespace gpuroof {

// Relative change of a per-unit figure from the whole window to its steady part, in %:
// 100 x (steady / whole - 1). Unset when either is unset or whole is 0.
std::optional<double> SteadyChangePct(const std::optional<double>& whole,
                                      const std::optional<double>& steady);

// Lines for the analyze table: where the steady state starts, the bottleneck per unit and the
// window per unit of the steady part against the whole window, and the warnings, e.g.
// "steady state from 1.635 ms into the processing window (unit 101 of 1999, 100 warm-up units
// dropped by MSER-5 over 1999 intervals between launches of kernel 'k')".
std::string RenderSteadyStateText(const SteadyComparison& comparison);

// "steady_state": {...} (docs/formats.md) inside the open result object.
void WriteSteadyStateJson(JsonWriter& json, const SteadyComparison& comparison);

}  // namespace gpuroof
