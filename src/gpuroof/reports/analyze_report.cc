#include "gpuroof/reports/analyze_report.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "gpuroof/format/csv_line.h"
#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table_text.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"
#include "gpuroof/reports/steady_state_report.h"

namespace gpuroof {

namespace {

// Engines every CSV carries, present or not, so spreadsheets keep their columns.
constexpr Engine kAlwaysInCsv[] = {Engine::kKernel, Engine::kH2D, Engine::kD2H};

// Where collectives run beside compute, the two kernel engines are named for what they do.
std::string EngineLabel(Engine engine, const DeviceLoad& device) {
  const bool comm = device.engine(Engine::kComm).ops > 0;
  if (engine == Engine::kKernel) return comm ? "compute" : "the kernel";
  if (engine == Engine::kComm) return "communication";
  return std::string(EngineName(engine));
}

// Communication hidden behind compute: the time both were busy (docs/metrics.md, "Overlap").
struct CommOverlap {
  int64_t comm_busy_ns = 0;
  int64_t hidden_ns = 0;  // comm busy while compute was busy
  int64_t exposed_ns() const { return comm_busy_ns - hidden_ns; }
};

std::optional<CommOverlap> CommOverlapOf(const EngineOverlap& overlap) {
  const auto find = [&](Engine engine) {
    return std::find(overlap.engines.begin(), overlap.engines.end(), engine) -
           overlap.engines.begin();
  };
  const auto comm = static_cast<size_t>(find(Engine::kComm));
  if (comm == overlap.engines.size()) return std::nullopt;
  CommOverlap result;
  result.comm_busy_ns = overlap.intersection_ns[comm][comm];
  result.hidden_ns = overlap.comm_hidden_ns;
  return result;
}

double Ms(int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

std::optional<double> WindowUnitsPerS(const DeviceLoad& device) {
  if (!device.units || device.window.length_ns() <= 0) return std::nullopt;
  return static_cast<double>(*device.units) /
         (static_cast<double>(device.window.length_ns()) / 1e9);
}

// The pairwise matrix of busy-time intersections (the upper triangle; the diagonal is each
// engine's busy time) and the idle time.
std::string RenderOverlapText(const EngineOverlap& overlap, const DeviceLoad& device) {
  std::vector<TableColumn> columns = {
      MakeColumn("engine", "both busy", ColumnUnit::kText, ColumnRole::kKey)};
  for (Engine engine : overlap.engines)
    columns.push_back(MakeColumn(std::string(EngineName(engine)), std::string(EngineName(engine)),
                                 ColumnUnit::kNs));
  Table table(std::move(columns));
  for (size_t a = 0; a < overlap.engines.size(); ++a) {
    std::vector<TableCell> row = {std::string(EngineName(overlap.engines[a]))};
    for (size_t b = 0; b < overlap.engines.size(); ++b)
      row.push_back(b < a ? TableCell{} : TableCell(overlap.intersection_ns[a][b]));
    table.AddRow(std::move(row));
  }
  std::string out = RenderTableText(table) +
                    fmt::format("  no engine busy: {} ({:.2f} % of the window)\n",
                                HumanDurationNs(static_cast<double>(overlap.idle_ns)),
                                DutyPercent(overlap.idle_ns, device.window).value_or(0.0));
  if (std::optional<CommOverlap> comm = CommOverlapOf(overlap); comm && comm->comm_busy_ns > 0) {
    const double share =
        100.0 * static_cast<double>(comm->hidden_ns) / static_cast<double>(comm->comm_busy_ns);
    out += fmt::format("  communication hidden behind compute: {} of {} ({:.1f} %); exposed {}\n",
                       HumanDurationNs(static_cast<double>(comm->hidden_ns)),
                       HumanDurationNs(static_cast<double>(comm->comm_busy_ns)), share,
                       HumanDurationNs(static_cast<double>(comm->exposed_ns())));
  }
  if (device.window.work != nullptr && device.outside_in_span_ops > 0) {
    // A work window: the lines above see the range's own ops only.
    const int64_t idle = device.window.length_ns() - device.span_all_busy_ns;
    out +=
        WrapLine(fmt::format("  these lines see the work of range {} only: {} other op(s) ran {} "
                             "of the window; with them the GPU was idle {} ({:.2f} %), and "
                             "communication under their compute counts as exposed here",
                             device.window.resolved, device.outside_in_span_ops,
                             HumanDurationNs(static_cast<double>(device.outside_in_span_busy_ns)),
                             HumanDurationNs(static_cast<double>(idle)),
                             DutyPercent(idle, device.window).value_or(0.0)),
                 TextTableOptions{}.max_width) +
        "\n";
  }
  return out + "\n";
}

// The steady-state comparison of the device a (per-device, not per-stream) row of `analyzed`, one
// of report.traces, describes.
const SteadyComparison* SteadyOf(const AnalyzeReport& report, const AnalyzedTrace& analyzed,
                                 const DeviceLoad& device) {
  const auto t = static_cast<size_t>(&analyzed - report.traces.data());
  if (device.stream || device.uvm_no_stream || t >= report.steady.size()) return nullptr;
  for (const SteadyComparison& comparison : report.steady[t]) {
    if (comparison.state.device_id == device.device_id) return &comparison;
  }
  return nullptr;
}

// " · stream 14" for a --by-stream row, with its context and process when another stream of
// the device has the same id; "" for a device row.
std::string StreamTitle(const std::vector<DeviceLoad>& rows, const DeviceLoad& row) {
  if (row.uvm_no_stream) return fmt::format(" · {}", kNoStreamUvmLabel);
  if (!row.stream) return "";
  const StreamInfo& stream = *row.stream;
  const bool shared_id = std::any_of(rows.begin(), rows.end(), [&](const DeviceLoad& other) {
    return other.stream && &other != &row && other.device_id == row.device_id &&
           other.stream->stream_id == stream.stream_id;
  });
  if (!shared_id) return fmt::format(" · stream {}", stream.stream_id);
  return fmt::format(" · stream {} (context {}, process {})", stream.stream_id, stream.context_id,
                     stream.process_id);
}

// `text` with its context lines (those not indented: tables are) wrapped at the text width
// (docs/formats.md, "Tables").
std::string WrapContextLines(const std::string& text) {
  const size_t width = TextTableOptions{}.max_width;
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += line.starts_with(' ') ? line : WrapLine(line, width);
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

// The name of a pair of engines busy at the same time: "kernel_x_H2D".
std::string OverlapPair(Engine a, Engine b) {
  return fmt::format("{}_x_{}", EngineName(a), EngineName(b));
}

// CSV column name of the intersection of two engines.
std::string OverlapColumn(Engine a, Engine b) {
  return OverlapPair(a, b) + "_ms";
}

}  // namespace

// The engine table of one device for people: one row per engine with ops, then "any GPU op";
// times rescaled per column (docs/formats.md, "Tables").
Table EngineTable(const DeviceLoad& device) {
  using U = ColumnUnit;
  Table table({MakeColumn("engine", "engine", U::kText, ColumnRole::kKey),
               MakeColumn("ops", "ops", U::kCount), MakeColumn("sum_ns", "sum", U::kNs),
               MakeColumn("busy_ns", "busy", U::kNs), MakeColumn("overlap", "overlap", U::kRatio),
               MakeColumn("duty_pct", "duty", U::kPercent),
               MakeColumn("per_unit_ns", "/" + device.unit_name, U::kNs),
               MakeColumn("bytes", "bytes", U::kBytes), MakeColumn("gbps", "", U::kGbps)});
  auto per_unit_ns = [&device](int64_t busy_ns) -> TableCell {
    std::optional<double> us = PerUnitUs(busy_ns, device);
    return us ? TableCell(*us * 1e3) : TableCell();
  };
  for (const EngineLoad& load : device.engines) {
    if (load.ops == 0) continue;
    bool moves = EngineMovesBytes(load.engine);
    table.AddRow({std::string(EngineName(load.engine)), load.ops, load.sum_ns, load.busy_ns,
                  OptionalCell(OverlapFactor(load)),
                  OptionalCell(DutyPercent(load.busy_ns, device.window)), per_unit_ns(load.busy_ns),
                  moves ? TableCell(static_cast<int64_t>(load.bytes)) : TableCell(),
                  OptionalCell(BandwidthGBps(load))});
  }
  table.AddRow({std::string("any GPU op"), device.any_ops, TableCell(), device.any_busy_ns,
                TableCell(), OptionalCell(DutyPercent(device.any_busy_ns, device.window)),
                per_unit_ns(device.any_busy_ns), TableCell(), TableCell()});
  return table;
}

std::vector<std::string> RateNotes(const DeviceLoad& device) {
  std::vector<std::string> notes;
  for (const EngineLoad& load : device.engines) {
    if (load.ops == 0 || !EngineMovesBytes(load.engine)) continue;
    std::string note = ZeroDurationRateNote(EngineName(load.engine), load.engine, load.rate);
    if (!note.empty()) notes.push_back(std::move(note));
  }
  return notes;
}

std::string PluralUnit(const std::string& unit) {
  auto ends_with = [&unit](std::string_view suffix) {
    return unit.size() >= suffix.size() &&
           unit.compare(unit.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // "epoch" is the one common unit whose "ch" does not take "es".
  if (ends_with("och")) return unit + "s";
  if (ends_with("s") || ends_with("x") || ends_with("ch") || ends_with("sh")) return unit + "es";
  return unit + "s";
}

std::string HeadroomFactorText(const Headroom& headroom) {
  return headroom.factor ? fmt::format("{:.2f}x", *headroom.factor) : "unbounded";
}

std::string ReadingLine(const DeviceLoad& device, const Roofline& roofline) {
  if (device.any_ops == 0) return "no GPU op in the window.";
  if (device.uvm_no_stream) {
    return "no bottleneck named: UVM migrations are the driver's page moves, paced by page "
           "faults, not work of a stream.";
  }
  if (!roofline.has_bottleneck) return "no engine was busy in the window (every op takes no time).";
  const EngineLoad& bottleneck = device.engine(roofline.bottleneck);
  const std::string& unit = device.unit_name;
  std::string binder = EngineLabel(roofline.bottleneck, device);
  if (!roofline.per_unit_us) {
    return fmt::format(
        "{} is the busiest engine: busy {} of the {} window ({:.1f} %); give --units to get "
        "the roofline per {}.",
        binder, HumanDurationNs(static_cast<double>(bottleneck.busy_ns)),
        HumanDurationNs(static_cast<double>(device.window.length_ns())),
        DutyPercent(bottleneck.busy_ns, device.window).value_or(0.0), unit);
  }
  std::string head =
      fmt::format("{} binds at {} us/{}", binder, FixedDouble(roofline.per_unit_us, 2), unit);
  if (roofline.headroom.empty()) return head + " (the only engine in use).";
  // Compute is the kernels, or the whole-graph launches of a graph-traced run (docs/metrics.md).
  const Engine compute =
      device.engine(Engine::kKernel).ops == 0 && device.engine(Engine::kGraph).ops > 0
          ? Engine::kGraph
          : Engine::kKernel;
  if (roofline.bottleneck != compute) {
    const EngineLoad& kernel = device.engine(compute);
    if (kernel.ops == 0) return head + "; no compute kernel ran in the window.";
    if (compute == Engine::kGraph) {
      return fmt::format(
          "{}; the whole-graph launches ({} us/{}) are invisible end to end until they grow past "
          "that.",
          head, FixedDouble(PerUnitUs(kernel.busy_ns, device).value_or(0.0), 2), unit);
    }
    return fmt::format("{}; {} ({} us/{}) is invisible end to end until it grows past that.", head,
                       EngineLabel(Engine::kKernel, device),
                       FixedDouble(PerUnitUs(kernel.busy_ns, device).value_or(0.0), 2), unit);
  }
  // The kernel binds: name the next-tallest bar and how far below it sits.
  const Headroom* next = &roofline.headroom.front();
  for (const Headroom& h : roofline.headroom) {
    if (h.per_unit_gap_us < next->per_unit_gap_us) next = &h;
  }
  const char* subject = compute == Engine::kGraph              ? "the whole-graph launches are"
                        : device.engine(Engine::kComm).ops > 0 ? "compute is"
                                                               : "the kernel is";
  return fmt::format("{}; the next engine, {} ({} us/{}), binds once {} {} us/{} faster.", head,
                     EngineName(next->engine),
                     FixedDouble(*roofline.per_unit_us - next->per_unit_gap_us, 2), unit, subject,
                     FixedDouble(next->per_unit_gap_us, 2), unit);
}

std::string RenderAnalyzeText(const AnalyzeReport& report) {
  std::string out;
  for (const AnalyzedTrace& analyzed : report.traces) {
    const Trace& trace = *analyzed.trace;
    for (size_t d = 0; d < analyzed.devices.size(); ++d) {
      const DeviceLoad& device = analyzed.devices[d];
      const Roofline& roofline = device.roofline;
      const std::string& unit = device.unit_name;
      out += fmt::format("{} · {}{}\n", trace.source,
                         DeviceTitle(device.device_id, device.device_name),
                         StreamTitle(analyzed.devices, device));
      out += WindowLine(device.window, trace.FirstGpuOpNs());
      if (device.units) {
        out += fmt::format(" · {} {}", *device.units, *device.units == 1 ? unit : PluralUnit(unit));
      }
      out += "\n";
      if (!device.window.note.empty()) out += "note: " + device.window.note + "\n";
      if (!device.units_note.empty()) out += "note: " + device.units_note + "\n";
      out += "\n";
      // Columns no engine has a figure in (per unit without --units, bytes without copies) are
      // left out rather than printed empty.
      out += RenderTableText(EngineTable(device), {.hide_empty_columns = true});
      for (const std::string& note : RateNotes(device))
        out += "note: " + note + "\n";
      out += "\n";
      if (d < analyzed.overlaps.size()) out += RenderOverlapText(analyzed.overlaps[d], device);
      if (roofline.has_bottleneck) {
        if (roofline.per_unit_us) {
          out += fmt::format("bottleneck: {} · roofline {} us/{} = {} {}/s\n",
                             EngineName(roofline.bottleneck), FixedDouble(roofline.per_unit_us, 3),
                             unit, FixedDouble(roofline.units_per_s.value_or(0.0), 1),
                             PluralUnit(unit));
          out += fmt::format(
              "window:     {} us/{} = {} {}/s (achieved over the window)\n",
              FixedDouble(PerUnitUs(device.window.length_ns(), device).value_or(0.0), 3), unit,
              FixedDouble(WindowUnitsPerS(device).value_or(0.0), 1), PluralUnit(unit));
        } else {
          out += fmt::format("bottleneck: {} (busy {})\n", EngineName(roofline.bottleneck),
                             HumanDurationNs(static_cast<double>(roofline.bottleneck_busy_ns)));
        }
        if (!roofline.headroom.empty()) {
          std::string line = "headroom:  ";
          for (size_t i = 0; i < roofline.headroom.size(); ++i) {
            const Headroom& h = roofline.headroom[i];
            line += i == 0 ? " " : ", ";
            if (roofline.per_unit_us) {
              line += fmt::format("{} +{} us/{} ({})", EngineName(h.engine),
                                  FixedDouble(h.per_unit_gap_us, 3), unit, HeadroomFactorText(h));
            } else {
              line += fmt::format("{} {}", EngineName(h.engine), HeadroomFactorText(h));
            }
          }
          out += line + "\n";
        }
      }
      out += ReadingLine(device, roofline) + "\n";
      if (const SteadyComparison* steady = SteadyOf(report, analyzed, device))
        out += RenderSteadyStateText(*steady);
      out += "\n";
    }
  }
  return WrapContextLines(out);
}

std::string RenderAnalyzeCsv(const AnalyzeReport& report) {
  bool several_traces = report.traces.size() > 1;
  std::array<bool, kEngineCount> include{};
  for (Engine engine : kAlwaysInCsv)
    include[static_cast<size_t>(EngineIndex(engine))] = true;
  std::string unit = "frame";
  bool by_stream = false;
  bool ranged = false;  // NVTX windows: which range and instance each row describes
  bool with_overlap = false;
  for (const AnalyzedTrace& analyzed : report.traces) {
    with_overlap = with_overlap || !analyzed.overlaps.empty();
    for (const DeviceLoad& device : analyzed.devices) {
      unit = device.unit_name;
      by_stream = by_stream || device.stream || device.uvm_no_stream;
      ranged = ranged || !device.window.resolved.empty();
      for (const EngineLoad& load : device.engines) {
        if (load.ops > 0) include[static_cast<size_t>(EngineIndex(load.engine))] = true;
      }
    }
  }
  // Each column once: its stable name and how a (trace, device row) fills it (docs/cli.md,
  // "gpuroof analyze", CSV columns).
  using Cell = std::function<TableCell(const AnalyzedTrace&, const DeviceLoad&, size_t)>;
  std::vector<std::pair<std::string, Cell>> columns;
  auto add = [&columns](std::string name, Cell cell) {
    columns.emplace_back(std::move(name), std::move(cell));
  };
  if (several_traces) {
    add("trace", [](const AnalyzedTrace& t, const DeviceLoad&, size_t) {
      return TableCell(t.trace->source);
    });
  }
  add("device", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return TableCell(int64_t{device.device_id});
  });
  if (by_stream) {
    // A stream is (process, device, context, stream id): ids repeat across processes.
    // `stream` holds integers or nothing (pandas reads it as a number); the UVM row, on no
    // stream, has it empty and says so in `stream_label`.
    add("stream", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
      return device.stream ? TableCell(int64_t{device.stream->stream_id}) : TableCell{};
    });
    add("context", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
      return device.stream ? TableCell(int64_t{device.stream->context_id}) : TableCell{};
    });
    add("process", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
      return device.stream ? TableCell(std::to_string(device.stream->process_id)) : TableCell{};
    });
    add("stream_label", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
      return TableCell(std::string(device.uvm_no_stream ? kNoStreamUvmLabel : ""));
    });
  }
  if (ranged) {
    add("window_range", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
      return TableCell(device.window.resolved);
    });
  }
  add("n_" + PluralUnit(unit), [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return OptionalCell(device.units);
  });
  add("window_ms", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return TableCell(Ms(device.window.length_ns()));
  });
  add("window_us_per_" + unit, [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return OptionalCell(PerUnitUs(device.window.length_ns(), device));
  });
  add("window_fps", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return OptionalCell(WindowUnitsPerS(device));
  });
  for (Engine engine : kAllEngines) {
    if (!include[static_cast<size_t>(EngineIndex(engine))]) continue;
    const std::string prefix(EngineName(engine));
    // A figure of this engine's load on the row's device.
    auto of_engine = [engine](TableCell (*figure)(const EngineLoad&, const DeviceLoad&)) {
      return [engine, figure](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
        return figure(device.engine(engine), device);
      };
    };
    add(prefix + "_n",
        of_engine([](const EngineLoad& load, const DeviceLoad&) { return TableCell(load.ops); }));
    add(prefix + "_sum_ms", of_engine([](const EngineLoad& load, const DeviceLoad&) {
          return TableCell(Ms(load.sum_ns));
        }));
    add(prefix + "_busy_ms", of_engine([](const EngineLoad& load, const DeviceLoad&) {
          return TableCell(Ms(load.busy_ns));
        }));
    add(prefix + "_overlap", of_engine([](const EngineLoad& load, const DeviceLoad&) {
          return OptionalCell(OverlapFactor(load));
        }));
    add(prefix + "_duty_pct", of_engine([](const EngineLoad& load, const DeviceLoad& device) {
          return OptionalCell(DutyPercent(load.busy_ns, device.window));
        }));
    add(prefix + "_us_per_" + unit, of_engine([](const EngineLoad& load, const DeviceLoad& device) {
          return OptionalCell(PerUnitUs(load.busy_ns, device));
        }));
    if (EngineMovesBytes(engine)) {
      add(prefix + "_bytes", of_engine([](const EngineLoad& load, const DeviceLoad&) {
            return TableCell(static_cast<int64_t>(load.bytes));
          }));
      add(prefix + "_gbps", of_engine([](const EngineLoad& load, const DeviceLoad&) {
            return OptionalCell(BandwidthGBps(load));
          }));
    }
  }
  add("bottleneck", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return device.roofline.has_bottleneck
               ? TableCell(std::string(EngineName(device.roofline.bottleneck)))
               : TableCell(std::string());
  });
  add("roofline_us_per_" + unit, [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return OptionalCell(device.roofline.per_unit_us);
  });
  add("roofline_fps", [](const AnalyzedTrace&, const DeviceLoad& device, size_t) {
    return OptionalCell(device.roofline.units_per_s);
  });
  // With --overlap: every pair of the included engines, then the idle time, after the columns
  // spreadsheets already know.
  if (with_overlap) {
    auto overlap_of = [](const AnalyzedTrace& t, size_t d) {
      return d < t.overlaps.size() ? &t.overlaps[d] : nullptr;
    };
    for (Engine a : kAllEngines) {
      for (Engine b : kAllEngines) {
        if (EngineIndex(a) >= EngineIndex(b) || !include[static_cast<size_t>(EngineIndex(a))] ||
            !include[static_cast<size_t>(EngineIndex(b))]) {
          continue;
        }
        add(OverlapColumn(a, b),
            [a, b, overlap_of](const AnalyzedTrace& t, const DeviceLoad&, size_t d) {
              const EngineOverlap* overlap = overlap_of(t, d);
              if (overlap == nullptr) return TableCell{};
              auto position = [overlap](Engine e) {
                return static_cast<size_t>(
                    std::find(overlap->engines.begin(), overlap->engines.end(), e) -
                    overlap->engines.begin());
              };
              const size_t i = position(a);
              const size_t j = position(b);
              const bool both = i < overlap->engines.size() && j < overlap->engines.size();
              return TableCell(Ms(both ? overlap->intersection_ns[i][j] : 0));
            });
      }
    }
    add("idle_ms", [overlap_of](const AnalyzedTrace& t, const DeviceLoad&, size_t d) {
      const EngineOverlap* overlap = overlap_of(t, d);
      return overlap == nullptr ? TableCell{} : TableCell(Ms(overlap->idle_ns));
    });
  }

  std::vector<TableColumn> table_columns;
  for (const auto& [name, cell] : columns)
    table_columns.push_back(MakeColumn(name, name));
  Table table(std::move(table_columns));
  for (const AnalyzedTrace& analyzed : report.traces) {
    for (size_t d = 0; d < analyzed.devices.size(); ++d) {
      std::vector<TableCell> row;
      for (const auto& [name, cell] : columns)
        row.push_back(cell(analyzed, analyzed.devices[d], d));
      table.AddRow(std::move(row));
    }
  }
  return RenderTableCsv(table);
}

std::string RenderAnalyzeCsvLong(const AnalyzeReport& report) {
  // One figure per row, in base units, so pandas reads it with no reshaping:
  // pd.read_csv(f).pivot_table(index=["device", "engine"], columns="metric", values="value").
  std::string out = CsvLine({"trace", "device", "stream", "context", "process", "stream_label",
                             "window_range", "engine", "metric", "value", "unit"});
  for (const AnalyzedTrace& analyzed : report.traces) {
    for (size_t d = 0; d < analyzed.devices.size(); ++d) {
      const DeviceLoad& device = analyzed.devices[d];
      // A stream is (process, device, context, stream id): ids repeat across processes.
      // `stream` holds integers or nothing; the UVM row says what it is in `stream_label`.
      const std::string stream = device.stream ? std::to_string(device.stream->stream_id) : "";
      const std::string stream_label = device.uvm_no_stream ? kNoStreamUvmLabel : "";
      const std::string context = device.stream ? std::to_string(device.stream->context_id) : "";
      const std::string process = device.stream ? std::to_string(device.stream->process_id) : "";
      auto emit = [&](std::string_view engine, std::string_view metric, const std::string& value,
                      std::string_view unit) {
        if (value.empty()) return;  // undefined figures have no row
        out += CsvLine({analyzed.trace->source, std::to_string(device.device_id), stream, context,
                        process, stream_label, device.window.resolved, std::string(engine),
                        std::string(metric), value, std::string(unit)});
      };
      auto per_unit_ns = [&device](int64_t ns) {
        std::optional<double> us = PerUnitUs(ns, device);
        return us ? ShortestDouble(*us * 1e3) : std::string();
      };
      emit("window", "length", std::to_string(device.window.length_ns()), "ns");
      emit("window", "start", std::to_string(device.window.start_ns), "ns");
      emit("window", "end", std::to_string(device.window.end_ns), "ns");
      if (device.units) emit("window", "units", std::to_string(*device.units), device.unit_name);
      emit("window", "per_unit", per_unit_ns(device.window.length_ns()), "ns");
      emit("window", "units_per_s", ShortestDouble(WindowUnitsPerS(device)), "1/s");
      for (const EngineLoad& load : device.engines) {
        if (load.ops == 0) continue;
        std::string_view engine = EngineName(load.engine);
        emit(engine, "ops", std::to_string(load.ops), "count");
        emit(engine, "sum", std::to_string(load.sum_ns), "ns");
        emit(engine, "busy", std::to_string(load.busy_ns), "ns");
        emit(engine, "overlap", ShortestDouble(OverlapFactor(load)), "ratio");
        emit(engine, "duty", ShortestDouble(DutyPercent(load.busy_ns, device.window)), "percent");
        emit(engine, "per_unit", per_unit_ns(load.busy_ns), "ns");
        if (EngineMovesBytes(load.engine)) {
          emit(engine, "bytes", std::to_string(load.bytes), "bytes");
          emit(engine, "bandwidth", ShortestDouble(BandwidthGBps(load)), "GB/s");
          // The copies the bandwidth leaves out (ByteRate).
          emit(engine, "zero_duration_ops", std::to_string(load.rate.zero_duration_ops), "count");
          emit(engine, "zero_duration_bytes", std::to_string(load.rate.zero_duration_bytes),
               "bytes");
        }
      }
      emit("any", "ops", std::to_string(device.any_ops), "count");
      emit("any", "busy", std::to_string(device.any_busy_ns), "ns");
      emit("any", "duty", ShortestDouble(DutyPercent(device.any_busy_ns, device.window)),
           "percent");
      emit("any", "per_unit", per_unit_ns(device.any_busy_ns), "ns");
      emit("outside_window", "ops", std::to_string(device.outside_ops), "count");
      emit("outside_window", "busy", std::to_string(device.outside_busy_ns), "ns");
      emit("outside_window", "in_span_ops", std::to_string(device.outside_in_span_ops), "count");
      if (d < analyzed.overlaps.size()) {
        // --overlap: each pair's time both were busy, the time no engine was, and the
        // communication compute hid.
        const EngineOverlap& overlap = analyzed.overlaps[d];
        for (size_t a = 0; a < overlap.engines.size(); ++a) {
          for (size_t b = a + 1; b < overlap.engines.size(); ++b) {
            emit(OverlapPair(overlap.engines[a], overlap.engines[b]), "both_busy",
                 std::to_string(overlap.intersection_ns[a][b]), "ns");
          }
        }
        emit("any", "idle", std::to_string(overlap.idle_ns), "ns");
        if (std::optional<CommOverlap> comm = CommOverlapOf(overlap)) {
          emit("comm", "hidden", std::to_string(comm->hidden_ns), "ns");
          emit("comm", "exposed", std::to_string(comm->exposed_ns()), "ns");
        }
      }
      const Roofline& roofline = device.roofline;
      if (roofline.has_bottleneck) {
        std::string_view bottleneck = EngineName(roofline.bottleneck);
        std::optional<double> roofline_ns;
        if (roofline.per_unit_us) roofline_ns = *roofline.per_unit_us * 1e3;
        emit(bottleneck, "roofline_per_unit", ShortestDouble(roofline_ns), "ns");
        emit(bottleneck, "roofline_units_per_s", ShortestDouble(roofline.units_per_s), "1/s");
      }
    }
  }
  return out;
}

std::string RenderAnalyzeJson(const AnalyzeReport& report) {
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.analyze/1", report.tool_version);
  json.Key("options").BeginObject();
  json.Key("window").String(report.window_text);
  json.Key("units").String(report.units_text);
  json.EndObject();
  WriteInputsJson(json, report.traces);
  json.Key("results").BeginArray();
  for (const AnalyzedTrace& analyzed : report.traces) {
    for (size_t d = 0; d < analyzed.devices.size(); ++d) {
      const DeviceLoad& device = analyzed.devices[d];
      const Roofline& roofline = device.roofline;
      json.BeginObject();
      WriteDeviceKeysJson(json, *analyzed.trace, device.device_id, device.device_name);
      if (device.stream) {
        json.Key("stream").BeginObject();
        json.Key("stream_id").UInt(device.stream->stream_id);
        json.Key("context_id").UInt(device.stream->context_id);
        json.Key("process_id").UInt(device.stream->process_id);
        json.Key("label").Null();  // set on the UVM migrations' row only
        json.EndObject();
      } else if (device.uvm_no_stream) {
        // The UVM migrations of the device, on no stream (docs/formats.md).
        json.Key("stream").BeginObject();
        json.Key("stream_id").Null();
        json.Key("context_id").Null();
        json.Key("process_id").Null();
        json.Key("label").String(kNoStreamUvmLabel);
        json.EndObject();
      }
      WriteWindowJson(json, device.window);
      json.Key("unit_name").String(device.unit_name);
      json.Key("units_note").String(device.units_note);
      if (device.units) {
        json.Key("units").Int(*device.units);
      } else {
        json.Key("units").Null();
      }
      json.Key("window_us_per_unit").Double(PerUnitUs(device.window.length_ns(), device));
      json.Key("window_units_per_s").Double(WindowUnitsPerS(device));
      json.Key("outside_window").BeginObject();
      json.Key("ops").Int(device.outside_ops);
      json.Key("busy_ns").Int(device.outside_busy_ns);
      json.Key("in_span_ops").Int(device.outside_in_span_ops);
      json.EndObject();
      json.Key("engines").BeginArray();
      for (const EngineLoad& load : device.engines) {
        if (load.ops == 0) continue;
        json.BeginObject();
        json.Key("engine").String(EngineName(load.engine));
        json.Key("ops").Int(load.ops);
        json.Key("sum_ns").Int(load.sum_ns);
        json.Key("busy_ns").Int(load.busy_ns);
        json.Key("overlap").Double(OverlapFactor(load));
        json.Key("duty_pct").Double(DutyPercent(load.busy_ns, device.window));
        json.Key("busy_us_per_unit").Double(PerUnitUs(load.busy_ns, device));
        json.Key("bytes").UInt(load.bytes);
        json.Key("op_time_ns").Int(load.op_time_ns);
        json.Key("bandwidth_gbps").Double(BandwidthGBps(load));
        // The copies bandwidth_gbps leaves out (ByteRate); 0 for engines that move no bytes
        // (as bytes; their zero-duration ops are a reader's note), as CSV and csv-long have none.
        const bool moves_bytes = EngineMovesBytes(load.engine);
        json.Key("zero_duration_ops").Int(moves_bytes ? load.rate.zero_duration_ops : 0);
        json.Key("zero_duration_bytes").UInt(moves_bytes ? load.rate.zero_duration_bytes : 0);
        json.EndObject();
      }
      json.EndArray();
      json.Key("any").BeginObject();
      json.Key("ops").Int(device.any_ops);
      json.Key("busy_ns").Int(device.any_busy_ns);
      json.Key("duty_pct").Double(DutyPercent(device.any_busy_ns, device.window));
      json.Key("busy_us_per_unit").Double(PerUnitUs(device.any_busy_ns, device));
      json.EndObject();
      json.Key("bottleneck");
      if (roofline.has_bottleneck) {
        json.BeginObject();
        json.Key("engine").String(EngineName(roofline.bottleneck));
        json.Key("busy_ns").Int(roofline.bottleneck_busy_ns);
        json.Key("roofline_us_per_unit").Double(roofline.per_unit_us);
        json.Key("roofline_units_per_s").Double(roofline.units_per_s);
        json.EndObject();
      } else {
        json.Null();
      }
      json.Key("headroom").BeginArray();
      for (const Headroom& h : roofline.headroom) {
        json.BeginObject();
        json.Key("engine").String(EngineName(h.engine));
        if (roofline.per_unit_us) {
          json.Key("gap_us_per_unit").Double(h.per_unit_gap_us);
        } else {
          json.Key("gap_us_per_unit").Null();
        }
        json.Key("factor").Double(h.factor);
        json.EndObject();
      }
      json.EndArray();
      json.Key("reading").String(ReadingLine(device, roofline));
      if (d < analyzed.overlaps.size()) {
        const EngineOverlap& overlap = analyzed.overlaps[d];
        json.Key("overlap").BeginObject();
        json.Key("engines").BeginArray();
        for (Engine engine : overlap.engines)
          json.String(EngineName(engine));
        json.EndArray();
        json.Key("intersection_ns").BeginArray();
        for (const std::vector<int64_t>& row : overlap.intersection_ns) {
          json.BeginArray();
          for (int64_t value : row)
            json.Int(value);
          json.EndArray();
        }
        json.EndArray();
        json.Key("idle_ns").Int(overlap.idle_ns);
        if (device.window.work != nullptr) {
          // A work window: the figures above see the range's ops only; the others in it.
          json.Key("other_ops_in_window").Int(device.outside_in_span_ops);
          json.Key("other_ops_busy_ns").Int(device.outside_in_span_busy_ns);
          json.Key("idle_all_ops_ns").Int(device.window.length_ns() - device.span_all_busy_ns);
        }
        if (std::optional<CommOverlap> comm = CommOverlapOf(overlap)) {
          json.Key("comm_hidden_ns").Int(comm->hidden_ns);
          json.Key("comm_exposed_ns").Int(comm->exposed_ns());
        }
        json.EndObject();
      }
      if (const SteadyComparison* steady = SteadyOf(report, analyzed, device))
        WriteSteadyStateJson(json, *steady);
      json.EndObject();
    }
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace gpuroof
