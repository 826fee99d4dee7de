// The Kineto reader against tiny hand-written traces, one test per item of the parser checklist
// (docs/formats.md, "Kineto JSON traces"). Every expected number is worked out by hand in the
// comments.
#include "gpuroof/readers/kineto_json_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/kineto_trace_builder.h"
#include "gpuroof/readers/reader_registry.h"

#include "support/kineto_json_builder.h"

namespace gpuroof {
namespace {

using testing::KinetoJsonBuilder;

Trace Read(const std::string& json, KinetoReadOptions options = {}) {
  return ReadKinetoJsonText(json, "test.json", options);
}

// All ops of the trace, in block order (blocks are sorted by start).
struct Op {
  int64_t start_ns;
  int64_t end_ns;
  Engine engine;
  int32_t device;
  uint32_t stream;
  uint64_t bytes;
  uint32_t correlation;
  const OpSignature* signature;
};

std::vector<Op> Ops(const Trace& trace) {
  std::vector<Op> ops;
  for (const ActivityBlock& b : trace.blocks) {
    for (size_t i = 0; i < b.size(); ++i) {
      const StreamInfo& s = trace.streams[b.stream[i]];
      ops.push_back({b.start_ns[i], b.end_ns[i], b.engine[i], s.device_id, s.stream_id, b.bytes[i],
                     b.correlation.empty() ? 0u : b.correlation[i],
                     &trace.signatures[b.signature[i]]});
    }
  }
  return ops;
}

int64_t Skipped(const Trace& trace, std::string_view reason) {
  int64_t n = 0;
  for (const SkipCount& skip : trace.diagnostics.skips()) {
    if (skip.reason == reason) n += skip.count;
  }
  return n;
}

void ExpectBalanced(const Trace& trace) {
  const Diagnostics& d = trace.diagnostics;
  EXPECT_EQ(d.records_read(), d.records_used() + d.records_skipped()) << d.Summary();
}

// 1. Object and bare-array forms; unknown top-level keys (nested too) before and after.
TEST(KinetoJsonReader, ObjectAndArrayFormsWithUnknownTopLevelKeys) {
  KinetoJsonBuilder b;
  b.Kernel("k", "10", "5")
      .TopLevel("deviceProperties", R"([{"id": 0, "name": "NVIDIA B200", "numSms": 148}])")
      .TopLevel("distributedInfo", R"({"backend": "nccl", "pg_config": [{"ranks": [0, 1]}]})")
      .TopLevel("traceName", R"("/tmp/x.json")", true)
      .TopLevel("otherData", R"({"nested": {"deep": [1, {"traceEvents": []}]}})", true);
  Trace object = Read(b.ObjectJson());
  Trace array = Read(b.ArrayJson());
  for (const Trace* t : {&object, &array}) {
    ASSERT_EQ(t->activity_count(), 1u);
    EXPECT_EQ(Ops(*t)[0].start_ns, 10'000);
    EXPECT_EQ(Ops(*t)[0].end_ns, 15'000);
    ExpectBalanced(*t);
  }
  EXPECT_EQ(object.DeviceName(0), "NVIDIA B200");
  EXPECT_EQ(object.metadata.at("kineto_traceName"), "/tmp/x.json");
  EXPECT_EQ(object.format, "kineto-json");
}

// 1. distributedInfo names the rank (`gpuroof ranks`). One larger than the 16 MiB read limit on
// top-level values (a pg_config listing every group's ranks) was dropped without a word, so the
// ranks fell back to file order: its top-level rank and world_size are read by a streaming scan,
// and a note says the rest was not read. A "rank" nested in pg_config is not the rank.
TEST(KinetoJsonReader, RankIsReadFromADistributedInfoTooLargeToCapture) {
  std::string ranks;
  while (ranks.size() < (size_t{17} << 20))
    ranks += "16383, ";
  ranks += "0";
  const std::string info = R"({"backend": "nccl", "pg_config": [{"pg_name": "0", "rank": 99, )"
                           R"("ranks": [)" +
                           ranks + R"(]}], "rank": 5, "world_size": "8", "pg_count": 1})";
  for (bool after_events : {false, true}) {
    Trace trace = Read(KinetoJsonBuilder()
                           .Kernel("k", "1", "1")
                           .TopLevel("distributedInfo", info, after_events)
                           .ObjectJson());
    EXPECT_EQ(trace.activity_count(), 1u);
    EXPECT_EQ(trace.metadata.at("distributed_rank"), "5");
    EXPECT_EQ(trace.metadata.at("distributed_rank_origin"), "distributedInfo.rank");
    EXPECT_EQ(trace.metadata.at("distributed_world_size"), "8");
    ASSERT_EQ(trace.diagnostics.notes().size(), 1u);
    EXPECT_EQ(trace.diagnostics.notes()[0],
              "distributedInfo is 17.0 MiB, over the 16 MiB read limit on top-level values: only "
              "its top-level rank and world_size were looked for (rank 5, world size 8)");
  }
  // Under the limit: read whole, as before, and no note.
  Trace small = Read(KinetoJsonBuilder()
                         .Kernel("k", "1", "1")
                         .TopLevel("distributedInfo", R"({"rank": 3, "world_size": 4})")
                         .ObjectJson());
  EXPECT_EQ(small.metadata.at("distributed_rank"), "3");
  EXPECT_EQ(small.metadata.at("distributed_world_size"), "4");
  EXPECT_TRUE(small.diagnostics.notes().empty());
  // Too large and without a top-level rank: said so.
  Trace no_rank = Read(KinetoJsonBuilder()
                           .Kernel("k", "1", "1")
                           .TopLevel("distributedInfo", R"({"pg_config": [)" + ranks + "]}")
                           .ObjectJson());
  EXPECT_EQ(no_rank.metadata.count("distributed_rank"), 0u);
  ASSERT_EQ(no_rank.diagnostics.notes().size(), 1u);
  EXPECT_NE(no_rank.diagnostics.notes()[0].find("(no rank, no world size)"), std::string::npos)
      << no_rank.diagnostics.notes()[0];
}

// 1. .json.gz, chosen by content through the registry whatever the name.
TEST(KinetoJsonReader, GzipFileIsReadThroughTheRegistry) {
  std::string json = KinetoJsonBuilder()
                         .Kernel("k", "1", "2")
                         .Memset("Memset (Device)", "4", "1", 64)
                         .ObjectJson();
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("gpuroof_kineto_" + std::to_string(::getpid()) + ".dat");
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, json.data(), static_cast<unsigned>(json.size())),
            static_cast<int>(json.size()));
  gzclose(gz);
  Trace trace = ReadTrace(path);
  std::filesystem::remove(path);
  EXPECT_EQ(trace.format, "kineto-json");
  EXPECT_EQ(trace.activity_count(), 2u);
  EXPECT_EQ(trace.metadata.at("kineto_compression"), "gzip");
}

// 2. pid/tid as numbers, negative numbers or strings; ts/dur as integers, decimals or strings.
TEST(KinetoJsonReader, IdsAndTimesInEveryWrittenForm) {
  KinetoJsonBuilder b;
  b.Raw(
       R"({"ph": "X", "cat": "kernel", "name": "a", "pid": "0", "tid": "stream 7", "ts": "2.5", "dur": 1})")
      .Raw(
          R"({"ph": "X", "cat": "kernel", "name": "b", "pid": 1, "tid": -7, "ts": 3, "dur": "0.25"})")
      .Raw(
          R"({"ph": "X", "cat": "user_annotation", "name": "r", "pid": "host", "tid": -3, "ts": 1.000, "dur": 9})");
  Trace trace = Read(b.ObjectJson());
  std::vector<Op> ops = Ops(trace);
  ASSERT_EQ(ops.size(), 2u);
  // "2.5" µs = 2500 ns, dur 1 µs; "stream 7" -> stream 7 on device 0.
  EXPECT_EQ(ops[0].start_ns, 2'500);
  EXPECT_EQ(ops[0].end_ns, 3'500);
  EXPECT_EQ(ops[0].device, 0);
  EXPECT_EQ(ops[0].stream, 7u);
  // tid -7 -> stream 0xFFFFFFF9 (uint32 of -7), device from pid 1; 3 µs + 0.25 µs.
  EXPECT_EQ(ops[1].start_ns, 3'000);
  EXPECT_EQ(ops[1].end_ns, 3'250);
  EXPECT_EQ(ops[1].device, 1);
  EXPECT_EQ(ops[1].stream, static_cast<uint32_t>(-7));
  ASSERT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_EQ(trace.nvtx_ranges[0].start_ns, 1'000);
  EXPECT_EQ(trace.nvtx_ranges[0].end_ns, 10'000);
  ExpectBalanced(trace);
}

// 3. Exact decimal -> int64 ns, baseTimeNanoseconds applied (before or after traceEvents),
// displayTimeUnit ignored.
TEST(KinetoJsonReader, TimesAreExactAndShiftedByBaseTime) {
  // 1.7e15 µs with ns decimals: a double holds only ~15.9 significant digits, this has 19.
  Trace absolute = Read(KinetoJsonBuilder()
                            .TopLevel("displayTimeUnit", R"("ns")")
                            .Kernel("k", "1712345678901234.567", "0.001")
                            .ObjectJson());
  ASSERT_EQ(absolute.activity_count(), 1u);
  EXPECT_EQ(Ops(absolute)[0].start_ns, 1'712'345'678'901'234'567);
  EXPECT_EQ(Ops(absolute)[0].end_ns, 1'712'345'678'901'234'568);

  for (bool after : {false, true}) {
    Trace relative = Read(KinetoJsonBuilder()
                              .TopLevel("baseTimeNanoseconds", "1767189312000000000", after)
                              .TopLevel("displayTimeUnit", R"("ms")", after)
                              .Kernel("k", "1365627866520.196", "2.08")
                              .Annotation("ProfilerStep#1", "1365627866000", "1000")
                              .ObjectJson());
    // 1767189312000000000 + 1365627866520196 = 1768554939866520196; + 2080 ns.
    EXPECT_EQ(Ops(relative)[0].start_ns, 1'768'554'939'866'520'196);
    EXPECT_EQ(Ops(relative)[0].end_ns, 1'768'554'939'866'522'276);
    EXPECT_EQ(relative.nvtx_ranges[0].start_ns, 1'768'554'939'866'000'000);
  }
}

// 4. Classification: engine work by category (legacy capitalised too) and copy-name prefix;
// memory kinds from "(src -> dst)"; annotations, syncs, events and counters are not busy time.
TEST(KinetoJsonReader, CategoriesAndCopyNamesGiveEngines) {
  KinetoJsonBuilder b;
  b.Kernel("gemm", "0", "10")
      .Raw(
          R"({"ph": "X", "cat": "Kernel", "name": "old", "pid": 0, "tid": "stream 7", "ts": 20, "dur": 1})")
      .Memcpy("Memcpy HtoD (Pinned -> Device)", "30", "2", 4096)
      .Memcpy("Memcpy DtoH (Device -> Pageable)", "40", "2", 1024)
      .Memcpy("Memcpy DtoD (Device -> Device)", "50", "2", 8)
      .Raw(R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", )j"
           R"j("pid": 0, "tid": 7, "ts": 60, "dur": 1, )j"
           R"j("args": {"fromDevice": 0, "toDevice": 1, "stream": 7, "bytes": 16}})j")
      .Raw(R"j({"ph": "X", "cat": "Memcpy", "name": "memcpy htod (Host -> Device)", )j"
           R"j("pid": 0, "tid": 7, "ts": 70, "dur": 1, "args": {"bytes": 8}})j")
      .Memset("Memset (Unknown)", "80", "1", 32)
      .GpuAnnotation("ProfilerStep#1", "0", "100")
      .Raw(
          R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 1000007, "ts": 0, "dur": 90, "args": {"stream": 7, "device": 0}})")
      .Raw(
          R"({"ph": "X", "cat": "cuda_event", "name": "Event Record", "pid": 0, "tid": 7, "ts": 0, "dur": 90})")
      .Raw(
          R"({"ph": "C", "cat": "hardware_counters", "name": "sm", "pid": 0, "tid": 7, "ts": 0, "args": {"v": 3}})")
      .Raw(R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy AtoA (Array -> Array)", )j"
           R"j("pid": 0, "tid": 7, "ts": 95, "dur": 1, "args": {"bytes": 8}})j")
      .Raw(R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy <unknown> (Unknown -> Unknown)", )j"
           R"j("pid": 0, "tid": 7, "ts": 97, "dur": 1, "args": {"bytes": 8}})j");
  Trace trace = Read(b.ObjectJson());
  std::vector<Op> ops = Ops(trace);
  ASSERT_EQ(ops.size(), 9u);
  std::vector<Engine> engines;
  for (const Op& op : ops)
    engines.push_back(op.engine);
  // Array to array is D2D, as nsys's copyKind 5 (docs/metrics.md, "Engines").
  EXPECT_EQ(engines, (std::vector<Engine>{Engine::kKernel, Engine::kKernel, Engine::kH2D,
                                          Engine::kD2H, Engine::kD2D, Engine::kP2P, Engine::kH2D,
                                          Engine::kMemset, Engine::kD2D}));
  EXPECT_EQ(ops[8].signature->src_kind, MemoryKind::kArray);
  EXPECT_EQ(ops[8].signature->dst_kind, MemoryKind::kArray);
  EXPECT_EQ(ops[2].signature->src_kind, MemoryKind::kPinned);
  EXPECT_EQ(ops[2].signature->dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(ops[2].bytes, 4096u);
  EXPECT_EQ(ops[3].signature->dst_kind, MemoryKind::kPageable);
  EXPECT_EQ(ops[5].signature->src_device, 0);
  EXPECT_EQ(ops[5].signature->dst_device, 1);
  // ROCm's "Host" comes from the copy kind alone: pinned or pageable, it cannot say.
  EXPECT_EQ(ops[6].signature->src_kind, MemoryKind::kUnknown);
  EXPECT_EQ(ops[7].signature->src_kind, MemoryKind::kUnknown);
  EXPECT_EQ(trace.strings.Get(ops[0].signature->name), "gemm");
  EXPECT_EQ(ops[0].signature->grid, (std::array<uint32_t, 3>{4, 2, 1}));
  // The GPU annotation is a range, not an op; "<unknown>" has no engine and is counted as skipped.
  ASSERT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_TRUE(trace.nvtx_ranges[0].on_gpu);
  EXPECT_EQ(
      Skipped(trace, "copy of unknown direction (name is not 'Memcpy HtoD|DtoH|DtoD|PtoP...')"), 1);
  ExpectBalanced(trace);
}

// A "Memcpy PtoP" counts on the device of its row (args.device, else pid: its stream's device),
// not on args.fromDevice or args.toDevice (docs/metrics.md, "Engines"): a push issued on device 0
// and a pull issued on device 1, both 0 -> 1, land one on each device.
TEST(KinetoJsonReader, APeerCopyIsOnTheDeviceOfItsRowNotOfItsEnds) {
  KinetoJsonBuilder b;
  b.Raw(R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", )j"
        R"j("pid": 0, "tid": 7, "ts": 10, "dur": 1, )j"
        R"j("args": {"device": 0, "fromDevice": 0, "toDevice": 1, "stream": 7, "bytes": 16}})j")
      .Raw(R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", )j"
           R"j("pid": 1, "tid": 9, "ts": 20, "dur": 3, )j"
           R"j("args": {"device": 1, "fromDevice": 0, "toDevice": 1, "stream": 9, "bytes": 16}})j");
  Trace trace = Read(b.ObjectJson());
  std::vector<Op> ops = Ops(trace);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].engine, Engine::kP2P);
  EXPECT_EQ(ops[0].device, 0);
  EXPECT_EQ(ops[0].end_ns - ops[0].start_ns, 1000);
  EXPECT_EQ(ops[1].engine, Engine::kP2P);
  EXPECT_EQ(ops[1].device, 1);
  EXPECT_EQ(ops[1].end_ns - ops[1].start_ns, 3000);
  EXPECT_EQ(ops[1].signature->src_device, 0);
  EXPECT_EQ(ops[1].signature->dst_device, 1);
  EXPECT_EQ(trace.ActiveDeviceIds(), (std::vector<int32_t>{0, 1}));
}

// 5. Device and stream from args, falling back to pid/tid.
TEST(KinetoJsonReader, DeviceAndStreamFromArgsThenPidTid) {
  KinetoJsonBuilder b;
  // args say device 2 / stream 13 although the row is pid 0 / tid 7.
  b.Raw(
       R"({"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"device": 2, "stream": 13}})")
      .Raw(
          R"({"ph": "X", "cat": "kernel", "name": "b", "pid": 3, "tid": 20, "ts": 2, "dur": 1, "args": {}})")
      .Raw(
          R"({"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": "stream 9 ", "ts": 3, "dur": 1})")
      .Raw(
          R"({"ph": "X", "cat": "kernel", "name": "d", "pid": "Spans", "tid": 7, "ts": 4, "dur": 1})");
  Trace trace = Read(b.ObjectJson());
  std::vector<Op> ops = Ops(trace);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].device, 2);
  EXPECT_EQ(ops[0].stream, 13u);
  EXPECT_EQ(ops[1].device, 3);
  EXPECT_EQ(ops[1].stream, 20u);
  EXPECT_EQ(ops[2].stream, 9u);
  EXPECT_EQ(Skipped(trace, "no device (args.device or a numeric pid)"), 1);
  EXPECT_EQ(trace.ActiveDeviceIds(), (std::vector<int32_t>{0, 2, 3}));
  ExpectBalanced(trace);
}

// 6. Unsorted events, same-stream overlap kept, zero durations kept and noted, negative and
// over-7-day durations skipped and counted.
TEST(KinetoJsonReader, OrderOverlapAndDurationRules) {
  KinetoJsonBuilder b;
  b.Kernel("late", "100", "10")
      .Kernel("early", "0", "50")
      .Kernel("overlapping", "40", "20")  // same stream, overlaps "early" by 10 µs (PDL)
      .Kernel("instant", "70", "0")
      .Kernel("negative", "80", "-1")
      .Kernel("week", "0", "604800000001")  // 7 days = 604800000000 µs; 1 µs more
      .Kernel("exactly a week", "0", "604800000000");
  Trace trace = Read(b.ObjectJson());
  std::vector<Op> ops = Ops(trace);
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_TRUE(trace.blocks[0].IsSortedByStart());
  std::vector<int64_t> starts;
  for (const Op& op : ops)
    starts.push_back(op.start_ns);
  EXPECT_EQ(starts, (std::vector<int64_t>{0, 0, 40'000, 70'000, 100'000}));
  EXPECT_EQ(Skipped(trace, "negative duration"), 1);
  EXPECT_EQ(Skipped(trace, "duration over 7 days"), 1);
  ASSERT_EQ(trace.diagnostics.notes().size(), 1u);
  EXPECT_NE(trace.diagnostics.notes()[0].find("1 GPU op(s) have zero duration"), std::string::npos);
  EXPECT_EQ(trace.diagnostics.records_read(), 7);
  ExpectBalanced(trace);
}

// 6. Missing or non-numeric times are counted per reason.
TEST(KinetoJsonReader, MissingTimesAreCounted) {
  KinetoJsonBuilder b;
  b.Raw(R"({"ph": "X", "cat": "kernel", "name": "no ts", "pid": 0, "tid": 7, "dur": 1})")
      .Raw(R"({"ph": "X", "cat": "kernel", "name": "no dur", "pid": 0, "tid": 7, "ts": 1})")
      .Raw(
          R"({"ph": "X", "cat": "kernel", "name": "bad ts", "pid": 0, "tid": 7, "ts": "soon", "dur": 1})")
      .Raw(
          R"({"ph": "X", "cat": "kernel", "name": "object ts", "pid": 0, "tid": 7, "ts": {}, "dur": 1})")
      .Raw(R"({"ph": "i", "cat": "kernel", "name": "instant", "pid": 0, "tid": 7, "ts": 1})")
      .Kernel("ok", "5", "1");
  Trace trace = Read(b.ObjectJson());
  EXPECT_EQ(trace.activity_count(), 1u);
  EXPECT_EQ(Skipped(trace, "missing ts"), 1);
  EXPECT_EQ(Skipped(trace, "missing dur"), 1);
  EXPECT_EQ(Skipped(trace, "ts not a number of microseconds"), 2);
  EXPECT_EQ(Skipped(trace, "not a complete ('X') event"), 1);
  EXPECT_TRUE(trace.diagnostics.has_data_loss());
  ExpectBalanced(trace);
}

// 7. Malformed producer output: one bad event is counted, the rest kept.
TEST(KinetoJsonReader, OneMalformedEventIsCountedNotFatal) {
  KinetoJsonBuilder b;
  b.Kernel("before", "1", "1")
      // pytorch #130622: quotes in a name left unescaped.
      .Raw(R"j({"ph": "X", "cat": "kernel", "name": "f("x")", "pid": 0, "tid": 7, "ts": 2, )j"
           R"j("dur": 1})j")
      // A raw control character (a tab is fine, a 0x01 is not) and invalid UTF-8.
      .Raw(
          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\x01"
          "b\", \"pid\": 0, \"tid\": 7, \"ts\": 3, \"dur\": 1}")
      .Raw(
          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"\xC3\x28\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 4, \"dur\": 1}")
      // HTA PR #324: an integer beyond int64 in args is fine where gpuroof does not look.
      .Raw(
          R"({"ph": "X", "cat": "kernel", "name": "big", "pid": 0, "tid": 7, "ts": 5, "dur": 1, "args": {"Comms Id": 184467440737095516150}})")
      .Kernel("after", "6", "1");
  Trace trace = Read(b.ObjectJson());
  EXPECT_EQ(trace.activity_count(), 3u);  // before, big, after
  EXPECT_EQ(Skipped(trace, "malformed JSON event"), 3);
  ASSERT_FALSE(trace.diagnostics.notes().empty());
  EXPECT_NE(trace.diagnostics.notes()[0].find("first malformed traceEvents element at byte"),
            std::string::npos);
  ExpectBalanced(trace);
}

// 7. A metadata-only file (no GPU events) loads with no activities.
TEST(KinetoJsonReader, MetadataOnlyTraceLoads) {
  Trace trace = Read(KinetoJsonBuilder().CpuOp("aten::add", "1", "2").ObjectJson());
  EXPECT_EQ(trace.activity_count(), 0u);
  EXPECT_EQ(trace.diagnostics.records_read(), 0);
  EXPECT_EQ(trace.metadata.at("kineto_events"), "1");
}

// 8b. One record_function, one range: CPU and GPU copies pair by (name, External id), so five
// "## backward ##" annotations are five ranges, each with its own GPU span; a GPU copy with no
// CPU copy stays a GPU-timeline range.
TEST(KinetoJsonReader, AnnotationCopiesPairByExternalId) {
  KinetoJsonBuilder b;
  for (int i = 0; i < 5; ++i) {
    const std::string start = std::to_string(100 * i);
    b.Annotation("## backward ##", start, "50", 4515, 4517, 10 + i)
        .GpuAnnotation("## backward ##", std::to_string(100 * i + 20), "40", 0, 7, 10 + i);
  }
  b.GpuAnnotation("orphan", "900", "10", 0, 7, 99).Kernel("k", "0", "1", 0, 7, 0);
  Trace trace = Read(b.ObjectJson());
  ASSERT_EQ(trace.nvtx_ranges.size(), 6u);
  for (int i = 0; i < 5; ++i) {
    const NvtxRange& range = trace.nvtx_ranges[static_cast<size_t>(i)];
    EXPECT_FALSE(range.on_gpu);
    EXPECT_EQ(range.start_ns, 100'000 * i);
    EXPECT_EQ(range.gpu_copy_start_ns, 100'000 * i + 20'000);
    EXPECT_EQ(range.gpu_copy_end_ns, 100'000 * i + 60'000);
  }
  EXPECT_TRUE(trace.nvtx_ranges[5].on_gpu);
  EXPECT_EQ(trace.strings.Get(trace.nvtx_ranges[5].name), "orphan");
}

// 8. Annotations: ProfilerStep#N on a CPU thread and its GPU projection; launches correlated.
TEST(KinetoJsonReader, AnnotationsAndLaunchCorrelation) {
  KinetoJsonBuilder b;
  b.Annotation("ProfilerStep#1", "0", "100", 4515, 4516)
      .Annotation("ProfilerStep#2", "100", "100", 4515, 4516)
      .GpuAnnotation("ProfilerStep#1", "5", "60", 1, 7)
      .Runtime("cudaLaunchKernel", "10", "3", 42, 4515, 4516)
      .Runtime("cudaMemcpyAsync", "110", "3", 43, 4515, 4516)
      .Runtime("cudaEventQuery", "120", "1", 44, 4515, 4516)    // launches nothing
      .Runtime("cudaLaunchKernel", "130", "1", 45, 4515, 4516)  // its op was not traced
      .Kernel("k", "20", "30", 1, 7, 42)
      .Memcpy("Memcpy DtoH (Device -> Pinned)", "115", "5", 100, 1, 7, 43)
      .CpuOp("aten::mm", "9", "5", 4515, 4516);
  Trace trace = Read(b.ObjectJson());
  // The GPU projection (no External id here, as old writers wrote it) is the only copy of its
  // name and starts after the CPU range: it is paired with it, one range, not two.
  ASSERT_EQ(trace.nvtx_ranges.size(), 2u);
  const NvtxRange& step1 = trace.nvtx_ranges[0];
  EXPECT_EQ(trace.strings.Get(step1.name), "ProfilerStep#1");
  EXPECT_FALSE(step1.on_gpu);
  EXPECT_FALSE(step1.start_end);
  EXPECT_EQ(step1.thread_id, (uint64_t{4515} << 32) | 4516);
  EXPECT_EQ(step1.process_id, 4515u);
  EXPECT_TRUE(step1.has_gpu_copy);
  EXPECT_EQ(step1.gpu_copy_device_id, 1);
  EXPECT_EQ(step1.gpu_copy_start_ns, 5'000);
  EXPECT_EQ(step1.gpu_copy_end_ns, 65'000);
  EXPECT_FALSE(trace.nvtx_ranges[1].has_gpu_copy);
  ASSERT_EQ(trace.api_calls.size(), 2u);
  EXPECT_EQ(trace.api_calls[0].correlation, 42u);
  EXPECT_EQ(trace.api_calls[1].correlation, 43u);
  EXPECT_EQ(trace.api_calls[0].process_id, 4515u);
  EXPECT_EQ(trace.api_calls[0].thread_id, step1.thread_id);
  EXPECT_EQ(trace.strings.Get(trace.api_calls[1].name), "cudaMemcpyAsync");
  // The launch whose op was not traced is kept apart: analyses say which range made it.
  ASSERT_EQ(trace.calls_without_op.size(), 1u);
  EXPECT_EQ(trace.calls_without_op[0].correlation, 45u);
  EXPECT_EQ(trace.calls_without_op[0].start_ns, 130'000);
  EXPECT_EQ(trace.strings.Get(trace.calls_without_op[0].name), "cudaLaunchKernel");
  std::vector<Op> ops = Ops(trace);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].correlation, 42u);
  EXPECT_EQ(trace.streams.at(0).process_id, 4515u);
  // Records: 3 ranges + 2 ops + 2 launches that launched traced ops.
  EXPECT_EQ(trace.diagnostics.records_read(), 7);
  ExpectBalanced(trace);
}

// 8. PyTorch 1.8 wrote ProfilerStep#N as an operator.
TEST(KinetoJsonReader, LegacyProfilerStepOperatorIsARange) {
  Trace trace = Read(
      KinetoJsonBuilder()
          .Raw(
              R"({"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": 9, "tid": "1890023232", "ts": 5, "dur": 10})")
          .ObjectJson());
  ASSERT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_EQ(trace.nvtx_ranges[0].thread_id, (uint64_t{9} << 32) | 1890023232u);
}

// Engine-load detail leaves out correlation ids and launch calls.
TEST(KinetoJsonReader, EngineLoadDetailKeepsOnlyWhatAnalyzeNeeds) {
  KinetoReadOptions options;
  options.detail = ReadDetail::kEngineLoad;
  Trace trace = Read(KinetoJsonBuilder()
                         .Runtime("cudaLaunchKernel", "1", "1", 5)
                         .Kernel("k", "2", "1", 0, 7, 5)
                         .ObjectJson(),
                     options);
  EXPECT_EQ(trace.activity_count(), 1u);
  EXPECT_TRUE(trace.blocks[0].correlation.empty());
  EXPECT_TRUE(trace.api_calls.empty());
}

bool HasNoteWith(const Trace& trace, std::string_view text) {
  const std::vector<std::string>& notes = trace.diagnostics.notes();
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

int64_t SkippedFor(const Trace& trace, std::string_view reason) {
  int64_t n = 0;
  for (const SkipCount& skip : trace.diagnostics.skips())
    n += skip.reason == reason ? skip.count : 0;
  return n;
}

// A file merged with itself: every op and launch call twice. The copies were summed twice and
// each launch then looked like a CUDA graph's. Skipped and counted, in every detail; an op that
// differs in any field (here the correlation id) is kept.
TEST(KinetoJsonReader, ExactDuplicateOpsAndCallsAreSkippedAndCounted) {
  KinetoJsonBuilder once;
  once.Runtime("cudaLaunchKernel", "1", "1", 5)
      .Kernel("k", "2", "1", 0, 7, 5)
      .Runtime("cudaLaunchKernel", "3", "1", 6)
      .Kernel("k", "4", "1", 0, 7, 6)
      .Memcpy("Memcpy HtoD (Pinned -> Device)", "5", "1", 4096, 0, 7, 0)
      .Kernel("k", "9", "1", 0, 7, 8);
  KinetoJsonBuilder twice = once;
  twice.Runtime("cudaLaunchKernel", "1", "1", 5)
      .Kernel("k", "2", "1", 0, 7, 5)
      .Runtime("cudaLaunchKernel", "3", "1", 6)
      .Kernel("k", "4", "1", 0, 7, 6)
      .Memcpy("Memcpy HtoD (Pinned -> Device)", "5", "1", 4096, 0, 7, 0)
      .Kernel("k", "9", "1", 0, 7, 9);  // same times, another correlation: not a copy
  for (ReadDetail detail : {ReadDetail::kFull, ReadDetail::kEngineLoad}) {
    KinetoReadOptions options;
    options.detail = detail;
    Trace trace = Read(twice.ObjectJson(), options);
    EXPECT_EQ(trace.activity_count(), 5u);
    EXPECT_EQ(SkippedFor(trace, "exact duplicate event"), detail == ReadDetail::kFull ? 5 : 3);
    EXPECT_FALSE(trace.diagnostics.has_data_loss());
    ExpectBalanced(trace);
    // Said with the counts, and that CPU ranges were not checked (they stay doubled).
    const std::vector<std::string>& notes = trace.diagnostics.notes();
    const std::string said = detail == ReadDetail::kFull
                                 ? "3 exact duplicate GPU op(s) and 2 launch call(s) were dropped"
                                 : "3 exact duplicate GPU op(s) were dropped";
    EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [&](const std::string& note) {
      return note.starts_with(said) &&
             note.find("only GPU ops and launch calls are checked") != std::string::npos;
    })) << (notes.empty() ? "" : notes.back());
    if (detail == ReadDetail::kFull) {
      EXPECT_EQ(trace.api_calls.size(), 2u);
    } else {
      EXPECT_TRUE(trace.blocks[0].correlation.empty());
    }
  }
  // api and report read every CUDA API call, launch or not, and check them all: said so.
  KinetoReadOptions all_calls;
  all_calls.all_api_calls = true;
  const Trace every = Read(twice.Runtime("cudaStreamSynchronize", "20", "1", 20)
                               .Runtime("cudaStreamSynchronize", "20", "1", 20)
                               .ObjectJson(),
                           all_calls);
  EXPECT_EQ(SkippedFor(every, "exact duplicate event"), 6);
  EXPECT_TRUE(HasNoteWith(every,
                          "3 exact duplicate GPU op(s) and 3 CUDA API call(s) were dropped (a "
                          "file merged with itself?); only GPU ops and CUDA API calls are checked"))
      << (every.diagnostics.notes().empty() ? "" : every.diagnostics.notes().back());
  EXPECT_FALSE(HasNoteWith(every, "launch call"));
  EXPECT_EQ(SkippedFor(Read(once.ObjectJson()), "exact duplicate event"), 0);
  // Two sub-microsecond nodes of one CUDA graph (the launch's correlation id on both) read as
  // ts=100 dur=0 twice in a whole-microsecond trace: both real, neither dropped.
  Trace graph = Read(KinetoJsonBuilder()
                         .Runtime("cudaGraphLaunch", "90", "1", 5)
                         .Kernel("tiny", "100", "0", 0, 7, 5)
                         .Kernel("tiny", "100", "0", 0, 7, 5)
                         .Kernel("big", "101", "3", 0, 7, 5)
                         .ObjectJson());
  EXPECT_EQ(graph.activity_count(), 3u);
  EXPECT_EQ(SkippedFor(graph, "exact duplicate event"), 0);
}

// More GPU ops than one block holds: a file merged with itself puts most copies in the first
// block with their originals and the rest in the next block, where the pass across blocks finds
// them (model/exact_duplicates.h); the counts do not depend on where a block ends.
TEST(KinetoJsonReader, CopiesInAnotherBlockAreSkippedToo) {
  constexpr int kOps = 131100;  // two of them just over a block
  static_assert(2 * kOps > KinetoTraceBuilder::kBlockOps && kOps < KinetoTraceBuilder::kBlockOps);
  KinetoJsonBuilder merged;
  for (int copy = 0; copy < 2; ++copy) {
    for (int i = 0; i < kOps; ++i)
      merged.Kernel("k", std::to_string(2 * i), "1", 0, 7, i + 1);
  }
  merged.Kernel("last", std::to_string(2 * kOps), "1", 0, 7, kOps + 1);  // keeps block 2
  const Trace trace = Read(merged.ObjectJson());
  ASSERT_EQ(trace.blocks.size(), 2u);
  EXPECT_EQ(trace.activity_count(), static_cast<size_t>(kOps + 1));
  EXPECT_EQ(SkippedFor(trace, "exact duplicate event"), kOps);
  EXPECT_EQ(trace.diagnostics.records_used(), kOps + 1);
  ExpectBalanced(trace);
}

// A GPU-stream event of a category gpuroof does not know was dropped outside the read = used +
// skipped count. Counted as skipped, with the category; CPU-side unknown categories stay unread.
TEST(KinetoJsonReader, AnUnknownGpuEventCategoryIsSkippedAndCounted) {
  Trace trace = Read(KinetoJsonBuilder()
                         .Kernel("k", "2", "1")
                         .Raw(R"({"ph": "X", "cat": "gpu_kernel", "name": "k2", "pid": 0, )"
                              R"("tid": "stream 7", "ts": 4, "dur": 1})")
                         .Raw(R"({"ph": "X", "cat": "new_gpu_thing", "name": "x", "pid": 0, )"
                              R"("tid": 7, "ts": 6, "dur": 1, "args": {"stream": 7}})")
                         .Raw(R"({"ph": "X", "cat": "some_cpu_thing", "name": "c", "pid": 100, )"
                              R"("tid": 100, "ts": 6, "dur": 1, "args": {"x": 1}})")
                         .ObjectJson());
  EXPECT_EQ(trace.activity_count(), 1u);
  EXPECT_EQ(SkippedFor(trace, "unknown GPU event category 'gpu_kernel'"), 1);
  EXPECT_EQ(SkippedFor(trace, "unknown GPU event category 'new_gpu_thing'"), 1);
  EXPECT_EQ(trace.diagnostics.records_skipped(), 2);
  ExpectBalanced(trace);
}

// One op 53 years before the others stretched the window to decades, unsaid. Kept, and noted
// per device, as a fact (no verdict: warm-up ops then a long pause is a real trace), with the
// count, the gap and the rest's span; ops after a pause shorter than 1000x the span of the rest
// are not noted, nor are ops far from another device's ops (each device has its own window).
TEST(KinetoJsonReader, OpsFarOutsideTheRestAreNoted) {
  Trace far = Read(KinetoJsonBuilder()
                       .Kernel("k", "-1000000000", "1")
                       .Kernel("k", "1000", "10")
                       .Kernel("k", "1100", "10")
                       .Kernel("k", "2000", "10")
                       .ObjectJson());
  EXPECT_EQ(far.activity_count(), 4u);
  EXPECT_TRUE(HasNoteWith(far,
                          "device 0: 1 GPU op lies 1000.000999 s before the other 3 ops on it "
                          "(a gap 990099x their span of 0.001010 s); the device's window spans "
                          "them (--window limits it)"))
      << (far.diagnostics.notes().empty() ? "" : far.diagnostics.notes()[0]);
  EXPECT_FALSE(HasNoteWith(far, " after "));
  EXPECT_FALSE(HasNoteWith(far, "wrong"));
  Trace late = Read(KinetoJsonBuilder()
                        .Kernel("k", "0", "10")
                        .Kernel("k", "100", "10")
                        .Kernel("k", "1000", "10")
                        .Kernel("late", "900000000", "5")
                        .Kernel("late", "900000010", "5")
                        .Kernel("k", "500", "10")
                        .ObjectJson());
  EXPECT_TRUE(HasNoteWith(late,
                          "device 0: 2 GPU ops lie 899.998990 s after the other 4 ops on it "
                          "(a gap 891088x"));
  // Device 0 runs 5 ops over 410 us, device 1 three ops 3 s later: each device's window holds
  // only its own ops, so nothing is stretched and nothing is said.
  Trace two = Read(KinetoJsonBuilder()
                       .Kernel("k", "0", "10", 0, 7, 1)
                       .Kernel("k", "100", "10", 0, 7, 2)
                       .Kernel("k", "200", "10", 0, 7, 3)
                       .Kernel("k", "300", "10", 0, 7, 4)
                       .Kernel("k", "400", "10", 0, 7, 5)
                       .Kernel("k", "3000000", "5", 1, 7, 6)
                       .Kernel("k", "3000010", "5", 1, 7, 7)
                       .Kernel("k", "3000020", "5", 1, 7, 8)
                       .ObjectJson());
  EXPECT_EQ(two.activity_count(), 8u);
  EXPECT_FALSE(HasNoteWith(two, "GPU op"))
      << (two.diagnostics.notes().empty() ? "" : two.diagnostics.notes()[0]);
  // The same late ops after device 1's own early op are said for device 1.
  Trace own = Read(KinetoJsonBuilder()
                       .Kernel("k", "0", "10", 0, 7, 1)
                       .Kernel("k", "100", "10", 0, 7, 2)
                       .Kernel("k", "0", "10", 1, 7, 3)
                       .Kernel("k", "3000000", "5", 1, 7, 6)
                       .Kernel("k", "3000010", "5", 1, 7, 7)
                       .Kernel("k", "3000020", "5", 1, 7, 8)
                       .Kernel("k", "3000030", "5", 1, 7, 9)
                       .ObjectJson());
  EXPECT_TRUE(HasNoteWith(own, "device 1: 1 GPU op lies 2.999990 s before the other 4 ops on it"))
      << (own.diagnostics.notes().empty() ? "" : own.diagnostics.notes()[0]);
  EXPECT_FALSE(HasNoteWith(own, "device 0:"));
  Trace paused = Read(KinetoJsonBuilder()
                          .Kernel("k", "0", "10")
                          .Kernel("k", "1000", "10")
                          .Kernel("k", "500000", "10")
                          .Kernel("k", "600000", "10")
                          .ObjectJson());
  EXPECT_FALSE(HasNoteWith(paused, "GPU op"));
  // One bad op on each side: each side's gap is measured against the ops between them, not a
  // rest that holds the other side's outlier.
  Trace both = Read(KinetoJsonBuilder()
                        .Kernel("k", "-1000000000", "1")
                        .Kernel("k", "1000", "10")
                        .Kernel("k", "1100", "10")
                        .Kernel("k", "2000", "10")
                        .Kernel("k", "2100", "10")
                        .Kernel("k", "2000000000", "1")
                        .ObjectJson());
  EXPECT_TRUE(HasNoteWith(both,
                          "device 0: 1 GPU op lies 1000.000999 s before the other 4 ops on it "
                          "(a gap 900901x their span of 0.001110 s)"))
      << (both.diagnostics.notes().empty() ? "" : both.diagnostics.notes()[0]);
  EXPECT_TRUE(HasNoteWith(both,
                          "device 0: 1 GPU op lies 1999.997890 s after the other 4 ops on it "
                          "(a gap 1801799x their span of 0.001110 s)"));
}

// Commands that never attribute work to ranges do not keep the launch calls.
TEST(KinetoJsonReader, LaunchCallsCanBeLeftOut) {
  KinetoReadOptions options;
  options.api_calls = false;
  Trace trace = Read(KinetoJsonBuilder()
                         .Runtime("cudaLaunchKernel", "1", "1", 5)
                         .Kernel("k", "2", "1", 0, 7, 5)
                         .ObjectJson(),
                     options);
  EXPECT_TRUE(trace.api_calls.empty());
  ASSERT_EQ(trace.blocks.at(0).correlation.size(), 1u);
  EXPECT_EQ(trace.blocks[0].correlation[0], 5u);
  ExpectBalanced(trace);
}

// `ranks` keeps of each launch only its end (Trace::launch_ends): the same launches as
// api_calls, in the same order, with baseTimeNanoseconds applied, and the streams still given
// the process that launched onto them (two host processes here).
TEST(KinetoJsonReader, LaunchEndsOnlyKeepTheSameLaunchesCutDown) {
  KinetoJsonBuilder b;
  b.TopLevel("baseTimeNanoseconds", "1000000000")
      .Runtime("cudaLaunchKernel", "10", "3", 42, 4600, 1)
      .Runtime("cudaLaunchKernel", "11", "4", 42, 4515, 2)  // same id, other process
      .Runtime("cudaMemcpyAsync", "20", "2", 43, 4515, 2)
      .Runtime("cudaEventQuery", "30", "1", 44, 4515, 2)    // launches nothing
      .Runtime("cudaLaunchKernel", "40", "1", 45, 4515, 2)  // its op was not traced
      .Kernel("k", "15", "30", 1, 7, 42)
      .Kernel("k", "16", "30", 0, 9, 42)
      .Memcpy("Memcpy DtoH (Device -> Pinned)", "25", "5", 100, 0, 9, 43);
  std::string json = b.ObjectJson();
  Trace calls = Read(json);
  KinetoReadOptions slim;
  slim.launch_ends_only = true;
  Trace ends = Read(json, slim);
  EXPECT_TRUE(calls.launch_ends.empty());
  EXPECT_TRUE(ends.api_calls.empty());
  ASSERT_EQ(calls.api_calls.size(), 3u);
  std::vector<LaunchEnd> expected = LaunchEndsOf(calls.api_calls);
  ASSERT_EQ(ends.launch_ends.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ends.launch_ends[i].end_ns, expected[i].end_ns) << i;
    EXPECT_EQ(ends.launch_ends[i].process_id, expected[i].process_id) << i;
    EXPECT_EQ(ends.launch_ends[i].correlation, expected[i].correlation) << i;
  }
  // Sorted by (process, correlation); 4515's call 42 ended at 1 s + 15 µs.
  EXPECT_EQ(ends.launch_ends[0].process_id, 4515u);
  EXPECT_EQ(ends.launch_ends[0].correlation, 42u);
  EXPECT_EQ(ends.launch_ends[0].end_ns, 1'000'015'000);
  ASSERT_EQ(ends.streams.size(), calls.streams.size());
  for (size_t s = 0; s < calls.streams.size(); ++s)
    EXPECT_EQ(ends.streams[s].process_id, calls.streams[s].process_id) << s;
  EXPECT_EQ(ends.diagnostics.records_read(), calls.diagnostics.records_read());
  ExpectBalanced(ends);
}

// Chunking: events straddling chunk boundaries give the same trace as one big chunk.
TEST(KinetoJsonReader, SmallChunksGiveTheSameTrace) {
  KinetoJsonBuilder b;
  for (int i = 0; i < 400; ++i) {
    b.CpuOp("aten::op \"q\" \\ [x] {y}", std::to_string(i * 10), "3");
    b.Kernel("kernel_" + std::to_string(i), std::to_string(i * 10) + ".125", "4.5", i % 2, 7,
             1000 + i);
    b.Runtime("cudaLaunchKernel", std::to_string(i * 10), "1", 1000 + i);
  }
  std::string json = b.ObjectJson();
  KinetoReadOptions small;
  small.chunk_bytes = 4096;
  Trace a = Read(json);
  Trace c = Read(json, small);
  ASSERT_EQ(a.activity_count(), 400u);
  ASSERT_EQ(c.activity_count(), 400u);
  std::vector<Op> x = Ops(a);
  std::vector<Op> y = Ops(c);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].start_ns, y[i].start_ns);
    EXPECT_EQ(x[i].end_ns, y[i].end_ns);
    EXPECT_EQ(x[i].correlation, y[i].correlation);
  }
  EXPECT_EQ(x[1].start_ns, 10'125);
  EXPECT_EQ(x[1].end_ns, 14'625);
  EXPECT_EQ(c.api_calls.size(), 400u);
  ExpectBalanced(c);
}

// An array killed mid-write (no closing bracket) is allowed by the Trace Event Format.
TEST(KinetoJsonReader, UnterminatedArrayFormIsAccepted) {
  std::string json = KinetoJsonBuilder().Kernel("k", "1", "1").Kernel("m", "3", "1").ArrayJson();
  json.resize(json.rfind('}') + 1);
  json += ",\n";
  Trace trace = Read(json);
  EXPECT_EQ(trace.activity_count(), 2u);
  EXPECT_EQ(trace.metadata.at("kineto_unterminated_array"), "true");
}

}  // namespace
}  // namespace gpuroof
