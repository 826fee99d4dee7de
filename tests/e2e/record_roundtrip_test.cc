// Every gpuroof analysis reads a `gpuroof record` file as it reads an nsys export: the same
// trace written once by the test-support nsys builder (the layout of real nsys 2024 exports)
// and once by the recorder's sink gives byte-identical output from every command and format.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/recorder/record_sink.h"

#include "cli_runner.h"
#include "support/nsys_sqlite_builder.h"

namespace gpuroof::testing {
namespace {

namespace fs = std::filesystem;
namespace rec = gpuroof::recorder;
namespace ts = gpuroof::testsupport;

constexpr int64_t kT0 = 1'700'000'000'000'000'000;
constexpr uint32_t kPid = 4242;
constexpr int kFrames = 6;

ts::MemcpyRow Copy(int64_t start, int64_t end, uint32_t stream, uint32_t correlation, int kind,
                   uint64_t bytes, int src_kind, int dst_kind) {
  ts::MemcpyRow row;
  row.start_ns = start;
  row.end_ns = end;
  row.stream = stream;
  row.correlation = correlation;
  row.copy_kind = kind;
  row.bytes = bytes;
  row.src_kind = src_kind;
  row.dst_kind = dst_kind;
  return row;
}

// Frame f: H2D [f*10us, +3us) on stream 7 + f%2, kernel "frame" [+3us, +8us), D2H [+8us, +9us);
// a 2 us memset on device 0 stream 9 every other frame; device 1 runs one kernel per frame;
// an NVTX push/pop range "step" around each frame.
void WriteBoth(const fs::path& nsys_path, const fs::path& recorded_path) {
  ts::BuilderOptions options;
  options.schema = ts::NsysSchema::k2025;  // the layout the recorder writes
  ts::NsysSqliteBuilder nsys(nsys_path, options);
  // The metadata the recorder writes, so that JSON and HTML headers match too.
  nsys.SetMetadata("EXPORT_PRODUCT_VERSION", "gpuroof-recorder 1");
  nsys.SetMetadata("EXPORT_SCHEMA_VERSION", "3.17.2");
  nsys.AddGpu(0, "NVIDIA H200");
  nsys.AddGpu(1, "NVIDIA H200");
  rec::RecordSink sink(recorded_path, rec::SinkOptions{kPid, "130001"});
  for (uint32_t id : {0u, 1u}) {
    rec::DeviceRecord gpu;
    gpu.id = id;
    gpu.name = "NVIDIA H200";
    sink.AddDevice(gpu);
  }
  const std::string mangled = "_Z5framePKhPh";
  const std::string demangled = "frame(unsigned char const*, unsigned char*)";
  uint32_t correlation = 1;
  for (int f = 0; f < kFrames; ++f) {
    const int64_t base = kT0 + int64_t{f} * 10'000;
    const uint32_t stream = 7 + static_cast<uint32_t>(f % 2);

    nsys.AddMemcpy(Copy(base, base + 3000, stream, correlation, 1, 1 << 20, 1, 2));
    rec::MemcpyRecord h2d;
    h2d.start_ns = base;
    h2d.end_ns = base + 3000;
    h2d.context = 1;
    h2d.stream = stream;
    h2d.correlation = correlation++;
    h2d.bytes = 1 << 20;
    h2d.copy_kind = 1;
    h2d.cupti_src_kind = 2;  // CUPTI pinned = nsys 1
    h2d.cupti_dst_kind = 3;  // CUPTI device = nsys 2
    sink.AddMemcpy(h2d);

    for (int32_t device : {0, 1}) {
      const int64_t start = base + 3000 + device * 500;
      ts::KernelRow row;
      row.start_ns = start;
      row.end_ns = start + 5000;
      row.device = device;
      row.stream = stream;
      row.correlation = correlation;
      row.short_name = "frame";
      row.demangled_name = demangled;
      row.grid = {16, 1, 1};
      row.block = {256, 1, 1};
      nsys.AddKernel(row);
      rec::KernelRecord kernel;
      kernel.start_ns = start;
      kernel.end_ns = start + 5000;
      kernel.device = static_cast<uint32_t>(device);
      kernel.context = 1;
      kernel.stream = stream;
      kernel.correlation = correlation++;
      kernel.mangled_name = mangled;
      kernel.grid[0] = 16;
      kernel.block[0] = 256;
      sink.AddKernel(kernel);
    }

    nsys.AddMemcpy(Copy(base + 8000, base + 9000, stream, correlation, 2, 1 << 18, 2, 0));
    rec::MemcpyRecord d2h = h2d;
    d2h.start_ns = base + 8000;
    d2h.end_ns = base + 9000;
    d2h.correlation = correlation++;
    d2h.bytes = 1 << 18;
    d2h.copy_kind = 2;
    d2h.cupti_src_kind = 3;  // device
    d2h.cupti_dst_kind = 1;  // pageable = nsys 0
    sink.AddMemcpy(d2h);

    if (f % 2 == 0) {
      ts::MemsetRow row;
      row.start_ns = base + 1000;
      row.end_ns = base + 3000;
      row.stream = 9;
      row.correlation = correlation;
      row.bytes = 4096;
      row.mem_kind = 2;
      nsys.AddMemset(row);
      rec::MemsetRecord memset;
      memset.start_ns = base + 1000;
      memset.end_ns = base + 3000;
      memset.context = 1;
      memset.stream = 9;
      memset.correlation = correlation++;
      memset.bytes = 4096;
      memset.cupti_memory_kind = 3;
      sink.AddMemset(memset);
    }

    ts::NvtxRow range;
    range.start_ns = base;
    range.end_ns = base + 9500;
    range.event_type = 59;
    range.text = "step";
    nsys.AddNvtx(range);
    rec::MarkerRecord start;
    start.kind = rec::MarkerRecord::Kind::kStart;
    start.timestamp_ns = base;
    start.id = static_cast<uint64_t>(f) + 1;
    start.pid = kPid;
    start.tid = kPid;
    start.name = "step";
    sink.AddMarker(start);
    rec::MarkerRecord end = start;
    end.kind = rec::MarkerRecord::Kind::kEnd;
    end.timestamp_ns = base + 9500;
    end.name.clear();
    sink.AddMarker(end);
  }
  nsys.Finish();
  sink.Finish(0);
}

std::string Normalised(std::string text, const fs::path& path) {
  const std::string from = path.string();
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), "TRACE");
  }
  return text;
}

TEST(RecordRoundTripTest, EveryAnalysisGivesTheSameOutputAsOnAnNsysExport) {
  TempDir nsys_dir;
  TempDir recorded_dir;
  const fs::path nsys = nsys_dir / "trace.sqlite";
  const fs::path recorded = recorded_dir / "trace.sqlite";
  WriteBoth(nsys, recorded);

  const std::vector<std::vector<std::string>> commands = {
      {"analyze"},
      {"analyze", "--window", "all", "--units", "6"},
      {"analyze", "--units-from", "kernel:frame"},
      {"analyze", "--units-from", "nvtx:step", "--window", "nvtx:step@*"},
      {"analyze", "--overlap"},
      {"analyze", "--by-stream"},
      {"analyze", "--per-range", "step"},
      {"kernels"},
      {"copies"},
      {"copies", "--contention"},
      {"gaps", "--min", "100ns"},
      {"ranges"},
  };
  int compared = 0;
  for (const std::vector<std::string>& command : commands) {
    for (const char* format : {"table", "csv", "json"}) {
      std::vector<std::string> args = {command[0]};
      auto with_file = [&](const fs::path& file) {
        std::vector<std::string> a = args;
        a.push_back(file.string());
        a.insert(a.end(), command.begin() + 1, command.end());
        a.insert(a.end(), {"--format", format});
        return a;
      };
      CliResult from_nsys = RunGpuroof(with_file(nsys));
      CliResult from_recorder = RunGpuroof(with_file(recorded));
      const std::string what =
          command[0] + " " + (command.size() > 1 ? command[1] : "") + " " + format;
      ASSERT_EQ(from_nsys.exit_code, 0) << what << ": " << from_nsys.err;
      EXPECT_EQ(from_recorder.exit_code, 0) << what << ": " << from_recorder.err;
      EXPECT_EQ(Normalised(from_recorder.out, recorded), Normalised(from_nsys.out, nsys)) << what;
      EXPECT_EQ(Normalised(from_recorder.err, recorded), Normalised(from_nsys.err, nsys)) << what;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 36);

  // The HTML report too.
  const fs::path page_nsys = nsys_dir / "page.html";
  const fs::path page_recorded = recorded_dir / "page.html";
  ASSERT_EQ(RunGpuroof({"report", nsys.string(), "-o", page_nsys.string()}).exit_code, 0);
  ASSERT_EQ(RunGpuroof({"report", recorded.string(), "-o", page_recorded.string()}).exit_code, 0);
  EXPECT_EQ(Normalised(ReadFile(page_recorded), recorded), Normalised(ReadFile(page_nsys), nsys));
}

}  // namespace
}  // namespace gpuroof::testing
