#include "gpuroof/analyses/kernel_summary.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/model/enum_names.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/kernel_names.h"
#include "gpuroof/model/time_limits.h"

namespace gpuroof {

std::string KernelShortName(const Trace& trace, const OpSignature& signature) {
  std::string_view name = trace.strings.Get(signature.name);
  if (signature.detail_name != 0 && !trace.strings.Get(signature.detail_name).empty()) {
    name = trace.strings.Get(signature.detail_name);
  }
  std::string short_name = ShortKernelName(name);
  return short_name.empty() ? std::string(name) : short_name;
}

std::string KernelKeyText(const Trace& trace, const OpSignature& signature, KernelKey key) {
  const std::string name = KernelShortName(trace, signature);
  switch (key) {
    case KernelKey::kName:
      break;
    case KernelKey::kDemangled: {
      std::string_view demangled = signature.detail_name == 0
                                       ? std::string_view()
                                       : trace.strings.Get(signature.detail_name);
      if (!demangled.empty()) return std::string(demangled);
      // Without a demangled name, the name is what the trace gives (a Kineto signature).
      return std::string(trace.strings.Get(signature.name));
    }
    case KernelKey::kLaunch:
      if (signature.grid == std::array<uint32_t, 3>{} &&
          signature.block == std::array<uint32_t, 3>{})
        return fmt::format("{} <<<shape not in trace>>>", name);
      return LaunchKey(name, signature.grid, signature.block);
  }
  return name;
}

namespace {

std::optional<double> SharePct(WideSum part, WideSum whole) {
  if (whole <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// What --key takes and the reports print.
constexpr std::array<EnumName<KernelKey>, 3> kKernelKeyNames = {{
    {KernelKey::kName, "name"},
    {KernelKey::kDemangled, "demangled"},
    {KernelKey::kLaunch, "launch"},
}};

}  // namespace

KernelKey ParseKernelKey(std::string_view text) {
  if (std::optional<KernelKey> key = ValueNamed(kKernelKeyNames, text)) return *key;
  throw InputError("--key",
                   fmt::format("'{}' is not a kernel key (use name, demangled or launch)", text));
}

std::string_view KernelKeyName(KernelKey key) {
  return NameOf(kKernelKeyNames, key, "name");
}

std::string LaunchKey(std::string_view name, const std::array<uint32_t, 3>& grid,
                      const std::array<uint32_t, 3>& block) {
  return fmt::format("{} <<<({},{},{}),({},{},{})>>>", name, grid[0], grid[1], grid[2], block[0],
                     block[1], block[2]);
}

void RequireKernels(const Trace& trace) {
  bool has_kernels = false;
  bool has_graphs = false;
  for (const ActivityBlock& block : trace.blocks) {
    has_kernels = has_kernels || std::find_if(block.engine.begin(), block.engine.end(),
                                              IsKernelEngine) != block.engine.end();
    has_graphs = has_graphs || std::find(block.engine.begin(), block.engine.end(),
                                         Engine::kGraph) != block.engine.end();
  }
  if (!has_kernels) {
    throw InputError(trace.source,
                     has_graphs ? "no kernels: the trace has whole-graph launches only (CUDA "
                                  "graphs traced at graph level); profile with nsys "
                                  "--cuda-graph-trace=node to see their kernels"
                                : "no kernels: the trace has no usable kernel records " +
                                      trace.diagnostics.NoRecordsCause());
  }
}

void ThrowNoKernelInWindow(const Trace& trace, std::string_view policy) {
  throw InputError(trace.source,
                   fmt::format("no kernel runs in the {} window of any device; choose another "
                               "with --window",
                               policy));
}

std::vector<DeviceKernels> ComputeKernelSummary(const Trace& trace,
                                                const KernelSummaryOptions& options) {
  RequireKernels(trace);
  // Windows and kernel busy time come from the engine load, so both commands describe the same
  // stretch of time with the same numbers.
  std::vector<DeviceLoad> computed;
  const std::vector<DeviceLoad>& loads =
      GivenOrComputedEngineLoad(trace, options.window, options.engine_load, computed);

  // Keys are interned per signature once; ops then need two table look-ups each.
  std::vector<std::string> keys;
  std::vector<uint32_t> first_signature;  // per key: the signature that named it first
  std::unordered_map<std::string, uint32_t> key_index;
  std::vector<uint32_t> signature_key(trace.signatures.size(), 0);
  for (size_t s = 0; s < trace.signatures.size(); ++s) {
    const OpSignature& signature = trace.signatures[s];
    if (!IsKernelEngine(signature.engine)) continue;
    std::string key = KernelKeyText(trace, signature, options.key);
    auto [it, inserted] = key_index.try_emplace(key, static_cast<uint32_t>(keys.size()));
    if (inserted) {
      keys.push_back(key);
      first_signature.push_back(static_cast<uint32_t>(s));
    }
    signature_key[s] = it->second;
  }
  std::map<int32_t, size_t> device_slot;
  for (size_t d = 0; d < loads.size(); ++d)
    device_slot[loads[d].device_id] = d;
  // Streams of devices without ops have no load; their kernels cannot exist, but stay safe.
  std::vector<size_t> stream_slot(trace.streams.size(), loads.size());
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    auto it = device_slot.find(trace.streams[s].device_id);
    if (it != device_slot.end()) stream_slot[s] = it->second;
  }

  // durations[device][key]: clipped durations of the counted launches, each vector allocated
  // once from a first counting pass (millions of launches: growth costs page faults).
  std::vector<std::vector<std::vector<int64_t>>> durations(
      loads.size(), std::vector<std::vector<int64_t>>(keys.size()));
  std::vector<std::vector<size_t>> launches(loads.size(), std::vector<size_t>(keys.size(), 0));
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (!IsKernelEngine(block.engine[i])) continue;
      size_t d = stream_slot[block.stream[i]];
      if (d != loads.size()) ++launches[d][signature_key[block.signature[i]]];
    }
  }
  for (size_t d = 0; d < loads.size(); ++d)
    for (size_t k = 0; k < keys.size(); ++k)
      durations[d][k].reserve(launches[d][k]);
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (!IsKernelEngine(block.engine[i])) continue;
      size_t d = stream_slot[block.stream[i]];
      if (d == loads.size()) continue;
      const Window& window = loads[d].window;
      int64_t start = block.start_ns[i];
      int64_t end = block.end_ns[i];
      if (!OpCountsInWindow(trace, block, i, window)) continue;
      int64_t clipped = std::min(end, window.end_ns) - std::max(start, window.start_ns);
      durations[d][signature_key[block.signature[i]]].push_back(std::max<int64_t>(0, clipped));
    }
  }

  std::vector<DeviceKernels> result;
  bool any_in_window = false;
  for (size_t d = 0; d < loads.size(); ++d) {
    const DeviceLoad& load = loads[d];
    const EngineLoad& kernel = load.engine(Engine::kKernel);
    const EngineLoad& comm = load.engine(Engine::kComm);
    const EngineLoad& graph = load.engine(Engine::kGraph);
    const bool in_window = kernel.ops > 0 || comm.ops > 0 || graph.ops > 0;
    any_in_window = any_in_window || in_window;
    // A device whose kernels all lie outside the window stays, empty, with its window's note of
    // the ops left out: dropping it would leave them out without a word.
    if (!in_window && std::all_of(launches[d].begin(), launches[d].end(),
                                  [](size_t count) { return count == 0; })) {
      continue;
    }
    DeviceKernels device;
    device.device_id = load.device_id;
    device.device_name = load.device_name;
    device.window = load.window;
    device.kernel_ops = kernel.ops;
    device.kernel_sum_ns = kernel.sum_ns;
    device.kernel_busy_ns = kernel.busy_ns;
    device.comm_ops = comm.ops;
    device.comm_sum_ns = comm.sum_ns;
    device.comm_busy_ns = comm.busy_ns;
    device.graph_ops = graph.ops;
    device.graph_sum_ns = graph.sum_ns;
    device.graph_busy_ns = graph.busy_ns;
    int64_t clamped_rows = 0;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (durations[d][k].empty()) continue;
      KernelRow row;
      row.key = keys[k];
      const OpSignature& signature = trace.signatures[first_signature[k]];
      row.name = KernelShortName(trace, signature);
      if (options.key == KernelKey::kLaunch) {
        row.grid = signature.grid;
        row.block = signature.block;
      }
      row.engine = signature.engine;
      row.stats = SummarizeDurations(durations[d][k]);
      std::vector<int64_t>().swap(durations[d][k]);
      const EngineLoad& own = load.engine(row.engine);
      // The exact sums: a total past int64 is written clamped, never a wrong share.
      row.sum_share_pct = SharePct(row.stats.exact_total_ns, own.exact_sum_ns);
      row.busy_share_pct = SharePct(row.stats.exact_total_ns, own.busy_ns);
      if (row.stats.exact_total_ns > kWideInt64Max) ++clamped_rows;
      device.rows.push_back(std::move(row));
    }
    if (clamped_rows > 0) {
      const std::string note = fmt::format(
          "warning: {} kernel row(s) total more than the int64 maximum and are written as {}; "
          "their mean, stddev and shares use the exact totals",
          clamped_rows, std::numeric_limits<int64_t>::max());
      device.window.note = device.window.note.empty() ? note : device.window.note + "; " + note;
    }
    std::sort(device.rows.begin(), device.rows.end(), [](const KernelRow& a, const KernelRow& b) {
      if (a.stats.total_ns != b.stats.total_ns) return a.stats.total_ns > b.stats.total_ns;
      if (a.stats.count != b.stats.count) return a.stats.count > b.stats.count;
      return a.key < b.key;
    });
    device.key_count = static_cast<int64_t>(device.rows.size());
    if (options.top > 0 && device.key_count > options.top) {
      for (size_t r = static_cast<size_t>(options.top); r < device.rows.size(); ++r) {
        ++device.omitted_keys;
        device.omitted_ops += device.rows[r].stats.count;
        device.omitted_total_ns =
            SaturatingAdd(device.omitted_total_ns, device.rows[r].stats.total_ns);
      }
      device.rows.resize(static_cast<size_t>(options.top));
    }
    result.push_back(std::move(device));
  }
  if (!any_in_window) ThrowNoKernelInWindow(trace, loads.front().window.policy);
  return result;
}

}  // namespace gpuroof
