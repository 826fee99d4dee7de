// Per-profile pre-processing for the regression gate (docs/metrics.md,
// "compare"): iterations, warm-up trim, stationarity, and the samples of every
// metric level, kept per profile so the gate can test within profiles or across runs.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

enum class MetricLevel {
  kIteration,  // wall time of an iteration (the range instance's duration)
  kGpuBusy,    // busy time of the compute engine per iteration (union of its kernels)
  kCopyBusy,   // busy time of one copy/memset engine per iteration
  kCommBusy,   // busy time of the collective (comm) engine per iteration; report-only
  kIdle,       // GPU idle ("bubble") per iteration: the device's GPU span minus compute busy
  kRange,      // duration of each instance of another annotation range within the iterations
  kKernel,     // per-launch duration of one kernel key
  kLaunches,   // kernel launches per iteration (exact)
  kBytes,      // bytes moved per iteration (exact)
  // Busy time of one engine over the whole profile (one value per profile); --across-hardware
  // without iterations only, so the per-engine diff exists there too. Report-only.
  kEngineTotal,
  // Kernel-only mode (no iterations): the compute kernels' time at the baseline's mix, i.e. the
  // share-weighted mean of the shared kernels' per-launch ratios; gated (docs/metrics.md,
  // "Compute kernel time"). Computed by the gate from the kernel rows, never a profile's sample.
  kKernelTotal,
};

// The steady samples of one metric in one profile.
struct SampleSet {
  MetricLevel level = MetricLevel::kIteration;
  std::string name;            // "train_step", "kernel", "H2D", or the kernel key
  std::vector<double> values;  // ns (counts and bytes for the exact levels), in time order
  double total = 0;  // kernels: summed steady launch time; ranges: summed instance time, ns
  // Per-kernel warm-up (kernel level without iterations, where each kernel's own launch series
  // is trimmed): launches dropped from the front, of how many, and whether MSER-5 reached its
  // cap: no steady state was found, and dropping half the launches would be arbitrary (it can
  // flip the sign of a change), so only the first launch is dropped. Zero elsewhere: iteration
  // warm-up is the profile's.
  size_t warmup_dropped = 0;
  size_t warmup_of = 0;
  bool no_steady_state = false;
};

struct ProfileOptions {
  std::string iteration_range;   // NVTX range name; empty: no iterations (kernel level only)
  std::optional<size_t> warmup;  // unset: auto (MSER-5); else drop this many iterations/launches
  KernelKey kernel_key = KernelKey::kLaunch;
  double min_effect = 0.02;  // for the stationarity warning
  // Whose launches are an iteration's work; unset: the process's (an iteration range).
  std::optional<RangeScope> attribute;
  // Without iterations: also one busy total per engine and device (kEngineTotal).
  bool engine_totals = false;
};

struct ProfileSummary {
  std::string path;
  // Profiles the caller found to hold the same bytes (one file under any spelling, a link, a
  // copy) share a nonzero group; 0: none found. One on both sides is a run compared with itself,
  // a reason of PASS WITH WARNINGS (docs/metrics.md, "Verdict").
  size_t same_bytes_group = 0;
  std::string iteration_range;  // ProfileOptions::iteration_range ("" without iterations)
  KernelKey kernel_key = KernelKey::kLaunch;  // ProfileOptions::kernel_key: what "kernel:" ids name
  std::string device_model;  // distinct names of the devices with activity, joined by " + "
  size_t device_count = 0;
  // Ids of the devices with activity, ascending. Metric ids name a device by its position when
  // the profile has one active device ("busy:kernel:0" for rank 1 on device 1, so ranks compare),
  // and by its id when it has several.
  std::vector<int32_t> device_ids;
  bool has_iterations = false;
  size_t iterations = 0;  // range instances found (0 without iterations)
  size_t steady_iterations = 0;
  size_t warmup_dropped = 0;
  std::string attribution;            // "launch-correlation" | "time-overlap" | ""
  std::vector<std::string> warnings;  // "NONSTATIONARY: ...", "NO STEADY STATE: ...", notes
  // Sum of steady compute kernel launch times (for shares); collective (comm) kernels are left
  // out, as everywhere in compare.
  double kernel_time_ns = 0;
  std::map<std::string, SampleSet> metrics;  // by metric id, e.g. "iteration", "kernel:KEY"
  // With iterations: GPU ops no iteration (warm-up included) was given, so in no metric, and
  // their compute kernel time (collectives left out); "between": those starting between the
  // first steady iteration's start and the last one's end (launched between the steps).
  size_t outside_ops = 0;
  double outside_kernel_ns = 0;
  size_t between_ops = 0;
  double between_kernel_ns = 0;
  // With iterations: annotation range names found only on other threads of the iteration's
  // process within the steady iterations (not compared: ranges are taken on the iteration's
  // thread), with their instance counts.
  std::map<std::string, size_t> other_thread_ranges;
};

// Summarizes one profile. Throws InputError naming the trace when it has no GPU activity, the
// iteration range is missing, or no iteration is left after the warm-up.
ProfileSummary SummarizeProfile(const Trace& trace, const ProfileOptions& options);

}  // namespace gpuroof
