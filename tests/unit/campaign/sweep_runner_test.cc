// Whole sweeps over fakes: the "profiler" is a fake runner that writes builder-made traces, so
// every figure below is worked out by hand from the description.
#include "gpuroof/campaign/sweep_runner.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/campaign/csv_store.h"
#include "gpuroof/campaign/profiler.h"
#include "gpuroof/campaign/sha256.h"
#include "gpuroof/model/errors.h"

#include "campaign/fake_system.h"
#include "support/gone_pid.h"
#include "support/kineto_json_builder.h"
#include "support/scoped_env.h"
#include "support/trace_description.h"

namespace gpuroof {
namespace {

// 10 frames every 20 us on one stream: H2D 3 us, kernel K ns, D2H 2 us, back to back.
std::string FrameTrace(int kernel_ns) {
  return fmt::format(
      "gpu 0 \"Fake GPU\"\n"
      "repeat 10 step=20us {{\n"
      "  memcpy start=0 end=3000 kind=HtoD bytes=1000 stream=1\n"
      "  kernel start=3000 end={} stream=1 name=work\n"
      "  memcpy start={} end={} kind=DtoH bytes=100 stream=1\n"
      "}}\n",
      3000 + kernel_ns, 3000 + kernel_ns, 5000 + kernel_ns);
}

std::string Arg(const ProcessRequest& request, const std::string& flag) {
  for (size_t i = 0; i + 1 < request.argv.size(); ++i) {
    if (request.argv[i] == flag) return request.argv[i + 1];
  }
  return "";
}

class SweepRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake.runner.handler = [this](const ProcessRequest& request) {
      if (request.argv[0] != "workload") return ProcessResult{127, "", "not found", 0};
      int kernel_ns = std::stoi(Arg(request, "--kernel-ns"));
      if (kernel_ns < 0) return ProcessResult{3, "", "starting\nCUDA error: out of memory\n", 0};
      // kernel 7000: two kernels that end before they start, which the reader skips.
      const std::string bad = kernel_ns == 7000 ? "kernel start=9000 end=8000 stream=1 name=bad\n"
                                                  "kernel start=9500 end=8500 stream=1 name=bad\n"
                                                : "";
      testsupport::BuildFromDescription(FrameTrace(kernel_ns) + bad, "fake", Arg(request, "-o"));
      ++workload_runs;
      return ProcessResult{0, "", "", 2'500'000'000};
    };
    testing::WriteText(dir.path() / "id.h", "BUILD b1\n");
  }

  // A build identity rule: build "b1". Without one the build is "unknown", which --resume never
  // takes for the same build.
  static constexpr const char* kIdentity =
      "[build]\nidentity_file = \"id.h\"\nidentity_regex = 'BUILD (\\w+)'\n";

  SweepSpec Spec(const std::string& extra = "") {
    std::string text = fmt::format(
        "[command]\nargv = [\"workload\", \"--kernel-ns\", \"{{kernel}}\", \"-o\", \"{{trace}}\"]\n"
        "workdir = \"{}\"\n"
        "[parameters]\nkernel = 5000\nframes = 10\n"
        "[[configurations]]\nlabel = \"k5\"\n"
        "[[configurations]]\nlabel = \"k4\"\nkernel = 4000\n"
        "[run]\nprofiler = \"command\"\nunits = \"{{frames}}\"\n{}",
        dir.path().string(), extra);
    return ParseSweepSpec(text, "s.toml");
  }

  CampaignOptions Options() {
    CampaignOptions options;
    options.results_root = (dir.path() / "results").string();
    options.gpuroof_version = "9.9";
    return options;
  }

  // Options() with --only k5.
  CampaignOptions OnlyK5() {
    CampaignOptions options = Options();
    options.only = {"k5"};
    return options;
  }

  // Another sweep file (build b1) whose one configuration is labelled "k5__kernel-5000": its
  // trace has the name of k5's trace.
  SweepSpec SpecLabelledAsK5sTrace() {
    return ParseSweepSpec(
        fmt::format("[command]\nargv = [\"workload\", \"--kernel-ns\", \"1000\", \"-o\", "
                    "\"{{trace}}\"]\nworkdir = \"{}\"\n[[configurations]]\nlabel = "
                    "\"k5__kernel-5000\"\n[run]\nprofiler = \"command\"\nunits = \"3\"\n{}",
                    dir.path().string(), kIdentity),
        "b.toml");
  }

  testing::ScratchDir dir;
  testing::FakeSystem fake;
  int workload_runs = 0;
};

TEST_F(SweepRunnerTest, RowsManifestAndEnvMatchTheHandWorkedFigures) {
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  // No git (the fake has none), no identity rule: the build is "unknown", said on stderr.
  EXPECT_EQ(session.results.string(), (dir.path() / "results" / "2024-10-04_unknown").string());
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  EXPECT_EQ(outcome.failed, 0);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 2u);
  auto cell = [&](size_t row, const char* column) {
    return probes.rows[row][probes.Column(column)];
  };
  // Rows are ordered by key: "label=k4;kernel=4000" < "label=k5;kernel=5000".
  EXPECT_EQ(cell(0, "key"), "label=k4;kernel=4000");
  EXPECT_EQ(cell(1, "key"), "label=k5;kernel=5000");
  EXPECT_EQ(cell(1, "params"), "kernel=5000;frames=10");
  EXPECT_EQ(cell(1, "trace"), "k5__kernel-5000.sqlite");
  EXPECT_EQ(cell(1, "status"), "ok");
  // Build "unknown": the rows cannot be tied to the code that made them (as bench says).
  EXPECT_EQ(cell(1, "quotable"), "no");
  EXPECT_NE(cell(1, "warnings")
                .find("the build is called 'unknown' (no identity rule and no git "
                      "revision): the rows cannot be tied to the code that made "
                      "them, so they are not quotable"),
            std::string::npos)
      << cell(1, "warnings");
  EXPECT_EQ(cell(1, "units"), "10");
  // Window: first kernel start (3 us) to the last D2H end (9 x 20 + 10 us) = 187 us.
  EXPECT_EQ(cell(1, "window_ms"), "0.187");
  EXPECT_EQ(cell(1, "kernel_busy_ms"), "0.05");
  // Frame 0's upload ends where the window starts, so 9 uploads count: 27 us, 2.7 us per frame.
  EXPECT_EQ(cell(1, "H2D_busy_ms"), "0.027");
  EXPECT_EQ(cell(1, "H2D_us_per_unit"), "2.7");
  EXPECT_EQ(cell(1, "D2H_us_per_unit"), "2");
  EXPECT_EQ(cell(1, "bottleneck"), "kernel");
  EXPECT_EQ(cell(1, "roofline_us_per_unit"), "5");
  EXPECT_EQ(cell(1, "roofline_units_per_s"), "200000");                   // 10 frames / 50 us
  EXPECT_NEAR(std::stod(cell(0, "roofline_units_per_s")), 250000, 1e-6);  // 10 frames / 40 us
  EXPECT_EQ(cell(0, "window_ms"), "0.186");
  EXPECT_EQ(cell(1, "streams"), "1");
  EXPECT_EQ(cell(1, "profiled_wall_s"), "2.5");
  EXPECT_EQ(cell(1, "timestamp"), "2024-10-04T00:00:00Z");

  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  ASSERT_EQ(manifest.rows.size(), 2u);
  EXPECT_EQ(manifest.rows[1][0], "k5__kernel-5000.sqlite");
  EXPECT_EQ(manifest.rows[1][1], "trace");
  EXPECT_EQ(manifest.rows[1][2], "k5");
  EXPECT_EQ(manifest.rows[1][4], "gpuroof 9.9 sweep (profiler command)");
  EXPECT_EQ(manifest.rows[1][6], Sha256OfFile(session.results / "k5__kernel-5000.sqlite"));
  std::string env = testing::ReadText(session.results / "env.json");
  EXPECT_NE(env.find("\"schema\": \"gpuroof.env/1\""), std::string::npos);
  EXPECT_NE(env.find("\"identity\": \"unknown\""), std::string::npos);

  std::string table = RenderSweepTable(outcome);
  EXPECT_NE(table.find("k5"), std::string::npos);
  EXPECT_NE(table.find("200000.0"), std::string::npos);
}

TEST_F(SweepRunnerTest, AFailedConfigurationIsRecordedAndTheSweepGoesOn) {
  CampaignOptions options = Options();
  options.overrides = {};
  SweepSpec spec = Spec(kIdentity);
  spec.configurations[1].values["kernel"] = "-1";  // the fake fails this one with exit 3
  CampaignSession session = OpenCampaign(spec, options, fake.system);
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  EXPECT_EQ(outcome.failed, 1);
  EXPECT_EQ(workload_runs, 1);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 2u);
  const auto& failed = probes.rows[0];
  EXPECT_EQ(failed[probes.Column("label")], "k4");
  EXPECT_EQ(failed[probes.Column("status")], "failed");
  EXPECT_EQ(failed[probes.Column("exit_code")], "3");
  EXPECT_EQ(failed[probes.Column("error")],
            "the command exited with status 3: starting | CUDA error: out of memory");
  EXPECT_EQ(probes.rows[1][probes.Column("status")], "ok");
  // No partial trace is left behind for the failed run.
  for (const auto& entry : std::filesystem::directory_iterator(session.results)) {
    EXPECT_EQ(entry.path().filename().string().find("partial"), std::string::npos);
  }

  // --resume reruns only the failed configuration.
  fake.messages.clear();
  SweepOutcome resumed = RunSweep(session, true, fake.system);
  EXPECT_EQ(resumed.skipped, 1);
  EXPECT_EQ(workload_runs, 1);
  EXPECT_EQ(fake.messages[0], "gpuroof: note: --resume: k5 already has rows for build b1; skipped");
}

TEST_F(SweepRunnerTest, BuildIdentityFromARegexNamesTheResultsFolder) {
  testing::WriteText(dir.path() / "config.h", "// x\nusing DEVICE_PED_TYPE = float;\n");
  CampaignSession session = OpenCampaign(
      Spec("[build]\nidentity_file = \"config.h\"\nidentity_regex = 'using DEVICE_PED_TYPE = "
           "(\\w+);'\n"),
      Options(), fake.system);
  EXPECT_EQ(session.env.build, "float");
  EXPECT_EQ(session.results.filename().string(), "2024-10-04_float");
  try {
    OpenCampaign(Spec("[build]\nidentity_file = \"config.h\"\nidentity_regex = 'TYPE = (int)'\n"),
                 Options(), fake.system);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.toml:17: identity_regex matches nothing in " + (dir.path() / "config.h").string());
  }
}

// A dry run shows the plan of a checkout not built yet: identity "unknown", with a warning; a
// real run refuses, since its rows could not be quoted.
TEST_F(SweepRunnerTest, DryRunWithoutABuildIdentityCallsItUnknown) {
  SweepSpec spec = Spec("[build]\nidentity_file = \"missing.h\"\nidentity_regex = 'x'\n");
  EXPECT_THROW(OpenCampaign(spec, Options(), fake.system), InputError);
  CampaignOptions dry = Options();
  dry.dry_run = true;
  CampaignSession session = OpenCampaign(spec, dry, fake.system);
  EXPECT_EQ(session.env.build, "unknown");
  const bool warned =
      std::any_of(fake.messages.begin(), fake.messages.end(), [](const std::string& message) {
        return message.rfind("gpuroof: warning: (dry run) build identity unknown: ", 0) == 0;
      });
  EXPECT_TRUE(warned);
  EXPECT_EQ(workload_runs, 0);
}

// A command may write Kineto JSON at {trace}: the published trace is named for its format.
TEST_F(SweepRunnerTest, ATraceKeepsTheExtensionOfItsFormat) {
  fake.runner.handler = [this](const ProcessRequest& request) {
    testing::KinetoJsonBuilder trace;
    trace.Kernel("work", "10", "5").Kernel("work", "30", "5");
    testing::WriteText(Arg(request, "-o"), trace.ObjectJson());
    ++workload_runs;
    return ProcessResult{0, "", "", 1'000'000};
  };
  CampaignOptions options = OnlyK5();
  CampaignSession session = OpenCampaign(Spec(), options, fake.system);
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  ASSERT_EQ(outcome.failed, 0) << outcome.rows[0].error;
  EXPECT_TRUE(std::filesystem::exists(session.results / "k5__kernel-5000.json"));
  EXPECT_FALSE(std::filesystem::exists(session.results / "k5__kernel-5000.sqlite"));
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 1u);
  EXPECT_EQ(probes.rows[0][probes.Column("trace")], "k5__kernel-5000.json");
  EXPECT_EQ(probes.rows[0][probes.Column("status")], "ok");
}

TEST_F(SweepRunnerTest, GuardsRefuseBeforeAnythingRuns) {
  fake.files.by_pattern["lib/*.so"] = {{"lib/a.so", fake.clock.now}};
  fake.files.by_pattern["src/*.cu"] = {{"src/k.cu", fake.clock.now + std::chrono::seconds(1)}};
  SweepSpec stale = Spec("[build]\nartifacts = [\"lib/*.so\"]\nsources = [\"src/*.cu\"]\n");
  EXPECT_THROW(OpenCampaign(stale, Options(), fake.system), CheckFailed);
  fake.gpus.source = "nvidia-smi";
  fake.gpus.gpus = {{"Fake GPU", 60.0}};
  EXPECT_THROW(OpenCampaign(Spec(), Options(), fake.system), CheckFailed);
  EXPECT_EQ(workload_runs, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "results"));
  // A dry run reports the refusal and creates nothing.
  CampaignOptions dry = Options();
  dry.dry_run = true;
  OpenCampaign(stale, dry, fake.system);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "results"));
}

TEST_F(SweepRunnerTest, BusyGpuAllowedAndShortRunsMarkRowsNotQuotable) {
  fake.gpus.source = "nvidia-smi";
  fake.gpus.gpus = {{"Fake GPU", 60.0}};
  CampaignOptions options = OnlyK5();
  options.allow_busy_gpu = true;
  CampaignSession session = OpenCampaign(Spec("[guards]\nmin_units = 11\n"), options, fake.system);
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_FALSE(outcome.rows[0].quotable);
  EXPECT_NE(outcome.rows[0].warnings.find("--allow-busy-gpu"), std::string::npos);
  EXPECT_NE(outcome.rows[0].warnings.find("10 frames is shorter than the minimum of 11"),
            std::string::npos);
}

TEST_F(SweepRunnerTest, DryRunPlanQuotesEveryArgument) {
  CampaignOptions options = Options();
  options.dry_run = true;
  options.overrides = {"kernel=1 \"x\""};
  CampaignSession session = OpenCampaign(Spec(), options, fake.system);
  std::string plan = RenderSweepPlan(session);
  EXPECT_NE(plan.find("key: label, kernel"), std::string::npos) << plan;
  EXPECT_NE(plan.find("\"1 \\\"x\\\"\""), std::string::npos) << plan;
  EXPECT_EQ(workload_runs, 0);
}

TEST_F(SweepRunnerTest, AnUnreadableReRunKeepsTheEarlierTrace) {
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  ASSERT_EQ(RunSweep(session, false, fake.system).failed, 0);
  const std::filesystem::path trace = session.results / "k5__kernel-5000.sqlite";
  const std::string good_sha = Sha256OfFile(trace);
  // The re-run's command writes garbage where its trace goes.
  fake.runner.handler = [](const ProcessRequest& request) {
    testing::WriteText(Arg(request, "-o"), "not a trace\n");
    return ProcessResult{0, "", "", 1};
  };
  CampaignSession rerun = OpenCampaign(Spec(), OnlyK5(), fake.system);
  SweepOutcome outcome = RunSweep(rerun, false, fake.system);
  EXPECT_EQ(outcome.failed, 1);
  EXPECT_EQ(Sha256OfFile(trace), good_sha);
  const std::filesystem::path kept = session.results / "k5__kernel-5000.sqlite.unreadable";
  EXPECT_EQ(testing::ReadText(kept), "not a trace\n");
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_NE(outcome.rows[0].error.find("the new trace cannot be read ("), std::string::npos);
  EXPECT_NE(outcome.rows[0].error.find("it is kept as k5__kernel-5000.sqlite.unreadable; the "
                                       "earlier k5__kernel-5000.sqlite is kept"),
            std::string::npos)
      << outcome.rows[0].error;
  // The manifest still describes the good trace.
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  bool found = false;
  for (const auto& row : manifest.rows) {
    if (row[0] != "k5__kernel-5000.sqlite") continue;
    found = true;
    EXPECT_EQ(row[manifest.Column("sha256")], good_sha);
  }
  EXPECT_TRUE(found);
  // No partial file is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(session.results))
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos);
}

TEST_F(SweepRunnerTest, AFailedReRunKeepsTheEarlierOkRowsOfItsKey) {
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  ASSERT_EQ(RunSweep(session, false, fake.system).failed, 0);
  const std::string before = testing::ReadText(session.results / "probes.csv");
  // The re-run of k5 fails (the command exits 3, no trace): k5's ok row and its trace stay.
  fake.runner.handler = [](const ProcessRequest& request) {
    if (request.argv[0] != "workload") return ProcessResult{127, "", "not found", 0};
    return ProcessResult{3, "", "CUDA error: out of memory\n", 0};
  };
  fake.clock.now += std::chrono::hours(1);
  fake.messages.clear();
  SweepOutcome outcome = RunSweep(OpenCampaign(Spec(), OnlyK5(), fake.system), false, fake.system);
  EXPECT_EQ(outcome.failed, 1);
  EXPECT_EQ(outcome.kept_earlier, 1);
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].status, "failed");
  EXPECT_EQ(testing::ReadText(session.results / "probes.csv"), before);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 2u);
  for (const auto& row : probes.rows)
    EXPECT_EQ(row[probes.Column("status")], "ok");
  EXPECT_TRUE(std::filesystem::exists(session.results / "k5__kernel-5000.sqlite"));
  EXPECT_NE(
      std::find(fake.messages.begin(), fake.messages.end(),
                "gpuroof: note: k5: probes.csv keeps its 1 earlier ok row for key "
                "label=k5;kernel=5000 (build unknown, 2024-10-04T00:00:00Z); the failure is not "
                "written over it"),
      fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
  const std::string table = RenderSweepTable(outcome);
  EXPECT_NE(table.find("FAILED"), std::string::npos) << table;
  EXPECT_NE(table.find("1 configuration(s) failed; see probes.csv and the errors above (1 of the "
                       "failures are not in probes.csv: it keeps the earlier ok rows of their "
                       "keys)"),
            std::string::npos)
      << table;
}

TEST_F(SweepRunnerTest, ResumeRerunsRowsWhoseParametersChanged) {
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  RunSweep(session, false, fake.system);
  EXPECT_EQ(workload_runs, 2);
  const std::string k5_sha = Sha256OfFile(session.results / "k5__kernel-5000.sqlite");
  // frames is no key parameter (both configurations share it): same keys, other params.
  SweepSpec changed = Spec(kIdentity);
  changed.defaults["frames"] = "20";
  fake.clock.now += std::chrono::hours(1);
  fake.messages.clear();
  SweepOutcome outcome = RunSweep(OpenCampaign(changed, Options(), fake.system), true, fake.system);
  EXPECT_EQ(workload_runs, 4);
  EXPECT_EQ(outcome.skipped, 0);
  bool said = std::any_of(fake.messages.begin(), fake.messages.end(), [](const auto& m) {
    return m ==
           "gpuroof: note: --resume: k5 has rows for build b1 run with other "
           "parameters (kernel=5000;frames=10; now kernel=5000;frames=20); running it again";
  });
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(fake.messages, "\n"));
  // The earlier rows and trace are kept, under another key and name.
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 4u);
  int earlier = 0;
  for (const auto& row : probes.rows) {
    const std::string& key = row[probes.Column("key")];
    if (key.find(";replaced=20241004T000000Z") == std::string::npos) {
      EXPECT_EQ(row[probes.Column("units")], "20");
      continue;
    }
    ++earlier;
    EXPECT_EQ(row[probes.Column("units")], "10");
    if (row[probes.Column("label")] != "k5") continue;
    EXPECT_EQ(key, "label=k5;kernel=5000;replaced=20241004T000000Z");
    EXPECT_EQ(row[probes.Column("trace")], "k5__kernel-5000.earlier-20241004T000000Z.sqlite");
  }
  EXPECT_EQ(earlier, 2);
  const std::filesystem::path kept =
      session.results / "k5__kernel-5000.earlier-20241004T000000Z.sqlite";
  EXPECT_EQ(Sha256OfFile(kept), k5_sha);
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  bool listed = false;
  for (const auto& row : manifest.rows) {
    if (row[0] != kept.filename().string()) continue;
    listed = true;
    EXPECT_EQ(row[manifest.Column("sha256")], k5_sha);
    EXPECT_EQ(row[manifest.Column("config")], "k5 (earlier parameters: kernel=5000;frames=10)");
  }
  EXPECT_TRUE(listed);
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                      "gpuroof: note: k5: the 1 earlier row(s) of parameters kernel=5000;frames=10 "
                      "are kept in probes.csv under key label=k5;kernel=5000;replaced="
                      "20241004T000000Z, their trace as "
                      "k5__kernel-5000.earlier-20241004T000000Z.sqlite"),
            fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
  // Unchanged now: --resume skips both.
  SweepOutcome again = RunSweep(OpenCampaign(changed, Options(), fake.system), true, fake.system);
  EXPECT_EQ(again.skipped, 2);
  EXPECT_EQ(workload_runs, 4);
}

// A plain re-run (no --resume) after a default edited outside the key keeps the earlier trace
// too; a re-run that fails puts nothing away.
TEST_F(SweepRunnerTest, APlainReRunWithOtherParametersKeepsTheEarlierTrace) {
  CampaignSession session = OpenCampaign(Spec(kIdentity), OnlyK5(), fake.system);
  RunSweep(session, false, fake.system);
  const std::filesystem::path trace = session.results / "k5__kernel-5000.sqlite";
  const std::string sha = Sha256OfFile(trace);
  SweepSpec changed = Spec(kIdentity);
  changed.defaults["frames"] = "20";
  auto handler = fake.runner.handler;
  fake.runner.handler = [](const ProcessRequest& request) {
    if (request.argv[0] != "workload") return ProcessResult{127, "", "not found", 0};
    return ProcessResult{3, "", "CUDA error: out of memory\n", 0};
  };
  fake.clock.now += std::chrono::hours(1);
  RunSweep(OpenCampaign(changed, OnlyK5(), fake.system), false, fake.system);
  EXPECT_EQ(Sha256OfFile(trace), sha);
  EXPECT_EQ(ReadCsvFile(session.results / "probes.csv").rows.size(), 1u);
  fake.runner.handler = handler;
  RunSweep(OpenCampaign(changed, OnlyK5(), fake.system), false, fake.system);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 2u);
  EXPECT_EQ(Sha256OfFile(session.results / "k5__kernel-5000.earlier-20241004T000000Z.sqlite"), sha);
  EXPECT_TRUE(std::filesystem::exists(trace));  // the new run's (the fake writes the same)
}

// "unknown" (no identity rule, no git) is no build identity: --resume runs it again, and says
// why. A row whose trace is gone is run again too. A --resume that runs nothing leaves env.json.
TEST_F(SweepRunnerTest, ResumeRunsAgainForAnUnknownBuildOrAMissingTrace) {
  CampaignSession unknown = OpenCampaign(Spec(), Options(), fake.system);
  RunSweep(unknown, false, fake.system);
  fake.messages.clear();
  SweepOutcome again = RunSweep(unknown, true, fake.system);
  EXPECT_EQ(again.skipped, 0);
  EXPECT_EQ(workload_runs, 4);
  // First, once, the count of configurations run again for that reason; then each one's note.
  ASSERT_GE(fake.messages.size(), 3u);
  EXPECT_EQ(fake.messages[0],
            "gpuroof: note: --resume: re-running 2 of 2 configuration(s) that have rows for build "
            "unknown: that name does not identify one build (no identity rule and no git "
            "revision), so their earlier rows may come from other code");
  EXPECT_EQ(fake.messages[2],
            "gpuroof: note: --resume: k5 has rows for build unknown, but that name does not "
            "identify one build (no identity rule and no git revision): they may come from other "
            "code; running it again");

  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  fake.gpus.source = "nvidia-smi";
  RunSweep(session, false, fake.system);
  const std::string env = testing::ReadText(session.results / "env.json");
  std::filesystem::remove(session.results / "k4__kernel-4000.sqlite");
  fake.messages.clear();
  fake.gpus.source = "none";
  SweepOutcome resumed =
      RunSweep(OpenCampaign(Spec(kIdentity), Options(), fake.system), true, fake.system);
  EXPECT_EQ(resumed.skipped, 1);
  EXPECT_EQ(workload_runs, 7);
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                      "gpuroof: note: --resume: k4 has rows for build b1, but their trace "
                      "k4__kernel-4000.sqlite is gone; running it again"),
            fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
  EXPECT_TRUE(std::filesystem::exists(session.results / "k4__kernel-4000.sqlite"));
  // Nothing to run: env.json stays as the sweep that ran the rows left it.
  const std::string env2 = testing::ReadText(session.results / "env.json");
  fake.gpus.source = "nvidia-smi";  // what a rewrite would now say
  fake.clock.now += std::chrono::minutes(5);
  SweepOutcome none =
      RunSweep(OpenCampaign(Spec(kIdentity), Options(), fake.system), true, fake.system);
  EXPECT_EQ(none.skipped, 2);
  EXPECT_EQ(testing::ReadText(session.results / "env.json"), env2);
  EXPECT_NE(env, "");
}

// A dirty build ("-dirty": uncommitted edits) cannot prove its earlier rows came from this code
// either: --resume runs every configuration that has rows again and says, once, how many; a
// configuration without rows is not counted.
TEST_F(SweepRunnerTest, ResumeOfADirtyBuildSaysHowManyConfigurationsRunAgain) {
  testing::WriteText(dir.path() / "id.h", "BUILD b1-dirty\n");
  const std::string identity =
      "[build]\nidentity_file = \"id.h\"\nidentity_regex = 'BUILD (\\S+)'\n";
  RunSweep(OpenCampaign(Spec(identity), Options(), fake.system), false, fake.system);
  EXPECT_EQ(workload_runs, 2);
  const std::string k3 = "[[configurations]]\nlabel = \"k3\"\nkernel = 3000\n";
  fake.messages.clear();
  SweepOutcome resumed =
      RunSweep(OpenCampaign(Spec(identity + k3), Options(), fake.system), true, fake.system);
  EXPECT_EQ(resumed.skipped, 0);
  EXPECT_EQ(workload_runs, 5);
  const std::string summary =
      "gpuroof: note: --resume: re-running 2 of 3 configuration(s) that have rows for build "
      "b1-dirty: that name does not identify one build (uncommitted edits, which differ from one "
      "session to the next), so their earlier rows may come from other code";
  EXPECT_EQ(std::count(fake.messages.begin(), fake.messages.end(), summary), 1)
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
}

// A workdir that is no folder names its line in the sweep file.
TEST_F(SweepRunnerTest, AWorkdirThatIsNoFolderNamesItsLine) {
  SweepSpec spec = Spec();
  spec.workdir = (dir.path() / "nonexistent").string();
  try {
    OpenCampaign(spec, Options(), fake.system);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "s.toml:3: workdir " + spec.workdir + " is not a folder");
  }
}

// What analyze says beside the figures reaches the rows and stderr: ops outside the window (count
// and busy time), records the reader skipped; a skip that lost GPU work makes the rows not
// quotable.
TEST_F(SweepRunnerTest, RowsCarryTheWindowNotesAndTheReadersSkips) {
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  RunSweep(session, false, fake.system);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 2u);
  // Frame 0's upload (3 us) ends where the window starts.
  const std::string& warnings = probes.rows[1][probes.Column("warnings")];
  EXPECT_NE(warnings.find("device 0: 1 op(s) (3.000 us busy) lie outside the window; --window all "
                          "includes them"),
            std::string::npos)
      << warnings;
  EXPECT_EQ(probes.rows[1][probes.Column("quotable")], "yes");
  EXPECT_NE(
      std::find(fake.messages.begin(), fake.messages.end(),
                "gpuroof: note: k5: device 0: 1 op(s) (3.000 us busy) lie outside the window; "
                "--window all includes them"),
      fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));

  SweepSpec bad = Spec(kIdentity);
  bad.configurations[1].values["kernel"] = "7000";
  CampaignOptions only = Options();
  only.only = {"k4"};
  fake.messages.clear();
  SweepOutcome outcome = RunSweep(OpenCampaign(bad, only, fake.system), false, fake.system);
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_FALSE(outcome.rows[0].quotable);
  EXPECT_NE(outcome.rows[0].warnings.find(
                "the trace reader read 32 records, used 30, skipped 2 (2 end before start in "
                "CUPTI_ACTIVITY_KIND_KERNEL): GPU work is missing from the figures, so the rows "
                "are not quotable"),
            std::string::npos)
      << outcome.rows[0].warnings;
  const bool warned =
      std::any_of(fake.messages.begin(), fake.messages.end(), [](const std::string& m) {
        return m.rfind("gpuroof: warning: k4: k4__kernel-7000.sqlite: the trace reader read ", 0) ==
               0;
      });
  EXPECT_TRUE(warned) << fmt::format("{}", fmt::join(fake.messages, "\n"));
}

TEST_F(SweepRunnerTest, ResultsFilesWithOtherColumnsAreRefusedBeforeAnythingRuns) {
  for (const char* name : {"probes.csv", "manifest.csv"}) {
    CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
    testing::WriteText(session.results / name, "key,old\nx,1\n");
    EXPECT_THROW(RunSweep(session, false, fake.system), InputError) << name;
    EXPECT_EQ(workload_runs, 0) << name;
    EXPECT_FALSE(std::filesystem::exists(session.results / "env.json")) << name;
    EXPECT_FALSE(std::filesystem::exists(session.results / "k5__kernel-5000.sqlite")) << name;
    EXPECT_EQ(testing::ReadText(session.results / name), "key,old\nx,1\n");
    std::filesystem::remove(session.results / name);
  }
}

TEST_F(SweepRunnerTest, PartialFilesOfProcessesThatAreGoneAreRemoved) {
  const pid_t gone = testsupport::GonePid();
  ASSERT_GT(gone, 0);
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  const std::string dead = std::to_string(gone);
  const std::string alive = std::to_string(getppid());  // our parent runs as long as we do
  // This machine's tag ("<pid>-<host>"), and the pid-only names of earlier versions.
  const std::string own = ProcessTag();
  const std::string host = own.substr(own.find('-'));
  const std::string other_host = host == "-00000000" ? "-00000001" : "-00000000";
  std::vector<std::string> removed = {
      ".k5__kernel-5000.partial-" + dead + ".sqlite",
      ".k4__kernel-4000.partial-" + dead + ".nsys-rep",
      ".bench-scratch-" + dead + ".sqlite",
      ".k4__kernel-4000.partial-" + dead + host + ".sqlite",
      ".k4__kernel-4000.partial-" + dead + host + ".earlier.sqlite",
      ".k5__kernel-5000.partial-" + dead + host + ".qdstrm",
      ".k5__kernel-1.5.partial-" + dead + host + ".sqlite",  // an earlier --set kernel=1.5
      ".k4.partial-" + dead + host + ".nsys-rep",
      ".bench-scratch-" + dead + host + ".sqlite",
      PendingEnvJsonName(1, dead + host)};
  std::vector<std::string> kept = {
      ".k5__kernel-5000.partial-" + alive + ".sqlite", ".bench-scratch-" + alive + ".sqlite",
      ".k4__kernel-4000.partial-" + alive + host + ".sqlite",
      // Another machine sharing the folder: its pid says nothing here.
      ".k4__kernel-4000.partial-" + dead + other_host + ".sqlite",
      ".bench-scratch-" + dead + other_host + ".sqlite",
      "k5.partial-" + dead + ".sqlite",  // no leading dot: not ours
      ".notes-" + dead + ".sqlite", ".x.partial-" + dead + "x",
      // Names that merely look alike: no trace name of this sweep, or a suffix it never writes.
      ".notes.partial-" + dead + host + ".txt", ".y.partial-" + dead + host + ".sqlite",
      ".k45.partial-" + dead + host + ".sqlite", ".k4_x.partial-" + dead + host + ".sqlite",
      ".k4__kernel-4000.partial-" + dead + host + ".sqlite.bak",
      ".k4__kernel-4000.partial-" + dead + host + ".x.sqlite",
      // A live process's pending env stamp, another machine's, and names that look alike.
      PendingEnvJsonName(2, alive + host), PendingEnvJsonName(1, dead + other_host),
      ".env.json.pending-x." + dead + host, ".env.json.pending-1." + dead + host + ".bak",
      PendingEnvJsonName(1, dead)};
  for (const std::string& name : removed)
    testing::WriteText(session.results / name, "x");
  for (const std::string& name : kept)
    testing::WriteText(session.results / name, "x");
  // Profiler "record"'s scratch folders: a gone process's (the recorder's files only) is
  // removed; a live one's, and a folder holding anything else, are kept.
  const std::filesystem::path scratch = session.results / (".k5.sqlite.record-" + dead + host);
  const std::filesystem::path live_scratch =
      session.results / (".k5.sqlite.record-" + alive + host);
  const std::filesystem::path user_folder = session.results / (".mine.record-" + dead + host);
  // Not a trace name of this sweep, an empty folder, a pid-only name: kept.
  const std::filesystem::path other_trace =
      session.results / (".mine.sqlite.record-" + dead + host);
  const std::filesystem::path pid_only = session.results / (".k4.sqlite.record-" + dead);
  const std::filesystem::path empty = session.results / (".k4.sqlite.record-" + dead + host);
  for (const auto& folder : {scratch, live_scratch, user_folder, other_trace, pid_only}) {
    std::filesystem::create_directory(folder);
    testing::WriteText(folder / "123.sqlite.status", "x");
  }
  std::filesystem::create_directory(empty);
  testing::WriteText(user_folder / "notes.txt", "x");
  // A symbolic link at a partial file's name is neither followed nor removed.
  testing::WriteText(session.results / "target.txt", "x");
  const std::filesystem::path link =
      session.results / (".k4__kernel-4000.partial-" + dead + host + ".qdstrm");
  std::filesystem::create_symlink("target.txt", link);
  fake.messages.clear();
  RunSweep(session, false, fake.system);
  for (const std::string& name : removed)
    EXPECT_FALSE(std::filesystem::exists(session.results / name)) << name;
  for (const std::string& name : kept)
    EXPECT_TRUE(std::filesystem::exists(session.results / name)) << name;
  EXPECT_FALSE(std::filesystem::exists(scratch));
  EXPECT_TRUE(std::filesystem::exists(live_scratch));
  EXPECT_TRUE(std::filesystem::exists(user_folder / "notes.txt"));
  for (const auto& folder : {other_trace, pid_only, empty})
    EXPECT_TRUE(std::filesystem::exists(folder)) << folder;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_TRUE(std::filesystem::exists(session.results / "target.txt"));
  size_t notes = 0;
  for (const std::string& line : fake.messages)
    notes += line.rfind("gpuroof: note: removed ", 0) == 0 ? 1 : 0;
  EXPECT_EQ(notes, removed.size() + 1);
}

TEST_F(SweepRunnerTest, ResultsPathsReachTheCommandAbsolute) {
  CampaignOptions options = Options();
  options.results_root = "relative-results";
  CampaignSession session = OpenCampaign(Spec(), options, fake.system);
  EXPECT_TRUE(session.results.is_absolute()) << session.results;
  EXPECT_EQ(session.results,
            std::filesystem::current_path() / "relative-results" / "2024-10-04_unknown");
  std::filesystem::remove_all(std::filesystem::current_path() / "relative-results");
  options.results_root = "";
  EXPECT_THROW(OpenCampaign(Spec(), options, fake.system), InputError);
}

TEST_F(SweepRunnerTest, RowsCarryTheGitRevisionAndOlderProbesFilesAreStillMerged) {
  const std::string rev = "0123456789abcdef0123456789abcdef01234567";
  auto workload = fake.runner.handler;
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "git") return workload(request);
    if (request.argv[1] == "status") return ProcessResult{0, " M src/kernel.cu\n", "", 1};
    if (request.argv.back() == "HEAD" && request.argv.size() == 3)
      return ProcessResult{0, rev + "\n", "", 1};
    return ProcessResult{0, "main\n", "", 1};
  };
  CampaignOptions options = OnlyK5();
  CampaignSession session = OpenCampaign(Spec(), options, fake.system);
  // probes.csv as gpuroof wrote it before the git_rev column: one row of another configuration.
  std::vector<std::string> old_header = ProbesHeader();
  old_header.pop_back();
  ASSERT_EQ(ProbesHeader().back(), "git_rev");
  std::string old_row(old_header.size() - 1, ',');
  testing::WriteText(
      session.results / "probes.csv",
      fmt::format("{}\nlabel=k4;kernel=4000{}\n", fmt::join(old_header, ","), old_row));
  ASSERT_EQ(RunSweep(session, false, fake.system).failed, 0);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  EXPECT_EQ(probes.header, ProbesHeader());
  ASSERT_EQ(probes.rows.size(), 2u);
  EXPECT_EQ(probes.rows[0][0], "label=k4;kernel=4000");
  EXPECT_EQ(probes.rows[0][probes.Column("git_rev")], "");
  EXPECT_EQ(probes.rows[1][probes.Column("git_rev")], rev + "-dirty");
}

// Under profiler nsys, {trace} is the temporary name too: a command that writes there and fails
// never touches the trace (nor the rows, nor the manifest row) an earlier run published.
TEST_F(SweepRunnerTest, UnderNsysTheTracePlaceholderIsTheTemporaryName) {
  testsupport::ScopedEnv env;
  env.Set("NSYS", "fake-nsys");
  bool fail = false;
  std::vector<std::string> trace_args;
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "fake-nsys") return ProcessResult{127, "", "not found", 0};
    if (request.argv[1] == "export") {
      std::filesystem::copy_file(request.argv.back(), Arg(request, "--output"),
                                 std::filesystem::copy_options::overwrite_existing);
      return ProcessResult{0, "", "", 1};
    }
    std::string base;
    for (const std::string& arg : request.argv) {
      if (arg.rfind("--output=", 0) == 0) base = arg.substr(9);
    }
    const std::string trace = Arg(request, "-o");
    trace_args.push_back(trace);
    testsupport::BuildFromDescription(FrameTrace(5000), "fake", base + ".nsys-rep");
    if (!fail) return ProcessResult{0, "", "", 1};
    testing::WriteText(trace, "junk\n");  // the command writes {trace}, then fails
    return ProcessResult{3, "", "oops\n", 1};
  };
  SweepSpec spec = ParseSweepSpec(
      fmt::format("[command]\nargv = [\"workload\", \"-o\", \"{{trace}}\"]\nworkdir = \"{}\"\n"
                  "[[configurations]]\nlabel = \"a\"\n[run]\nprofiler = \"nsys\"\nunits = \"10\"\n",
                  dir.path().string()),
      "s.toml");
  CampaignSession session = OpenCampaign(spec, Options(), fake.system);
  ASSERT_EQ(RunSweep(session, false, fake.system).failed, 0);
  const std::filesystem::path trace = session.results / "a.sqlite";
  const std::string sha = Sha256OfFile(trace);
  fail = true;
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  EXPECT_EQ(outcome.failed, 1);
  EXPECT_EQ(Sha256OfFile(trace), sha);
  ASSERT_EQ(trace_args.size(), 2u);
  for (const std::string& arg : trace_args) {
    EXPECT_NE(arg, trace.string());
    EXPECT_NE(arg.find(".a.partial-"), std::string::npos) << arg;
  }
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  for (const auto& row : manifest.rows) {
    if (row[0] == "a.sqlite") {
      EXPECT_EQ(row[manifest.Column("sha256")], sha);
    }
  }
  for (const auto& entry : std::filesystem::directory_iterator(session.results))
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos);
}

// Under profiler nsys, a run publishes two files, its .nsys-rep and its .sqlite export. When one
// of the two renames fails, the published pair stays the earlier run's: never a new report beside
// an old export, or a new export beside an old report; and no partial file is left behind.
class NsysPairTest : public SweepRunnerTest {
 protected:
  // `kernel_ns` sets what the next run's trace holds; `before_publish` runs at the export.
  void UseFakeNsys() {
    env.Set("NSYS", "fake-nsys");
    fake.runner.handler = [this](const ProcessRequest& request) {
      if (request.argv[0] != "fake-nsys") return ProcessResult{127, "", "not found", 0};
      if (request.argv[1] == "export") {
        std::filesystem::copy_file(request.argv.back(), Arg(request, "--output"),
                                   std::filesystem::copy_options::overwrite_existing);
        if (before_publish) before_publish();
        return ProcessResult{0, "", "", 1};
      }
      std::string base;
      for (const std::string& arg : request.argv) {
        if (arg.rfind("--output=", 0) == 0) base = arg.substr(9);
      }
      testsupport::BuildFromDescription(FrameTrace(kernel_ns), "fake", base + ".nsys-rep");
      return ProcessResult{0, "", "", 1};
    };
  }

  CampaignSession Open() {
    SweepSpec spec =
        ParseSweepSpec(fmt::format("[command]\nargv = [\"workload\"]\nworkdir = \"{}\"\n"
                                   "[[configurations]]\nlabel = \"a\"\n[run]\nprofiler = \"nsys\"\n"
                                   "units = \"10\"\n",
                                   dir.path().string()),
                       "s.toml");
    return OpenCampaign(spec, Options(), fake.system);
  }

  // Puts a folder (with a file in it) where `path` was: a rename onto it fails.
  static void BlockWithAFolder(const std::filesystem::path& path) {
    std::filesystem::remove(path);
    std::filesystem::create_directory(path);
    testing::WriteText(path / "x", "x\n");
  }

  static void ExpectNoPartialFile(const std::filesystem::path& results) {
    for (const auto& entry : std::filesystem::directory_iterator(results))
      EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos)
          << entry.path();
  }

  testsupport::ScopedEnv env;
  int kernel_ns = 5000;
  std::function<void()> before_publish;
};

TEST_F(NsysPairTest, AnExportThatCannotBePublishedLeavesTheEarlierReport) {
  UseFakeNsys();
  CampaignSession session = Open();
  ASSERT_EQ(RunSweep(session, false, fake.system).failed, 0);
  const std::filesystem::path rep = session.results / "a.nsys-rep";
  const std::string rep_sha = Sha256OfFile(rep);
  kernel_ns = 4000;  // the new run's report differs from the earlier one
  before_publish = [&]() { BlockWithAFolder(session.results / "a.sqlite"); };
  EXPECT_EQ(RunSweep(session, false, fake.system).failed, 1);
  EXPECT_EQ(Sha256OfFile(rep), rep_sha);  // not the new report beside no (or an old) export
  ExpectNoPartialFile(session.results);
}

// An export that cannot be read is kept as "<trace>.unreadable", and the report it came from is
// kept too, under a name nsys exports again: no evidence is lost.
// nsys export that exits 0 without writing its file is not said as "exited with status 0".
TEST_F(NsysPairTest, AnExportThatWritesNothingSaysSo) {
  UseFakeNsys();
  CampaignSession session = Open();
  before_publish = [&session]() {
    for (const auto& entry : std::filesystem::directory_iterator(session.results)) {
      const std::string name = entry.path().filename().string();
      if (name.find(".partial-") != std::string::npos && entry.path().extension() == ".sqlite")
        std::filesystem::remove(entry.path());
    }
  };
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].error, "nsys export exited with status 0 but wrote no file");
}

TEST_F(NsysPairTest, AnUnreadableExportKeepsItsReport) {
  UseFakeNsys();
  CampaignSession session = Open();
  before_publish = [&]() {
    for (const auto& entry : std::filesystem::directory_iterator(session.results)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(".a.partial-", 0) == 0 && entry.path().extension() == ".sqlite")
        testing::WriteText(entry.path(), "not a trace\n");
    }
  };
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  EXPECT_EQ(outcome.failed, 1);
  EXPECT_EQ(testing::ReadText(session.results / "a.sqlite.unreadable"), "not a trace\n");
  const std::filesystem::path kept_rep = session.results / "a.unreadable.nsys-rep";
  EXPECT_TRUE(std::filesystem::is_regular_file(kept_rep));
  EXPECT_FALSE(std::filesystem::exists(session.results / "a.nsys-rep"));
  EXPECT_FALSE(std::filesystem::exists(session.results / "a.sqlite"));
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_NE(outcome.rows[0].error.find("it is kept as a.sqlite.unreadable; the new report is kept "
                                       "as a.unreadable.nsys-rep (export it again: nsys export "
                                       "--type sqlite " +
                                       kept_rep.string() + ")"),
            std::string::npos)
      << outcome.rows[0].error;
  ExpectNoPartialFile(session.results);
  // An existing file at that name (another configuration labelled "a.unreadable" publishes its
  // report there) is never replaced: the next free name is taken.
  testing::WriteText(kept_rep, "another configuration's report\n");
  outcome = RunSweep(session, false, fake.system);
  EXPECT_EQ(testing::ReadText(kept_rep), "another configuration's report\n");
  const std::filesystem::path second = session.results / "a.unreadable-2.nsys-rep";
  EXPECT_TRUE(std::filesystem::is_regular_file(second));
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_NE(outcome.rows[0].error.find("the new report is kept as a.unreadable-2.nsys-rep"),
            std::string::npos)
      << outcome.rows[0].error;
  ExpectNoPartialFile(session.results);
}

TEST_F(NsysPairTest, AReportThatCannotBePublishedPutsTheEarlierExportBack) {
  UseFakeNsys();
  CampaignSession session = Open();
  ASSERT_EQ(RunSweep(session, false, fake.system).failed, 0);
  const std::filesystem::path trace = session.results / "a.sqlite";
  const std::string sha = Sha256OfFile(trace);
  kernel_ns = 4000;
  before_publish = [&]() { BlockWithAFolder(session.results / "a.nsys-rep"); };
  EXPECT_EQ(RunSweep(session, false, fake.system).failed, 1);
  EXPECT_EQ(Sha256OfFile(trace), sha);
  ExpectNoPartialFile(session.results);
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 1u);
  EXPECT_EQ(probes.rows[0][probes.Column("status")], "ok");  // the earlier row is kept
}

// Messages of failures say what happened: the path a command that succeeded did not write, a
// process killed by a signal, an identity_command that failed without a word on stderr.
TEST_F(SweepRunnerTest, FailureMessagesNameThePathTheSignalAndNoEmptyParentheses) {
  fake.runner.handler = [](const ProcessRequest& request) {
    if (Arg(request, "--kernel-ns") == "5000") return ProcessResult{0, "", "", 1};
    return ProcessResult{137, "", "", 1};
  };
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  SweepOutcome outcome = RunSweep(session, false, fake.system);
  ASSERT_EQ(outcome.rows.size(), 2u);
  const std::string& missing = outcome.rows[0].error;
  EXPECT_EQ(missing.rfind("the command succeeded but wrote no trace at {trace} (" +
                              session.results.string() + "/.k5__kernel-5000.partial-",
                          0),
            0u)
      << missing;
  EXPECT_EQ(outcome.rows[1].error, "the command was killed by signal 9 (Killed; exit status 137)");

  fake.runner.handler = [](const ProcessRequest&) { return ProcessResult{1, "", "", 1}; };
  try {
    OpenCampaign(Spec("[build]\nidentity_command = [\"false\"]\n"), Options(), fake.system);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "s.toml:16: identity_command false failed with exit status 1");
  }
}

// A sweep that adds no ok row (every configuration fails) leaves env.json as it was; one that does
// on another GPU and driver keeps the earlier stamp as env.earlier-<its time>.json.
TEST_F(SweepRunnerTest, EnvJsonIsKeptWhenNoRowIsAddedAndAnotherGpusStampIsKeptAside) {
  fake.gpus.source = "nvidia-smi";
  fake.gpus.driver = "555.42";
  fake.gpus.gpus = {{"Fake GPU", 0.0}};
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  RunSweep(session, false, fake.system);
  const std::filesystem::path env = session.results / "env.json";
  const std::string first = testing::ReadText(env);
  fake.gpus.driver = "999.99";
  fake.gpus.gpus = {{"Other GPU", 0.0}};
  fake.clock.now += std::chrono::hours(1);
  SweepSpec failing = Spec(kIdentity);
  failing.configurations[0].values["kernel"] = "-1";  // the fake fails these with exit 3
  failing.configurations[1].values["kernel"] = "-2";
  SweepOutcome failed = RunSweep(OpenCampaign(failing, Options(), fake.system), false, fake.system);
  EXPECT_EQ(failed.failed, 2);
  EXPECT_EQ(testing::ReadText(env), first);

  fake.messages.clear();
  CampaignOptions only = Options();
  only.only = {"k4"};
  RunSweep(OpenCampaign(Spec(kIdentity), only, fake.system), false, fake.system);
  EXPECT_NE(testing::ReadText(env).find("999.99"), std::string::npos);
  const std::filesystem::path kept = session.results / "env.earlier-20241004T000000Z.json";
  ASSERT_TRUE(std::filesystem::exists(kept));
  EXPECT_EQ(testing::ReadText(kept), first);
  const std::string note = "gpuroof: note: " + env.string() +
                           " describes another session than this sweep (its GPUs, driver "
                           "differ): kept as env.earlier-20241004T000000Z.json, since earlier "
                           "rows of the folder may come from it";
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(), note), fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
  // The same GPU and build again: env.json is simply rewritten.
  RunSweep(OpenCampaign(Spec(kIdentity), only, fake.system), false, fake.system);
  EXPECT_FALSE(std::filesystem::exists(session.results / "env.earlier-20241004T010000Z.json"));
}

// env.json is written aside before anything runs and put in place before the new trace is
// published: a stamp that cannot be put in place (here: every name to keep the earlier one under
// is taken) ends the sweep with the earlier trace, rows and manifest as they were; something at
// env.json that is no file is refused before anything runs.
TEST_F(SweepRunnerTest, AnEnvJsonThatCannotBeWrittenLeavesTheEarlierTraceAndRows) {
  fake.gpus.source = "nvidia-smi";
  fake.gpus.driver = "555.42";
  fake.gpus.gpus = {{"Fake GPU", 0.0}};
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  RunSweep(session, false, fake.system);
  const std::filesystem::path trace = session.results / "k5__kernel-5000.sqlite";
  const std::string sha = Sha256OfFile(trace);
  const std::string probes = testing::ReadText(session.results / "probes.csv");
  const std::string manifest = testing::ReadText(session.results / "manifest.csv");
  const std::string env = testing::ReadText(session.results / "env.json");
  testing::WriteText(session.results / "env.earlier-20241004T000000Z.json", "taken\n");
  for (int n = 2; n < 1000; ++n) {
    testing::WriteText(session.results / fmt::format("env.earlier-20241004T000000Z-{}.json", n),
                       "taken\n");
  }
  fake.gpus.driver = "999.99";
  fake.clock.now += std::chrono::hours(1);
  const int runs = workload_runs;
  try {
    RunSweep(OpenCampaign(Spec(kIdentity), Options(), fake.system), false, fake.system);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (session.results / "env.json").string() +
                                         ": cannot keep the earlier env stamp: "
                                         "env.earlier-20241004T000000Z-999.json exists");
  }
  EXPECT_EQ(workload_runs, runs + 1);
  EXPECT_EQ(Sha256OfFile(trace), sha);
  EXPECT_EQ(testing::ReadText(session.results / "probes.csv"), probes);
  EXPECT_EQ(testing::ReadText(session.results / "manifest.csv"), manifest);
  EXPECT_EQ(testing::ReadText(session.results / "env.json"), env);
  EXPECT_EQ(testing::ReadText(session.results / "env.earlier-20241004T000000Z-999.json"),
            "taken\n");
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(session.results)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("env.earlier-", 0) != 0) ++files;
    EXPECT_EQ(name.find("pending"), std::string::npos) << name;
    EXPECT_EQ(name.find("partial"), std::string::npos) << name;
  }
  EXPECT_EQ(files, 5u);  // env.json, probes.csv, manifest.csv and the two traces

  std::filesystem::remove(session.results / "env.json");
  std::filesystem::create_directory(session.results / "env.json");
  EXPECT_THROW(RunSweep(OpenCampaign(Spec(kIdentity), Options(), fake.system), false, fake.system),
               InputError);
  EXPECT_EQ(workload_runs, runs + 1);
}

// --resume runs configurations whose rows are not quotable again (here: a busy GPU), and says how
// many; once their rows are quotable it skips them.
TEST_F(SweepRunnerTest, ResumeRunsAgainConfigurationsWhoseRowsAreNotQuotable) {
  fake.gpus.source = "nvidia-smi";
  fake.gpus.gpus = {{"Fake GPU", 60.0}};
  CampaignOptions busy = Options();
  busy.allow_busy_gpu = true;
  RunSweep(OpenCampaign(Spec(kIdentity), busy, fake.system), false, fake.system);
  EXPECT_EQ(workload_runs, 2);
  fake.gpus.gpus = {{"Fake GPU", 0.0}};
  fake.messages.clear();
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  SweepOutcome resumed = RunSweep(session, true, fake.system);
  EXPECT_EQ(resumed.skipped, 0);
  EXPECT_EQ(workload_runs, 4);
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                      "gpuroof: note: --resume: re-running 2 of 2 configuration(s) whose rows for "
                      "build b1 are not quotable (their warnings say why); their rows are "
                      "replaced"),
            fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
  CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 2u);
  EXPECT_EQ(probes.rows[0][probes.Column("quotable")], "yes");
  EXPECT_EQ(probes.rows[1][probes.Column("quotable")], "yes");
  EXPECT_EQ(RunSweep(session, true, fake.system).skipped, 2);
  EXPECT_EQ(workload_runs, 4);
}

// A trace name that rows of another key own is refused even when its file is gone: a trace
// written there would make those rows describe other bytes.
TEST_F(SweepRunnerTest, ATraceNameOfAnotherKeysRowsIsRefusedWhenItsFileIsGone) {
  CampaignSession session = OpenCampaign(Spec(kIdentity), OnlyK5(), fake.system);
  RunSweep(session, false, fake.system);
  const std::filesystem::path trace = session.results / "k5__kernel-5000.sqlite";
  std::filesystem::remove(trace);
  SweepSpec other = SpecLabelledAsK5sTrace();
  const int runs = workload_runs;
  try {
    RunSweep(OpenCampaign(other, Options(), fake.system), false, fake.system);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              trace.string() +
                  ": is the trace of 1 probes.csv row key(s) (label=k5;kernel=5000) other than "
                  "k5__kernel-5000's (key label=k5__kernel-5000), though the file is gone: this "
                  "sweep would write its trace there, and those rows would then describe it; give "
                  "k5__kernel-5000 another label, or use another --results folder");
  }
  EXPECT_EQ(workload_runs, runs);
  EXPECT_FALSE(std::filesystem::exists(trace));
}

// A trace that a concurrent sweep published after this one started is its rows' trace, not a
// file to move aside: the owners are read when the file is found, under the folder lock.
TEST_F(SweepRunnerTest, ATraceAConcurrentSweepPublishedIsNotMovedAside) {
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  bool concurrent_done = false;
  auto handler = fake.runner.handler;
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (!concurrent_done && Arg(request, "--kernel-ns") == "5000") {
      concurrent_done = true;  // another sweep, --only k4, finishes while k5 runs
      CampaignOptions only = Options();
      only.only = {"k4"};
      RunSweep(OpenCampaign(Spec(kIdentity), only, fake.system), false, fake.system);
    }
    return handler(request);
  };
  fake.messages.clear();
  RunSweep(session, false, fake.system);
  EXPECT_TRUE(concurrent_done);
  for (const std::string& message : fake.messages)
    EXPECT_EQ(message.find("is no trace of a probes.csv row"), std::string::npos) << message;
  for (const auto& entry : std::filesystem::directory_iterator(session.results))
    EXPECT_EQ(entry.path().filename().string().find(".earlier-"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(session.results / "k4__kernel-4000.sqlite"));
}

// A file moved aside (no probes.csv row points at it) whose manifest row matches its bytes keeps
// that row, under its new name.
TEST_F(SweepRunnerTest, AMovedAsideTraceKeepsItsManifestRow) {
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  RunSweep(session, false, fake.system);
  const std::string sha = Sha256OfFile(session.results / "k5__kernel-5000.sqlite");
  std::filesystem::remove(session.results / "probes.csv");
  fake.clock.now += std::chrono::hours(1);
  RunSweep(OpenCampaign(Spec(kIdentity), Options(), fake.system), false, fake.system);
  const std::string kept = "k5__kernel-5000.earlier-20241004T010000Z.sqlite";
  ASSERT_TRUE(std::filesystem::exists(session.results / kept));
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  bool found = false;
  for (const auto& row : manifest.rows) {
    if (row[manifest.Column("artifact")] != kept) continue;
    found = true;
    EXPECT_EQ(row[manifest.Column("sha256")], sha);
    EXPECT_EQ(row[manifest.Column("config")], "k5");
    EXPECT_EQ(row[manifest.Column("timestamp")], "2024-10-04T00:00:00Z");
  }
  EXPECT_TRUE(found);
}

// Rows not quotable because the run is shorter than [guards] min_units stay so however often
// they run: --resume keeps them and says how many; once min_units allows the run, they run again.
TEST_F(SweepRunnerTest, ResumeKeepsRowsThatARerunCannotMakeQuotable) {
  const std::string guards = std::string(kIdentity) + "[guards]\nmin_units = 100\n";
  CampaignSession session = OpenCampaign(Spec(guards), Options(), fake.system);
  RunSweep(session, false, fake.system);
  EXPECT_EQ(workload_runs, 2);
  fake.messages.clear();
  SweepOutcome resumed = RunSweep(session, true, fake.system);
  EXPECT_EQ(resumed.skipped, 2);
  EXPECT_EQ(workload_runs, 2);
  const std::string note =
      "gpuroof: note: --resume: kept 2 unquotable row(s) of 2 configuration(s): re-running would "
      "not change why (their units are below [guards] min_units 100; change units or min_units "
      "to run them again)";
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(), note), fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
  for (const std::string& message : fake.messages)
    EXPECT_EQ(message.find("re-running 2"), std::string::npos) << message;
  const std::string allowed = std::string(kIdentity) + "[guards]\nmin_units = 5\n";
  RunSweep(OpenCampaign(Spec(allowed), Options(), fake.system), true, fake.system);
  EXPECT_EQ(workload_runs, 4);
}

// A file at a trace's name that no probes.csv row points at is kept under the .earlier- rule;
// one that rows of another key point at (another sweep file's configuration) is refused before
// anything runs, so every row keeps pointing at its own bytes.
TEST_F(SweepRunnerTest, AFileAtATraceNameIsNeverWrittenOver) {
  CampaignSession session = OpenCampaign(Spec(kIdentity), Options(), fake.system);
  const std::filesystem::path trace = session.results / "k5__kernel-5000.sqlite";
  testing::WriteText(trace, "my precious notes\n");
  RunSweep(session, false, fake.system);
  const std::filesystem::path kept =
      session.results / "k5__kernel-5000.earlier-20241004T000000Z.sqlite";
  ASSERT_TRUE(std::filesystem::exists(kept));
  EXPECT_EQ(testing::ReadText(kept), "my precious notes\n");
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                      "gpuroof: note: k5: " + trace.string() +
                          " is no trace of a probes.csv row (a file of your own, or a trace whose "
                          "rows were deleted): kept as "
                          "k5__kernel-5000.earlier-20241004T000000Z.sqlite, not written over"),
            fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));

  const std::string sha = Sha256OfFile(trace);
  SweepSpec other = SpecLabelledAsK5sTrace();
  const int runs = workload_runs;
  CampaignOptions dry = Options();
  dry.dry_run = true;
  EXPECT_THROW(CheckSweepResultsFiles(OpenCampaign(other, dry, fake.system)), InputError);
  try {
    RunSweep(OpenCampaign(other, Options(), fake.system), false, fake.system);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              trace.string() +
                  ": is the trace of 1 probes.csv row key(s) (label=k5;kernel=5000) other than "
                  "k5__kernel-5000's (key label=k5__kernel-5000): this sweep would write its "
                  "trace over it; give k5__kernel-5000 another label, or use another --results "
                  "folder");
  }
  EXPECT_EQ(workload_runs, runs);
  EXPECT_EQ(Sha256OfFile(trace), sha);
}

}  // namespace
}  // namespace gpuroof
