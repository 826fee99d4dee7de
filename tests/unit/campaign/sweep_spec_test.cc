// Sweep files: what is read, and bad files that must end in one "file:line: problem" message.
#include "gpuroof/campaign/sweep_spec.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpuroof/campaign/sweep_plan.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {
namespace {

const char* kGood = R"(# a clusterfinder-like sweep
[command]
argv = ["./bench", "--cap", "{cap}", "--streams={streams}", "--out", "{trace}"]
workdir = "/tmp"
env = { TAG = "{label}" }

[parameters]
cap = 3000
streams = 4
frames = 20000
scale = 0.5

[[configurations]]
label = "base"

[[configurations]]
label = "cap1700"
cap = 1700

[run]
profiler = "command"
units = "{frames}"
unit_name = "event"
window = "all"

[build]
identity_file = "config.h"
identity_regex = 'TYPE = (\w+);'
artifacts = ["build/**/*.so"]
sources = ["src/**/*.cu"]

[guards]
max_gpu_utilisation_pct = 10
min_units = 10000
)";

// The message of the InputError that parsing `text` throws, or "" when it parses.
std::string ParseError(const std::string& text) {
  try {
    ParseSweepSpec(text, "s.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SweepSpec, ReadsEverySection) {
  SweepSpec spec = ParseSweepSpec(kGood, "s.toml");
  EXPECT_EQ(spec.argv.size(), 6u);
  EXPECT_EQ(spec.argv[2], "{cap}");
  EXPECT_EQ(spec.argv_origins[2], "s.toml:3");
  EXPECT_EQ(spec.workdir, "/tmp");
  ASSERT_EQ(spec.env.size(), 1u);
  EXPECT_EQ(spec.env[0], (std::pair<std::string, std::string>{"TAG", "{label}"}));
  EXPECT_EQ(spec.parameter_order, (std::vector<std::string>{"cap", "streams", "frames", "scale"}));
  EXPECT_EQ(spec.defaults.at("cap"), "3000");
  EXPECT_EQ(spec.defaults.at("scale"), "0.5");
  ASSERT_EQ(spec.configurations.size(), 2u);
  EXPECT_EQ(spec.configurations[1].label, "cap1700");
  EXPECT_EQ(spec.configurations[1].values.at("cap"), "1700");
  EXPECT_EQ(spec.configurations[1].origin, "s.toml:16");
  EXPECT_EQ(spec.profiler, ProfilerKind::kCommand);
  EXPECT_EQ(spec.units, "{frames}");
  EXPECT_EQ(spec.unit_name, "event");
  EXPECT_EQ(spec.window, "all");
  EXPECT_EQ(spec.build.identity_file, "config.h");
  EXPECT_EQ(spec.build.identity_regex, "TYPE = (\\w+);");
  EXPECT_EQ(spec.build.artifacts, (std::vector<std::string>{"build/**/*.so"}));
  EXPECT_DOUBLE_EQ(spec.max_gpu_utilisation_pct, 10);
  EXPECT_EQ(spec.min_units, 10000);
}

TEST(SweepSpec, DefaultsWhenSectionsAreOmitted) {
  SweepSpec spec =
      ParseSweepSpec("[command]\nargv = [\"true\"]\n[[configurations]]\nlabel = \"a\"\n", "s.toml");
  EXPECT_EQ(spec.profiler, ProfilerKind::kNsys);
  EXPECT_EQ(spec.window, "processing");
  EXPECT_DOUBLE_EQ(spec.max_gpu_utilisation_pct, 5);
  EXPECT_EQ(spec.min_units, 0);
  EXPECT_EQ(spec.workdir, ".");
}

TEST(SweepSpec, TomlSyntaxErrorNamesTheLine) {
  std::string text = "[command]\nargv = [\"a\"]\n\n[parameters\ncap = 1\n";
  EXPECT_EQ(ParseError(text).rfind("s.toml:4: TOML syntax error: ", 0), 0u) << ParseError(text);
}

// The window is checked when the file is read (so under --dry-run too), not after profiling.
TEST(SweepSpec, BadWindowNamesItsLineBeforeAnyRun) {
  std::string text = std::string(kGood);
  text.replace(text.find("window = \"all\""), std::string("window = \"all\"").size(),
               "window = \"procesing\"");
  std::string error = ParseError(text);
  EXPECT_EQ(error.rfind("s.toml:24: window \"procesing\": ", 0), 0u) << error;
}

// toml++ 3.3.0 has undefined behaviour on some invalid non-ASCII input (upstream #295): such a
// file is refused before toml++ reads it; valid non-ASCII text still parses.
TEST(SweepSpec, InvalidUtf8IsRefusedBeforeTheTomlParserSeesIt) {
  EXPECT_EQ(ParseError("[command]\nargv = [\"a\xff\"]\n"),
            "s.toml: not valid UTF-8 (byte 20): TOML files are UTF-8");
  EXPECT_EQ(ParseError("[command]\nargv = [\"\xc3\"]\n"),
            "s.toml: not valid UTF-8 (byte 19): TOML files are UTF-8");
  EXPECT_EQ(ParseError("[command]\nargv = [\"caf\xc3\xa9\"]\n[[configurations]]\nlabel = \"a\"\n"),
            "");
}

TEST(SweepSpec, UnknownPlaceholderNamesItsLine) {
  std::string text =
      "[command]\nargv = [\"a\",\n  \"--x={typo}\"]\n[[configurations]]\nlabel = \"a\"\n";
  EXPECT_EQ(ParseError(text), "s.toml:3: unknown placeholder {typo} in \"--x={typo}\"");
}

TEST(SweepSpec, EmptyOrMissingConfigurationList) {
  EXPECT_EQ(ParseError("[command]\nargv = [\"a\"]\nconfigurations = []\n"),
            "s.toml:3: unknown key 'configurations' (expected one of: argv, workdir, env)");
  EXPECT_EQ(ParseError("configurations = []\n[command]\nargv = [\"a\"]\n"),
            "s.toml:1: the configuration list is empty");
  EXPECT_EQ(ParseError("[command]\nargv = [\"a\"]\n"),
            "s.toml:1: no [[configurations]] or [grid]: a sweep needs at least one");
}

// [grid] expands every configuration over each combination, the first name varying slowest.
TEST(SweepSpec, GridExpandsToConfigurations) {
  std::string head =
      "[command]\nargv = [\"a\", \"{streams}\", \"{cap}\"]\n[parameters]\n"
      "streams = 1\ncap = 3000\n";
  SweepSpec alone =
      ParseSweepSpec(head + "[grid]\nstreams = [1, 2, 4]\ncap = [1700, 3000]\n", "s.toml");
  std::vector<std::string> labels;
  for (const SweepConfiguration& c : alone.configurations)
    labels.push_back(c.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"streams-1_cap-1700", "streams-1_cap-3000",
                                              "streams-2_cap-1700", "streams-2_cap-3000",
                                              "streams-4_cap-1700", "streams-4_cap-3000"}));
  EXPECT_EQ(alone.configurations[2].values.at("streams"), "2");
  EXPECT_EQ(alone.configurations[2].values.at("cap"), "1700");

  SweepSpec with_configurations =
      ParseSweepSpec(head +
                         "[[configurations]]\nlabel = \"a\"\n[[configurations]]\nlabel = "
                         "\"b\"\ncap = 9\n[grid]\nstreams = [1, 4]\n",
                     "s.toml");
  labels.clear();
  for (const SweepConfiguration& c : with_configurations.configurations)
    labels.push_back(c.label);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"a_streams-1", "a_streams-4", "b_streams-1", "b_streams-4"}));
  EXPECT_EQ(with_configurations.configurations[3].values.at("cap"), "9");

  EXPECT_EQ(ParseError(head + "[grid]\nstream = [1, 2]\n"),
            "s.toml:7: grid 'stream' is not a parameter (declare it under [parameters] with its "
            "default)");
  EXPECT_EQ(ParseError(head + "[grid]\nstreams = []\n"),
            "s.toml:7: grid 'streams' must be a non-empty list of values");
  EXPECT_EQ(ParseError(head + "[[configurations]]\nlabel = \"a\"\nstreams = 2\n[grid]\nstreams = "
                              "[1]\n"),
            "s.toml:10: 'streams' is set by [grid] and by configuration 'a'");
}

// A label the grid makes twice names the [grid] line, not the file's first line; a workdir that
// is no folder names its line (OpenCampaign's error), kept here as the origin.
TEST(SweepSpec, GridLabelCollisionsAndWorkdirNameTheirLines) {
  std::string head =
      "[command]\nargv = [\"a\", \"{n}\"]\nworkdir = \"/nonexistent/dir\"\n"
      "[parameters]\nn = 1\n";
  EXPECT_EQ(ParseError(head + "[grid]\nn = [1, 1]\n"),
            "s.toml:6: the grid makes label 'n-1' twice");
  SweepSpec spec = ParseSweepSpec(head + "[grid]\nn = [1, 2]\n", "s.toml");
  EXPECT_EQ(spec.configurations[0].origin, "s.toml:6");  // the grid alone made it
  EXPECT_EQ(spec.workdir_origin, "s.toml:3");
  EXPECT_EQ(spec.grid_origins.at("n"), "s.toml:7");
}

// A list of `n` values 0, 1, ..., n - 1 as TOML.
std::string ValueList(int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += (out.empty() ? "" : ", ") + std::to_string(i);
  return "[" + out + "]";
}

// A grid larger than kMaxGridConfigurations is refused with its count, computed before anything
// is expanded: a product past 2^64 does not wrap round to a small number either.
TEST(SweepSpec, GridLargerThanTheCapIsRefusedWithItsCount) {
  std::string head = "[command]\nargv = [\"a\", \"{x}\", \"{y}\"]\n[parameters]\nx = 0\ny = 0\n";
  EXPECT_EQ(kMaxGridConfigurations, 10000u);
  SweepSpec at_cap = ParseSweepSpec(
      head + "[grid]\nx = " + ValueList(100) + "\ny = " + ValueList(100) + "\n", "s.toml");
  EXPECT_EQ(at_cap.configurations.size(), 10000u);
  // ASSERT: without the cap, the grid past 2^64 below would expand for ever.
  ASSERT_EQ(ParseError(head + "[grid]\nx = " + ValueList(101) + "\ny = " + ValueList(100) + "\n"),
            "s.toml:6: [grid] makes 10100 configurations (x 101 x y 100), more than the 10000 a "
            "sweep may have: shorten its lists or split the sweep");
  EXPECT_EQ(ParseError(head +
                       "[[configurations]]\nlabel = \"a\"\n[[configurations]]\nlabel = \"b\"\n"
                       "[grid]\nx = " +
                       ValueList(100) + "\ny = " + ValueList(51) + "\n"),
            "s.toml:10: [grid] makes 10200 configurations (2 configurations x x 100 x y 51), more "
            "than the 10000 a sweep may have: shorten its lists or split the sweep");
  // 100^10 = 10^20 > 2^64: said as such, at once.
  std::string parameters;
  std::string grid;
  for (int i = 0; i < 10; ++i) {
    parameters += fmt::format("p{} = 0\n", i);
    grid += fmt::format("p{} = {}\n", i, ValueList(100));
  }
  std::string huge =
      ParseError("[command]\nargv = [\"a\"]\n[parameters]\n" + parameters + "[grid]\n" + grid);
  EXPECT_EQ(
      huge.rfind("s.toml:14: [grid] makes more than 2^64 configurations (p0 100 x p1 100 x ", 0),
      0u)
      << huge;
}

TEST(SweepSpec, MistakesInConfigurations) {
  std::string head = "[command]\nargv = [\"a\"]\n[parameters]\ncap = 1\n";
  EXPECT_EQ(ParseError(head + "[[configurations]]\nlabel = \"a\"\ncapp = 2\n"),
            "s.toml:7: 'capp' is not a parameter (declare it under [parameters] with its default)");
  EXPECT_EQ(
      ParseError(head + "[[configurations]]\nlabel = \"a\"\n[[configurations]]\nlabel = \"a\"\n"),
      "s.toml:8: label 'a' is used twice");
  EXPECT_EQ(ParseError(head + "[[configurations]]\ncap = 2\n"),
            "s.toml:5: a configuration needs a label");
  EXPECT_EQ(ParseError(head + "[[configurations]]\nlabel = \"a\"\n[run]\nprofiler = \"perf\"\n"),
            "s.toml:8: unknown profiler 'perf' (nsys, record or command)");
  EXPECT_EQ(
      ParseError(head + "[[configurations]]\nlabel = \"a\"\n[run]\nprofiler = \"command\"\n"),
      "s.toml:8: profiler \"command\" needs {trace} in argv: the path where the command writes "
      "its trace");
  EXPECT_EQ(ParseError(head + "trace = 3\n[[configurations]]\nlabel = \"a\"\n"),
            "s.toml:5: 'trace' is reserved for gpuroof's own placeholder");
  EXPECT_EQ(ParseError(head + "[[configurations]]\nlabel = \"a\"\n[guards]\nmin_units = -1\n"),
            "s.toml:8: min_units must be a whole number >= 0");
  EXPECT_EQ(ParseError(head + "[[configurations]]\nlabel = \"a\"\n[build]\nartifacts = [\"x\"]\n"),
            "s.toml:8: the freshness rule needs both artifacts and sources");
}

// A run's unit count covers the whole run: a window over part of it would divide all the work
// by part of the time (a 1 ms slice of a 200-frame run read 19 times the roofline).
TEST(SweepSpec, UnitsPerRunNeedAWindowOverTheWholeRun) {
  const std::string head =
      "[command]\nargv = [\"a\"]\n[[configurations]]\nlabel = \"a\"\n[run]\nunits = \"200\"\n";
  for (const char* window : {"steady", "1ms:2ms", "nvtx:epoch"}) {
    EXPECT_EQ(ParseError(head + "window = \"" + window + "\"\n"),
              fmt::format("s.toml:7: window \"{}\" covers part of a run, but units = \"200\" "
                          "counts the whole run's: use window = \"processing\", or leave units "
                          "out",
                          window));
  }
  EXPECT_EQ(ParseSweepSpec(head + "window = \"all\"\n", "s.toml").window, "all");
  EXPECT_EQ(ParseSweepSpec(head + "window = \"processing\"\n", "s.toml").window, "processing");
}

TEST(SweepSpec, RecordProfilerAndItsNvtxSwitch) {
  const std::string head = "[command]\nargv = [\"a\"]\n[[configurations]]\nlabel = \"a\"\n[run]\n";
  SweepSpec spec = ParseSweepSpec(head + "profiler = \"record\"\n", "s.toml");
  EXPECT_EQ(spec.profiler, ProfilerKind::kRecord);
  EXPECT_EQ(spec.profiler_origin, "s.toml:6");
  EXPECT_FALSE(spec.record_nvtx);
  EXPECT_TRUE(
      ParseSweepSpec(head + "profiler = \"record\"\nrecord_nvtx = true\n", "s.toml").record_nvtx);
  EXPECT_EQ(ParseError(head + "profiler = \"record\"\nrecord_nvtx = \"yes\"\n"),
            "s.toml:7: record_nvtx must be true or false");
  EXPECT_EQ(ParseError(head + "profiler = \"record\"\nwindow = \"nvtx:epoch@2\"\n"),
            "s.toml:7: window \"nvtx:epoch@2\" needs NVTX ranges: with profiler = \"record\" set "
            "record_nvtx = true");
  EXPECT_EQ(ParseSweepSpec(
                head + "profiler = \"record\"\nrecord_nvtx = true\nwindow = \"nvtx:e\"\n", "s.toml")
                .window,
            "nvtx:e");
  // nsys (the default) and "command" decide for themselves what they trace.
  EXPECT_EQ(ParseError(head + "record_nvtx = true\n"),
            "s.toml:6: record_nvtx applies only to profiler = \"record\"");
}

// The bundled example stays valid: five configurations, keyed by the parameters they vary.
TEST(SweepSpec, BundledExampleParsesAndPlans) {
  SweepSpec spec = LoadSweepSpec(GPUROOF_SOURCE_DIR "/examples/sweeps/clusterfinder.toml");
  SweepPlan plan = PlanSweep(spec, {}, {});
  ASSERT_EQ(plan.runs.size(), 5u);
  EXPECT_EQ(plan.key_parameters, (std::vector<std::string>{"cluster", "cap", "streams"}));
  EXPECT_EQ(plan.runs[3].file_stem, "c9-cap1700__cluster-9__cap-1700__streams-4");
  EXPECT_EQ(plan.runs[0].units, 20000);
  EXPECT_EQ(spec.build.identity_regex, "using DEVICE_PED_TYPE = (\\w+);");
  // Its workdir "." is the sweep file's folder, wherever gpuroof runs.
  EXPECT_EQ(spec.workdir, GPUROOF_SOURCE_DIR "/examples/sweeps");
}

TEST(SweepSpec, MissingFile) {
  EXPECT_THROW(LoadSweepSpec("/nonexistent/sweep.toml"), InputError);
}

}  // namespace
}  // namespace gpuroof
