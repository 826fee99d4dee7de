// `gpuroof record` without a GPU: the command runs through a scripted ProcessRunner that writes
// what each process's recorder would (a trace and its status file) into the folder the
// environment names, so moving traces into place, the messages and the exit codes are checked
// here, and the fake driver of the e2e tests only has to cover the real exec.
#include "gpuroof/recorder/record_session.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/recorder/recorder_env.h"

namespace gpuroof::recorder {
namespace {

namespace fs = std::filesystem;

// What one process's recorder leaves behind.
struct ScriptedProcess {
  pid_t pid = 0;
  bool writes_trace = true;
  bool killed = false;  // started recording (the temporary trace) and never finished
  RecorderStatus status;
};

class ScriptedRunner : public ProcessRunner {
 public:
  std::vector<ScriptedProcess> processes;  // the command's own process first
  int exit_code = 0;
  bool cannot_start = false;
  ProcessRequest seen;

  ProcessResult Run(const ProcessRequest& request) override {
    seen = request;
    ProcessResult result;
    if (cannot_start) {
      result.exit_code = 127;
      result.err = "cannot start " + request.argv[0] + ": No such file or directory";
      return result;
    }
    std::string pattern;
    for (const auto& [name, value] : request.env) {
      if (name == kOutputEnv) pattern = value;
    }
    for (const ScriptedProcess& process : processes) {
      const fs::path trace = ExpandOutputPattern(pattern, process.pid);
      if (process.killed) {
        std::ofstream(trace.string() + ".tmp") << "partial trace of " << process.pid;
        continue;
      }
      if (process.writes_trace) std::ofstream(trace) << "trace of " << process.pid;
      WriteRecorderStatus(StatusPath(trace), process.status);
    }
    result.exit_code = exit_code;
    result.pid = processes.empty() ? 4242 : processes.front().pid;
    result.wall_ns = 1'500'000'000;
    return result;
  }
};

std::string Contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& line : lines)
    all += line + "\n";
  return all;
}

class RecordSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuroof_record_session_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    request_.output = dir_ / "run.sqlite";
    request_.command = {"./pipeline", "--frames", "20"};
    request_.library = "/opt/gpuroof/lib/libgpuroof_recorder.so";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Everything in the output folder: the scratch folder must be gone after every run.
  std::vector<std::string> FolderEntries() const {
    std::vector<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
  RecordSessionRequest request_;
  ScriptedRunner runner_;
};

ScriptedProcess Process(pid_t pid, int64_t records, int64_t dropped = 0) {
  ScriptedProcess process;
  process.pid = pid;
  process.status.records = records;
  process.status.dropped = dropped;
  process.status.finish_ns = 250'000'000;
  return process;
}

TEST_F(RecordSessionTest, RunsTheCommandUnderTheRecorderAndKeepsItsTrace) {
  runner_.processes = {Process(100, 5000)};
  request_.nvtx = true;
  const RecordSessionResult result = RunRecordSession(request_, runner_);

  EXPECT_EQ(runner_.seen.argv, request_.command);  // exec, no shell
  EXPECT_TRUE(runner_.seen.inherit_stdin);
  EXPECT_TRUE(runner_.seen.child_takes_interrupts);
  EXPECT_EQ(runner_.seen.stdout_to, ChildOutput::kInherit);
  std::map<std::string, std::string> env(runner_.seen.env.begin(), runner_.seen.env.end());
  EXPECT_EQ(env["CUDA_INJECTION64_PATH"], request_.library.string());
  EXPECT_EQ(env[kNvtxEnv], "1");

  EXPECT_EQ(result.traces_kept, 1);
  EXPECT_EQ(result.command_exit_code, 0);
  EXPECT_EQ(Contents(request_.output), "trace of 100");
  EXPECT_EQ(FolderEntries(), std::vector<std::string>{"run.sqlite"});
  EXPECT_EQ(Joined(result.messages),
            "./pipeline exited with code 0 after 1.500 s wall time (0.250 s of it writing the "
            "trace at exit)\n5000 records written to " +
                request_.output.string() + " (0 dropped)\n");
}

TEST_F(RecordSessionTest, OtherCudaProcessesGoBesideTheOutputNamedByPid) {
  // Equal record counts: the command's own process (pid 300) is the output even though a child
  // has a lower pid.
  runner_.processes = {Process(300, 20), Process(200, 20), Process(250, 20)};
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_EQ(result.traces_kept, 3);
  EXPECT_EQ(Contents(request_.output), "trace of 300");
  EXPECT_EQ(Contents(dir_ / "run.200.sqlite"), "trace of 200");
  EXPECT_EQ(Contents(dir_ / "run.250.sqlite"), "trace of 250");
  EXPECT_EQ(FolderEntries(),
            (std::vector<std::string>{"run.200.sqlite", "run.250.sqlite", "run.sqlite"}));
  EXPECT_NE(Joined(result.messages)
                .find(request_.output.string() +
                      " is the trace of process 300, the one with the most records; the other "
                      "processes' traces went beside it: process 200 to " +
                      (dir_ / "run.200.sqlite").string() + ", process 250 to " +
                      (dir_ / "run.250.sqlite").string()),
            std::string::npos)
      << Joined(result.messages);
}

TEST_F(RecordSessionTest, TheTraceWithTheMostRecordsTakesTheOutputName) {
  // A launcher (pid 300) that only counted devices; its workers did the GPU work.
  runner_.processes = {Process(300, 0), Process(200, 20), Process(250, 30)};
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_EQ(result.traces_kept, 3);
  EXPECT_EQ(Contents(request_.output), "trace of 250");
  EXPECT_EQ(Contents(dir_ / "run.200.sqlite"), "trace of 200");
  EXPECT_EQ(Contents(dir_ / "run.300.sqlite"), "trace of 300");
  const std::string messages = Joined(result.messages);
  EXPECT_NE(messages.find(request_.output.string() + " is the trace of process 250, the one with "
                                                     "the most records"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find("warning: the trace of process 300 (" +
                          (dir_ / "run.300.sqlite").string() + ") has 0 records"),
            std::string::npos)
      << messages;
}

TEST_F(RecordSessionTest, AProcessKilledWhileRecordingIsReportedAndItsPartialFileRemoved) {
  ScriptedProcess killed;
  killed.pid = 200;
  killed.killed = true;
  runner_.processes = {Process(100, 50), killed};
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_EQ(result.traces_kept, 1);
  EXPECT_EQ(result.traces_lost, 1);
  EXPECT_EQ(Contents(request_.output), "trace of 100");
  EXPECT_EQ(FolderEntries(), std::vector<std::string>{"run.sqlite"});
  EXPECT_NE(Joined(result.messages)
                .find("warning: process 200 started recording but never finished (killed or "
                      "_exit): its trace is lost"),
            std::string::npos)
      << Joined(result.messages);
}

TEST_F(RecordSessionTest, TheCommandKilledWhileRecordingLeavesNoTraceAndSaysSo) {
  ScriptedProcess killed;
  killed.pid = 100;
  killed.killed = true;
  runner_.processes = {killed};
  runner_.exit_code = 137;
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_EQ(result.traces_kept, 0);
  EXPECT_EQ(result.traces_lost, 1);
  EXPECT_TRUE(FolderEntries().empty());
  EXPECT_NE(Joined(result.messages).find("process 100 started recording but never finished"),
            std::string::npos);
}

TEST_F(RecordSessionTest, RecordsWithoutTimestampsAreAWarningWithTheCount) {
  ScriptedProcess process = Process(100, 900);
  process.status.zero_timestamps = 12;
  runner_.processes = {process};
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_NE(Joined(result.messages)
                .find("warning: 12 records in process 100 had no timestamps (still on the GPU at "
                      "exit, or the device buffer was too small) and were left out"),
            std::string::npos)
      << Joined(result.messages);
}

TEST_F(RecordSessionTest, FailedBufferRequestsAndUnrecordedKindsAreSaid) {
  ScriptedProcess process = Process(100, 900, 40);
  process.status.failed_buffer_requests = 2;
  process.status.unrecorded = {"MEMCPY2: CUPTI_ERROR_NOT_COMPATIBLE"};
  runner_.processes = {process};
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  const std::string messages = Joined(result.messages);
  EXPECT_NE(messages.find("warning: 40 records were DROPPED in process 100"), std::string::npos);
  EXPECT_NE(messages.find("warning: the recorder in process 100 had no free buffer for CUPTI 2 "
                          "times"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find("warning: process 100 recorded no MEMCPY2: CUPTI_ERROR_NOT_COMPATIBLE "
                          "records; the rest was recorded"),
            std::string::npos)
      << messages;
}

TEST_F(RecordSessionTest, DroppedRecordsAreAWarningWithTheCount) {
  runner_.processes = {Process(100, 900, 37)};
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_EQ(result.traces_kept, 1);
  EXPECT_NE(Joined(result.messages)
                .find("warning: 37 records were DROPPED in process 100; the trace undercounts"),
            std::string::npos)
      << Joined(result.messages);
}

TEST_F(RecordSessionTest, ARecorderThatFailedWritesNothingAndSaysWhy) {
  ScriptedProcess failed;
  failed.pid = 100;
  failed.writes_trace = false;
  failed.status.error = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  runner_.processes = {failed};
  runner_.exit_code = 0;
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_EQ(result.traces_kept, 0);
  EXPECT_FALSE(fs::exists(request_.output));
  EXPECT_TRUE(FolderEntries().empty());  // no scratch folder left behind
  EXPECT_NE(Joined(result.messages)
                .find("the recorder in process 100 wrote no trace: "
                      "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
            std::string::npos);
}

TEST_F(RecordSessionTest, TheCommandsExitCodeIsKept) {
  runner_.processes = {Process(100, 1)};
  runner_.exit_code = 3;
  const RecordSessionResult result = RunRecordSession(request_, runner_);
  EXPECT_EQ(result.command_exit_code, 3);
  EXPECT_EQ(result.traces_kept, 1);
  EXPECT_NE(Joined(result.messages).find("./pipeline exited with code 3"), std::string::npos);
}

TEST_F(RecordSessionTest, ACommandThatCannotStartIsAnErrorNamingIt) {
  runner_.cannot_start = true;
  try {
    RunRecordSession(request_, runner_);
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.source(), "./pipeline");
    EXPECT_NE(std::string(error.what()).find("cannot run: No such file or directory"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(FolderEntries().empty());
}

}  // namespace
}  // namespace gpuroof::recorder
