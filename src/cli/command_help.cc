#include "command_help.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace gpuroof {

namespace {

// clang-format off
constexpr CommandHelp kCommandHelp[] = {
    {"analyze",
     "Per-engine busy time, duty cycle and the roofline of GPU traces",
     R"(Examples:
  gpuroof analyze run.sqlite --units 20000 --unit-name frame
  gpuroof analyze run.sqlite --units-from kernel:process_frame --window all
  gpuroof analyze a.sqlite b.sqlite --units 2000 --format csv -o probes.csv
  gpuroof analyze run.sqlite --window nvtx:epoch@2 --format json
  gpuroof analyze step.pt.trace.json --window nvtx:ProfilerStep#7   # a range's name
  gpuroof analyze step.pt.trace.json --units-from 'nvtx:ProfilerStep#*'
  gpuroof analyze run.sqlite --units-from kernel:process_frame --window steady
  gpuroof analyze run.sqlite --per-range epoch          # one row set per epoch
Windows: processing (default: first kernel start to the last kernel or D2H end), all,
  START:END (ns, or with us/ms/s, from the first GPU op), nvtx:NAME (a range's GPU
  work; NAME@N its Nth instance, NAME@* every instance, NAME#* a numbered family),
  steady (processing after its warm-up: MSER-5 over the --units-from series, else 50
  slices).
Every figure is defined in docs/metrics.md.)"},
    {"api",
     "Per CUDA runtime/driver function: calls, total, median, p95 and max time",
     R"(Examples:
  gpuroof api run.sqlite
  gpuroof api trace.pt.trace.json.gz --format csv -o api.csv
  gpuroof api run.sqlite --window processing
Window all (default) counts every call of the trace, as nsys's cuda_api_sum does; other
windows count the calls overlapping the devices' windows. Every figure is defined in
docs/metrics.md.)"},
    {"bench",
     "Sustained throughput of a sweep file's configurations, without a profiler",
     R"(Examples:
  gpuroof bench examples/sweeps/clusterfinder.toml --reps 5
  gpuroof bench sweep.toml --only cap1700 --metric-regex 'fps: ([0-9.]+)'
Each rep is a fresh process. cold = rep 1, warm = best of the rest, spread = (max - min) /
min of the rest; joined with probes.csv of the same key, build and parameters for % of
roofline (not quotable when that row is not, or the build is unknown or dirty).
Results: ladder.csv and a manifest row in the sweep's results folder (docs/formats.md).)"},
    {"compare",
     "CI regression gate: did this change make the GPU work slower? (exit 0 pass, 1 regression, 2 invalid or incomparable input)",
     R"(Examples:
  gpuroof compare --baseline main.sqlite --current pr.sqlite --iteration-range train_step
  gpuroof compare --baseline m1.sqlite m2.sqlite m3.sqlite --current p1.sqlite p2.sqlite p3.sqlite --json gate.json --markdown gate.md
  gpuroof compare base.sqlite current.sqlite --epochs 10 --threshold 1.20
  gpuroof compare --calibrate a1.sqlite a2.sqlite a3.sqlite --iteration-range step
  gpuroof compare --history main.jsonl --current pr.sqlite --iteration-range step
  gpuroof compare --across-hardware a100.sqlite h100.sqlite
Statistics, defaults and verdicts: docs/metrics.md, section "compare".)"},
    {"copies",
     "Copies and memsets by direction and memory kinds: count, bytes, time, bandwidth",
     R"(Examples:
  gpuroof copies run.sqlite
  gpuroof copies run.sqlite --window all --format csv -o copies.csv
  gpuroof copies run.sqlite --contention
Copies between pageable host memory and the device are flagged: the driver stages them
through a pinned buffer, so they cannot overlap with kernels.
Windows: processing (default), all, START:END, nvtx:NAME[@N|@*], steady (as in
analyze; steady uses 50 fixed slices here).
Every figure is defined in docs/metrics.md.)"},
    {"findings",
     "What to fix: expert rules with the GPU time each costs",
     R"(Examples:
  gpuroof findings run.sqlite
  gpuroof findings trace.pt.trace.json.gz --window all --format json -o findings.json
  gpuroof findings run.sqlite --fail-on sync-call,pageable-copy   # exit 1 when they fire
Rules: sync-call, pageable-copy, host-bound, launch-bound, gpu-gap, exposed-comm,
serialised-copies, low-occupancy. Each rule, its cost and its threshold: docs/findings.md.)"},
    {"gaps",
     "Idle intervals of each GPU (no engine busy) longer than --min",
     R"(Examples:
  gpuroof gaps run.sqlite --min 1ms
  gpuroof gaps run.sqlite --min 250us --format csv -o gaps.csv
A gap is listed when it is strictly longer than --min; gaps lie between the device's
first and last op. Every figure is defined in docs/metrics.md.)"},
    {"kernels",
     "Per-kernel launch counts, duration statistics and shares of kernel time",
     R"(Examples:
  gpuroof kernels run.sqlite
  gpuroof kernels run.sqlite --key launch --top 10
  gpuroof kernels a.sqlite b.sqlite --window all --format csv -o kernels.csv
Keys: name (short name, default), demangled, launch (name + grid + block).
Windows: processing (default), all, START:END, nvtx:NAME[@N|@*], as for analyze.
Every figure is defined in docs/metrics.md.)"},
    {"launches",
     "Per kernel: launch overhead, queue time and launch-to-start latency",
     R"(Examples:
  gpuroof launches run.sqlite
  gpuroof launches run.sqlite --per-launch --key demangled --format csv
Overhead: the launching call's duration. Queue: call end to kernel start, when the
kernel started after the call returned. Latency: call start to kernel start.
Window all (default) covers every kernel, as nsys's kernexectrace does. Every figure is
defined in docs/metrics.md.)"},
    {"ranges",
     "Per NVTX range: CPU durations and the GPU work each instance launched",
     R"(Examples:
  gpuroof ranges run.sqlite
  gpuroof ranges run.sqlite --name epoch            # one row per epoch
  gpuroof ranges run.sqlite --format csv -o ranges.csv
GPU work belongs to a range instance when the CUDA call that launched it was made while
the range was open: by any thread of its process for iteration ranges (the range --name
names, and numbered families such as ProfilerStep#*), on the range's own thread for the
others (nsys's GPU projection); --attribute thread|process sets it for all. Without API
calls in the trace, GPU work running during the range counts instead, and a note says so.
Every range instance is its own window, so there is no --window here.
Every figure is defined in docs/metrics.md.)"},
    {"ranks",
     "A distributed job as one trace set: every rank, stragglers, collective skew",
     R"(Examples:
  gpuroof ranks traces/                       # every trace under traces/, by content
  gpuroof ranks rank*.pt.trace.json.gz --jobs 4 --format csv -o ranks.csv
  gpuroof ranks run/ --iteration-range train_step --format json
Ranks come from the traces (Kineto distributedInfo.rank; nsys: OMPI_COMM_WORLD_RANK,
PMI_RANK, SLURM_PROCID or RANK in the exported environment), else from file order.
One unreadable trace is reported and the others analysed (--strict: exit 1).
Every figure is defined in docs/metrics.md, "Ranks".)"},
    {"record",
     "Run a CUDA program with gpuroof's low-overhead CUPTI recorder; write a trace",
     R"(Examples:
  gpuroof record -o run.sqlite -- ./pipeline --frames 2000
  gpuroof record --nvtx -o train.sqlite -- python train.py
  gpuroof analyze run.sqlite
Records kernels, copies and memsets (and NVTX ranges with --nvtx) from the GPU side only,
without API tracing. Needs an NVIDIA GPU and driver; cannot run under nsys or ncu.
The exit code is the command's. See docs/cli.md.)"},
    {"report",
     "One self-contained HTML page: engine bars and roofline, overlap, timeline, top kernels and copies",
     R"(Examples:
  gpuroof report run.sqlite --units 20000 -o report.html
  gpuroof report base.sqlite batch2.sqlite batch4.sqlite --units-from nvtx:batch -o sweep.html
Several traces: one group of bars per trace and device, side by side on one scale.
The page has inline CSS and SVG only: no script, no network; it opens from disk.
Every figure is defined in docs/metrics.md.)"},
    {"sweep",
     "Run a sweep file's configurations under a profiler and file stamped results",
     R"(Examples:
  gpuroof sweep examples/sweeps/clusterfinder.toml --dry-run
  gpuroof sweep sweep.toml --only cap1700 --tag ab --set frames=40000
  gpuroof sweep sweep.toml --resume
Results go to RESULTS/<date>_<build>[_<tag>]/: one trace per configuration, probes.csv,
manifest.csv and env.json (docs/formats.md). Exit status 1 when a guard refuses or a
configuration fails.)"},
};
// clang-format on

}  // namespace

const CommandHelp& HelpOf(std::string_view name) {
  const auto* help = std::find_if(std::begin(kCommandHelp), std::end(kCommandHelp),
                                  [name](const CommandHelp& h) { return h.name == name; });
  if (help == std::end(kCommandHelp)) {
    throw std::logic_error("no help for the command " + std::string(name));
  }
  return *help;
}

CLI::App* AddCommand(CLI::App& app, std::string_view name) {
  const CommandHelp& help = HelpOf(name);
  CLI::App* command = app.add_subcommand(std::string(help.name), std::string(help.summary));
  command->footer(std::string(help.footer));
  return command;
}

}  // namespace gpuroof
