// `gpuroof record` as a user runs it, on a machine without a GPU: argument errors, the no-driver
// and no-recorder errors (nothing runs, no file appears), and, with a fake driver and a fake
// CUDA program standing in for the injected recorder, exit codes and output-file safety; then
// `gpuroof sweep` with profiler "record" over the same fakes.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/process/process_runner.h"

#include "cli_runner.h"
#include "support/gone_pid.h"
#include "support/scoped_env.h"

namespace gpuroof::testing {
namespace {

namespace fs = std::filesystem;

// Nothing but the files the test itself made.
std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

class RecordCliTest : public ::testing::Test {
 protected:
  // A fake driver with one GPU, and a "recorder library" that exists (the fake program writes
  // the trace itself, so the library is never loaded).
  void UseFakeGpu() {
    env_.Set("GPUROOF_CUDA_DRIVER_LIBRARY", GPUROOF_FAKE_DRIVER);
    env_.Set("GPUROOF_RECORDER_LIBRARY", GPUROOF_FAKE_DRIVER);
    env_.Unset("GPUROOF_FAKE_CUDA_INIT");
    env_.Unset("GPUROOF_FAKE_CUDA_DEVICES");
  }
  TempDir dir_;
  testsupport::ScopedEnv env_;
};

TEST_F(RecordCliTest, NoCommandIsAnError) {
  CliResult r = RunGpuroof({"record", "-o", (dir_ / "t.sqlite").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no command given"), std::string::npos) << r.err;
  EXPECT_TRUE(Listing(dir_.path()).empty());
}

TEST_F(RecordCliTest, UnknownOptionIsAnError) {
  CliResult r = RunGpuroof({"record", "--bogus", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
}

TEST_F(RecordCliTest, MissingOutputFolderIsRefusedBeforeRunning) {
  UseFakeGpu();
  const fs::path marker = dir_ / "ran";
  CliResult r = RunGpuroof(
      {"record", "-o", (dir_ / "no" / "t.sqlite").string(), "--", "touch", marker.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker));
}

// The machine this project's CI runs on: no driver. The message says so, nothing runs, and an
// existing output file is left as it was.
TEST_F(RecordCliTest, WithoutADriverNothingRunsAndNoFileChanges) {
  env_.Set("GPUROOF_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  // Any existing file passes the library check, also in builds without the CUDA toolkit.
  env_.Set("GPUROOF_RECORDER_LIBRARY", GPUROOF_FAKE_DRIVER);
  const fs::path output = dir_ / "t.sqlite";
  WriteFile(output, "previous trace");
  const fs::path marker = dir_ / "ran";
  CliResult r = RunGpuroof({"record", "-o", output.string(), "--", "touch", marker.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpuroof: error: record: no NVIDIA driver: /nonexistent/libcuda.so.1 "
                       "cannot be loaded"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing was run"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_EQ(ReadFile(output), "previous trace");
  EXPECT_EQ(Listing(dir_.path()), std::vector<std::string>{"t.sqlite"});
}

// This machine as it is, when it has no driver (skipped on a GPU machine).
TEST_F(RecordCliTest, ThisMachineWithoutGpuGetsTheDocumentedMessage) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
    GTEST_SKIP() << "libcuda.so.1 loads here: this test is for machines without a driver";
  }
  env_.Unset("GPUROOF_CUDA_DRIVER_LIBRARY");
  env_.Set("GPUROOF_RECORDER_LIBRARY", GPUROOF_FAKE_DRIVER);
  CliResult r = RunGpuroof({"record", "-o", (dir_ / "t.sqlite").string(), "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no NVIDIA driver: libcuda.so.1 cannot be loaded"), std::string::npos)
      << r.err;
  EXPECT_TRUE(Listing(dir_.path()).empty());
}

TEST_F(RecordCliTest, DriverWithoutDevicesIsRefused) {
  UseFakeGpu();
  env_.Set("GPUROOF_FAKE_CUDA_DEVICES", "0");
  CliResult r = RunGpuroof({"record", "-o", (dir_ / "t.sqlite").string(), "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the CUDA driver sees no GPU"), std::string::npos) << r.err;
  env_.Set("GPUROOF_FAKE_CUDA_DEVICES", "1");
  env_.Set("GPUROOF_FAKE_CUDA_INIT", "100");  // CUDA_ERROR_NO_DEVICE
  r = RunGpuroof({"record", "-o", (dir_ / "t.sqlite").string(), "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cuInit failed with CUDA error 100"), std::string::npos) << r.err;
  EXPECT_TRUE(Listing(dir_.path()).empty());
}

TEST_F(RecordCliTest, MissingRecorderLibraryIsNamed) {
  UseFakeGpu();
  env_.Set("GPUROOF_RECORDER_LIBRARY", "/nonexistent/libgpuroof_recorder.so");
  CliResult r = RunGpuroof({"record", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/libgpuroof_recorder.so: GPUROOF_RECORDER_LIBRARY names no "
                       "such file"),
            std::string::npos)
      << r.err;
}

TEST_F(RecordCliTest, KeepsTheTraceAndReturnsTheCommandsExitCode) {
  UseFakeGpu();
  const fs::path output = dir_ / "run.sqlite";
  WriteFile(output, "previous trace");  // replaced only by a complete trace
  CliResult r =
      RunGpuroof({"record", "-o", output.string(), "--nvtx", "--", GPUROOF_FAKE_APP, "3", "trace"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("CUDA_INJECTION64_PATH=" GPUROOF_FAKE_DRIVER), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVTX_INJECTION64_PATH=" GPUROOF_FAKE_DRIVER), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPUROOF_RECORD_NVTX=1"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("exited with code 3 after "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(0.000 s of it writing the trace at exit)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 records written to " + output.string() + " (0 dropped)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Listing(dir_.path()), std::vector<std::string>{"run.sqlite"});  // no scratch left

  // The trace is one gpuroof reads: 3000 ns of H2D and 1000 ns of kernel.
  CliResult analyze =
      RunGpuroof({"analyze", output.string(), "--window", "all", "--format", "csv"});
  EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_NE(analyze.out.find("H2D"), std::string::npos) << analyze.out;
  CliResult kernels = RunGpuroof({"kernels", output.string(), "--format", "csv"});
  EXPECT_EQ(kernels.exit_code, 0) << kernels.err;
  EXPECT_NE(kernels.out.find("process"), std::string::npos) << kernels.out;
}

TEST_F(RecordCliTest, WithoutNvtxTheNvtxVariablesAreNotSet) {
  UseFakeGpu();
  env_.Unset("NVTX_INJECTION64_PATH");
  CliResult r = RunGpuroof(
      {"record", "-o", (dir_ / "run.sqlite").string(), "--", GPUROOF_FAKE_APP, "0", "trace"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NVTX_INJECTION64_PATH=(unset)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPUROOF_RECORD_NVTX=(unset)"), std::string::npos) << r.out;
}

TEST_F(RecordCliTest, DroppedRecordsAreReportedLoudly) {
  UseFakeGpu();
  CliResult r = RunGpuroof(
      {"record", "-o", (dir_ / "run.sqlite").string(), "--", GPUROOF_FAKE_APP, "0", "dropped"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: 3 records were DROPPED"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(3 dropped)"), std::string::npos) << r.err;
}

TEST_F(RecordCliTest, NoTraceLeavesTheOldFileAndFails) {
  UseFakeGpu();
  const fs::path output = dir_ / "run.sqlite";
  WriteFile(output, "previous trace");
  CliResult r = RunGpuroof({"record", "-o", output.string(), "--", GPUROOF_FAKE_APP, "0", "none"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no trace recorded"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(output), "previous trace");
  EXPECT_EQ(Listing(dir_.path()), std::vector<std::string>{"run.sqlite"});

  // A failing command keeps its own exit code.
  r = RunGpuroof({"record", "-o", output.string(), "--", GPUROOF_FAKE_APP, "7", "none"});
  EXPECT_EQ(r.exit_code, 7);
}

// A process that leaves without its exit handler (a signal, _exit) leaves a temporary trace and no
// status: it is said, the partial file is removed, and the error does not blame CUDA.
TEST_F(RecordCliTest, AProcessKilledWhileRecordingIsSaid) {
  UseFakeGpu();
  const fs::path output = dir_ / "run.sqlite";
  CliResult r =
      RunGpuroof({"record", "-o", output.string(), "--", GPUROOF_FAKE_APP, "0", "killed"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("started recording but never finished (killed or _exit): its trace is "
                       "lost"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no trace recorded: 1 process(es) started recording but never finished"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("did "), std::string::npos) << r.err;
  EXPECT_TRUE(Listing(dir_.path()).empty());
}

TEST_F(RecordCliTest, RecorderFailureIsShown) {
  UseFakeGpu();
  const fs::path output = dir_ / "run.sqlite";
  CliResult r = RunGpuroof({"record", "-o", output.string(), "--", GPUROOF_FAKE_APP, "0", "error"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("wrote no trace: cannot subscribe to CUPTI: "
                       "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(output));
  EXPECT_TRUE(Listing(dir_.path()).empty());
}

TEST_F(RecordCliTest, CommandThatCannotStartIsAnError) {
  UseFakeGpu();
  CliResult r =
      RunGpuroof({"record", "-o", (dir_ / "run.sqlite").string(), "--", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/program: cannot run"), std::string::npos) << r.err;
  EXPECT_TRUE(Listing(dir_.path()).empty());
}

// Whether process `pid` has ended (gone, or a zombie its new parent has not reaped yet), waiting
// up to 5 s for it.
bool Ended(pid_t pid) {
  for (int i = 0; i < 50; ++i) {
    const std::string stat = "/proc/" + std::to_string(pid) + "/stat";
    if (!fs::exists(stat)) return true;
    const std::string text = ReadFile(stat);
    const size_t paren = text.rfind(')');
    if (paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] == 'Z')
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// An executable script in the test's folder.
fs::path WriteScript(const fs::path& path, const std::string& text) {
  WriteFile(path, "#!/bin/sh\n" + text);
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

// dir/app.sh: runs the fake app (a trace), starts a background `sleep 300`, writes the sleep's
// pid and its own to `sleep_pid`, sends SIGTERM to its parent (gpuroof) and waits.
fs::path WriteScriptThatTermsItsParent(const fs::path& dir, const fs::path& sleep_pid) {
  return WriteScript(dir / "app.sh",
                     fmt::format("{} 0 trace >/dev/null\nsleep 300 &\necho $! $$ > {}\n"
                                 "kill -TERM $PPID\nwait\n",
                                 GPUROOF_FAKE_APP, sleep_pid.string()));
}

// The pids that script wrote: the background sleep's and the script's own.
struct ScriptPids {
  pid_t sleeper = 0;
  pid_t command = 0;
};
ScriptPids ReadScriptPids(const fs::path& sleep_pid) {
  std::istringstream pids(ReadFile(sleep_pid));
  ScriptPids read;
  pids >> read.sleeper >> read.command;
  return read;
}

// SIGTERM to gpuroof alone (here from the command itself, as `kill PID` would send it): it is
// forwarded to the command (which stays in gpuroof's process group, so only the command itself
// gets it: its background `sleep` does not), gpuroof waits for it, removes its scratch folder,
// says so in one line and exits 143; the existing output is kept.
TEST_F(RecordCliTest, SigtermStopsTheCommandAndLeavesNothingBehind) {
  UseFakeGpu();
  const fs::path output = dir_ / "t.sqlite";
  WriteFile(output, "previous trace");
  const fs::path sleep_pid = dir_ / "sleep.pid";
  const fs::path script = WriteScriptThatTermsItsParent(dir_.path(), sleep_pid);
  const auto started = std::chrono::steady_clock::now();
  CliResult r = RunGpuroof({"record", "-o", output.string(), "--", script.string()});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_EQ(r.err,
            "gpuroof: error: record: interrupted by signal 15 (Terminated): the command was "
            "stopped; nothing was recorded, " +
                output.string() + " was not written\n");
  EXPECT_EQ(ReadFile(output), "previous trace");
  EXPECT_EQ(Listing(dir_.path()), (std::vector<std::string>{"app.sh", "sleep.pid", "t.sqlite"}));
  ASSERT_TRUE(fs::exists(sleep_pid));
  const auto [sleeper, command] = ReadScriptPids(sleep_pid);
  EXPECT_TRUE(Ended(command));
  kill(sleeper, SIGKILL);  // not to outlive the test
}

// When gpuroof leads its process group (a shell's job; here setsid), SIGTERM sent to gpuroof alone
// reaches what the command started too: a wrapper script's application does not run on.
TEST_F(RecordCliTest, SigtermToAGroupLeadingGpuroofStopsWhatTheCommandStarted) {
  UseFakeGpu();
  const fs::path output = dir_ / "t.sqlite";
  const fs::path sleep_pid = dir_ / "sleep.pid";
  const fs::path script = WriteScriptThatTermsItsParent(dir_.path(), sleep_pid);
  const auto started = std::chrono::steady_clock::now();
  CliResult r = RunProgram(
      {"setsid", "--wait", GPUROOF_BINARY, "record", "-o", output.string(), "--", script.string()});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  // One signal, forwarded once: gpuroof's own copy is not a second one.
  EXPECT_EQ(r.err.find("second signal"), std::string::npos) << r.err;
  ASSERT_TRUE(fs::exists(sleep_pid));
  const auto [sleeper, command] = ReadScriptPids(sleep_pid);
  EXPECT_TRUE(Ended(command));
  EXPECT_TRUE(Ended(sleeper));
  kill(sleeper, SIGKILL);  // not to outlive a failed test
}

// Ctrl-C, or any signal to gpuroof's process group (`timeout -s INT`, `kill -INT -PGID`), reaches
// the command whatever stdin is (the runner gives /dev/null): it stays in gpuroof's group. The
// command dies of SIGINT, the trace it wrote is kept and record exits with its code, 130.
TEST_F(RecordCliTest, SigintToGpuroofsGroupStopsTheCommandWhateverStdinIs) {
  UseFakeGpu();
  const fs::path output = dir_ / "i.sqlite";
  const fs::path script = WriteScript(
      dir_ / "app.sh",
      fmt::format("{} 0 trace >/dev/null\nkill -INT -$(cut -d' ' -f5 /proc/$PPID/stat)\n"
                  "sleep 30\n",
                  GPUROOF_FAKE_APP));
  const auto started = std::chrono::steady_clock::now();
  // setsid: gpuroof leads a process group of its own, not the test's.
  CliResult r = RunProgram(
      {"setsid", "--wait", GPUROOF_BINARY, "record", "-o", output.string(), "--", script.string()});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20)) << r.err;
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  EXPECT_TRUE(fs::exists(output)) << r.err;
  EXPECT_EQ(r.err.find("interrupted"), std::string::npos) << r.err;
}

// A command that ignores SIGTERM: gpuroof says it waits, kills the command (exec: the command is
// `sleep` itself; it shares gpuroof's group) after the grace period and still reports SIGTERM.
TEST_F(RecordCliTest, ACommandThatIgnoresSigtermIsKilledAfterTheGracePeriod) {
  UseFakeGpu();
  env_.Set(kTerminationGraceEnv, "1");
  const fs::path output = dir_ / "t.sqlite";
  const fs::path script = WriteScript(
      dir_ / "app.sh", fmt::format("trap '' TERM\n{} 0 trace >/dev/null\nkill -TERM $PPID\n"
                                   "exec sleep 300\n",
                                   GPUROOF_FAKE_APP));
  const auto started = std::chrono::steady_clock::now();
  CliResult r = RunGpuroof({"record", "-o", output.string(), "--", script.string()});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("gpuroof: signal 15 (Terminated): waiting for " + script.string()),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" did not exit 1 s after signal 15 (Terminated): killed it\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("gpuroof: error: record: interrupted by signal 15 (Terminated)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Listing(dir_.path()), (std::vector<std::string>{"app.sh"}));
}

// A record killed outright (SIGKILL) leaves its scratch folder; the next record in the folder
// removes it, and any other left by a gone process of this machine, with a note. A live run's,
// another machine's, a pid-only name (it may be another machine's), an empty folder, a folder
// holding anything but the recorder's files and a symbolic link are kept.
TEST_F(RecordCliTest, ScratchFoldersOfKilledRecordsAreRemoved) {
  UseFakeGpu();
  const pid_t gone = testsupport::GonePid();
  ASSERT_GT(gone, 0);
  const std::string own = ProcessTag();
  const std::string host = own.substr(own.find('-'));
  const std::string other_host = host == "-00000000" ? "-00000001" : "-00000000";
  const std::string dead = std::to_string(gone);
  const std::vector<std::string> removed = {".a.sqlite.record-" + dead + host};
  const std::vector<std::string> kept = {".c.sqlite.record-" + std::to_string(getpid()) + host,
                                         ".d.sqlite.record-" + dead + other_host,
                                         ".e.record-" + dead + host, ".b.sqlite.record-" + dead};
  for (const std::string& name : removed) {
    fs::create_directory(dir_ / name);
    WriteFile(dir_ / name / (dead + ".sqlite"), "x");
    WriteFile(dir_ / name / (dead + ".sqlite.status"), "x");
  }
  for (const std::string& name : kept) {
    fs::create_directory(dir_ / name);
    WriteFile(dir_ / name / (dead + ".sqlite.tmp"), "x");
  }
  WriteFile(dir_ / (".e.record-" + dead + host) / "notes.txt", "mine");
  const fs::path empty = dir_ / (".f.sqlite.record-" + dead + host);
  fs::create_directory(empty);
  const fs::path target = dir_ / "target";
  fs::create_directory(target);
  WriteFile(target / (dead + ".sqlite"), "x");
  const fs::path link = dir_ / (".g.sqlite.record-" + dead + host);
  fs::create_directory_symlink(target, link);
  const fs::path output = dir_ / "t.sqlite";
  CliResult r = RunGpuroof({"record", "-o", output.string(), "--", GPUROOF_FAKE_APP, "0", "trace"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& name : removed) {
    EXPECT_FALSE(fs::exists(dir_ / name)) << name;
    EXPECT_NE(r.err.find("gpuroof record: note: removed " + (dir_ / name).string() +
                         " (the scratch folder of a record that was killed)\n"),
              std::string::npos)
        << r.err;
  }
  for (const std::string& name : kept)
    EXPECT_TRUE(fs::exists(dir_ / name)) << name;
  EXPECT_TRUE(fs::exists(empty));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::exists(target / (dead + ".sqlite")));
  EXPECT_EQ(r.err.find("note: removed"), r.err.rfind("note: removed")) << r.err;  // one note
  EXPECT_TRUE(fs::is_regular_file(output));
}

// `gpuroof sweep` with profiler "record": the same fake driver and program, four configurations
// covering a kept trace, a program that never used CUDA, a recorder that failed and dropped
// records. Figures by hand: the processing window is the fake's one 1 us kernel, one frame.
class RecordSweepCliTest : public RecordCliTest {
 protected:
  fs::path WriteSweep(const std::string& run_extra = "") {
    const fs::path spec = dir_ / "sweep.toml";
    WriteFile(spec, fmt::format("[command]\nargv = [\"{}\", \"0\", \"{{mode}}\"]\n"
                                "[parameters]\nmode = \"trace\"\nframes = 1\n"
                                "[[configurations]]\nlabel = \"ok\"\n"
                                "[[configurations]]\nlabel = \"silent\"\nmode = \"none\"\n"
                                "[[configurations]]\nlabel = \"broken\"\nmode = \"error\"\n"
                                "[[configurations]]\nlabel = \"dropped\"\nmode = \"dropped\"\n"
                                "[run]\nprofiler = \"record\"\nunits = \"{{frames}}\"\n"
                                "key = [\"mode\"]\n{}"
                                "[build]\nidentity_command = [\"echo\", \"b1\"]\n"
                                "[guards]\nmax_gpu_utilisation_pct = 100\n",
                                GPUROOF_FAKE_APP, run_extra));
    env_.Set("GPUROOF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
    return spec;
  }
};

TEST_F(RecordSweepCliTest, PublishesEachTraceOrSaysWhyNot) {
  UseFakeGpu();
  const fs::path spec = WriteSweep("record_nvtx = true\n");
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", (dir_ / "results").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // two configurations failed
  std::vector<std::string> folders = Listing(dir_ / "results");
  ASSERT_EQ(folders.size(), 1u);
  const fs::path folder = dir_ / "results" / folders[0];
  EXPECT_EQ(Listing(folder),
            (std::vector<std::string>{"dropped__mode-dropped.sqlite", "env.json", "manifest.csv",
                                      "ok__mode-trace.sqlite", "probes.csv"}));
  const std::string probes = ReadFile(folder / "probes.csv");
  // ok: 1 us of kernel per frame, so 1000000 frames/s; dropped: the same, not quotable.
  EXPECT_NE(probes.find(",kernel,1,1000000,1,"), std::string::npos) << probes;
  EXPECT_NE(probes.find("3 records were DROPPED in process "), std::string::npos) << probes;
  EXPECT_NE(probes.find("the command succeeded but the recorder wrote no trace (did it use "
                        "CUDA?)"),
            std::string::npos)
      << probes;
  EXPECT_NE(probes.find("wrote no trace: cannot subscribe to CUPTI: "
                        "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"),
            std::string::npos)
      << probes;
  EXPECT_NE(ReadFile(folder / "manifest.csv").find("ok__mode-trace.sqlite,trace,ok,b1,"),
            std::string::npos);

  // The kept trace is one gpuroof reads.
  CliResult kernels = RunGpuroof({"kernels", (folder / "ok__mode-trace.sqlite").string()});
  EXPECT_EQ(kernels.exit_code, 0) << kernels.err;
}

TEST_F(RecordSweepCliTest, WithoutADriverItIsOneLineAndNothingRuns) {
  env_.Set("GPUROOF_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  env_.Set("GPUROOF_RECORDER_LIBRARY", GPUROOF_FAKE_DRIVER);
  const fs::path spec = WriteSweep();
  CliResult r = RunGpuroof({"sweep", spec.string(), "--results", (dir_ / "results").string()});
  EXPECT_EQ(r.exit_code, 2);
  const std::string expected = fmt::format(
      "gpuroof: error: {}:18: profiler \"record\": no NVIDIA driver: "
      "/nonexistent/libcuda.so.1 cannot be loaded (",
      spec.string());
  EXPECT_EQ(r.err.rfind(expected, 0), 0u) << r.err;
  EXPECT_NE(r.err.find("; nothing was run\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "results"));

  // No recorder library: the same, naming the file.
  env_.Set("GPUROOF_RECORDER_LIBRARY", "/nonexistent/libgpuroof_recorder.so");
  r = RunGpuroof({"sweep", spec.string(), "--results", (dir_ / "results").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gpuroof: error: /nonexistent/libgpuroof_recorder.so: GPUROOF_RECORDER_LIBRARY names "
            "no such file\n");

  // A dry run still shows the plan.
  r = RunGpuroof({"sweep", spec.string(), "--results", (dir_ / "results").string(), "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ok__mode-trace.sqlite"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "results"));
}

}  // namespace
}  // namespace gpuroof::testing
