#include "support/trace_description.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sqlite_test_util.h"

namespace gpuroof::testsupport {
namespace {

using ::gpuroof::testsupport::testing::Row;
using ::gpuroof::testsupport::testing::ScratchDir;
using ::gpuroof::testsupport::testing::TestDb;

constexpr int64_t kGlobalPid4242 = (int64_t{1} << 48) | (int64_t{4242} << 24);

// Builds `text` and returns the error message, or "" on success.
std::string BuildError(const std::string& text, const std::filesystem::path& output) {
  try {
    BuildFromDescription(text, "test.trace", output);
  } catch (const DescriptionError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceDescriptionTest, AllDirectives) {
  ScratchDir dir;
  const std::filesystem::path out = dir / "t.sqlite";
  BuildFromDescription(R"d(# every directive once
schema 2022
gpu 0 "NVIDIA H200"
gpu 1 A100            # bare words need no quotes
domain 1 "TensorRT" pid=77
kernel start=1us end=2us dev=1 ctx=2 stream=14 pid=77 corr=9 name=gemm demangled="void gemm<float>(float*)" grid=256,2,3 block=128
memcpy start=0 end=1ms kind=HtoD bytes=8388608 src=pageable dst=device
memcpy start=2ms end=3ms kind=ptop bytes=4096 src=DEVICE dst=device srcdev=0 dstdev=1 stream=8
memcpy start=4ms end=5ms kind=42 bytes=1 src=3 dst=7
memset start=6ms end=7ms bytes=64 value=255 mem=managed
nvtx start=0 end=10ms text="frame 0"
nvtx start=1ms end=2ms registered="enqueue" domain=1 type=startend pid=77 tid=78 rangeid=5
nvtx start=3ms text="mark" type=mark
empty-table nvtx
enum ENUM_CUDA_MEMCPY_OPER 1 CUDA_MEMCPY_KIND_DTOH "Device-to-Host"
meta EXPORT_PRODUCT_VERSION "2099.1"
)d",
                       "test.trace", out);
  TestDb db(out);
  EXPECT_EQ(db.Query("SELECT id, name FROM TARGET_INFO_GPU ORDER BY id"),
            (std::vector<Row>{{"0", "NVIDIA H200"}, {"1", "A100"}}));
  EXPECT_EQ(db.Query("SELECT start, end, deviceId, contextId, streamId, globalPid >> 24 & "
                     "16777215, correlationId, (SELECT value FROM StringIds WHERE id = "
                     "shortName), (SELECT value FROM StringIds WHERE id = demangledName), "
                     "gridX, gridY, gridZ, blockX, blockY, blockZ "
                     "FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            (std::vector<Row>{{"1000", "2000", "1", "2", "14", "77", "9", "gemm",
                               "void gemm<float>(float*)", "256", "2", "3", "128", "1", "1"}}));
  EXPECT_EQ(db.Query("SELECT start, end, copyKind, bytes, srcKind, dstKind, srcDeviceId, "
                     "dstDeviceId, streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start"),
            (std::vector<Row>{
                {"0", "1000000", "1", "8388608", "0", "2", std::nullopt, std::nullopt, "7"},
                {"2000000", "3000000", "10", "4096", "2", "2", "0", "1", "8"},
                {"4000000", "5000000", "42", "1", "3", "7", std::nullopt, std::nullopt, "7"}}));
  EXPECT_EQ(db.Query("SELECT start, end, bytes, value, memKind FROM CUPTI_ACTIVITY_KIND_MEMSET"),
            (std::vector<Row>{{"6000000", "7000000", "64", "255", "4"}}));
  EXPECT_EQ(db.Query("SELECT start, end, eventType, text, (SELECT value FROM StringIds WHERE id = "
                     "textId), domainId, globalTid >> 24 & 16777215, globalTid & 16777215, rangeId "
                     "FROM NVTX_EVENTS ORDER BY start, eventType"),
            (std::vector<Row>{
                {"0", "10000000", "59", "frame 0", std::nullopt, "0", "4242", "4242", std::nullopt},
                {"0", std::nullopt, "75", "TensorRT", std::nullopt, "1", "77", "77", std::nullopt},
                {"1000000", "2000000", "60", std::nullopt, "enqueue", "1", "77", "78", "5"},
                {"3000000", std::nullopt, "34", "mark", std::nullopt, "0", "4242", "4242",
                 std::nullopt}}));
  EXPECT_EQ(db.Text("SELECT name FROM ENUM_CUDA_MEMCPY_OPER WHERE id = 1"),
            "CUDA_MEMCPY_KIND_DTOH");
  EXPECT_EQ(db.Text("SELECT value FROM EXPORT_META_DATA WHERE name = 'EXPORT_PRODUCT_VERSION'"),
            "2099.1");
  EXPECT_EQ(db.Text("SELECT value FROM EXPORT_META_DATA WHERE name = 'EXPORT_SCHEMA_VERSION'"),
            "3.0.0");
}

TEST(TraceDescriptionTest, DefaultsToSchema2024AndDefaultRowValues) {
  ScratchDir dir;
  BuildFromDescription("kernel start=0 end=1\n", "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_TRUE(db.HasTable("META_DATA_EXPORT"));
  EXPECT_EQ(
      db.Query("SELECT deviceId, contextId, streamId, globalPid, correlationId, "
               "greenContextId, (SELECT value FROM StringIds WHERE id = shortName) "
               "FROM CUPTI_ACTIVITY_KIND_KERNEL"),
      (std::vector<Row>{{"0", "1", "7", std::to_string(kGlobalPid4242), "0", "0", "kernel"}}));
}

TEST(TraceDescriptionTest, QuotingEscapesAndComments) {
  ScratchDir dir;
  BuildFromDescription(
      "gpu 0 \"GPU \\\"quoted\\\" # not a comment \\\\ done\"   # a comment\n"
      "  # indented comment line\n"
      "\n"
      "kernel start=0 end=1 name=\"a b=c\"#comment right after\r\n",
      "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Text("SELECT name FROM TARGET_INFO_GPU"), "GPU \"quoted\" # not a comment \\ done");
  EXPECT_EQ(db.Text("SELECT value FROM StringIds"), "a b=c");
}

TEST(TraceDescriptionTest, TimeUnitsAndDecimals) {
  ScratchDir dir;
  BuildFromDescription(R"d(
kernel start=16.35us end=1ms
kernel start=-2s end=-1.5s
kernel start=1ms+2*16.35us end="1ms + 3 * 16.35us"
)d",
                       "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid"),
            (std::vector<Row>{
                {"16350", "1000000"}, {"-2000000000", "-1500000000"}, {"1032700", "1049050"}}));
}

TEST(TraceDescriptionTest, RepeatShiftsTimesAndBindsI) {
  ScratchDir dir;
  BuildFromDescription(R"d(
repeat 4 step=10us {
  kernel start=0 end=1us stream=13+i%4 corr=100+i grid=i+1,1,1
}
kernel start=0 end=1 corr=999
)d",
                       "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT start, end, streamId, correlationId, gridX "
                     "FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid"),
            (std::vector<Row>{{"0", "1000", "13", "100", "1"},
                              {"10000", "11000", "14", "101", "2"},
                              {"20000", "21000", "15", "102", "3"},
                              {"30000", "31000", "16", "103", "4"},
                              {"0", "1", "7", "999", "1"}}));
}

TEST(TraceDescriptionTest, NestedRepeatsBindIJK) {
  ScratchDir dir;
  BuildFromDescription(R"d(
repeat 2 step=1ms {
  nvtx start=0 end=900us text="outer"
  repeat 3 step=10us {
    repeat 2 step=1us {   # k
      kernel start=0 end=100 corr=i*100+j*10+k stream=7+j
    }
  }
}
)d",
                       "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 12);
  EXPECT_EQ(db.Int("SELECT count(*) FROM NVTX_EVENTS"), 2);
  // start = i*1ms + j*10us + k*1us; corr encodes the indices.
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start = "
                   "(correlationId / 100) * 1000000 + (correlationId / 10 % 10) * 10000 + "
                   "(correlationId % 10) * 1000 AND end = start + 100 AND streamId = 7 + "
                   "correlationId / 10 % 10"),
            12);
  EXPECT_EQ(db.Query("SELECT group_concat(correlationId) FROM (SELECT correlationId FROM "
                     "CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid)"),
            (std::vector<Row>{{"0,1,10,11,20,21,100,101,110,111,120,121"}}));
}

TEST(TraceDescriptionTest, RepeatCountAndStepMayUseOuterIndices) {
  ScratchDir dir;
  BuildFromDescription(R"d(
repeat 3 {
  repeat i step=i*1us {
    memset start=0 end=1 bytes=1+i*10+j
  }
}
repeat 0 step=1ms {
  kernel start=0 end=1
}
)d",
                       "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT bytes, start FROM CUPTI_ACTIVITY_KIND_MEMSET ORDER BY rowid"),
            (std::vector<Row>{{"11", "0"}, {"21", "0"}, {"22", "2000"}}));
  EXPECT_FALSE(db.HasTable("CUPTI_ACTIVITY_KIND_KERNEL"));  // a 0-count repeat emits nothing
}

TEST(TraceDescriptionTest, NullTimestampsWithAllowNulls) {
  ScratchDir dir;
  BuildFromDescription(R"d(schema 2021
allow-nulls
kernel start=null end=5
memcpy start=1 end=null kind=DtoH bytes=4
nvtx start=0 end=null text="open range"
)d",
                       "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            (std::vector<Row>{{std::nullopt, "5"}}));
  EXPECT_EQ(db.Query("SELECT start, end, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"),
            (std::vector<Row>{{"1", std::nullopt, "2"}}));
  EXPECT_EQ(db.Query("SELECT start, end FROM NVTX_EVENTS"),
            (std::vector<Row>{{"0", std::nullopt}}));
}

struct ErrorCase {
  const char* text;
  const char* message;
};

TEST(TraceDescriptionTest, Schema2025WritesCopyCount) {
  ScratchDir dir;
  BuildFromDescription(
      "schema 2025\nmemcpy start=0 end=1 kind=HtoD bytes=8 count=4\n"
      "memcpy start=2 end=3 kind=DtoH bytes=8\n",
      "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT copyKind, copyCount FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start"),
            (std::vector<Row>{{"1", "4"}, {"2", "1"}}));
  EXPECT_EQ(db.Text("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"),
            "3.17.2");
}

TEST(TraceDescriptionTest, ErrorsNameSourceAndLine) {
  const ErrorCase cases[] = {
      {"frobnicate 1\n", "test.trace:1: unknown directive 'frobnicate'"},
      {"\n\nkernel start=0 end=1 colour=red\n", "test.trace:3: unknown key 'colour' for kernel"},
      {"kernel start=0\n", "test.trace:1: kernel needs end="},
      {"memcpy start=0 end=1 bytes=4\n", "test.trace:1: memcpy needs kind="},
      {"memcpy start=0 end=1 kind=HtoD\n", "test.trace:1: memcpy needs bytes="},
      {"nvtx start=0 end=1\n", "test.trace:1: nvtx needs text= or registered="},
      {"nvtx start=0 text=a registered=b\n",
       "test.trace:1: nvtx takes text= or registered=, not both"},
      {"kernel start=0 end=1 end=2\n", "test.trace:1: 'end' given twice"},
      {"kernel start=1x end=2\n", "test.trace:1: start=1x: bad number '1x' (unknown unit 'x'"},
      {"kernel start=1.5ns end=2\n",
       "test.trace:1: start=1.5ns: '1.5ns' is not a whole number of nanoseconds"},
      {"kernel start=0 end=1 stream=1us\n",
       "test.trace:1: stream=1us: '1us': a time unit is only allowed in times"},
      {"kernel start=0 end=1 stream=i\n",
       "test.trace:1: stream=i: 'i' is only defined inside a repeat block"},
      {"kernel start=0 end=1 stream=\n", "test.trace:1: missing value for 'stream'"},
      {"kernel start=0 end=1 7\n", "test.trace:1: expected KEY=VALUE after 'kernel', got '7'"},
      {"kernel start=null end=1\n",
       "test.trace:1: start=null needs 'allow-nulls' at the top of the description"},
      {"nvtx start=null text=a\n", "test.trace:1: nvtx start cannot be null"},
      {"memcpy start=0 end=1 kind=HtoX bytes=1\n",
       "test.trace:1: unknown copy kind 'HtoX' (expected HtoD, DtoH"},
      {"memcpy start=0 end=1 kind=HtoD bytes=1 src=gpu\n",
       "test.trace:1: unknown memory kind 'gpu' (expected pageable, pinned"},
      {"nvtx start=0 text=a type=range\n", "test.trace:1: unknown nvtx type 'range'"},
      {"kernel start=0 end=1 grid=1,2,3,4\n",
       "test.trace:1: grid=1,2,3,4 has more than three dimensions"},
      {"kernel start=0 end=1 name=\"abc\n",
       "test.trace:1: unterminated quoted value (missing closing '\"')"},
      {"gpu 0 \"a\\tb\"\n", "test.trace:1: unknown escape '\\t'"},
      {"gpu 0\n", "test.trace:1: expected: gpu ID \"NAME\""},
      {"domain 1 x tid=3\n", "test.trace:1: unknown key 'tid' for domain (expected pid)"},
      {"empty-table sync\n", "test.trace:1: unknown table 'sync'"},
      {"enum ENUM_FOO 1 a b\n", "test.trace:1: unknown enum table 'ENUM_FOO'"},
      {"schema 2021\nenum ENUM_CUDA_MEM_KIND 1 a b\n",
       "test.trace:2: 'enum' needs schema 2022 or later"},
      {"memcpy start=0 end=1 kind=HtoD bytes=4 count=2\n",
       "test.trace:1: memcpy count= needs schema 2025"},
      {"schema 2020\nmeta A b\n", "test.trace:2: 'meta' needs schema 2021 or later"},
      {"schema 2023\n", "test.trace:1: unknown schema '2023'"},
      {"gpu 0 a\nschema 2022\n", "test.trace:2: 'schema' must come before all other directives"},
      {"schema 2022\nschema 2024\n", "test.trace:2: 'schema' given twice"},
      {"kernel start=0 end=1\nallow-nulls\n",
       "test.trace:2: 'allow-nulls' must come before all other directives"},
      {"# header\nrepeat 3 step=1us {\n  kernel start=0 end=1\n",
       "test.trace:2: repeat block is never closed (missing '}')"},
      {"repeat 2 {\n}\n}\n", "test.trace:3: '}' without a matching repeat"},
      {"repeat 2\n", "test.trace:1: expected: repeat COUNT [step=T] {"},
      {"repeat 2 stride=1 {\n}\n", "test.trace:1: unknown key 'stride' for repeat"},
      {"repeat 1 {\nrepeat 1 {\nrepeat 1 {\nrepeat 1 {\n}\n}\n}\n}\n",
       "test.trace:4: repeat blocks nest at most three deep"},
      {"repeat 2 {\n  kernel start=0 end=1 stream=j\n}\n",
       "test.trace:2: stream=j: 'j' is only defined inside a repeat nested in another"},
      {"kernel start=0 end=1 corr=1/0\n", "test.trace:1: corr=1/0: division by zero"},
      // Values only known to be bad while rows are generated still name the line and indices.
      {"repeat 5 {\n  kernel start=0 end=1 stream=3-i\n}\n",
       "test.trace:2: stream=-1 is out of range (0..4294967295) (at i=4)"},
      {"repeat 2 {\n  repeat 3 {\n    kernel start=0 end=1 corr=10/(j-2)+10\n  }\n}\n",
       "test.trace:3: corr=10/(j-2)+10: division by zero (at i=0, j=2)"},
      {"kernel start=0 end=1 pid=16777216\n",
       "test.trace:1: pid=16777216 is out of range (0..16777215: nsys packs it into 24 bits)"},
      {"repeat -1 {\n}\n", "test.trace:1: repeat count -1 is negative"},
  };
  ScratchDir dir;
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string error = BuildError(c.text, dir / "t.sqlite");
    EXPECT_EQ(error.rfind(c.message, 0), 0u) << "got: " << error;
    EXPECT_FALSE(std::filesystem::exists(dir / "t.sqlite"));
    EXPECT_FALSE(std::filesystem::exists(dir / "t.sqlite.tmp"));
  }
}

TEST(TraceDescriptionTest, FailedBuildKeepsThePreviousOutput) {
  ScratchDir dir;
  const std::filesystem::path out = dir / "t.sqlite";
  BuildFromDescription("kernel start=0 end=1\n", "t", out);
  // Fails while writing rows (after the builder has started), not while parsing.
  EXPECT_NE(BuildError("kernel start=0 end=1\nrepeat 3 {\n kernel start=0 end=1 ctx=1-i\n}\n", out),
            "");
  EXPECT_FALSE(std::filesystem::exists(dir / "t.sqlite.tmp"));
  TestDb db(out);
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
}

TEST(TraceDescriptionTest, LargeRepeatIsStreamed) {
  ScratchDir dir;
  constexpr int kFrames = 100000;
  BuildFromDescription("repeat " + std::to_string(kFrames) + R"d( step=16.35us {
  memcpy start=0 end=2us kind=HtoD bytes=65536 src=pinned stream=13+i%4 corr=3*i
  kernel start=2us end=7us stream=13+i%4 corr=3*i+1 name=process_frame
}
)d",
                       "t", dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), kFrames);
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), kFrames);
  EXPECT_EQ(db.Int("SELECT max(start) FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            int64_t{kFrames - 1} * 16350 + 2000);
  EXPECT_EQ(db.Int("SELECT count(DISTINCT correlationId) FROM (SELECT correlationId FROM "
                   "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT correlationId FROM "
                   "CUPTI_ACTIVITY_KIND_MEMCPY)"),
            2 * kFrames);
}

// The bundled example must keep the totals its comments promise.
TEST(TraceDescriptionTest, BundledFramePipelineExample) {
  const std::filesystem::path trace =
      std::filesystem::path(GPUROOF_EXAMPLES_DIR) / "frame_pipeline.trace";
  std::ifstream in(trace);
  ASSERT_TRUE(in) << trace;
  std::stringstream text;
  text << in.rdbuf();
  ScratchDir dir;
  BuildFromDescription(text.str(), trace.string(), dir / "t.sqlite");
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT copyKind, count(*), sum(end - start), sum(bytes) "
                     "FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind ORDER BY copyKind"),
            (std::vector<Row>{{"1", "2001", "33700000", "139460608"},
                              {"2", "2000", "4000000", "8192000"}}));
  EXPECT_EQ(db.Query("SELECT count(*), sum(end - start), count(DISTINCT streamId) "
                     "FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            (std::vector<Row>{{"2000", "11280000", "4"}}));
  EXPECT_EQ(db.Int("SELECT count(DISTINCT correlationId) FROM (SELECT correlationId FROM "
                   "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT correlationId FROM "
                   "CUPTI_ACTIVITY_KIND_MEMCPY)"),
            6001);
  EXPECT_EQ(db.Text("SELECT name FROM TARGET_INFO_GPU"), "NVIDIA H200");
}

}  // namespace
}  // namespace gpuroof::testsupport
