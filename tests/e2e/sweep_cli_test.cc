// End-to-end `gpuroof sweep`: the profiler is `command`, the workload a script writing traces with
// gpuroof-trace-builder, and nvidia-smi a fake on PATH, so the whole sweep runs without a GPU.
// Figures are worked out by hand from the workload's frame layout (sweep_workload.h).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "sweep_cli_fixture.h"
#include "sweep_workload.h"

namespace gpuroof::testing {
namespace {

TEST_F(SweepCli, FilesCarryTheKeyAndRowsHoldTheHandWorkedRoofline) {
  std::filesystem::path spec = WriteSpec();
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::path folder = OnlyResultsFolder();
  EXPECT_EQ(folder.filename().string().substr(10), "_b1");  // <date>_<build>
  EXPECT_TRUE(std::filesystem::exists(folder / "k5__kernel-5000.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(folder / "k4__kernel-4000.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(folder / "env.json"));
  auto rows = Csv(folder / "probes.csv");
  ASSERT_EQ(rows.size(), 2u);
  // Kernel busy 10 x 5 us = 50 us for 10 frames: 200000 frames/s; with 4 us kernels 250000.
  EXPECT_EQ(rows[1].at("key"), "label=k5;kernel=5000");
  EXPECT_EQ(rows[1].at("roofline_units_per_s"), "200000");
  EXPECT_EQ(rows[1].at("bottleneck"), "kernel");
  EXPECT_EQ(rows[1].at("H2D_us_per_unit"), "2.7");  // 9 uploads of 3 us in the window
  EXPECT_NEAR(std::stod(rows[0].at("roofline_units_per_s")), 250000, 1e-6);
  EXPECT_EQ(rows[0].at("build"), "b1");
  // The final table on stdout.
  EXPECT_NE(r.out.find("200000.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("250000.0"), std::string::npos) << r.out;
  // The manifest's digest agrees with sha256sum.
  auto manifest = Csv(folder / "manifest.csv");
  ASSERT_EQ(manifest.size(), 2u);
  CliResult sum = RunProgram({"sha256sum", (folder / "k5__kernel-5000.sqlite").string()});
  ASSERT_EQ(sum.exit_code, 0);
  EXPECT_EQ(manifest[1].at("artifact"), "k5__kernel-5000.sqlite");
  EXPECT_EQ(manifest[1].at("sha256"), sum.out.substr(0, 64));
  std::string env = ReadFile(folder / "env.json");
  EXPECT_NE(env.find("\"gpu_utilisation_at_start_pct\": 0"), std::string::npos) << env;
  EXPECT_NE(env.find("\"name\": \"Fake GPU\""), std::string::npos) << env;
}

TEST_F(SweepCli, ReRunOfOneConfigurationReplacesExactlyItsRow) {
  std::filesystem::path spec = WriteSpec();
  ASSERT_EQ(RunGpuroof({"sweep", spec.string(), "--results", Results().string()}).exit_code, 0);
  std::filesystem::path folder = OnlyResultsFolder();
  auto before = Csv(folder / "probes.csv");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // timestamps have 1 s steps
  CliResult r =
      RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--only", "k4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto after = Csv(folder / "probes.csv");
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1], before[1]);  // k5 untouched
  EXPECT_EQ(after[0].at("key"), "label=k4;kernel=4000");
  EXPECT_NE(after[0].at("timestamp"), before[0].at("timestamp"));
  EXPECT_EQ(Csv(folder / "manifest.csv").size(), 2u);
}

TEST_F(SweepCli, SetChangesFileNamesAndKeys) {
  std::filesystem::path spec = WriteSpec();
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--only", "k5",
                            "--set", "kernel=1500"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::path folder = OnlyResultsFolder();
  EXPECT_TRUE(std::filesystem::exists(folder / "k5__kernel-1500.sqlite"));
  EXPECT_FALSE(std::filesystem::exists(folder / "k5__kernel-5000.sqlite"));
  auto rows = Csv(folder / "probes.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("key"), "label=k5;kernel=1500");
  // Kernels of 1.5 us: the 3 us uploads bind now. 9 uploads in the window (27 us) for 10 frames.
  EXPECT_EQ(rows[0].at("bottleneck"), "H2D");
  EXPECT_EQ(rows[0].at("roofline_us_per_unit"), "2.7");
}

TEST_F(SweepCli, ParameterValuesReachTheCommandAsOneLiteralArgument) {
  const std::string value = "a;b \"c\" 'd' $(touch pwned) `touch pwned2` {x}";
  std::filesystem::path spec = WriteSpec("note = \"\"\"" + value + "\"\"\"\n",
                                         {"--note", "{note}", "--note-file", "{results}/note.txt"});
  CliResult r =
      RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--only", "k5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(OnlyResultsFolder() / "note.txt"), value);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "pwned"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "pwned2"));
}

TEST_F(SweepCli, LabelsCannotWriteOutsideTheResultsFolder) {
  std::filesystem::path spec = WriteSpec("", {},
                                         "[[configurations]]\nlabel = \"../../escape\"\n"
                                         "[[configurations]]\nlabel = \"/tmp/abs\"\n");
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::path folder = OnlyResultsFolder();
  EXPECT_TRUE(std::filesystem::exists(folder / "_.._.._escape.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(folder / "_tmp_abs.sqlite"));
  // Nothing new next to the results root or above it.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "results" || name == "bin" || name == "workload.sh" || name == "sweep.toml")
        << name;
  }
}

TEST_F(SweepCli, StaleBuildIsRefusedWithBothTimestamps) {
  std::filesystem::create_directories(dir.path() / "build" / "lib");
  std::filesystem::create_directories(dir.path() / "src");
  WriteFile(dir.path() / "build" / "lib" / "app.so", "");
  WriteFile(dir.path() / "src" / "kernel.cu", "");
  auto now = std::filesystem::file_time_type::clock::now();
  std::filesystem::last_write_time(dir.path() / "build" / "lib" / "app.so",
                                   now - std::chrono::hours(1));
  std::filesystem::last_write_time(dir.path() / "src" / "kernel.cu", now);
  std::filesystem::path spec =
      WriteSpec("", {}, "",
                "[build]\nidentity_command = [\"echo\", \"b1\"]\n"
                "artifacts = [\"build/**/*.so\"]\nsources = [\"src/**/*.cu\"]\n");
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("gpuroof: error: the build is stale: source " +
                            (dir.path() / "src" / "kernel.cu").string() + " (modified 20",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("is newer than artifact " +
                       (dir.path() / "build" / "lib" / "app.so").string() + " (built 20"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(Results()));
  // Rebuilt: the artifact is newer again and the sweep runs.
  std::filesystem::last_write_time(dir.path() / "build" / "lib" / "app.so",
                                   now + std::chrono::seconds(1));
  EXPECT_EQ(RunGpuroof({"sweep", spec.string(), "--results", Results().string()}).exit_code, 0);
}

TEST_F(SweepCli, BusyGpuIsRefusedUnlessAllowed) {
  WriteFakeNvidiaSmi(dir.path() / "bin", 87);
  std::filesystem::path spec = WriteSpec();
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "gpuroof: error: a GPU is 87 % busy (limit 5 %, from nvidia-smi): its numbers would "
            "not be quotable; wait for it to go idle, or pass --allow-busy-gpu to mark the rows "
            "not quotable\n");
  EXPECT_FALSE(std::filesystem::exists(Results()));
  CliResult allowed =
      RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--allow-busy-gpu"});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  for (const auto& row : Csv(OnlyResultsFolder() / "probes.csv"))
    EXPECT_EQ(row.at("quotable"), "no");
}

TEST_F(SweepCli, AFailedConfigurationIsRecordedTheRestRunAndTheExitIsNonZero) {
  std::filesystem::path spec =
      WriteSpec("fail = 0\n", {"--fail", "{fail}"},
                "[[configurations]]\nlabel = \"bad\"\nfail = 3\n[[configurations]]\nlabel = "
                "\"good\"\n");
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gpuroof: error: bad: the command exited with status 3: workload: CUDA "
                       "error: out of memory"),
            std::string::npos)
      << r.err;
  auto rows = Csv(OnlyResultsFolder() / "probes.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("status"), "failed");
  EXPECT_EQ(rows[0].at("exit_code"), "3");
  EXPECT_EQ(rows[1].at("status"), "ok");
  // --resume reruns only the failed one (it fails again; the good row is kept as it was).
  CliResult resumed =
      RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--resume"});
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_NE(resumed.err.find("--resume: good already has rows"), std::string::npos) << resumed.err;
  EXPECT_EQ(Csv(OnlyResultsFolder() / "probes.csv")[1], rows[1]);
}

TEST_F(SweepCli, KillNineMidSweepLeavesValidFilesWithEveryFinishedRow) {
  std::filesystem::path spec = WriteSpec(
      "sleep = 0\n", {"--pid-file", "{label}.pid", "--sleep", "{sleep}"},
      "[[configurations]]\nlabel = \"first\"\n[[configurations]]\nlabel = \"slow\"\nsleep = 30\n");
  pid_t pid =
      StartGpuroof({"sweep", spec.string(), "--results", Results().string()}, dir.path(), "killed");
  // Wait for the first row, then kill the whole process group while `slow` runs.
  bool first_done = false;
  for (int i = 0; i < 600 && !first_done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(Results(), ec)) {
      first_done = first_done ||
                   ReadFile(entry.path() / "probes.csv").find("label=first") != std::string::npos;
    }
  }
  ASSERT_TRUE(first_done);
  const std::filesystem::path slow_pid = dir.path() / "slow.pid";
  ASSERT_TRUE(WaitForFile(slow_pid));
  kill(-pid, SIGKILL);
  EXPECT_EQ(WaitFor(pid), 128 + SIGKILL);
  // The workload leads a process group of its own (so SIGTERM can be forwarded to it); nothing
  // can forward SIGKILL, so the test ends it itself.
  kill(-std::stoi(ReadFile(slow_pid)), SIGKILL);
  std::filesystem::path folder = OnlyResultsFolder();
  auto rows = Csv(folder / "probes.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("label"), "first");
  EXPECT_EQ(rows[0].at("status"), "ok");
  auto manifest = Csv(folder / "manifest.csv");
  ASSERT_EQ(manifest.size(), 1u);
  EXPECT_EQ(manifest[0].at("artifact"), "first__sleep-0.sqlite");
  EXPECT_FALSE(std::filesystem::exists(folder / "slow__sleep-30.sqlite"));
}

TEST_F(SweepCli, TwoConcurrentSweepsIntoOneFolderLoseNoRow) {
  std::string configurations;
  for (int i = 0; i < 6; ++i)
    configurations += "[[configurations]]\nlabel = \"c" + std::to_string(i) + "\"\n";
  std::filesystem::path spec = WriteSpec("", {}, configurations);
  pid_t a = StartGpuroof({"sweep", spec.string(), "--results", Results().string(), "--only", "c0",
                          "--only", "c2", "--only", "c4"},
                         dir.path(), "a");
  pid_t b = StartGpuroof({"sweep", spec.string(), "--results", Results().string(), "--only", "c1",
                          "--only", "c3", "--only", "c5"},
                         dir.path(), "b");
  EXPECT_EQ(WaitFor(a), 0) << ReadFile(dir.path() / "a.err");
  EXPECT_EQ(WaitFor(b), 0) << ReadFile(dir.path() / "b.err");
  std::filesystem::path folder = OnlyResultsFolder();
  auto rows = Csv(folder / "probes.csv");
  ASSERT_EQ(rows.size(), 6u);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(rows[i].at("label"), "c" + std::to_string(i));
  EXPECT_EQ(Csv(folder / "manifest.csv").size(), 6u);
}

TEST_F(SweepCli, BadSweepFilesEndInOneLineWithFileAndLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  std::vector<Case> cases = {
      {"[command]\nargv = [\"x\"]\n[parameters\ncap = 1\n", ":3: TOML syntax error: "},
      {"[command]\nargv = [\"x\", \"{nope}\"]\n[[configurations]]\nlabel = \"a\"\n",
       ":2: unknown placeholder {nope} in \"{nope}\""},
      {"configurations = []\n[command]\nargv = [\"x\"]\n", ":1: the configuration list is empty"},
  };
  for (const Case& c : cases) {
    WriteFile(dir.path() / "bad.toml", c.text);
    CliResult r = RunGpuroof({"sweep", (dir.path() / "bad.toml").string()});
    EXPECT_EQ(r.exit_code, 2) << c.text;
    std::string prefix = "gpuroof: error: " + (dir.path() / "bad.toml").string() + c.message;
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST_F(SweepCli, DryRunPrintsThePlanAndWritesNothing) {
  std::filesystem::path spec = WriteSpec();
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("key:   label=k4;kernel=4000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("k4__kernel-4000.sqlite"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(Results()));
}

// A dry run refuses what the run would refuse before anything runs, with the same one line:
// a probes.csv or manifest.csv of other columns, and a results folder that cannot be made.
TEST_F(SweepCli, DryRunRefusesWhatTheRunRefuses) {
  std::filesystem::path spec = WriteSpec();
  const std::vector<std::string> sweep = {"sweep", spec.string(), "--results", Results().string()};
  std::vector<std::string> dry = sweep;
  dry.push_back("--dry-run");
  ASSERT_EQ(RunGpuroof(sweep).exit_code, 0);
  const std::filesystem::path folder = OnlyResultsFolder();
  for (const char* name : {"probes.csv", "manifest.csv"}) {
    const std::string kept = ReadFile(folder / name);
    WriteFile(folder / name, "foreign,columns\n1,2\n");
    CliResult planned = RunGpuroof(dry);
    CliResult run = RunGpuroof(sweep);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(planned.exit_code, 2) << name << ": " << planned.err;
    const std::string error = "gpuroof: error: " + (folder / name).string() +
                              ": has other columns than this gpuroof writes";
    EXPECT_NE(planned.err.find(error), std::string::npos) << planned.err;
    auto error_line = [](const std::string& err) {
      const size_t at = err.find("gpuroof: error:");
      return at == std::string::npos ? std::string() : err.substr(at);
    };
    EXPECT_EQ(error_line(planned.err), error_line(run.err));
    WriteFile(folder / name, kept);
  }
  // --results naming a file: no plan under it.
  for (const std::vector<std::string>& args : {sweep, dry}) {
    std::vector<std::string> onto_file = args;
    onto_file[3] = spec.string();
    CliResult r = RunGpuroof(onto_file);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("cannot create the results folder: " + spec.string() + " is not a folder"),
              std::string::npos)
        << r.err;
  }
}

// The bundled example plans from any folder, before its (hypothetical) project is built.
// An argv[0] that names no executable file is refused with its line before anything runs: no
// results folder. A dry run says it would refuse (a checkout not built yet still shows its plan).
TEST_F(SweepCli, AProgramThatDoesNotExistIsRefusedWithItsLine) {
  std::filesystem::path spec = WriteSpec();
  std::string text = ReadFile(spec);
  const std::string program = "\"" + workload.string() + "\"";
  text.replace(text.find(program), program.size(), "\"/nonexistent/prog\"");
  WriteFile(spec, text);
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gpuroof: error: " + spec.string() + ":2: argv[0] /nonexistent/prog does not exist\n");
  EXPECT_FALSE(std::filesystem::exists(Results()));
  CliResult dry =
      RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0);
  EXPECT_NE(dry.err.find("(dry run) would refuse: " + spec.string() +
                         ":2: argv[0] /nonexistent/prog does not exist"),
            std::string::npos)
      << dry.err;
  // A bare name is looked up on PATH.
  text = ReadFile(spec);
  text.replace(text.find("\"/nonexistent/prog\""), 19, "\"no-such-gpuroof-prog\"");
  WriteFile(spec, text);
  r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(":2: argv[0] no-such-gpuroof-prog is no executable file on PATH"),
            std::string::npos)
      << r.err;
}

// A bare argv[0] is looked up on the PATH that will start it: gpuroof's own for profiler
// "command" (posix_spawnp searches the parent's PATH), not the sweep file's env PATH.
TEST_F(SweepCli, ABareProgramIsLookedUpOnThePathThatStartsIt) {
  std::filesystem::create_directories(dir.path() / "pbin");
  std::filesystem::copy_file(workload, dir.path() / "pbin" / "gpuroof-pbin-wl.sh");
  std::filesystem::copy_file(workload, dir.path() / "bin" / "gpuroof-bin-wl.sh");
  const std::string program = "\"" + workload.string() + "\"";
  auto write = [&](const std::string& name, const std::string& path) {
    std::filesystem::path spec = WriteSpec();
    std::string text = ReadFile(spec);
    text.replace(text.find(program), program.size(), "\"" + name + "\"");
    text.replace(text.find("env = { "), 8, "env = { PATH = \"" + path + "\", ");
    WriteFile(spec, text);
    return spec;
  };
  // Only on the sweep file's PATH: the runner could not start it, so it is refused.
  std::filesystem::path spec =
      write("gpuroof-pbin-wl.sh", (dir.path() / "pbin").string() + ":/usr/bin:/bin");
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gpuroof: error: " + spec.string() +
                       ":2: argv[0] gpuroof-pbin-wl.sh is no executable file on PATH (gpuroof's "
                       "own PATH, which starts it)\n");
  EXPECT_FALSE(std::filesystem::exists(Results()));
  // Only on gpuroof's PATH, with a sweep file PATH that lacks it: started, and it runs.
  spec = write("gpuroof-bin-wl.sh", "/usr/bin:/bin");
  r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("argv[0]"), std::string::npos) << r.err;
}

TEST_F(SweepCli, BundledExampleDryRunsWithoutItsBuild) {
  const std::string example = (SourceDir() / "examples" / "sweeps" / "clusterfinder.toml").string();
  CliResult r = RunGpuroof({"sweep", example, "--results", Results().string(), "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("build identity unknown"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("c9-cap1700__cluster-9__cap-1700__streams-4"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(Results()));
}

// SIGTERM to gpuroof alone (not its group, as `kill PID` does): it reaches the workload's own
// process group, the partial trace goes, the finished row stays and the exit status is 143.
TEST_F(SweepCli, SigtermStopsTheProfiledCommandAndRemovesItsPartialTrace) {
  std::filesystem::path spec = WriteSpecWithASlowSecondConfiguration();
  pid_t pid =
      StartGpuroof({"sweep", spec.string(), "--results", Results().string()}, dir.path(), "term");
  const std::filesystem::path pid_file = dir.path() / "slow.pid";
  ASSERT_TRUE(WaitForFile(pid_file)) << ReadFile(dir.path() / "term.err");
  const pid_t workload_pid = std::stoi(ReadFile(pid_file));
  kill(pid, SIGTERM);
  EXPECT_EQ(WaitFor(pid), 128 + SIGTERM);
  // gpuroof waited for (and reaped) the workload before it exited: it is gone.
  errno = 0;
  EXPECT_EQ(kill(workload_pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  if (kill(workload_pid, 0) == 0) kill(-workload_pid, SIGKILL);  // not to outlive the test
  std::string err = ReadFile(dir.path() / "term.err");
  EXPECT_NE(err.find("gpuroof: interrupted by signal 15"), std::string::npos) << err;
  std::filesystem::path folder = OnlyResultsFolder();
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry;
  auto rows = Csv(folder / "probes.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("label"), "first");
}

// A sweep whose one configuration runs `script` (sh -c), which gets {trace} as $0.
std::filesystem::path WriteShellSweep(const std::filesystem::path& folder,
                                      const std::string& script) {
  const std::filesystem::path spec = folder / "stubborn.toml";
  WriteFile(spec, "[command]\nargv = [\"/bin/sh\", \"-c\", \"" + script +
                      "\", \"{trace}\"]\n[[configurations]]\nlabel = \"s\"\n"
                      "[run]\nprofiler = \"command\"\n"
                      "[build]\nidentity_command = [\"echo\", \"b1\"]\n");
  return spec;
}

// A command that ignores SIGTERM: gpuroof says it waits for it, kills its process group when the
// grace period ends, and reports the signal that stopped it.
TEST_F(SweepCli, ACommandThatIgnoresSigtermIsKilledAfterTheGracePeriod) {
  const std::filesystem::path spec =
      WriteShellSweep(dir.path(), "trap '' TERM INT; kill -TERM $PPID; sleep 300");
  setenv("GPUROOF_TERMINATION_GRACE_S", "1", 1);
  const auto started = std::chrono::steady_clock::now();
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  unsetenv("GPUROOF_TERMINATION_GRACE_S");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("gpuroof: signal 15 (Terminated): waiting for /bin/sh (pid "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" to exit; a second signal, or 1 s, kills it\n"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("did not exit 1 s after signal 15 (Terminated): killed it and its process "
                       "group\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("gpuroof: interrupted by signal 15 (Terminated): stopped"),
            std::string::npos)
      << r.err;
}

// A second signal (here SIGINT, as a second Ctrl-C) kills the command at once, long before the
// grace period of 10 s ends; the exit status and the message name the first signal, SIGTERM.
TEST_F(SweepCli, ASecondSignalKillsTheCommandAndTheFirstIsReported) {
  const std::filesystem::path spec = WriteShellSweep(
      dir.path(), "trap '' TERM INT; kill -TERM $PPID; sleep 2; kill -INT $PPID; sleep 300");
  const auto started = std::chrono::steady_clock::now();
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", Results().string()});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(9));
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("gpuroof: signal 15 (Terminated): waiting for /bin/sh"), std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find("gpuroof: a second signal came (signal 2 (Interrupt)): killed /bin/sh (pid "),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("gpuroof: interrupted by signal 15 (Terminated): stopped"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("interrupted by signal 2"), std::string::npos) << r.err;
}

// The results folder is relative to where gpuroof runs, not to the command's workdir.
TEST_F(SweepCli, ARelativeResultsFolderWorksFromAnotherFolder) {
  WriteSpec();
  std::filesystem::create_directories(dir.path() / "elsewhere");
  CliResult r = RunProgram({"sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh",
                            (dir.path() / "elsewhere").string(), GPUROOF_BINARY, "sweep",
                            "../sweep.toml", "--results", "res"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::filesystem::path> folders;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() / "elsewhere" / "res"))
    folders.push_back(entry.path());
  ASSERT_EQ(folders.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(folders[0] / "k5__kernel-5000.sqlite"));
  EXPECT_EQ(Csv(folders[0] / "probes.csv").size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "res"));
}

TEST_F(SweepCli, MisusedArgumentsEndInOneLine) {
  std::filesystem::path spec = WriteSpec();
  CliResult folder = RunGpuroof({"sweep", dir.path().string()});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_EQ(folder.err, "gpuroof: error: " + dir.path().string() +
                            ": is a directory, expected a sweep file (TOML)\n");
  CliResult empty = RunGpuroof({"sweep", spec.string(), "--results", ""});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err.rfind("gpuroof: error: --results: is empty", 0), 0u) << empty.err;
  // A label that would overwrite env.json (a Kineto trace is <label>.json), under --dry-run too.
  WriteSpec("", {}, "[[configurations]]\nlabel = \"env\"\n");
  CliResult reserved =
      RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--dry-run"});
  EXPECT_EQ(reserved.exit_code, 2);
  EXPECT_NE(reserved.err.find(spec.string() + ":8: label 'env' would write env.*"),
            std::string::npos)
      << reserved.err;
  EXPECT_FALSE(std::filesystem::exists(Results()));
}

}  // namespace
}  // namespace gpuroof::testing
