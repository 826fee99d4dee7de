#include "gpuroof/process/process_runner.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/gone_pid.h"

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

// A child that ignores the forwarded SIGTERM is killed (its whole group) once the grace period
// ends; the signal that stopped gpuroof is still SIGTERM.
TEST(PosixProcessRunner, AChildThatIgnoresTheSignalIsKilledAfterTheGracePeriod) {
  setenv(kTerminationGraceEnv, "0.3", 1);
  TerminationScope scope;
  const auto started = std::chrono::steady_clock::now();
  ProcessResult result =
      PosixProcessRunner().Run(Shell("trap '' TERM; kill -TERM $PPID; sleep 300; exit 0"));
  unsetenv(kTerminationGraceEnv);
  EXPECT_EQ(result.exit_code, 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  EXPECT_EQ(TerminationSignal(), SIGTERM);
}

// A second signal kills the child at once (the grace period is 10 s); the first one is the one
// reported.
TEST(PosixProcessRunner, ASecondSignalKillsTheChildAndTheFirstIsReported) {
  unsetenv(kTerminationGraceEnv);
  TerminationScope scope;
  const auto started = std::chrono::steady_clock::now();
  ProcessResult result = PosixProcessRunner().Run(
      Shell("trap '' TERM INT; kill -TERM $PPID; sleep 0.2; kill -INT $PPID; sleep 300; exit 0"));
  EXPECT_EQ(result.exit_code, 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
  EXPECT_EQ(TerminationSignal(), SIGTERM);
  try {
    ThrowIfTerminated();
    ADD_FAILURE() << "not thrown";
  } catch (const Interrupted& stop) {
    EXPECT_EQ(stop.signal_number(), SIGTERM);
  }
}

// A child that takes the interrupts (`gpuroof record`'s command) stays in our process group and
// still gets SIGTERM forwarded, to the child alone (hence the exec: the child is `sleep` itself).
TEST(PosixProcessRunner, ATerminationSignalReachesAChildThatTakesInterrupts) {
  TerminationScope scope;
  ProcessRequest request = Shell("kill -TERM $PPID; exec sleep 300");
  request.child_takes_interrupts = true;
  const auto started = std::chrono::steady_clock::now();
  ProcessResult result = PosixProcessRunner().Run(request);
  EXPECT_EQ(result.exit_code, 128 + SIGTERM);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  EXPECT_EQ(TerminationSignal(), SIGTERM);
}

// The same signal again within half a second is one request (`timeout` signals gpuroof and then
// its group; a terminal hang-up comes from the kernel and from the shell), not a second signal:
// a command that cleans up on SIGTERM is not killed. Later, it is a second signal.
TEST(PosixProcessRunner, TheSameSignalRepeatedAtOnceIsNotASecondSignal) {
  unsetenv(kTerminationGraceEnv);
  {
    TerminationScope scope;
    ProcessResult result = PosixProcessRunner().Run(
        Shell("trap 'sleep 0.5; exit 0' TERM; (trap '' TERM; kill -TERM $PPID; sleep 0.05; "
              "kill -TERM $PPID); sleep 5; exit 3"));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(TerminationSignal(), SIGTERM);
  }
  TerminationScope scope;
  const auto started = std::chrono::steady_clock::now();
  ProcessResult result = PosixProcessRunner().Run(
      Shell("trap '' TERM; kill -TERM $PPID; sleep 0.8; kill -TERM $PPID; sleep 300; exit 0"));
  EXPECT_EQ(result.exit_code, 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
}

// Whether process `pid` has ended (gone, or a zombie not reaped yet), waiting up to 5 s for it.
bool Ended(pid_t pid) {
  for (int i = 0; i < 50; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t paren = text.rfind(')');
    if (!stat || (paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] == 'Z'))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// After a forwarded signal, what is left of the child's group when the child exited (here a
// background job that ignores SIGTERM) is killed.
TEST(PosixProcessRunner, WhatIsLeftOfTheGroupAfterASignalIsKilled) {
  const std::filesystem::path pid_file =
      std::filesystem::temp_directory_path() / ("gpuroof_left_" + std::to_string(getpid()));
  {
    TerminationScope scope;
    ProcessResult result = PosixProcessRunner().Run(
        Shell("(trap '' TERM; exec sleep 300) >/dev/null 2>&1 & echo $! > " + pid_file.string() +
              "; kill -TERM $PPID; wait"));
    EXPECT_EQ(result.exit_code, 128 + SIGTERM) << result.err;
  }
  std::ifstream in(pid_file);
  pid_t left = 0;
  in >> left;
  std::filesystem::remove(pid_file);
  ASSERT_GT(left, 0);
  EXPECT_TRUE(Ended(left));
  if (!Ended(left)) kill(left, SIGKILL);  // not to outlive the test
}

// A child that left the group it was started in (here into ours) and ignores SIGTERM is still
// killed after the grace period: the kill goes to its pid too.
TEST(PosixProcessRunner, AChildThatLeftItsGroupIsKilledAfterTheGracePeriod) {
  setenv(kTerminationGraceEnv, "0.3", 1);
  TerminationScope scope;
  const auto started = std::chrono::steady_clock::now();
  ProcessRequest request;
  request.argv = {"python3", "-c",
                  "import os, signal, time\n"
                  "os.setpgid(0, os.getpgid(os.getppid()))\n"
                  "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                  "os.kill(os.getppid(), signal.SIGTERM)\n"
                  "time.sleep(30)\n"};
  ProcessResult result = PosixProcessRunner().Run(request);
  unsetenv(kTerminationGraceEnv);
  EXPECT_EQ(result.exit_code, 128 + SIGKILL) << result.err;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15));
}

TEST(DeadProcessOfTag, OnlyAGoneProcessOfThisMachine) {
  const pid_t gone = testsupport::GonePid();
  ASSERT_GT(gone, 0);
  const std::string own = ProcessTag();
  const std::string host = own.substr(own.find('-'));
  ASSERT_EQ(host.size(), 9u) << own;
  const std::string other_host = host == "-00000000" ? "-00000001" : "-00000000";
  const std::string dead = std::to_string(gone);
  EXPECT_EQ(DeadProcessOfTag(dead + host), gone);
  EXPECT_EQ(DeadProcessOfTag(dead), gone);  // an earlier version's pid-only tag
  EXPECT_EQ(DeadProcessOfTag(dead + other_host), 0);
  EXPECT_EQ(DeadProcessOfTag(own), 0);
  EXPECT_EQ(DeadProcessOfTag(std::to_string(getppid()) + host), 0);  // alive
  for (const char* bad : {"", "-", "x1", "12x", "0", "1234567890"})
    EXPECT_EQ(DeadProcessOfTag(bad), 0) << bad;
}

}  // namespace
}  // namespace gpuroof
