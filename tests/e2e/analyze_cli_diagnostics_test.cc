// End-to-end: skipped records are reported on stderr and --strict makes them fatal; an
// .nsys-rep report is exported through nsys ($NSYS) before it is read.
#include <chrono>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cli_runner.h"
#include "support/nsys_sqlite_builder.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

using testsupport::BuilderOptions;
using testsupport::KernelRow;
using testsupport::MemcpyRow;
using testsupport::NsysSqliteBuilder;

std::filesystem::path WriteDamagedTrace(const TempDir& dir) {
  std::filesystem::path file = dir / "damaged.sqlite";
  BuilderOptions options;
  options.allow_nulls = true;
  NsysSqliteBuilder builder(file, options);
  builder.AddGpu(0, "Test GPU");
  for (int i = 0; i < 10; ++i) {
    KernelRow k;
    k.start_ns = i * 100;
    k.end_ns = i * 100 + 50;
    builder.AddKernel(k);
  }
  KernelRow backwards;
  backwards.start_ns = 500;
  backwards.end_ns = 400;
  builder.AddKernel(backwards);
  MemcpyRow unknown;
  unknown.start_ns = 10;
  unknown.end_ns = 20;
  unknown.copy_kind = 0;
  builder.AddMemcpy(unknown);
  builder.Finish();
  return file;
}

TEST(AnalyzeCliDiagnostics, SkippedRecordsAreSummarisedOnStderr) {
  TempDir dir;
  std::filesystem::path file = WriteDamagedTrace(dir);
  CliResult r = RunGpuroof({"analyze", file.string(), "--units", "10", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("gpuroof: warning: " + file.string() +
                       ": read 12 records, used 10, skipped 2 (1 end before start in "
                       "CUPTI_ACTIVITY_KIND_KERNEL; 1 unknown copy kind 0 in "
                       "CUPTI_ACTIVITY_KIND_MEMCPY)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("kernel_n"), std::string::npos);
  CliResult quiet = RunGpuroof({"analyze", file.string(), "--quiet"});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
}

// Every kernel record is unusable (end before start): "no kernels" names the records the reader
// skipped, not a tracing switch that was on; with every record skipped, so does "no GPU
// activity".
TEST(AnalyzeCliDiagnostics, NoKernelsAfterEveryKernelWasSkippedSaysSo) {
  TempDir dir;
  std::filesystem::path file = dir / "backwards.sqlite";
  {
    NsysSqliteBuilder builder(file, BuilderOptions{});
    builder.AddGpu(0, "Test GPU");
    for (int i = 0; i < 3; ++i) {
      KernelRow k;
      k.start_ns = i * 100 + 50;
      k.end_ns = i * 100;
      builder.AddKernel(k);
    }
    builder.Finish();
  }
  const std::string cause =
      "(3 records the reader skipped as unusable: 3 end before start in "
      "CUPTI_ACTIVITY_KIND_KERNEL)";
  CliResult kernels = RunGpuroof({"kernels", file.string(), "--quiet"});
  EXPECT_EQ(kernels.exit_code, 2);
  EXPECT_NE(kernels.err.find(": no kernels: the trace has no usable kernel records " + cause),
            std::string::npos)
      << kernels.err;
  CliResult analyze = RunGpuroof({"analyze", file.string(), "--quiet"});
  EXPECT_EQ(analyze.exit_code, 2);
  EXPECT_NE(analyze.err.find("no usable kernel, memcpy or memset records " + cause),
            std::string::npos)
      << analyze.err;
  EXPECT_EQ(analyze.err.find("was CUDA tracing on"), std::string::npos) << analyze.err;
}

// A reader's notes (here: batched copy rows of nsys 2025.1.3+) reach text and CSV users on
// stderr, as they reach JSON users in the inputs' diagnostics; --quiet silences them.
TEST(AnalyzeCliDiagnostics, ReaderNotesAreSaidOnStderr) {
  TempDir dir;
  std::filesystem::path file = dir / "batched.sqlite";
  {
    BuilderOptions options;
    options.schema = testsupport::NsysSchema::k2025;
    NsysSqliteBuilder builder(file, options);
    builder.AddGpu(0, "Test GPU");
    MemcpyRow batch;
    batch.start_ns = 0;
    batch.end_ns = 1000;
    batch.bytes = 6 << 20;
    batch.copy_count = 6;
    builder.AddMemcpy(batch);
    KernelRow k;
    k.start_ns = 1000;
    k.end_ns = 2000;
    builder.AddKernel(k);
    builder.Finish();
  }
  const std::string note =
      "gpuroof: note: " + file.string() +
      ": CUPTI_ACTIVITY_KIND_MEMCPY: 1 batched copy row (cudaMemcpyBatchAsync) stands for 6 "
      "copies; each row is counted as one op\n";
  CliResult text = RunGpuroof({"analyze", file.string(), "--window", "all"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.err.find(note), std::string::npos) << text.err;
  EXPECT_NE(text.out.find("H2D"), std::string::npos) << text.out;
  CliResult json = RunGpuroof({"analyze", file.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("1 batched copy row (cudaMemcpyBatchAsync) stands for 6 copies"),
            std::string::npos);
  CliResult quiet = RunGpuroof({"analyze", file.string(), "--quiet"});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
}

TEST(AnalyzeCliDiagnostics, StrictMakesAnyLossFatal) {
  TempDir dir;
  std::filesystem::path file = WriteDamagedTrace(dir);
  std::filesystem::path out = dir / "out.csv";
  CliResult r = RunGpuroof({"analyze", file.string(), "--strict", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gpuroof: error: " + file.string() + ": --strict: 2 record(s)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  CliResult clean = RunGpuroof(
      {"analyze", (SourceDir() / "examples" / "frame_pipeline.sqlite").string(), "--strict"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
}

TEST(AnalyzeCliDiagnostics, NoKernelFallsBackToAllAndSaysSo) {
  TempDir dir;
  std::filesystem::path file = dir / "copies.sqlite";
  {
    NsysSqliteBuilder builder(file);
    MemcpyRow up;
    up.start_ns = 0;
    up.end_ns = 400;
    up.bytes = 4000;
    builder.AddMemcpy(up);
    MemcpyRow down = up;
    down.copy_kind = 2;
    down.start_ns = 600;
    down.end_ns = 1000;
    builder.AddMemcpy(down);
    builder.Finish();
  }
  CliResult r = RunGpuroof({"analyze", file.string(), "--units", "2", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("gpuroof: note: " + file.string() +
                       ": device 0: no kernel on this device: the processing window falls back "
                       "to all GPU ops"),
            std::string::npos)
      << r.err;
  // Window [0, 1000): H2D and D2H 400 ns each, 200 ns per unit (2 units / 400 ns = 5e6 per s);
  // ties go to H2D.
  EXPECT_NE(r.out.find(",0.001,0.5,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",H2D,0.2,5000000\n"), std::string::npos) << r.out;
}

TEST(AnalyzeCliDiagnostics, KernelsWithoutDurationFallBackToAllAndSaySo) {
  // Whole-microsecond traces give a sub-microsecond kernel no duration: a processing window of
  // zero length would refuse the trace, so the device falls back to all its ops, said.
  TempDir dir;
  std::filesystem::path file = dir / "zero_kernel.sqlite";
  testsupport::BuildFromDescription(
      "gpu 0 \"Test GPU\"\n"
      "kernel start=500 end=500 stream=7 corr=1 name=tiny\n"
      "memcpy start=0 end=400 kind=HtoD bytes=4000 src=pinned dst=device stream=7 corr=2\n"
      "memcpy start=420 end=480 kind=DtoH bytes=4000 src=device dst=pinned stream=7 corr=3\n",
      "zero_kernel", file);
  CliResult r = RunGpuroof({"analyze", file.string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("device 0: the kernels on this device take no time: the processing "
                       "window falls back to all GPU ops"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.substr(r.out.find('\n') + 1, 10), "0,,0.0005,") << r.out;  // [0, 500)
}

TEST(AnalyzeCliNsysReport, ExportsThroughNsysThenAnalyzes) {
  TempDir dir;
  // A stand-in for nsys that "exports" by copying the bundled example to --output.
  std::filesystem::path fake = dir / "fake-nsys";
  WriteFile(fake,
            "#!/bin/sh\nout=''\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = --output ]; then "
            "out=$2; fi\n  shift\ndone\necho \"exporting\"\ncp '" +
                (SourceDir() / "examples" / "frame_pipeline.sqlite").string() + "' \"$out\"\n");
  chmod(fake.c_str(), 0755);
  std::filesystem::path report = dir / "run.nsys-rep";
  WriteFile(report, "not really a report");
  setenv("NSYS", fake.c_str(), 1);
  CliResult r = RunGpuroof({"analyze", report.string(), "--units", "2000", "--format", "csv"});
  unsetenv("NSYS");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(",H2D,16.341825,"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "run.sqlite"));
  EXPECT_EQ(r.out.find("exporting"), std::string::npos) << "nsys output must not reach stdout";
}

// An export older than its report is replaced only by a new one that reads, with a note, and the
// replacement keeps the old file's permissions.
TEST(AnalyzeCliNsysReport, ReplacingAnOlderExportIsSaidAndKeepsItsPermissions) {
  TempDir dir;
  std::filesystem::path fake = dir / "fake-nsys";
  WriteFile(fake,
            "#!/bin/sh\nout=''\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = --output ]; then "
            "out=$2; fi\n  shift\ndone\ncp '" +
                (SourceDir() / "examples" / "frame_pipeline.sqlite").string() +
                "' \"$out\"\nchmod 644 \"$out\"\n");
  chmod(fake.c_str(), 0755);
  std::filesystem::path report = dir / "run.nsys-rep";
  WriteFile(report, "not really a report");
  std::filesystem::path exported = dir / "run.sqlite";
  std::filesystem::copy_file(SourceDir() / "examples" / "frame_pipeline.sqlite", exported);
  chmod(exported.c_str(), 0600);
  std::filesystem::last_write_time(
      exported, std::filesystem::last_write_time(report) - std::chrono::hours(1));
  setenv("NSYS", fake.c_str(), 1);
  CliResult r = RunGpuroof({"analyze", report.string()});
  unsetenv("NSYS");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(exported.string() + " was older than " + report.string() +
                       " and was replaced by a new export of it"),
            std::string::npos)
      << r.err;
  struct stat info {};
  ASSERT_EQ(stat(exported.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

// An op far after the rest of an nsys export stretched the window unsaid: noted, with the count,
// and kept (exit 0, also under --strict: nothing was lost).
TEST(AnalyzeCliDiagnostics, AnOpFarOutsideTheRestIsNoted) {
  TempDir dir;
  std::filesystem::path file = dir / "far.sqlite";
  testsupport::BuildFromDescription(
      "gpu 0 \"Test GPU\"\n"
      "kernel start=0 end=1000 stream=7 corr=1 name=work\n"
      "kernel start=2000 end=3000 stream=7 corr=2 name=work\n"
      "kernel start=5000 end=6000 stream=7 corr=3 name=work\n"
      "kernel start=10000000000000 end=10000000001000 stream=7 "
      "corr=4 name=work\n",
      "far", file);
  CliResult r = RunGpuroof({"analyze", file.string(), "--strict"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("device 0: 1 GPU op lies 9999.999994 s after the other 3 ops on it (a gap "
                       "1666666665x their span of 0.000006 s)"),
            std::string::npos)
      << r.err;
}

TEST(AnalyzeCliNsysReport, WithoutNsysSaysHowToExport) {
  TempDir dir;
  std::filesystem::path report = dir / "run.nsys-rep";
  WriteFile(report, "not really a report");
  CliResult r = RunProgram({"/usr/bin/env", "-u", "NSYS", "PATH=" + dir.path().string(),
                            GPUROOF_BINARY, "analyze", report.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nsys export --type sqlite"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuroof::testing

namespace gpuroof::testing {
namespace {

// Pretty-printed JSON on one line: each line break and the indentation after it removed.
std::string Squeeze(const std::string& json) {
  std::string out;
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '\n') {
      out += json[i];
      continue;
    }
    while (i + 1 < json.size() && json[i + 1] == ' ')
      ++i;
  }
  return out;
}

// UVM migrations run on no stream: nsys gives them stream 0 (or a launch's stream), and
// --by-stream showed them as a stream 0 of the program. They get a row of their own, after the
// device's streams, labelled "no stream (UVM)" in every format.
TEST(AnalyzeCliByStream, UvmMigrationsAreNoStream) {
  TempDir dir;
  std::filesystem::path file = dir / "uvm.sqlite";
  testsupport::BuildFromDescription(
      "gpu 0 \"Test GPU\"\n"
      "kernel start=0 end=1000 stream=7 corr=1 name=work\n"
      "memcpy start=100 end=300 kind=UVM_HtoD bytes=4096 stream=0\n"
      "memcpy start=400 end=500 kind=UVM_DtoH bytes=4096 stream=7\n",
      "uvm", file);
  CliResult csv = RunGpuroof({"analyze", file.string(), "--by-stream", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto rows = ParseCsv(csv.out);
  ASSERT_EQ(rows.size(), 2u) << csv.out;
  EXPECT_EQ(rows[0].at("stream"), "7");
  EXPECT_EQ(rows[0].at("stream_label"), "");
  EXPECT_EQ(rows[0].at("kernel_n"), "1");
  EXPECT_EQ(rows[0].at("UVM_D2H_n"), "0");  // the migration is no work of stream 7
  // `stream` holds integers or nothing, so pandas reads it as a number; the label says what the
  // empty one is.
  EXPECT_EQ(rows[1].at("stream"), "");
  EXPECT_EQ(rows[1].at("stream_label"), "no stream (UVM)");
  EXPECT_EQ(rows[1].at("context"), "");
  EXPECT_EQ(rows[1].at("UVM_H2D_n"), "1");
  EXPECT_EQ(rows[1].at("UVM_D2H_n"), "1");
  EXPECT_EQ(rows[1].at("kernel_n"), "0");
  // Driver migrations name no bottleneck (docs/metrics.md); stream 7 still does.
  EXPECT_EQ(rows[0].at("bottleneck"), "kernel");
  EXPECT_EQ(rows[1].at("bottleneck"), "");

  CliResult long_csv =
      RunGpuroof({"analyze", file.string(), "--by-stream", "--format", "csv-long"});
  ASSERT_EQ(long_csv.exit_code, 0) << long_csv.err;
  for (const auto& row : ParseCsv(long_csv.out)) {
    const bool uvm = row.at("stream").empty();
    EXPECT_EQ(row.at("stream_label"), uvm ? "no stream (UVM)" : "") << long_csv.out;
    if (uvm) {
      EXPECT_EQ(row.at("metric").find("roofline"), std::string::npos) << long_csv.out;
    } else {
      EXPECT_EQ(row.at("stream"), "7");
    }
  }

  CliResult text = RunGpuroof({"analyze", file.string(), "--by-stream"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("device 0 (Test GPU) · stream 7\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("device 0 (Test GPU) · no stream (UVM)\n"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("stream 0"), std::string::npos) << text.out;
  const std::string uvm_block = text.out.substr(text.out.find("no stream (UVM)\n"));
  EXPECT_EQ(uvm_block.find("bottleneck:"), std::string::npos) << text.out;
  EXPECT_EQ(uvm_block.find("headroom:"), std::string::npos) << text.out;
  EXPECT_NE(uvm_block.find("no bottleneck named: UVM migrations are the driver's page moves"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("bottleneck: kernel"), std::string::npos) << text.out;

  CliResult json = RunGpuroof({"analyze", file.string(), "--by-stream", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(Squeeze(json.out).find("\"stream\": {\"stream_id\": null,\"context_id\": null,"
                                   "\"process_id\": null,\"label\": \"no stream (UVM)\"}"),
            std::string::npos)
      << json.out;
  EXPECT_EQ(json.out.find("\"stream_id\": 0"), std::string::npos) << json.out;
  const std::string uvm_json = Squeeze(json.out.substr(json.out.find("\"label\": \"no stream")));
  EXPECT_NE(uvm_json.find("\"bottleneck\": null,\"headroom\": [],"), std::string::npos) << json.out;
}

// zero_duration_ops counts the copies of zero duration the bandwidth leaves out
// (docs/formats.md): a kernel of zero duration is no such copy, so the kernel engine's JSON has 0,
// as CSV and csv-long have no such figure for it. Before, JSON had 1 there.
TEST(AnalyzeCliBandwidth, ZeroDurationKernelsAreNoZeroDurationCopies) {
  TempDir dir;
  std::filesystem::path file = dir / "zero_kernel.sqlite";
  testsupport::BuildFromDescription(
      "gpu 0 \"Test GPU\"\n"
      "kernel start=0 end=20us stream=7 corr=1 name=work\n"
      "kernel start=30us end=30us stream=7 corr=2 name=empty\n",
      "zero_kernel", file);
  CliResult json = RunGpuroof({"analyze", file.string(), "--format", "json", "-q"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::string squeezed = Squeeze(json.out);
  const size_t kernel = squeezed.find("\"engine\": \"kernel\"");
  ASSERT_NE(kernel, std::string::npos) << json.out;
  const std::string engine = squeezed.substr(kernel, squeezed.find('}', kernel) - kernel);
  EXPECT_NE(engine.find("\"ops\": 2,"), std::string::npos) << engine;
  EXPECT_NE(engine.find("\"zero_duration_ops\": 0,\"zero_duration_bytes\": 0"), std::string::npos)
      << engine;
  CliResult long_csv = RunGpuroof({"analyze", file.string(), "--format", "csv-long", "-q"});
  EXPECT_EQ(long_csv.out.find("zero_duration"), std::string::npos) << long_csv.out;
}

// A copy of zero duration moved its bytes in no measured time: the aggregate GB/s is the bytes
// of the copies that take time over their time, and the one left out is said. 1 MB in 0 us
// beside 1 MB in 10 us: 100 GB/s (was 2 MB / 10 us = 200 GB/s).
TEST(AnalyzeCliBandwidth, ZeroDurationCopiesAreLeftOutOfTheRateAndSaid) {
  TempDir dir;
  std::filesystem::path file = dir / "zero_copy.sqlite";
  testsupport::BuildFromDescription(
      "gpu 0 \"Test GPU\"\n"
      "kernel start=0 end=20us stream=7 corr=1 name=work\n"
      "memcpy start=1us end=1us kind=HtoD bytes=1000000 src=pinned dst=device stream=7\n"
      "memcpy start=2us end=12us kind=HtoD bytes=1000000 src=pinned dst=device stream=7\n",
      "zero_copy", file);
  const std::string note =
      "H2D GB/s leaves out 1 copy of zero duration (1.00 MB): its bytes moved in no measured time";

  CliResult csv = RunGpuroof({"analyze", file.string(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto rows = ParseCsv(csv.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("H2D_n"), "2");
  EXPECT_EQ(rows[0].at("H2D_bytes"), "2000000");  // every copy's bytes
  EXPECT_DOUBLE_EQ(std::stod(rows[0].at("H2D_gbps")), 100.0);
  EXPECT_NE(csv.err.find("gpuroof: note: " + file.string() + ": device 0: " + note + "\n"),
            std::string::npos)
      << csv.err;

  CliResult text = RunGpuroof({"analyze", file.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("note: " + note + "\n"), std::string::npos) << text.out;

  CliResult json = RunGpuroof({"analyze", file.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(Squeeze(json.out).find("\"bandwidth_gbps\": 100,\"zero_duration_ops\": 1,"
                                   "\"zero_duration_bytes\": 1000000}"),
            std::string::npos)
      << json.out;

  CliResult long_csv = RunGpuroof({"analyze", file.string(), "--format", "csv-long"});
  ASSERT_EQ(long_csv.exit_code, 0) << long_csv.err;
  EXPECT_NE(long_csv.out.find(",H2D,zero_duration_ops,1,count\n"), std::string::npos)
      << long_csv.out;

  CliResult copies = RunGpuroof({"copies", file.string()});
  ASSERT_EQ(copies.exit_code, 0) << copies.err;
  const std::string copy_note =
      "note: H2D Pinned->Device GB/s leaves out 1 copy of zero duration "
      "(1.00 MB): its bytes moved in no measured time";
  EXPECT_NE(copies.out.find(copy_note + "\n"), std::string::npos) << copies.out;
  CliResult copies_csv = RunGpuroof({"copies", file.string(), "--format", "csv"});
  ASSERT_EQ(copies_csv.exit_code, 0) << copies_csv.err;
  auto copy_rows = ParseCsv(copies_csv.out);
  ASSERT_EQ(copy_rows.size(), 1u);
  EXPECT_DOUBLE_EQ(std::stod(copy_rows[0].at("bandwidth_gbps")), 100.0);
  EXPECT_NE(copies_csv.err.find(copy_note.substr(6)), std::string::npos) << copies_csv.err;
  CliResult copies_json = RunGpuroof({"copies", file.string(), "--format", "json"});
  ASSERT_EQ(copies_json.exit_code, 0) << copies_json.err;
  EXPECT_NE(Squeeze(copies_json.out).find("\"zero_duration\": {\"count\": 1,\"bytes\": 1000000"),
            std::string::npos)
      << copies_json.out;
}

}  // namespace
}  // namespace gpuroof::testing
