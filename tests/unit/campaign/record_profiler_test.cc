// The sweep profiler "record" over a fake runner: the "command" does what the injected recorder
// would (writes a trace and a status file where the environment says), so what the sweep sets,
// publishes and reports is checked without a GPU.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/campaign/csv_store.h"
#include "gpuroof/campaign/profiler.h"
#include "gpuroof/campaign/sweep_runner.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/recorder/recorder_env.h"

#include "campaign/fake_system.h"
#include "support/scoped_env.h"
#include "support/trace_description.h"

namespace gpuroof {
namespace {

namespace fs = std::filesystem;

constexpr int kAppPid = 4242;

std::string EnvValue(const ProcessRequest& request, const std::string& name) {
  for (const auto& [key, value] : request.env) {
    if (key == name) return value;
  }
  return "(unset)";
}

// Writes what the recorder of process `pid` leaves: a trace of one 5 us kernel and `status`.
void WriteRecorded(const std::string& pattern, int pid, recorder::RecorderStatus status = {}) {
  const fs::path trace = recorder::ExpandOutputPattern(pattern, pid);
  testsupport::BuildFromDescription(
      "gpu 0 \"Fake GPU\"\nkernel start=0 end=5000 stream=1 name=work\n", "fake", trace.string());
  status.records = 1;
  recorder::WriteRecorderStatus(recorder::StatusPath(trace), status);
}

// What the recorder of a process killed while recording leaves: its temporary trace, no status.
void WriteLost(const std::string& pattern, int pid) {
  fs::path temp = recorder::ExpandOutputPattern(pattern, pid);
  temp += ".tmp";
  testing::WriteText(temp, "half a trace");
}

class RecordProfilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    library = dir.path() / "libgpuroof_recorder.so";
    testing::WriteText(library, "stands in for the injection library");
    env.Set("GPUROOF_RECORDER_LIBRARY", library.string());
    // "app MODE": trace, dropped, child (a second CUDA process records too), error (the
    // recorder failed), none (never used CUDA), fail (exits 3), partial (records without
    // timestamps, a kind not recorded, no free buffer), killedchild (a second CUDA process was
    // killed while recording), killed (the only one was).
    fake.runner.handler = [](const ProcessRequest& request) {
      if (request.argv[0] != "app") return ProcessResult{127, "", "not found", 0, 0};
      const std::string mode = request.argv[1];
      if (mode == "fail") return ProcessResult{3, "", "CUDA error: out of memory\n", 0, kAppPid};
      const std::string pattern = EnvValue(request, recorder::kOutputEnv);
      if (mode == "trace" || mode == "child" || mode == "killedchild") {
        WriteRecorded(pattern, kAppPid);
      }
      if (mode == "dropped") {
        recorder::RecorderStatus status;
        status.dropped = 3;
        WriteRecorded(pattern, kAppPid, status);
      }
      if (mode == "partial") {
        recorder::RecorderStatus status;
        status.zero_timestamps = 12;
        status.failed_buffer_requests = 2;
        status.unrecorded = {"MARKER: CUPTI_ERROR_NOT_COMPATIBLE"};
        WriteRecorded(pattern, kAppPid, status);
      }
      if (mode == "child") WriteRecorded(pattern, kAppPid + 1);
      if (mode == "killedchild") WriteLost(pattern, kAppPid + 1);
      if (mode == "killed") WriteLost(pattern, kAppPid);
      if (mode == "error") {
        recorder::RecorderStatus status;
        status.error = "cannot subscribe to CUPTI: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
        recorder::WriteRecorderStatus(
            recorder::StatusPath(recorder::ExpandOutputPattern(pattern, kAppPid)), status);
      }
      return ProcessResult{0, "", "", 2'000'000'000, kAppPid};
    };
  }

  // One configuration per mode; the key is the label and the mode.
  SweepSpec Spec(const std::vector<std::string>& modes, const std::string& run_extra = "") {
    std::string text = fmt::format(
        "[command]\nargv = [\"app\", \"{{mode}}\"]\nworkdir = \"{}\"\n"
        "env = {{ APP_SETTING = \"{{mode}}\", GPUROOF_RECORD_OUTPUT = \"/elsewhere/%p\" }}\n"
        "[parameters]\nmode = \"trace\"\nframes = 1\n",
        dir.path().string());
    for (const std::string& mode : modes)
      text += fmt::format("[[configurations]]\nlabel = \"{}\"\nmode = \"{}\"\n", mode, mode);
    text += "[run]\nprofiler = \"record\"\nunits = \"{frames}\"\nkey = [\"mode\"]\n" + run_extra;
    // A build identity rule: rows of build "unknown" are never quotable.
    text += "[build]\nidentity_file = \"id.h\"\nidentity_regex = 'BUILD (\\w+)'\n";
    testing::WriteText(dir.path() / "id.h", "BUILD b1\n");
    return ParseSweepSpec(text, "s.toml");
  }

  SweepOutcome Run(const SweepSpec& spec) {
    CampaignOptions options;
    options.results_root = (dir.path() / "results").string();
    options.gpuroof_version = "9.9";
    session = OpenCampaign(spec, options, fake.system);
    return RunSweep(session, false, fake.system);
  }

  // What the sweep ran besides its probes of the machine (git, nvcc).
  std::vector<ProcessRequest> AppRequests() const {
    std::vector<ProcessRequest> requests;
    for (const ProcessRequest& request : fake.runner.requests) {
      if (request.argv[0] == "app") requests.push_back(request);
    }
    return requests;
  }

  std::vector<std::string> ResultFiles() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(session.results))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  testing::ScratchDir dir;
  testing::FakeSystem fake;
  testsupport::ScopedEnv env;
  fs::path library;
  CampaignSession session;
};

TEST_F(RecordProfilerTest, RunsTheCommandWithTheRecorderInjectedAndPublishesTheTrace) {
  SweepOutcome outcome = Run(Spec({"trace"}));
  EXPECT_EQ(outcome.failed, 0);
  const std::vector<ProcessRequest> requests = AppRequests();
  ASSERT_EQ(requests.size(), 1u);
  const ProcessRequest& request = requests[0];
  EXPECT_EQ(request.argv, (std::vector<std::string>{"app", "trace"}));
  EXPECT_EQ(request.workdir, dir.path());
  EXPECT_EQ(EnvValue(request, "CUDA_INJECTION64_PATH"), library.string());
  // Each process writes into a scratch folder beside the final name, whatever the sweep file says;
  // its name carries our pid and host (ProcessTag), so a later run can tell it is left over.
  EXPECT_EQ(EnvValue(request, recorder::kOutputEnv),
            (session.results / (".trace__mode-trace.sqlite.record-" + ProcessTag()) / "%p.sqlite")
                .string());
  EXPECT_EQ(EnvValue(request, "APP_SETTING"), "trace");
  EXPECT_EQ(EnvValue(request, "NVTX_INJECTION64_PATH"), "(unset)");
  EXPECT_EQ(EnvValue(request, recorder::kNvtxEnv), "(unset)");

  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 1u);
  auto cell = [&](const char* column) { return probes.rows[0][probes.Column(column)]; };
  EXPECT_EQ(cell("status"), "ok");
  EXPECT_EQ(cell("trace"), "trace__mode-trace.sqlite");
  EXPECT_EQ(cell("profiled_wall_s"), "2");
  EXPECT_EQ(cell("quotable"), "yes");
  EXPECT_EQ(cell("kernel_us_per_unit"), "5");  // one 5 us kernel, one frame
  EXPECT_NEAR(std::stod(cell("roofline_units_per_s")), 200000, 1e-6);
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  ASSERT_EQ(manifest.rows.size(), 1u);
  EXPECT_EQ(manifest.rows[0][0], "trace__mode-trace.sqlite");
  EXPECT_EQ(manifest.rows[0][1], "trace");
  EXPECT_EQ(manifest.rows[0][4], "gpuroof 9.9 sweep (profiler record)");
  for (const std::string& name : ResultFiles())
    EXPECT_EQ(name.find(".record-"), std::string::npos) << name;
}

TEST_F(RecordProfilerTest, RecordNvtxInjectsTheRecorderForNvtxToo) {
  Run(Spec({"trace"}, "record_nvtx = true\n"));
  const std::vector<ProcessRequest> requests = AppRequests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(EnvValue(requests[0], "CUDA_INJECTION64_PATH"), library.string());
  EXPECT_EQ(EnvValue(requests[0], "NVTX_INJECTION64_PATH"), library.string());
  EXPECT_EQ(EnvValue(requests[0], recorder::kNvtxEnv), "1");
}

TEST_F(RecordProfilerTest, NoTraceFailsTheConfigurationAndSaysWhy) {
  SweepOutcome outcome = Run(Spec({"none", "error", "fail"}));
  EXPECT_EQ(outcome.failed, 3);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 3u);
  auto error = [&](size_t row) { return probes.rows[row][probes.Column("error")]; };
  // Rows by key: error, fail, none.
  EXPECT_EQ(error(0),
            "the recorder in process 4242 wrote no trace: cannot subscribe to CUPTI: "
            "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  EXPECT_EQ(error(1), "the command exited with status 3: CUDA error: out of memory");
  EXPECT_EQ(error(2), "the command succeeded but the recorder wrote no trace (did it use CUDA?)");
  for (size_t row = 0; row < 3; ++row)
    EXPECT_EQ(probes.rows[row][probes.Column("status")], "failed");
  // Nothing under a trace's name, and no scratch folder left.
  for (const std::string& name : ResultFiles()) {
    EXPECT_EQ(name.find(".sqlite"), std::string::npos) << name;
    EXPECT_EQ(name.find(".record-"), std::string::npos) << name;
  }
}

TEST_F(RecordProfilerTest, DroppedRecordsMakeTheRowNotQuotable) {
  SweepOutcome outcome = Run(Spec({"dropped"}));
  EXPECT_EQ(outcome.failed, 0);
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].status, "ok");
  EXPECT_FALSE(outcome.rows[0].quotable);
  // Said as `gpuroof record` says it.
  EXPECT_EQ(outcome.rows[0].warnings,
            "3 records were DROPPED in process 4242; the trace undercounts GPU work");
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                      "gpuroof: warning: dropped: 3 records were DROPPED in process 4242; the "
                      "trace undercounts GPU work"),
            fake.messages.end());
}

// Everything `gpuroof record` warns about makes the row not quotable, said in its words.
TEST_F(RecordProfilerTest, RecordsWithoutTimestampsAndUnrecordedKindsMakeTheRowNotQuotable) {
  SweepOutcome outcome = Run(Spec({"partial"}));
  EXPECT_EQ(outcome.failed, 0);
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].status, "ok");
  EXPECT_FALSE(outcome.rows[0].quotable);
  const std::vector<std::string> said = {
      "the recorder in process 4242 had no free buffer for CUPTI 2 times (the records lost that "
      "way are among the dropped ones)",
      "12 records in process 4242 had no timestamps (still on the GPU at exit, or the device "
      "buffer was too small) and were left out; the trace undercounts GPU work",
      "process 4242 recorded no MARKER: CUPTI_ERROR_NOT_COMPATIBLE records; the rest was "
      "recorded"};
  EXPECT_EQ(outcome.rows[0].warnings, fmt::format("{}", fmt::join(said, " | ")));
  for (const std::string& warning : said) {
    EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                        "gpuroof: warning: partial: " + warning),
              fake.messages.end())
        << warning;
  }
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 1u);
  EXPECT_EQ(probes.rows[0][probes.Column("quotable")], "no");
  EXPECT_EQ(probes.rows[0][probes.Column("warnings")], outcome.rows[0].warnings);
}

TEST_F(RecordProfilerTest, AProcessKilledWhileRecordingIsSaid) {
  const std::string lost =
      "process 4243 started recording but never finished (killed or _exit): its trace is lost";
  SweepOutcome outcome = Run(Spec({"killedchild", "killed"}));
  ASSERT_EQ(outcome.rows.size(), 2u);
  // The command's own trace is there, another CUDA process's is lost: ok, not quotable.
  const ProbeRow& child = outcome.rows[0];
  EXPECT_EQ(child.label, "killedchild");
  EXPECT_EQ(child.status, "ok");
  EXPECT_FALSE(child.quotable);
  EXPECT_EQ(child.warnings, lost);
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                      "gpuroof: warning: killedchild: " + lost),
            fake.messages.end());
  // The command's own process was killed while recording: no trace, and the row says why.
  const ProbeRow& killed = outcome.rows[1];
  EXPECT_EQ(killed.status, "failed");
  EXPECT_EQ(killed.error,
            "process 4242 started recording but never finished (killed or _exit): its trace is "
            "lost");
  EXPECT_EQ(outcome.failed, 1);
  for (const std::string& name : ResultFiles()) {
    EXPECT_EQ(name.find("killed__"), std::string::npos) << name;
    EXPECT_EQ(name.find(".record-"), std::string::npos) << name;
  }
}

TEST_F(RecordProfilerTest, OtherCudaProcessesOfTheCommandKeepTheirTraces) {
  Run(Spec({"child"}));
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 1u);
  EXPECT_EQ(probes.rows[0][probes.Column("trace")], "child__mode-child.sqlite");
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  ASSERT_EQ(manifest.rows.size(), 2u);
  EXPECT_EQ(manifest.rows[0][0], "child__mode-child.4243.sqlite");
  EXPECT_EQ(manifest.rows[0][1], "trace");
  EXPECT_EQ(manifest.rows[1][0], "child__mode-child.sqlite");
}

std::string AvailabilityError(const SweepSpec& spec) {
  try {
    CheckProfilerAvailable(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(RecordProfilerTest, UnavailableRecorderIsOneLineNamingTheProfiler) {
  const SweepSpec spec = Spec({"trace"});
  env.Set("GPUROOF_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  const std::string no_driver = AvailabilityError(spec);
  EXPECT_EQ(no_driver.rfind("s.toml:12: profiler \"record\": no NVIDIA driver: "
                            "/nonexistent/libcuda.so.1 cannot be loaded (",
                            0),
            0u)
      << no_driver;
  const std::string tail = "; nothing was run";
  EXPECT_EQ(no_driver.substr(no_driver.size() - tail.size()), tail) << no_driver;
  EXPECT_EQ(no_driver.find('\n'), std::string::npos);

  env.Set("GPUROOF_RECORDER_LIBRARY", "/nonexistent/libgpuroof_recorder.so");
  EXPECT_EQ(AvailabilityError(spec),
            "/nonexistent/libgpuroof_recorder.so: GPUROOF_RECORDER_LIBRARY names no such file");

  // With a driver that answers and a library that exists, nothing is refused.
  env.Set("GPUROOF_RECORDER_LIBRARY", library.string());
  env.Set("GPUROOF_CUDA_DRIVER_LIBRARY", GPUROOF_FAKE_DRIVER);
  env.Unset("GPUROOF_FAKE_CUDA_INIT");
  env.Unset("GPUROOF_FAKE_CUDA_DEVICES");
  EXPECT_EQ(AvailabilityError(spec), "");
}

}  // namespace
}  // namespace gpuroof
