// Planning: the results key, file names that carry it, --set and --only, and names that cannot
// leave the results folder.
#include "gpuroof/campaign/sweep_plan.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {
namespace {

SweepSpec Spec(const std::string& configurations, const std::string& run = "") {
  return ParseSweepSpec(
      "[command]\nargv = [\"w\", \"--cap\", \"{cap}\", \"-o\", \"{trace}\", \"{label}\"]\n"
      "[parameters]\ncap = 3000\nstreams = 4\nframes = 20000\n" +
          configurations + run,
      "s.toml");
}

const std::string kCapAb =
    "[[configurations]]\nlabel = \"a\"\n[[configurations]]\nlabel = \"b\"\ncap = 1700\n";

TEST(SweepPlan, KeyIsLabelPlusEveryVaryingParameter) {
  SweepPlan plan = PlanSweep(Spec(kCapAb), {}, {});
  EXPECT_EQ(plan.key_parameters, (std::vector<std::string>{"cap"}));
  ASSERT_EQ(plan.runs.size(), 2u);
  EXPECT_EQ(plan.runs[0].key, "label=a;cap=3000");
  EXPECT_EQ(plan.runs[1].key, "label=b;cap=1700");
  EXPECT_EQ(plan.runs[0].file_stem, "a__cap-3000");
  EXPECT_EQ(plan.runs[1].file_stem, "b__cap-1700");
  EXPECT_EQ(plan.runs[1].params, "cap=1700;streams=4;frames=20000");
  EXPECT_FALSE(plan.runs[0].units.has_value());
}

// --set on a [grid] parameter would run duplicates under labels naming values not used: refused.
TEST(SweepPlan, SetRefusesAGridParameter) {
  SweepSpec spec = Spec("[grid]\nframes = [100, 200]\n");
  try {
    PlanSweep(spec, {"frames=300"}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--set: 'frames' is a [grid] parameter (s.toml:8): the grid's labels name its "
              "values; edit the grid list instead");
  }
  EXPECT_EQ(PlanSweep(spec, {"cap=1"}, {}).runs.size(), 2u);
}

TEST(SweepPlan, ExplicitKey) {
  SweepPlan plan = PlanSweep(Spec(kCapAb, "[run]\nkey = [\"streams\"]\n"), {}, {});
  EXPECT_EQ(plan.key_parameters, (std::vector<std::string>{"streams"}));
  EXPECT_EQ(plan.runs[1].key, "label=b;streams=4");
}

TEST(SweepPlan, SetOverridesEveryConfigurationAndJoinsTheKey) {
  SweepPlan plan = PlanSweep(Spec(kCapAb), {"cap=1500", "frames=40000"}, {});
  EXPECT_EQ(plan.key_parameters, (std::vector<std::string>{"cap", "frames"}));
  EXPECT_EQ(plan.runs[0].key, "label=a;cap=1500;frames=40000");
  EXPECT_EQ(plan.runs[1].file_stem, "b__cap-1500__frames-40000");
  EXPECT_EQ(plan.runs[1].values.at("cap"), "1500");
}

TEST(SweepPlan, OnlyKeepsLabelsInFileOrder) {
  SweepPlan plan = PlanSweep(Spec(kCapAb), {}, {"b"});
  ASSERT_EQ(plan.runs.size(), 1u);
  EXPECT_EQ(plan.runs[0].label, "b");
  // The key is the same as in the full sweep, so --only never files rows under another key.
  EXPECT_EQ(plan.runs[0].key, "label=b;cap=1700");
}

TEST(SweepPlan, BadFlagsAreNamed) {
  try {
    PlanSweep(Spec(kCapAb), {"cpa=1"}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--set: 'cpa' is not a parameter of s.toml");
  }
  EXPECT_THROW(PlanSweep(Spec(kCapAb), {"cap"}, {}), InputError);
  try {
    PlanSweep(Spec(kCapAb), {}, {"c"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--only: no configuration is labelled 'c' (labels: a, b)");
  }
}

TEST(SweepPlan, UnitsMustExpandToAPositiveWholeNumber) {
  SweepPlan plan = PlanSweep(Spec(kCapAb, "[run]\nunits = \"{frames}\"\n"), {}, {});
  EXPECT_EQ(plan.runs[0].units, 20000);
  try {
    PlanSweep(Spec(kCapAb, "[run]\nunits = \"{frames}\"\n"), {"frames=lots"}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.toml:13: units \"{frames}\" is 'lots' for configuration 'a', not a positive "
              "whole number");
  }
}

TEST(SweepPlan, LabelsCannotLeaveTheResultsFolder) {
  SweepPlan plan = PlanSweep(
      Spec("[[configurations]]\nlabel = \"../../etc/passwd\"\n[[configurations]]\nlabel = "
           "\"/abs\"\n[[configurations]]\nlabel = \"..\"\n"),
      {}, {});
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.runs[0].file_stem, "_.._.._etc_passwd");
  EXPECT_EQ(plan.runs[1].file_stem, "_abs");
  EXPECT_EQ(plan.runs[2].file_stem, "_..");
  for (const PlannedRun& run : plan.runs) {
    std::filesystem::path file = std::filesystem::path("results") / (run.file_stem + ".sqlite");
    EXPECT_EQ(file.parent_path().string(), "results") << run.label;
  }
}

TEST(SweepPlan, TwoConfigurationsThatWouldShareAFileAreRefused) {
  try {
    PlanSweep(Spec("[[configurations]]\nlabel = \"a/b\"\n[[configurations]]\nlabel = \"a:b\"\n"),
              {}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.toml:9: configurations 'a/b' and 'a:b' would write the same files (a_b); give "
              "them labels that differ in letters or digits");
  }
}

TEST(SweepPlan, ArgvExpansionKeepsEachValueOneArgument) {
  SweepPlan plan = PlanSweep(Spec(kCapAb), {"cap=1; rm -rf / \"$(x)\""}, {});
  std::vector<std::string> argv = ExpandArgv(Spec(kCapAb), plan.runs[0], "/r/t.sqlite", "/r");
  EXPECT_EQ(argv, (std::vector<std::string>{"w", "--cap", "1; rm -rf / \"$(x)\"", "-o",
                                            "/r/t.sqlite", "a"}));
  EXPECT_EQ(ResultsFolderName("2026-11-30", "float", ""), "2026-11-30_float");
  EXPECT_EQ(ResultsFolderName("2026-11-30", "v1/../x", "ab test"), "2026-11-30_v1_.._x_ab_test");
}

TEST(SweepPlan, LabelsThatWouldOverwriteTheResultsFilesAreRefused) {
  for (const std::string label : {"env", "probes", "ladder", "manifest", "Env"}) {
    SweepSpec spec = ParseSweepSpec(
        "[command]\nargv = [\"app\", \"{trace}\"]\n[parameters]\nn = 1\n"
        "[[configurations]]\nlabel = \"ok\"\n[[configurations]]\nlabel = \"" +
            label + "\"\n",
        "s.toml");
    try {
      PlanSweep(spec, {}, {"ok"});  // --only never hides it
      ADD_FAILURE() << label;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("s.toml:7: label '" + label + "' would write", 0), 0u)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gpuroof
