#include "gpuroof/reports/findings_report.h"

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

// docs/cli.md, "gpuroof findings". The per-step columns show in text only for a trace with steps
// (CSV always has them).
std::vector<TableColumn> FindingColumns(bool with_steps = true) {
  using U = ColumnUnit;
  TableColumn per_step = MakeColumn("cost_per_step_ns", "cost/step", U::kNs);
  TableColumn steps = MakeColumn("steps", "steps", U::kText, ColumnRole::kLabel);
  if (!with_steps) {
    per_step = per_step.NotInText();
    steps = steps.NotInText();
  }
  return {
      MakeColumn("id", "rule", U::kText, ColumnRole::kKey),
      MakeColumn("device", "device", U::kCount, ColumnRole::kLabel),
      MakeColumn("cost_ns", "cost", U::kNs),
      MakeColumn("count", "count", U::kCount),
      per_step,
      steps,
      MakeColumn("title", "finding", U::kName, ColumnRole::kLabel),
      MakeColumn("evidence", "evidence", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("advice", "advice", U::kText, ColumnRole::kLabel).NotInText(),
  };
}

// "3-7 (worst 5)": the steps a finding's instances fell in, by their own numbers where the steps
// are a numbered family ("550-554 (worst 553)" for ProfilerStep#550..#554), else by position;
// "" without steps.
std::string StepsCell(const Finding& f) {
  if (!f.per_step || f.per_step->worst_step == 0) return "";
  const FindingPerStep& s = *f.per_step;
  const bool numbered = s.worst_number >= 0;
  const int64_t first = numbered ? s.first_number : s.first_step;
  const int64_t last = numbered ? s.last_number : s.last_step;
  const int64_t worst = numbered ? s.worst_number : s.worst_step;
  if (s.first_step == s.last_step) return fmt::format("{}", first);
  return fmt::format("{}-{} (worst {})", first, last, worst);
}

}  // namespace

std::string PerStepLine(const FindingPerStep& s) {
  std::string line =
      fmt::format("  per step: {} over {} step{} ({})", HumanDurationNs(s.cost_per_step_ns),
                  s.steps, s.steps == 1 ? "" : "s", s.steps_label);
  if (s.worst_step > 0 && s.worst_number >= 0 && s.first_step == s.last_step) {
    line += fmt::format("; in 1 step, {}#{} ({})", s.family, s.worst_number,
                        HumanDurationNs(static_cast<double>(s.worst_step_cost_ns)));
  } else if (s.worst_step > 0 && s.worst_number >= 0) {
    line += fmt::format("; in {} step{}, {}#{} to #{}, worst {}#{} ({})", s.steps_with_cost,
                        s.steps_with_cost == 1 ? "" : "s", s.family, s.first_number, s.last_number,
                        s.family, s.worst_number,
                        HumanDurationNs(static_cast<double>(s.worst_step_cost_ns)));
  } else if (s.worst_step > 0) {
    line += fmt::format("; in {} step{}, {} to {}, worst step {} ({})", s.steps_with_cost,
                        s.steps_with_cost == 1 ? "" : "s", s.first_step, s.last_step, s.worst_step,
                        HumanDurationNs(static_cast<double>(s.worst_step_cost_ns)));
  }
  if (s.outside_steps_ns > 0) {
    line += fmt::format("; {} outside every step",
                        HumanDurationNs(static_cast<double>(s.outside_steps_ns)));
  }
  return line;
}

namespace {

// "N findings below --min-cost-pct X (% of the device window), or without cost".
std::string FindingsBelowMinCost(const FindingsResult& result,
                                 const FindingThresholds& thresholds) {
  return fmt::format("{} below --min-cost-pct {} (% of the device window), or without cost",
                     CountOf(result.below_min_cost, "finding", "findings"),
                     thresholds.min_cost_pct);
}

}  // namespace

std::string FindingsDroppedLine(const FindingsResult& result, const FindingThresholds& thresholds) {
  return FindingsBelowMinCost(result, thresholds) + ", left out";
}

Table FindingTable(const FindingsResult& result) {
  Table table(FindingColumns(!result.steps_label.empty()));
  for (const Finding& f : result.findings) {
    TableCell per_step;
    if (f.per_step) per_step = f.per_step->cost_per_step_ns;
    table.AddRow({f.id, static_cast<int64_t>(f.device_id), f.cost_ns, f.count, per_step,
                  StepsCell(f), f.title, f.evidence, f.advice});
  }
  return table;
}

ReportDocument FindingsDocument(const FindingsReport& report) {
  return PerTraceDocument(
      report, FindingColumns(), [&report](ReportSection& section, const FindingsOfTrace& traced) {
        const FindingsResult& result = traced.result;
        const int64_t origin = traced.trace->FirstGpuOpNs();
        section.heading =
            fmt::format("{} · findings (window {})", traced.trace->source, report.window_text);
        // The window each device's costs (and --min-cost-pct) are measured in, and what it left
        // out, as the other commands say it.
        for (const auto& [device_id, window] : result.windows) {
          section.preamble.push_back(
              fmt::format("device {}: {}", device_id, WindowLine(window, origin)));
          if (window.note.empty()) continue;
          section.preamble.push_back(fmt::format("note: device {}: {}", device_id, window.note));
          section.left_out.push_back(fmt::format("device {}: {}", device_id, window.note));
        }
        for (const std::string& note : result.notes) {
          section.preamble.push_back("note: " + note);
          section.left_out.push_back(note);
        }
        if (result.below_min_cost > 0) {
          section.preamble.push_back(FindingsDroppedLine(result, report.thresholds));
          section.left_out.push_back(FindingsBelowMinCost(result, report.thresholds));
        }
        section.table = FindingTable(result);
        section.when_empty = "no finding";
        for (const Finding& f : result.findings) {
          section.footer.push_back("");
          section.footer.push_back(fmt::format("[{}] device {}: {}", f.id, f.device_id, f.title));
          section.footer.push_back("  evidence: " + f.evidence);
          for (const FindingExample& e : f.examples) {
            section.footer.push_back(
                fmt::format("    at {} ({} long): {}; cost {}", RelativeTime(e.start_ns, origin),
                            HumanDurationNs(static_cast<double>(e.end_ns - e.start_ns)), e.label,
                            HumanDurationNs(static_cast<double>(e.cost_ns))));
          }
          if (f.per_step) section.footer.push_back(PerStepLine(*f.per_step));
          section.footer.push_back("  what to do: " + f.advice);
        }
      });
}

void WriteThresholdsJson(JsonWriter& json, const FindingThresholds& t) {
  json.Key("thresholds").BeginObject();
  json.Key("min_cost_pct").Double(t.min_cost_pct);
  json.Key("gap_min_ns").Int(t.gap_min_ns);
  json.Key("launch_bound_share_pct").Double(t.launch_bound_share_pct);
  json.Key("launch_bound_min_kernels").Int(t.launch_bound_min_kernels);
  json.Key("low_occupancy_pct").Double(t.low_occupancy_pct);
  json.EndObject();
}

void WriteFindingJson(JsonWriter& json, const Finding& f) {
  json.BeginObject();
  json.Key("id").String(f.id);
  json.Key("title").String(f.title);
  json.Key("device").Int(f.device_id);
  json.Key("cost_ns").Int(f.cost_ns);
  json.Key("count").Int(f.count);
  // Per step (docs/findings.md, "Per step"): null where the trace has no steps in the window.
  if (f.per_step) {
    const FindingPerStep& s = *f.per_step;
    json.Key("cost_per_step_ns").Double(s.cost_per_step_ns);
    json.Key("steps").BeginObject();
    json.Key("label").String(s.steps_label);
    json.Key("count").Int(s.steps);
    json.Key("with_cost").Int(s.steps_with_cost);
    json.Key("first").Int(s.first_step);
    json.Key("last").Int(s.last_step);
    json.Key("worst").Int(s.worst_step);
    // The steps' own numbers (ProfilerStep#553: 553) of first/last/worst; null when the steps
    // are not a numbered family (first/last/worst stay 1-based positions).
    for (const auto& [key, number] :
         {std::pair{"first_number", s.first_number}, std::pair{"last_number", s.last_number},
          std::pair{"worst_number", s.worst_number}}) {
      json.Key(key);
      if (number >= 0) {
        json.Int(number);
      } else {
        json.Null();
      }
    }
    json.Key("worst_cost_ns").Int(s.worst_step_cost_ns);
    json.Key("outside_ns").Int(s.outside_steps_ns);
    json.EndObject();
  } else {
    json.Key("cost_per_step_ns").Null();
    json.Key("steps").Null();
  }
  json.Key("evidence").String(f.evidence);
  json.Key("advice").String(f.advice);
  json.Key("examples").BeginArray();
  for (const FindingExample& e : f.examples) {
    json.BeginObject();
    json.Key("start_ns").Int(e.start_ns);
    json.Key("end_ns").Int(e.end_ns);
    json.Key("cost_ns").Int(e.cost_ns);
    json.Key("label").String(e.label);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

std::string RenderFindingsJson(const FindingsReport& report) {
  auto options = [&report](JsonWriter& json) {
    json.Key("window").String(report.window_text);
    WriteThresholdsJson(json, report.thresholds);
  };
  auto fields = [](JsonWriter& json, const FindingsOfTrace& traced) {
    json.Key("below_min_cost").Int(traced.result.below_min_cost);
    WriteTextOrNullJson(json, "steps", traced.result.steps_label);
    WriteStringArrayJson(json, "notes", traced.result.notes);
    json.Key("windows").BeginArray();
    for (const auto& [device_id, window] : traced.result.windows) {
      json.BeginObject();
      json.Key("device").Int(device_id);
      WriteWindowJson(json, window);
      json.EndObject();
    }
    json.EndArray();
    json.Key("findings").BeginArray();
    for (const Finding& f : traced.result.findings)
      WriteFindingJson(json, f);
    json.EndArray();
  };
  return RenderPerTraceJson(report, "gpuroof.findings/1", options, fields);
}

}  // namespace gpuroof
