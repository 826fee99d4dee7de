#include "gpuroof/readers/nsys_report_export.h"

#include <chrono>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"

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

}  // namespace
}  // namespace gpuroof
