// `gpuroof record` as a user runs it, on a machine without a GPU: argument errors, the no-driver
// and no-recorder errors (nothing runs, no file appears), and, with a fake driver and a fake
// CUDA program standing in for the injected recorder, exit codes and output-file safety.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "cli_runner.h"

namespace gpuroof::testing {
namespace {

namespace fs = std::filesystem;

// Sets environment variables for one test (children inherit them) and restores them after.
class ScopedEnv {
 public:
  void Set(const char* name, const std::string& value) {
    Remember(name);
    setenv(name, value.c_str(), 1);
  }
  void Unset(const char* name) {
    Remember(name);
    unsetenv(name);
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value.has_value()) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  void Remember(const char* name) {
    if (saved_.count(name) != 0) return;
    const char* old = std::getenv(name);
    saved_[name] = old != nullptr ? std::optional<std::string>(old) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

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
  ScopedEnv env_;
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

}  // namespace
}  // namespace gpuroof::testing
