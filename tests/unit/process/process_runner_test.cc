#include "gpuroof/process/process_runner.h"

#include <csignal>
#include <filesystem>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

ProcessRequest Shell(const std::string& script) {
  ProcessRequest request;
  request.argv = {"sh", "-c", script};
  return request;
}

TEST(PosixProcessRunner, CapturesBothOutputsAndTheExitCode) {
  ProcessResult result = PosixProcessRunner().Run(Shell("echo out; echo err >&2; exit 3"));
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
  EXPECT_GT(result.pid, 0);
  EXPECT_GT(result.wall_ns, 0);
}

TEST(PosixProcessRunner, AddsToTheEnvironmentAndRunsInTheWorkdir) {
  ProcessRequest request = Shell("printf '%s %s' \"$GPUROOF_TEST_VALUE\" \"$(pwd)\"");
  request.env = {{"GPUROOF_TEST_VALUE", "seven"}};
  request.workdir = std::filesystem::temp_directory_path();
  ProcessResult result = PosixProcessRunner().Run(request);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "seven " + std::filesystem::canonical(request.workdir).string());
}

TEST(PosixProcessRunner, StdinIsEmptyUnlessInherited) {
  ProcessResult result = PosixProcessRunner().Run(Shell("cat; echo end"));
  EXPECT_EQ(result.out, "end\n");
}

TEST(PosixProcessRunner, OutputNotCapturedIsNotInTheResult) {
  ProcessRequest request = Shell("echo to-our-stderr; echo err >&2");
  request.stdout_to = ChildOutput::kToStderr;
  ProcessResult result = PosixProcessRunner().Run(request);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "err\n");
}

TEST(PosixProcessRunner, AProgramThatCannotStartIs127) {
  ProcessRequest request;
  request.argv = {"/nonexistent/gpuroof-test-program"};
  ProcessResult result = PosixProcessRunner().Run(request);
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_EQ(result.pid, 0);
  EXPECT_NE(result.err.find("cannot start /nonexistent/gpuroof-test-program"), std::string::npos)
      << result.err;
  EXPECT_EQ(PosixProcessRunner().Run(ProcessRequest{}).exit_code, 127);
}

TEST(PosixProcessRunner, ASignalIs128PlusItsNumber) {
  EXPECT_EQ(PosixProcessRunner().Run(Shell("kill -TERM $$")).exit_code, 128 + 15);
}

// The child signals us; the scope forwards SIGTERM to the child's own process group, so its
// `sleep` (a grandchild) dies too and Run returns at once rather than after 300 s.
TEST(PosixProcessRunner, ATerminationSignalReachesTheChildsProcessGroup) {
  TerminationScope scope;
  ProcessResult result = PosixProcessRunner().Run(
      Shell("test \"$(ps -o pgid= -p $$ | tr -d ' ')\" = $$ || exit 9; kill -TERM $PPID; "
            "sleep 300; exit 0"));
  EXPECT_EQ(result.exit_code, 128 + SIGTERM);  // not 9: it led its own process group
  EXPECT_EQ(TerminationSignal(), SIGTERM);
  EXPECT_THROW(ThrowIfTerminated(), Interrupted);
  // Once stopping, nothing more is started.
  EXPECT_EQ(PosixProcessRunner().Run(Shell("exit 0")).exit_code, 128 + SIGTERM);
}

}  // namespace
}  // namespace gpuroof
