#include <algorithm>
#include <array>
#include <utility>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/model/enum_names.h"
#include "gpuroof/reports/compare_report.h"
#include "gpuroof/reports/report_json.h"

namespace gpuroof {

namespace {

// What the JSON says of each level: its id and the unit of its values. One row per level, so
// the id and the unit cannot drift apart.
struct LevelJson {
  MetricLevel level;
  std::string_view id;
  std::string_view unit;
};

constexpr std::array<LevelJson, 11> kLevelJson = {{
    {MetricLevel::kIteration, "iteration", "ns"},
    {MetricLevel::kGpuBusy, "gpu-busy", "ns"},
    {MetricLevel::kCopyBusy, "copy-busy", "ns"},
    {MetricLevel::kCommBusy, "comm-busy", "ns"},
    {MetricLevel::kRange, "range", "ns"},
    {MetricLevel::kIdle, "gpu-idle", "ns"},
    {MetricLevel::kKernel, "kernel", "ns"},
    {MetricLevel::kLaunches, "launches", "count"},
    {MetricLevel::kBytes, "bytes", "bytes"},
    {MetricLevel::kEngineTotal, "engine-total", "ns"},
    {MetricLevel::kKernelTotal, "kernel-total", "ns"},
}};
static_assert(kLevelJson.size() == static_cast<size_t>(MetricLevel::kKernelTotal) + 1,
              "every level has a row");

// The level's row; "?" for a value the table lacks (one cast from a bad integer).
const LevelJson& JsonOf(MetricLevel level) {
  static constexpr LevelJson kUnknown{MetricLevel::kIteration, "?", "ns"};
  const LevelJson* row = FindRow(kLevelJson, &LevelJson::level, level);
  return row ? *row : kUnknown;
}

void WriteSide(JsonWriter& json, const std::optional<SideSummary>& side) {
  if (!side) {
    json.Null();
    return;
  }
  json.BeginObject();
  json.Key("n").UInt(side->n);
  json.Key("median").Double(side->median);
  json.Key("iqr_rel").Double(side->iqr_rel);
  json.EndObject();
}

// An interval as [low, high], or null when either end is unset.
void WriteIntervalJson(JsonWriter& json, const std::optional<double>& low,
                       const std::optional<double>& high) {
  if (low && high) {
    json.BeginArray().Double(*low).Double(*high).EndArray();
  } else {
    json.Null();
  }
}

void WriteProfiles(JsonWriter& json, const std::vector<ProfileSummary>& profiles) {
  json.BeginArray();
  for (const ProfileSummary& p : profiles) {
    json.BeginObject();
    json.Key("path").String(p.path);
    json.Key("device").String(p.device_model);
    json.Key("devices").UInt(p.device_count);
    json.Key("iterations").UInt(p.iterations);
    json.Key("steady_iterations").UInt(p.steady_iterations);
    json.Key("warmup_dropped").UInt(p.warmup_dropped);
    json.Key("attribution").String(p.attribution);
    if (p.has_iterations) {
      // GPU work no iteration was given: in no metric (docs/metrics.md, "Outside the iterations").
      json.Key("outside_iterations").BeginObject();
      json.Key("ops").UInt(p.outside_ops);
      json.Key("kernel_ns").Double(p.outside_kernel_ns);
      json.Key("between_ops").UInt(p.between_ops);
      json.Key("between_kernel_ns").Double(p.between_kernel_ns);
      json.EndObject();
    }
    WriteStringArrayJson(json, "warnings", p.warnings);
    json.EndObject();
  }
  json.EndArray();
}

void WriteMetric(JsonWriter& json, const MetricComparison& m) {
  json.BeginObject();
  json.Key("id").String(m.id);
  json.Key("level").String(JsonOf(m.level).id);
  json.Key("name").String(m.name);
  json.Key("unit").String(JsonOf(m.level).unit);
  json.Key("gated").Bool(m.gated);
  json.Key("below_impact").Bool(m.below_impact);
  json.Key("baseline");
  WriteSide(json, m.baseline);
  json.Key("current");
  WriteSide(json, m.current);
  json.Key("ratio");
  if (m.ratio) {
    json.BeginObject();
    json.Key("estimate").Double(m.ratio);
    json.Key("ci");
    WriteIntervalJson(json, m.ci_low, m.ci_high);
    json.Key("ci_level").Double(m.ci_level);
    json.Key("method").String(m.method);
    json.EndObject();
  } else {
    json.Null();
  }
  json.Key("median_ratio");
  if (m.median_ratio) {
    json.BeginObject();
    json.Key("estimate").Double(m.median_ratio->estimate);
    json.Key("ci");
    WriteIntervalJson(json, m.median_ratio->low, m.median_ratio->high);
    json.Key("method").String("bootstrap-percentile");
    json.EndObject();
  } else {
    json.Null();
  }
  WriteTextOrNullJson(json, "test", m.test);
  json.Key("p_value").Double(m.p_value);
  json.Key("p_adjusted").Double(m.p_adjusted ? m.p_adjusted : m.p_value);
  json.Key("run_mwu_p").Double(m.run_mwu_p);
  json.Key("share").Double(m.share);
  json.Key("time_ratio").Double(m.time_ratio);
  json.Key("impact").Double(m.impact);
  json.Key("mde").Double(m.mde);
  json.Key("delta").Double(m.delta);
  json.Key("delta_ci");
  WriteIntervalJson(json, m.delta_ci_low, m.delta_ci_high);
  json.Key("delta_of_iteration").Double(m.delta_of_iteration);
  json.Key("floor").Double(m.floor);
  json.Key("verdict").String(VerdictId(m.verdict));
  json.Key("low_n_over_threshold").Bool(m.low_n_over_threshold);
  json.Key("warmup");
  if (m.baseline_trim || m.current_trim) {
    json.BeginObject();
    for (const auto& [side, trim] :
         {std::pair{"baseline", &m.baseline_trim}, std::pair{"current", &m.current_trim}}) {
      json.Key(side);
      if (!*trim) {
        json.Null();
        continue;
      }
      json.BeginObject();
      json.Key("dropped").UInt((*trim)->dropped);
      json.Key("of").UInt((*trim)->of);
      json.Key("no_steady_state").UInt((*trim)->no_steady_state);
      json.EndObject();
    }
    json.EndObject();
  } else {
    json.Null();
  }
  json.EndObject();
}

void WriteDevices(JsonWriter& json, const std::vector<int32_t>& ids) {
  json.BeginArray();
  for (int32_t id : ids)
    json.Int(id);
  json.EndArray();
}

}  // namespace

std::string RenderCompareJson(const CompareReport& report) {
  const CompareResult& r = report.result;
  const GateSettings& s = r.settings;
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.compare/1", report.tool_version);
  json.Key("verdict").String(r.verdict);
  WriteStringArrayJson(json, "verdict_reasons", r.verdict_reasons);
  json.Key("exit_code").Int(r.exit_code);
  json.Key("mode").String(CompareModeName(r.mode));
  json.Key("settings").BeginObject();
  json.Key("alpha").Double(s.alpha);
  json.Key("min_effect").Double(s.min_effect);
  json.Key("target").Double(s.target);
  json.Key("floors").BeginObject();
  json.Key("time").Double(s.floor_time);
  json.Key("kernel").Double(s.floor_kernel);
  json.Key("copy").Double(s.floor_copy);
  json.EndObject();
  json.Key("n_min").UInt(s.n_min);
  json.Key("warmup").String(report.warmup_text);
  json.Key("kernel_key").String(report.kernel_key);
  json.Key("multiple_testing").String("holm");
  json.Key("bootstrap").BeginObject();
  json.Key("B").Int(kBootstrapReplicates);
  json.Key("seed").UInt(kBootstrapSeed);
  json.Key("rng").String("splitmix64");
  json.EndObject();
  json.EndObject();
  json.Key("inputs").BeginObject();
  json.Key("baseline");
  WriteProfiles(json, report.baseline);
  json.Key("current");
  WriteProfiles(json, report.current);
  json.Key("devices").BeginObject();
  json.Key("matching").String(r.device_matching);
  json.Key("baseline");
  WriteDevices(json, r.baseline_devices);
  json.Key("current");
  WriteDevices(json, r.current_devices);
  json.EndObject();
  json.Key("history");
  if (report.history_source.empty()) {
    json.Null();
  } else {
    json.BeginObject().Key("path").String(report.history_source);
    json.Key("entries").UInt(report.history_entries);
    json.Key("used").UInt(r.history_used);
    json.Key("left_out").UInt(r.history_entries - std::min(r.history_entries, r.history_used));
    WriteStringArrayJson(json, "left_out_reasons", r.history_left_out);
    json.EndObject();
  }
  json.EndObject();
  json.Key("metrics").BeginArray();
  for (const MetricComparison& m : r.metrics)
    WriteMetric(json, m);
  json.EndArray();
  json.Key("summary").BeginObject();
  json.Key("gated").UInt(r.summary.gated);
  json.Key("below_impact").UInt(r.summary.below_impact);
  json.Key("checked").UInt(r.summary.checked);
  json.Key("low_n").UInt(r.summary.low_n);
  json.Key("failed").UInt(r.summary.failed);
  json.Key("regressed").UInt(r.summary.regressed);
  json.Key("improved").UInt(r.summary.improved);
  json.Key("inconclusive").UInt(r.summary.inconclusive);
  json.Key("reported").UInt(r.summary.reported);
  json.Key("rows").BeginObject();
  for (const auto& [verdict, count] : r.summary.rows)
    json.Key(VerdictId(verdict)).UInt(count);
  json.EndObject();
  json.Key("geomean_weighted").Double(r.geomean_weighted);
  json.Key("geomean_plain").Double(r.geomean_plain);
  json.Key("noise_sd").Double(r.noise_sd);
  json.EndObject();
  WriteStringArrayJson(json, "warnings", r.warnings);
  json.EndObject();
  return json.str();
}

std::string RenderHistoryLine(const HistoryEntry& entry, const std::string& path) {
  // One line per run: JsonWriter indents, so this is written by hand with its quoting.
  std::string line =
      "{\"schema\": \"gpuroof.compare-history/1\", \"path\": " + JsonQuote(path) +
      (entry.trace_sha256.empty() ? std::string()
                                  : ", \"trace_sha256\": " + JsonQuote(entry.trace_sha256)) +
      ", \"device\": " + JsonQuote(entry.device) +
      (entry.has_device_count ? ", \"device_count\": " + std::to_string(entry.device_count)
                              : std::string()) +
      ", \"iteration_range\": " + JsonQuote(entry.iteration_range) +
      ", \"kernel_key\": " + JsonQuote(entry.kernel_key) +
      ", \"rules\": " + std::to_string(entry.rules) + ", \"metrics\": {";
  bool first = true;
  for (const auto& [id, median] : entry.medians) {
    line += (first ? "" : ", ") + JsonQuote(id) + ": " + ShortestDouble(median);
    first = false;
  }
  return line + "}}\n";
}

}  // namespace gpuroof
