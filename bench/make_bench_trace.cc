// gpuroof-make-bench-trace N OUTPUT.sqlite [--seed S] [--kernel-scale F] [--iteration-frames K]
//
// Writes a synthetic but realistic Nsight Systems export (2024.6 schema) of about N GPU
// activities, for the whole-process benchmark (bench/analyze_vs_sqlite.sh). It imitates a frame
// pipeline on one GPU: every frame uploads its input (H2D), runs one kernel and downloads the
// result (D2H), frames going round robin over 4 streams so consecutive frames overlap the way a
// double-buffered pipeline does. Durations get a few percent of jitter from a fixed-seed PRNG,
// so the same N always gives the same file, byte for byte in its rows.
//
// N is rounded to the nearest whole number of frames (3 activities each, at least 1 frame). Rows
// are written frame by frame, as a pipeline issues them, so the MEMCPY table interleaves H2D and
// D2H rows and is not in start order (readers must sort it), like real exports.
//
// Options, for the compare benchmark (bench/compare_bench.sh), which needs a second profile of
// the same pipeline and iterations to gate:
//   --seed S              another jitter sequence (S = 0 is the default one)
//   --kernel-scale F      every kernel's nominal duration times F (e.g. 1.05: 5 % slower)
//   --iteration-frames K  one NVTX range "frame_batch" per K frames on the host thread, and a
//                         CUDA runtime call per GPU op (as nsys records them), so the gate can
//                         attribute each op to its batch through the launch's correlation id
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "support/nsys_sqlite_builder.h"

namespace {

using gpuroof::testsupport::ApiCallRow;
using gpuroof::testsupport::KernelRow;
using gpuroof::testsupport::MemcpyRow;
using gpuroof::testsupport::NsysSchema;
using gpuroof::testsupport::NsysSqliteBuilder;
using gpuroof::testsupport::NvtxRow;

constexpr int kStreams = 4;
constexpr int kActivitiesPerFrame = 3;
constexpr int64_t kMaxActivities = int64_t{1} << 34;  // keeps every timestamp far from overflow

// One 1080p RGB frame up, a 1000-class fp32 score vector plus a small mask down.
constexpr uint64_t kUploadBytes = 1920ULL * 1080 * 3;
constexpr uint64_t kDownloadBytes = 256ULL * 1024;
// Nominal times in ns (about 25 GB/s for the upload); the frame period leaves the kernel as the
// bottleneck at ~86 % duty, with the copies hidden under it on other streams.
constexpr int64_t kFramePeriodNs = 350'000;
constexpr int64_t kUploadNs = 250'000;
constexpr int64_t kKernelNs = 300'000;
constexpr int64_t kDownloadNs = 12'000;
constexpr int64_t kLaunchGapNs = 4'000;  // host-side gap between dependent ops on one stream
constexpr int64_t kSessionStartNs = 1'500'000'000;  // first op ~1.5 s into the session
// The host issues a frame's three calls this long before its upload starts on the GPU.
constexpr int64_t kHostLeadNs = 60'000;
constexpr int64_t kApiCallNs = 3'000;

// Kernel names a small inference pipeline would show, chosen per frame with the PRNG.
constexpr std::string_view kKernelNames[] = {"preprocess_resize_nchw", "conv2d_fprop_nhwc",
                                             "gemm_bias_relu_f16", "softmax_topk"};

// splitmix64: tiny, fast and identical on every platform (unlike <random>'s distributions).
class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // `nominal` plus or minus up to `percent` percent.
  int64_t Jitter(int64_t nominal, int percent) {
    const int64_t span = nominal * percent / 100;
    if (span <= 0) return nominal;
    const auto range = static_cast<uint64_t>(2 * span + 1);
    return nominal - span + static_cast<int64_t>(Next() % range);
  }

 private:
  uint64_t state_;
};

bool ParseCount(std::string_view text, int64_t& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && out > 0 && out <= kMaxActivities;
}

struct Options {
  uint64_t seed = 0;
  double kernel_scale = 1.0;
  int64_t iteration_frames = 0;  // 0: no NVTX ranges and no runtime calls
};

bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 3; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return false;
    const std::string_view value = argv[i + 1];
    const char* end = value.data() + value.size();
    if (flag == "--seed") {
      auto [ptr, ec] = std::from_chars(value.data(), end, options.seed);
      if (ec != std::errc() || ptr != end) return false;
    } else if (flag == "--kernel-scale") {
      auto [ptr, ec] = std::from_chars(value.data(), end, options.kernel_scale);
      if (ec != std::errc() || ptr != end || !(options.kernel_scale > 0.1) ||
          !(options.kernel_scale < 10.0)) {
        return false;
      }
    } else if (flag == "--iteration-frames") {
      if (!ParseCount(value, options.iteration_frames)) return false;
    } else {
      return false;
    }
  }
  return true;
}

void Usage() {
  std::fputs(
      "usage: gpuroof-make-bench-trace N OUTPUT.sqlite [--seed S] [--kernel-scale F]\n"
      "                                [--iteration-frames K]\n"
      "Writes an nsys-style SQLite export of about N GPU activities (a 4-stream frame pipeline:\n"
      "H2D, kernel, D2H per frame; N rounded to whole frames). Deterministic. --seed changes\n"
      "the jitter, --kernel-scale multiplies kernel durations (0.1 < F < 10), and\n"
      "--iteration-frames adds an NVTX range 'frame_batch' per K frames plus the CUDA runtime\n"
      "calls that launched every op.\n",
      stderr);
}

// The host side of one batch of frames: an NVTX range around the runtime calls that issued them.
class HostTimeline {
 public:
  HostTimeline(NsysSqliteBuilder& builder, int64_t frames_per_batch)
      : builder_(builder), frames_per_batch_(frames_per_batch) {
    batch_.text = "frame_batch";
  }
  bool enabled() const { return frames_per_batch_ > 0; }
  // The runtime call that launched the op with `correlation`, `lead` ns before `gpu_start`.
  void Call(int64_t frame, int64_t gpu_start, int64_t lead, uint32_t correlation,
            std::string_view name) {
    if (!enabled()) return;
    call_.start_ns = gpu_start - lead;
    call_.end_ns = call_.start_ns + kApiCallNs;
    call_.correlation = correlation;
    call_.name = name;
    if (frame / frames_per_batch_ != batch_index_) {
      Close();
      batch_index_ = frame / frames_per_batch_;
      batch_.start_ns = call_.start_ns - 1'000;
      open_ = true;
    }
    batch_end_ = call_.end_ns + 1'000;
    builder_.AddApiCall(call_);
  }
  void Close() {
    if (!open_) return;
    batch_.end_ns = batch_end_;
    builder_.AddNvtx(batch_);
    open_ = false;
  }

 private:
  NsysSqliteBuilder& builder_;
  int64_t frames_per_batch_;
  ApiCallRow call_;
  NvtxRow batch_;
  int64_t batch_index_ = -1;
  int64_t batch_end_ = 0;
  bool open_ = false;
};

int64_t Write(int64_t frames, const std::string& output, const Options& options) {
  NsysSqliteBuilder builder(output, {.schema = NsysSchema::k2024});
  builder.AddGpu(0, "NVIDIA H200");
  Prng prng(0x6770'7572'6f6f'6621ULL + options.seed);  // "gpuroof!"
  HostTimeline host(builder, options.iteration_frames);
  const auto kernel_ns = static_cast<int64_t>(std::llround(kKernelNs * options.kernel_scale));
  uint32_t correlation = 1;
  // Strings are interned by the builder; keeping the rows around avoids re-building them.
  KernelRow kernel;
  MemcpyRow upload;
  upload.copy_kind = 1;  // HtoD
  upload.src_kind = 1;   // pinned
  upload.dst_kind = 2;   // device
  upload.bytes = kUploadBytes;
  MemcpyRow download;
  download.copy_kind = 2;  // DtoH
  download.src_kind = 2;
  download.dst_kind = 1;
  download.bytes = kDownloadBytes;
  kernel.grid = {120, 68, 1};
  kernel.block = {16, 16, 1};

  for (int64_t frame = 0; frame < frames; ++frame) {
    const auto stream = static_cast<uint32_t>(13 + 4 * (frame % kStreams));  // nsys-like ids
    int64_t t = kSessionStartNs + frame * kFramePeriodNs + prng.Jitter(2'000, 100);

    upload.stream = stream;
    upload.correlation = correlation++;
    upload.start_ns = t;
    host.Call(frame, t, kHostLeadNs, upload.correlation, "cudaMemcpyAsync_v3020");
    t += prng.Jitter(kUploadNs, 3);
    upload.end_ns = t;
    builder.AddMemcpy(upload);

    t += prng.Jitter(kLaunchGapNs, 50);
    kernel.stream = stream;
    kernel.correlation = correlation++;
    kernel.short_name = kKernelNames[prng.Next() % std::size(kKernelNames)];
    kernel.start_ns = t;
    host.Call(frame, *upload.start_ns, kHostLeadNs - 2 * kApiCallNs, kernel.correlation,
              "cudaLaunchKernel_v7000");
    t += prng.Jitter(kernel_ns, 4);
    kernel.end_ns = t;
    builder.AddKernel(kernel);

    t += prng.Jitter(kLaunchGapNs, 50);
    download.stream = stream;
    download.correlation = correlation++;
    download.start_ns = t;
    host.Call(frame, *upload.start_ns, kHostLeadNs - 4 * kApiCallNs, download.correlation,
              "cudaMemcpyAsync_v3020");
    t += prng.Jitter(kDownloadNs, 5);
    download.end_ns = t;
    builder.AddMemcpy(download);
  }
  host.Close();
  builder.Finish();
  return frames * kActivitiesPerFrame;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (argc < 3 || !ParseOptions(argc, argv, options)) {
    Usage();
    return 2;
  }
  int64_t requested = 0;
  if (!ParseCount(argv[1], requested)) {
    std::fprintf(stderr,
                 "gpuroof-make-bench-trace: N must be a whole number in 1..%lld, got '%s'\n",
                 static_cast<long long>(kMaxActivities), argv[1]);
    Usage();
    return 2;
  }
  int64_t frames = (requested + kActivitiesPerFrame / 2) / kActivitiesPerFrame;
  if (frames < 1) frames = 1;
  try {
    const auto begin = std::chrono::steady_clock::now();
    const int64_t written = Write(frames, argv[2], options);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
    std::fprintf(stderr, "gpuroof-make-bench-trace: %s: %lld activities (%lld frames) in %.1f s\n",
                 argv[2], static_cast<long long>(written), static_cast<long long>(frames),
                 took.count());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gpuroof-make-bench-trace: %s: %s\n", argv[2], error.what());
    return 1;
  }
  return 0;
}
