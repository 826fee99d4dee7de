#include "gpuroof/reports/steady_state_report.h"

#include <cmath>

#include <fmt/format.h>

#include "gpuroof/analyses/roofline.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/reports/report_json.h"

namespace gpuroof {

namespace {

// "+3.4 %", or "n/a" when there is no change to give; rounding noise (|change| < 0.05 %) is
// "+0.0 %", never "-0.0 %".
std::string ChangeText(const std::optional<double>& change) {
  if (!change) return "n/a";
  return fmt::format("{:+.1f} %", std::abs(*change) < 0.05 ? 0.0 : *change);
}

void WriteFiguresJson(JsonWriter& json, std::string_view key, const DeviceLoad& load) {
  const Roofline& roofline = load.roofline;
  json.Key(key).BeginObject();
  WriteWindowJson(json, load.window);
  if (load.units) {
    json.Key("units").Int(*load.units);
  } else {
    json.Key("units").Null();
  }
  if (roofline.has_bottleneck) {
    json.Key("bottleneck").String(EngineName(roofline.bottleneck));
  } else {
    json.Key("bottleneck").Null();
  }
  json.Key("bottleneck_busy_ns").Int(roofline.bottleneck_busy_ns);
  json.Key("roofline_us_per_unit").Double(roofline.per_unit_us);
  json.Key("window_us_per_unit").Double(PerUnitUs(load.window.length_ns(), load));
  json.EndObject();
}

}  // namespace

std::optional<double> SteadyChangePct(const std::optional<double>& whole,
                                      const std::optional<double>& steady) {
  if (!whole || !steady || *whole == 0) return std::nullopt;
  return 100.0 * (*steady / *whole - 1.0);
}

std::string RenderSteadyStateText(const SteadyComparison& comparison) {
  const SteadyState& state = comparison.state;
  const DeviceLoad& whole = comparison.whole;
  const DeviceLoad& steady = comparison.steady;
  const std::string& unit = steady.unit_name;
  std::string out = fmt::format(
      "steady state from {} into the processing window (unit {} of {}; {} warm-up unit{} "
      "dropped by MSER-5 over {})\n",
      HumanDurationNs(static_cast<double>(state.start_ns - state.whole.start_ns)),
      state.first_kept + 1, state.units.size(), state.first_kept, state.first_kept == 1 ? "" : "s",
      DescribeSeries(state));
  const Roofline& whole_roofline = whole.roofline;
  const Roofline& steady_roofline = steady.roofline;
  if (steady_roofline.per_unit_us && whole_roofline.per_unit_us) {
    std::string engines = std::string(EngineName(steady_roofline.bottleneck));
    if (steady_roofline.bottleneck != whole_roofline.bottleneck) {
      engines += fmt::format(" (whole window: {})", EngineName(whole_roofline.bottleneck));
    }
    out += fmt::format(
        "  bottleneck {} per {}: {:.3f} us in the steady part vs {:.3f} us over the whole window "
        "({})\n",
        engines, unit, *steady_roofline.per_unit_us, *whole_roofline.per_unit_us,
        ChangeText(SteadyChangePct(whole_roofline.per_unit_us, steady_roofline.per_unit_us)));
  }
  const std::optional<double> whole_window = PerUnitUs(whole.window.length_ns(), whole);
  const std::optional<double> steady_window = PerUnitUs(steady.window.length_ns(), steady);
  if (whole_window && steady_window) {
    out += fmt::format(
        "  window per {}: {:.3f} us in the steady part vs {:.3f} us over the whole window ({})\n",
        unit, *steady_window, *whole_window,
        ChangeText(SteadyChangePct(whole_window, steady_window)));
  }
  for (const std::string& warning : state.warnings)
    out += "warning: " + warning + "\n";
  return out;
}

void WriteSteadyStateJson(JsonWriter& json, const SteadyComparison& comparison) {
  const SteadyState& state = comparison.state;
  json.Key("steady_state").BeginObject();
  json.Key("series").BeginObject();
  json.Key("source").String(state.series.kind == UnitSeriesSpec::Kind::kSlices           ? "slices"
                            : state.series.kind == UnitSeriesSpec::Kind::kKernelLaunches ? "kernel"
                                                                                         : "nvtx");
  json.Key("name").String(state.series.name);
  json.Key("units").UInt(state.units.size());
  if (state.slice_engine) {
    json.Key("slice_engine").String(EngineName(*state.slice_engine));
  } else {
    json.Key("slice_engine").Null();
  }
  json.Key("description").String(DescribeSeries(state));
  json.EndObject();
  json.Key("mser").BeginObject();
  json.Key("batch_size").Int(5);
  json.Key("batches").UInt(state.mser.batch_means.size());
  json.Key("truncated_batches").UInt(state.mser.truncated_batches);
  json.Key("hit_cap").Bool(state.mser.hit_cap);
  json.EndObject();
  json.Key("dropped_units").UInt(state.first_kept);
  json.Key("start_ns").Int(state.start_ns);
  json.Key("offset_ns").Int(state.start_ns - state.whole.start_ns);
  json.Key("head_ratio").Double(state.head_ratio);
  WriteStringArrayJson(json, "warnings", state.warnings);
  WriteFiguresJson(json, "whole", comparison.whole);
  WriteFiguresJson(json, "steady", comparison.steady);
  const Roofline& whole_roofline = comparison.whole.roofline;
  const Roofline& steady_roofline = comparison.steady.roofline;
  json.Key("roofline_change_pct")
      .Double(SteadyChangePct(whole_roofline.per_unit_us, steady_roofline.per_unit_us));
  json.Key("window_change_pct")
      .Double(SteadyChangePct(PerUnitUs(comparison.whole.window.length_ns(), comparison.whole),
                              PerUnitUs(comparison.steady.window.length_ns(), comparison.steady)));
  json.EndObject();
}

}  // namespace gpuroof
