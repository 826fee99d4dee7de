#include "gpuroof/readers/nsys_report_export.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"

#include "support/gone_pid.h"

namespace gpuroof {
namespace {

// Records the command and, when asked, writes the --output file as nsys would.
class FakeLauncher : public ProcessRunner {
 public:
  explicit FakeLauncher(int status, bool write_output = true)
      : status_(status), write_output_(write_output) {}
  ProcessResult Run(const ProcessRequest& request) override {
    const std::vector<std::string>& argv = request.argv;
    calls.push_back(argv);
    // nsys's progress text must not reach our stdout.
    EXPECT_EQ(request.stdout_to, ChildOutput::kToStderr);
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == "--output" && write_output_) std::ofstream(argv[i + 1]) << "exported";
    }
    ProcessResult result;
    result.exit_code = status_;
    return result;
  }
  std::vector<std::vector<std::string>> calls;

 private:
  int status_;
  bool write_output_;
};

class NsysReportExport : public ::testing::Test {
 protected:
  // Files the folder should hold afterwards: the report, and the export when one succeeded.
  long CountExpected() const { return std::filesystem::exists(dir_ / "run.sqlite") ? 2 : 1; }
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpuroof_rep_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
    report_ = dir_ / "run.nsys-rep";
    std::ofstream(report_) << "report";
    setenv("NSYS", "/opt/fake/nsys", 1);
  }
  void TearDown() override {
    unsetenv("NSYS");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
  std::filesystem::path report_;
};

TEST_F(NsysReportExport, ExportsBesideTheReportWithNsys) {
  FakeLauncher launcher(0);
  std::filesystem::path sqlite = ResolveNsysReport(report_, launcher);
  EXPECT_EQ(sqlite, dir_ / "run.sqlite");
  EXPECT_TRUE(std::filesystem::exists(sqlite));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            CountExpected());
  ASSERT_EQ(launcher.calls.size(), 1u);
  EXPECT_EQ(launcher.calls[0][0], "/opt/fake/nsys");
  EXPECT_EQ(launcher.calls[0][1], "export");
  EXPECT_EQ(launcher.calls[0].back(), report_.string());
}

TEST_F(NsysReportExport, ReusesAnExportNewerThanTheReport) {
  std::ofstream(dir_ / "run.sqlite") << "earlier export";
  std::filesystem::last_write_time(
      report_, std::filesystem::last_write_time(dir_ / "run.sqlite") - std::chrono::hours(1));
  FakeLauncher launcher(0);
  EXPECT_EQ(ResolveNsysReport(report_, launcher), dir_ / "run.sqlite");
  EXPECT_TRUE(launcher.calls.empty());
}

TEST_F(NsysReportExport, ReExportsAStaleExport) {
  std::ofstream(dir_ / "run.sqlite") << "stale";
  std::filesystem::last_write_time(
      dir_ / "run.sqlite", std::filesystem::last_write_time(report_) - std::chrono::hours(1));
  FakeLauncher launcher(0);
  ResolveNsysReport(report_, launcher);
  EXPECT_EQ(launcher.calls.size(), 1u);
}

TEST_F(NsysReportExport, FailedExportLeavesNothingBehind) {
  FakeLauncher launcher(3);
  EXPECT_THROW(ResolveNsysReport(report_, launcher), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "run.sqlite"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            CountExpected());
}

TEST_F(NsysReportExport, WithoutNsysTheErrorSaysHowToExport) {
  unsetenv("NSYS");
  std::string saved_path = getenv("PATH") ? getenv("PATH") : "";
  setenv("PATH", dir_.c_str(), 1);
  FakeLauncher launcher(0);
  try {
    ResolveNsysReport(report_, launcher);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nsys export --type sqlite"), std::string::npos);
    EXPECT_EQ(e.source(), report_.string());
  }
  setenv("PATH", saved_path.c_str(), 1);
  EXPECT_TRUE(launcher.calls.empty());
}

TEST_F(NsysReportExport, MissingReportIsAnError) {
  FakeLauncher launcher(0);
  EXPECT_THROW(ResolveNsysReport(dir_ / "absent.nsys-rep", launcher), InputError);
}

TEST_F(NsysReportExport, AnExportThatCannotBeReadIsNotKeptForReuse) {
  FakeLauncher launcher(0);  // exits 0 but writes "exported", no SQLite database
  ReadOptions options;
  options.runner = &launcher;
  EXPECT_THROW(ReadTrace(report_, options), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "run.sqlite"));
  // A later read exports again rather than trusting the corrupt file for being newer.
  EXPECT_THROW(ReadTrace(report_, options), InputError);
  EXPECT_EQ(launcher.calls.size(), 2u);
}

// The new export is read before it replaces anything: one nsys wrote badly (exit 0, no database)
// costs the user neither the older export they had nor a temporary file.
TEST_F(NsysReportExport, AFailedReExportKeepsTheOlderExport) {
  std::ofstream(dir_ / "run.sqlite") << "older export";
  std::filesystem::last_write_time(
      dir_ / "run.sqlite", std::filesystem::last_write_time(report_) - std::chrono::hours(1));
  FakeLauncher launcher(0);  // exits 0 but writes "exported", no SQLite database
  ReadOptions options;
  options.runner = &launcher;
  try {
    ReadTrace(report_, options);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), report_.string());
    EXPECT_NE(
        std::string(e.what()).find("the existing " + (dir_ / "run.sqlite").string() + " was kept"),
        std::string::npos)
        << e.what();
  }
  std::ifstream in(dir_ / "run.sqlite");
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "older export");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            2);
}

// The temporary export is read where nsys wrote it, so it exists for the whole read: an
// exception of any type, or SIGTERM/SIGINT during the read, must not leave it behind (its name
// carries the pid, so no later run would remove it).
TEST_F(NsysReportExport, TheTemporaryExportIsRemovedOnEveryWayOut) {
  FakeLauncher launcher(0);
  size_t files_seen = 0;
  EXPECT_THROW(ResolveNsysReport(report_, launcher, nullptr,
                                 [&](const std::filesystem::path& partial) {
                                   files_seen = std::filesystem::exists(partial) ? 1 : 0;
                                   throw std::runtime_error("out of memory, say");
                                 }),
               std::runtime_error);
  EXPECT_EQ(files_seen, 1u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
  for (int signal_number : {SIGTERM, SIGINT}) {
    EXPECT_EXIT(
        {
          FakeLauncher child_launcher(0);
          ResolveNsysReport(report_, child_launcher, nullptr,
                            [&](const std::filesystem::path&) { raise(signal_number); });
        },
        ::testing::KilledBySignal(signal_number), "");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                            std::filesystem::directory_iterator()),
              1)
        << "signal " << signal_number;
  }
  // Outside an export the signals have their default action back.
  struct sigaction current {};
  sigaction(SIGTERM, nullptr, &current);
  EXPECT_EQ(current.sa_handler, SIG_DFL);
}

// A run killed while its nsys still wrote leaves its partial export behind (the handler removed the
// name before nsys made the file). The next export removes those of dead pids for this report only.
TEST_F(NsysReportExport, AnExportRemovesThePartialsOfDeadRuns) {
  const pid_t dead = testsupport::GonePid();
  ASSERT_GT(dead, 0);
  const pid_t live = fork();
  ASSERT_GE(live, 0);
  if (live == 0) {
    execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  auto name = [](std::string_view stem, pid_t pid) {
    return std::string(stem) + ".gpuroof-partial-" + std::to_string(pid) + ".sqlite";
  };
  const std::filesystem::path dead_partial = dir_ / name("run", dead);
  const std::filesystem::path live_partial = dir_ / name("run", live);
  const std::filesystem::path other_report = dir_ / name("other", dead);
  for (const std::filesystem::path& file : {dead_partial, live_partial, other_report}) {
    std::ofstream(file) << "half";
    std::filesystem::last_write_time(
        file, std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
  }
  // A dead pid's file written a minute ago is kept: the pid may be of another PID namespace or
  // host sharing the folder, whose export is still running.
  const pid_t recent_dead = testsupport::GonePid();
  ASSERT_GT(recent_dead, 0);
  const std::filesystem::path recent = dir_ / name("run", recent_dead);
  std::ofstream(recent) << "half";
  FakeLauncher launcher(0);
  EXPECT_EQ(ResolveNsysReport(report_, launcher), dir_ / "run.sqlite");
  EXPECT_FALSE(std::filesystem::exists(dead_partial));
  EXPECT_TRUE(std::filesystem::exists(live_partial));
  EXPECT_TRUE(std::filesystem::exists(other_report));
  EXPECT_TRUE(std::filesystem::exists(recent));
  kill(live, SIGKILL);
  waitpid(live, nullptr, 0);
}

// An empty report gets the message any empty file gets, before nsys is looked for.
TEST_F(NsysReportExport, AnEmptyReportIsSaidToBeEmpty) {
  std::ofstream(report_, std::ios::trunc).flush();
  unsetenv("NSYS");
  FakeLauncher launcher(0);
  try {
    ResolveNsysReport(report_, launcher);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "file is empty");
  }
  EXPECT_TRUE(launcher.calls.empty());
}

TEST(NsysExportPathTest, IsTheSqliteBesideTheReport) {
  EXPECT_EQ(NsysExportPath("a/b/run.nsys-rep"), std::filesystem::path("a/b/run.sqlite"));
  EXPECT_EQ(NsysExportPath("old.qdrep"), std::filesystem::path("old.sqlite"));
  EXPECT_TRUE(IsNsysReportName("x.nsys-rep"));
  EXPECT_FALSE(IsNsysReportName("x.sqlite"));
}

}  // namespace
}  // namespace gpuroof
