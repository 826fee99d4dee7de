// Bad Kineto input ends in one clear InputError naming the file and the byte offset, or, for a
// single bad event, in a counted diagnostic; never in a crash.
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/gzip_input.h"
#include "gpuroof/readers/kineto_json_reader.h"
#include "gpuroof/readers/reader_registry.h"

#include "support/kineto_json_builder.h"

namespace gpuroof {
namespace {

using testing::KinetoJsonBuilder;

std::string ErrorOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string TextError(const std::string& json, KinetoReadOptions options = {}) {
  return ErrorOf([&] { ReadKinetoJsonText(json, "bad.json", options); });
}

// One gzip member holding `data`.
std::string Gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("gpuroof_kineto_bad_" + std::to_string(::getpid()) + "_" + name)) {}
  ~TempFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }
  void Write(const std::string& bytes) const { std::ofstream(path_, std::ios::binary) << bytes; }

 private:
  std::filesystem::path path_;
};

const std::string kTrace =
    KinetoJsonBuilder().Kernel("k", "1", "2").Kernel("m", "5", "1").ObjectJson();

TEST(KinetoBadInput, TruncatedJsonNamesTheOffset) {
  // Cut inside the second event: its opening brace is the last '{' before the cut.
  std::string cut = kTrace.substr(0, kTrace.rfind("\"m\"") + 2);
  std::string error = TextError(cut);
  EXPECT_NE(error.find("bad.json: truncated JSON: the file ends inside traceEvents, after 1 "
                       "complete events"),
            std::string::npos)
      << error;
  // The unfinished event starts just after the first one ends.
  size_t first_end = kTrace.find("}},") + 2;
  EXPECT_NE(error.find("(at byte " + std::to_string(first_end) + ")"), std::string::npos) << error;
  EXPECT_NE(TextError(kTrace.substr(0, 20)).find("truncated JSON"), std::string::npos);
  EXPECT_NE(TextError(kTrace.substr(0, kTrace.rfind('}')))
                .find("truncated JSON: the file ends "
                      "inside the top-level object"),
            std::string::npos);
}

TEST(KinetoBadInput, TruncatedAndCorruptGzip) {
  std::string gz = Gzip(kTrace);
  TempFile truncated("truncated.json.gz");
  truncated.Write(gz.substr(0, gz.size() / 2));
  std::string error = ErrorOf([&] { ReadTrace(truncated.path()); });
  EXPECT_NE(error.find(truncated.path().string() + ": truncated gzip data"), std::string::npos)
      << error;

  TempFile corrupt("corrupt.json.gz");
  std::string bad = gz;
  for (size_t i = 12; i < bad.size() - 8; ++i)
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  corrupt.Write(bad);
  error = ErrorOf([&] { ReadTrace(corrupt.path()); });
  EXPECT_NE(error.find("corrupt gzip data near compressed byte"), std::string::npos) << error;
}

TEST(KinetoBadInput, JsonThatIsNotATrace) {
  EXPECT_NE(TextError(R"({"model": "resnet", "epochs": [1, 2]})")
                .find("a JSON object without a traceEvents array: not a Chrome/Kineto trace"),
            std::string::npos);
  EXPECT_NE(TextError(R"({"traceEvents": 5})").find("traceEvents is not an array (at byte 16)"),
            std::string::npos);
  EXPECT_NE(TextError(R"("just a string")").find("not JSON: expected '{' or '['"),
            std::string::npos);
  EXPECT_NE(TextError("").find("empty file"), std::string::npos);
  EXPECT_NE(TextError(kTrace + "{}").find("unexpected data after the end of the JSON trace"),
            std::string::npos);
  EXPECT_NE(TextError(R"({"traceEvents": [] "x": 1})").find("expected ',' or '}'"),
            std::string::npos);
  EXPECT_NE(TextError(R"({"baseTimeNanoseconds": "soon", "traceEvents": []})")
                .find("baseTimeNanoseconds is not an integer"),
            std::string::npos);
}

// A file named like a Kineto trace that does not start like one is said to be that, not "not an
// SQLite database".
TEST(KinetoBadInput, AJsonNamedFileThatDoesNotStartLikeATraceSaysSo) {
  for (const std::string& text : {std::string("[1, 2, 3]"), std::string("[grid]\nn = [1]\n")}) {
    TempFile file("array.json");
    file.Write(text);
    const std::string error = ErrorOf([&] { ReadTrace(file.path(), ReadOptions{}); });
    EXPECT_NE(error.find("is named like a Kineto JSON trace but does not start like one"),
              std::string::npos)
        << error;
  }
  // The extension is matched without regard to case (Windows tools write ".JSON").
  for (const std::string& name : {std::string("ARRAY.JSON"), std::string("array.Json.GZ")}) {
    TempFile file(name);
    file.Write("[1, 2, 3]");
    const std::string error = ErrorOf([&] { ReadTrace(file.path(), ReadOptions{}); });
    EXPECT_NE(error.find("is named like a Kineto JSON trace but does not start like one"),
              std::string::npos)
        << error;
  }
}

TEST(KinetoBadInput, AnOverlongValueIsAnErrorNotABuffer) {
  KinetoReadOptions options;
  options.chunk_bytes = 4096;
  options.max_value_bytes = 1 << 20;
  std::string json = R"({"traceEvents": [{"name": ")" + std::string(3 << 20, 'a') + "\"}]}";
  std::string error = TextError(json, options);
  EXPECT_NE(error.find("a JSON value longer than 1 MiB starts here (an unterminated string or a "
                       "corrupt file?) (at byte 17)"),
            std::string::npos)
      << error;
}

// A 2 GiB string inside a gzip file of 2 MB (2048 copies of one member inflating to 1 MiB):
// the reader stops at its 64 MiB limit instead of buffering it.
TEST(KinetoBadInput, TwoGigabyteStringInAGzipFile) {
  TempFile file("huge_string.json.gz");
  {
    std::ofstream out(file.path(), std::ios::binary);
    out << Gzip(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": ")");
    std::string mebibyte = Gzip(std::string(1 << 20, 'a'));
    for (int i = 0; i < 2048; ++i)
      out << mebibyte;
    out << Gzip(R"("}]})");
  }
  std::string error = ErrorOf([&] { ReadTrace(file.path()); });
  EXPECT_NE(error.find("a JSON value longer than 64 MiB starts here"), std::string::npos) << error;
  EXPECT_NE(error.find("of the decompressed JSON"), std::string::npos) << error;
}

// A stray unescaped quote in a name (pytorch #121219 writes Python 3.11 frame names such as
// "@"\xef\xbf\xbdsP(0): flat_tensor"; #146900) used to invert the string state up to the next
// stray quote: one such name made the whole file "truncated JSON", two swallowed every event
// between them as "1 malformed JSON event". Only the damaged events are lost, each counted.
const std::string kStrayQuoteName = "@\"\xef\xbf\xbdsP(0): flat_tensor";

std::string PythonFunction(const std::string& name, const std::string& ts) {
  return R"({"ph": "X", "cat": "python_function", "name": ")" + name +
         R"(", "pid": 1, "tid": 1, "ts": )" + ts + R"(, "dur": 1, "args": {"Python id": 3}})";
}

int64_t Malformed(const Trace& trace) {
  int64_t n = 0;
  for (const SkipCount& skip : trace.diagnostics.skips()) {
    if (skip.reason == "malformed JSON event") n += skip.count;
  }
  return n;
}

TEST(KinetoBadInput, OneStrayQuoteCostsOnlyItsEvent) {
  std::string json = KinetoJsonBuilder()
                         .Kernel("a", "1", "1")
                         .Raw(PythonFunction(kStrayQuoteName, "2"))
                         .Kernel("b", "3", "1")
                         .Kernel("c", "5", "1")
                         .ObjectJson();
  Trace trace = ReadKinetoJsonText(json, "odd1.json");
  EXPECT_EQ(trace.activity_count(), 3u);  // a, b, c
  EXPECT_EQ(Malformed(trace), 1);
  EXPECT_EQ(trace.diagnostics.records_read(), 4);  // 3 kernels + the damaged event
  EXPECT_EQ(trace.diagnostics.records_skipped(), 1);
  ASSERT_FALSE(trace.diagnostics.notes().empty());
  // The note points at the damaged event.
  std::string offset = std::to_string(json.find("{\"ph\": \"X\", \"cat\": \"python_function\""));
  EXPECT_NE(trace.diagnostics.notes()[0].find("at byte " + offset + ": "), std::string::npos)
      << trace.diagnostics.notes()[0];
}

TEST(KinetoBadInput, EventsBetweenTwoStrayQuotesAreKept) {
  KinetoJsonBuilder b;
  b.Kernel("a", "1", "1").Raw(PythonFunction(kStrayQuoteName, "2"));
  for (int i = 0; i < 1000; ++i)
    b.Kernel("k", std::to_string(10 + 2 * i), "1");
  b.Raw(PythonFunction(kStrayQuoteName, "3000")).Kernel("e", "3001", "1");
  Trace trace = ReadKinetoJsonText(b.ObjectJson(), "odd2.json");
  EXPECT_EQ(trace.activity_count(), 1002u);  // a, the 1,000 k, e
  EXPECT_EQ(Malformed(trace), 2);
  EXPECT_EQ(trace.diagnostics.records_read(), 1004);
  EXPECT_EQ(trace.diagnostics.records_used(), 1002);
}

// The same in every layout a writer may choose: all on one line (no line break for the
// scanner to trip on), Kineto's own multi-line events, the bare array with and without its
// closing bracket, a damaged event first, last, twice in a row, and stray quotes in an argument
// the reader never looks at (in an unused event: the events around must still be kept).
TEST(KinetoBadInput, StrayQuotesInEveryLayout) {
  auto kernel = [](const std::string& name, int ts) {
    return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": 7, "ts": )" +
           std::to_string(ts) +
           R"(, "dur": 1, "args": {"device": 0, "stream": 7, "grid": [1, 1, 1]}})";
  };
  const std::string bad_args =
      R"({"ph": "X", "cat": "cpu_op", "name": "f", "pid": 1, "tid": 1, "ts": 4, "dur": 1, )"
      R"("args": {"Call stack": "x@"y", "Ev Idx": 5}})";
  struct Case {
    std::vector<std::string> events;
    size_t kernels;
    int64_t damaged;
  };
  const std::string bad = PythonFunction(kStrayQuoteName, "2");
  const std::vector<Case> cases = {
      {{kernel("a", 1), bad, kernel("b", 3), kernel("c", 5)}, 3, 1},
      {{bad, kernel("a", 1), kernel("b", 3)}, 2, 1},
      {{kernel("a", 1), kernel("b", 3), bad}, 2, 1},
      {{kernel("a", 1), bad, bad, kernel("b", 3)}, 2, 2},
      {{kernel("a", 1), bad, kernel("b", 3), kernel("c", 5), bad, kernel("d", 7)}, 4, 2},
      {{kernel("a", 1), bad_args, kernel("b", 3), kernel("c", 5), bad_args, kernel("d", 7)}, 4, 2},
      {{kernel("a", 1), kernel(kStrayQuoteName, 2), kernel("b", 3)}, 2, 1},
  };
  // Kineto's layout: one line per key group, the event's braces on lines of their own.
  auto kineto_lines = [](std::string event) {
    for (const char* key : {"\"pid\"", "\"ts\"", "\"args\""}) {
      size_t at = event.find(std::string(", ") + key);
      if (at != std::string::npos) event.replace(at, 2, ",\n    ");
    }
    return "  {\n    " + event.substr(1, event.size() - 2) + "\n  }";
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<std::string> layouts;
    auto join = [&](const std::string& separator, bool kineto) {
      std::string out;
      for (size_t i = 0; i < cases[c].events.size(); ++i) {
        if (i > 0) out += separator;
        out += kineto ? kineto_lines(cases[c].events[i]) : cases[c].events[i];
      }
      return out;
    };
    layouts.push_back(R"({"schemaVersion": 1, "traceEvents": [)" + join(", ", false) +
                      R"(], "traceName": "x"})");
    layouts.push_back("{\n  \"traceEvents\": [\n" + join(",\n", true) +
                      "\n  ],\n  \"traceName\": \"x\"\n}\n");
    layouts.push_back("[\n" + join(",\n", false) + "\n]\n");
    layouts.push_back("[\n" + join(",\n", false) + "\n");  // a killed writer's array
    for (size_t l = 0; l < layouts.size(); ++l) {
      SCOPED_TRACE("case " + std::to_string(c) + ", layout " + std::to_string(l));
      Trace trace;
      ASSERT_NO_THROW(trace = ReadKinetoJsonText(layouts[l], "odd.json")) << layouts[l];
      EXPECT_EQ(trace.activity_count(), cases[c].kernels) << layouts[l];
      EXPECT_EQ(Malformed(trace), cases[c].damaged) << layouts[l];
      EXPECT_EQ(trace.diagnostics.records_read(),
                trace.diagnostics.records_used() + trace.diagnostics.records_skipped());
    }
  }
}

// Events whose first key is not a fixed one: `json.dump(sort_keys=True)` starts each with
// "args". A damaged event (invalid UTF-8; a stray quote followed by a letter, by '}', by
// '}, {"x' or by ':') costs that event alone, counted, in key order as written and sorted, in
// every chunk alignment (the whitespace before the array moves the events across the buffer's
// end, where the bytes after an event's end may not be read yet).
TEST(KinetoBadInput, DamageInSortedKeyEventsCostsOnlyThatEvent) {
  auto kernel = [](int i, const std::string& name, bool sorted) {
    std::string args = R"({"block": [32, 1, 1], "correlation": )" + std::to_string(i) +
                       R"(, "device": 0, "grid": [1, 1, 1], "stream": 7})";
    std::string ts = std::to_string(1000 + 10 * i);
    if (sorted) {
      return R"({"args": )" + args + R"(, "cat": "kernel", "dur": 5, "name": ")" + name +
             R"(", "ph": "X", "pid": 0, "tid": 7, "ts": )" + ts + "}";
    }
    return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": 7, "ts": )" +
           ts + R"(, "dur": 5, "args": )" + args + "}";
  };
  const std::vector<std::string> damages = {"kern\xff",   "ke\"rn",  "ke\"}rn", "ke\"}, {\"x",
                                            "ke\": \"rn", "ke\",rn", "a\"b\"c"};
  constexpr int kEvents = 40;
  KinetoReadOptions options;
  options.chunk_bytes = 4096;  // several chunks
  for (bool sorted : {true, false}) {
    for (size_t d = 0; d < damages.size(); ++d) {
      for (int bad : {0, 5, 17, kEvents - 1}) {
        std::string events;
        for (int i = 0; i < kEvents; ++i) {
          if (i > 0) events += ",\n";
          events += kernel(i, i == bad ? damages[d] : "kern" + std::to_string(i), sorted);
        }
        for (size_t pad = 0; pad < 64; pad += 7) {
          SCOPED_TRACE(::testing::Message() << "sorted " << sorted << ", damage " << d << ", event "
                                            << bad << ", pad " << pad);
          std::string json =
              R"({"schemaVersion": 1, "traceEvents": [)" + std::string(pad, ' ') + events + "]}";
          Trace trace;
          ASSERT_NO_THROW(trace = ReadKinetoJsonText(json, "sorted.json", options));
          EXPECT_EQ(trace.activity_count(), size_t{kEvents - 1});
          EXPECT_EQ(Malformed(trace), 1);
          EXPECT_EQ(trace.diagnostics.records_read(), kEvents);
          EXPECT_EQ(trace.diagnostics.records_used(), kEvents - 1);
          EXPECT_EQ(trace.diagnostics.records_skipped(), 1);
        }
      }
    }
  }
  // An array of objects in the damaged event's arguments holds text like an event boundary
  // ("}, {\"b\":"): the search for the damaged event's end passes over it.
  {
    std::string events;
    for (int i = 0; i < 10; ++i) {
      if (i > 0) events += ", ";
      events += R"({"ph": "X", "cat": "kernel", "name": ")" +
                (i == 4 ? std::string("ke\"rn") : "k" + std::to_string(i)) +
                R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(10 * i) +
                R"(, "dur": 5, "args": {"device": 0, "stream": 7, "list": [{"a": 1}, {"b": 2}]}})";
    }
    Trace trace;
    ASSERT_NO_THROW(trace = ReadKinetoJsonText("[" + events + "]", "nested.json"));
    EXPECT_EQ(trace.activity_count(), 9u);
    EXPECT_EQ(Malformed(trace), 1);
    EXPECT_EQ(trace.diagnostics.records_read(), 10);
  }
  // Well-formed, in every alignment: nothing lost, nothing skipped.
  for (bool sorted : {true, false}) {
    std::string events;
    for (int i = 0; i < kEvents; ++i) {
      if (i > 0) events += ", ";
      events += kernel(i, "kern" + std::to_string(i), sorted);
    }
    for (size_t pad = 0; pad < 64; ++pad) {
      SCOPED_TRACE(::testing::Message() << "well-formed, sorted " << sorted << ", pad " << pad);
      Trace trace =
          ReadKinetoJsonText("[" + std::string(pad, ' ') + events + "]", "sorted_ok.json", options);
      EXPECT_EQ(trace.activity_count(), size_t{kEvents});
      EXPECT_EQ(trace.diagnostics.records_skipped(), 0);
    }
  }
}

// A file cut inside a damaged event is still truncated, not one more malformed event.
TEST(KinetoBadInput, TruncatedInsideADamagedEventIsStillAnError) {
  std::string json = KinetoJsonBuilder()
                         .Kernel("a", "1", "1")
                         .Raw(PythonFunction(kStrayQuoteName, "2"))
                         .ObjectJson();
  std::string cut = json.substr(0, json.find("flat_tensor") + 4);
  std::string error = TextError(cut);
  EXPECT_NE(error.find("truncated JSON: the file ends inside traceEvents, after 1 complete events"),
            std::string::npos)
      << error;
}

// Finding 3: events at ±9.2e15 µs passed the reader (only ts + dur was checked) and produced a
// window "-1.616 us long". Both ends must lie within the readers' ±2^62 ns bound.
TEST(KinetoBadInput, TimestampsNearTheInt64LimitsAreSkippedAndCounted) {
  const std::string json = KinetoJsonBuilder()
                               .Kernel("early", "-9223372036854775", "5")
                               .Kernel("late", "9223372036854774", "1")
                               .Kernel("fine", "10", "2")
                               .ObjectJson();
  Trace trace = ReadKinetoJsonText(json, "far.json");
  EXPECT_EQ(trace.activity_count(), 1u);
  int64_t implausible = 0;
  for (const SkipCount& skip : trace.diagnostics.skips())
    implausible += skip.reason == "implausible timestamp" ? skip.count : 0;
  EXPECT_EQ(implausible, 2);
}

// A copy of more bytes than any device's memory is corrupt: summed, it wrapped the byte totals
// negative. Skipped and counted.
TEST(KinetoBadInput, AnImplausibleByteCountIsSkippedAndCounted) {
  const std::string json =
      KinetoJsonBuilder()
          .Memcpy("Memcpy HtoD (Pinned -> Device)", "10", "2", uint64_t{9223372036854775807})
          .Memcpy("Memcpy HtoD (Pinned -> Device)", "20", "2", 4096)
          .ObjectJson();
  Trace trace = ReadKinetoJsonText(json, "bytes.json");
  EXPECT_EQ(trace.activity_count(), 1u);
  int64_t implausible = 0;
  for (const SkipCount& skip : trace.diagnostics.skips())
    implausible += skip.reason == "implausible byte count" ? skip.count : 0;
  EXPECT_EQ(implausible, 1);
}

// A copy or memset whose bytes are missing, negative, null, a string or a fraction was read as
// 0 bytes, and its GB/s printed as if measured. Skipped and counted as the nsys reader does; a
// 0-byte copy that says bytes: 0 is a real one and kept.
TEST(KinetoBadInput, CopyBytesThatAreNotANonNegativeIntegerAreSkippedAndCounted) {
  auto copy = [](const std::string& ts, const std::string& bytes) {
    return std::string(R"j({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> )j"
                       R"j(Device)", "pid": 0, "tid": 7, "ts": )j") +
           ts + R"(, "dur": 1, "args": {"device": 0, "stream": 7)" +
           (bytes.empty() ? "" : ", \"bytes\": " + bytes) + "}}";
  };
  const std::string json =
      KinetoJsonBuilder()
          .Raw(copy("1", ""))
          .Raw(copy("3", "-100"))
          .Raw(copy("5", "null"))
          .Raw(copy("7", "\"abc\""))
          .Raw(copy("9", "1.5e30"))
          .Raw(R"j({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, )j"
               R"j("tid": 7, "ts": 11, "dur": 1, "args": {"device": 0, "stream": 7}})j")
          .Raw(copy("13", "0"))
          .Memcpy("Memcpy HtoD (Pinned -> Device)", "20", "2", 4096)
          .ObjectJson();
  Trace trace = ReadKinetoJsonText(json, "bytes.json");
  EXPECT_EQ(trace.activity_count(), 2u);
  int64_t bad = 0;
  for (const SkipCount& skip : trace.diagnostics.skips()) {
    if (skip.reason == "bytes missing or not a non-negative integer") {
      bad += skip.count;
      EXPECT_EQ(skip.severity, Severity::kDataLoss);
    }
  }
  EXPECT_EQ(bad, 6);
  EXPECT_TRUE(trace.diagnostics.has_data_loss());
  EXPECT_EQ(trace.diagnostics.records_read(),
            trace.diagnostics.records_used() + trace.diagnostics.records_skipped());
}

// A kernel's name that is a number or null: kept, every such kernel merged into one nameless
// kernel. Skipped and counted instead; the named kernel is kept.
TEST(KinetoBadInput, ANameThatIsNotAStringIsSkippedAndCounted) {
  const std::string json =
      KinetoJsonBuilder()
          .Raw(R"({"ph": "X", "cat": "kernel", "name": 7, "pid": 0, "tid": 7, "ts": 1, "dur": 1})")
          .Raw(R"({"ph": "X", "cat": "kernel", "name": null, "pid": 0, "tid": 7, "ts": 3, )"
               R"("dur": 1})")
          .Kernel("named", "5", "1")
          .ObjectJson();
  Trace trace = ReadKinetoJsonText(json, "names.json");
  EXPECT_EQ(trace.activity_count(), 1u);
  int64_t not_string = 0;
  for (const SkipCount& skip : trace.diagnostics.skips())
    not_string += skip.reason == "name not a string" ? skip.count : 0;
  EXPECT_EQ(not_string, 2);
}

// Any amount of whitespace between events is valid JSON: it was refused as "a JSON value
// longer than 64 MiB".
TEST(KinetoBadInput, LongWhitespaceBetweenEventsIsNotAnOverlongValue) {
  KinetoReadOptions options;
  options.chunk_bytes = 4096;
  options.max_value_bytes = 1 << 20;
  auto event = [](std::string array) {  // the one event of a bare-array trace
    array = array.substr(array.find('[') + 1);
    return array.substr(0, array.rfind(']'));
  };
  const std::string json = R"({"traceEvents": [)" +
                           event(KinetoJsonBuilder().Kernel("k", "1", "2").ArrayJson()) + "," +
                           std::string(3 << 20, ' ') + "\n" +
                           event(KinetoJsonBuilder().Kernel("m", "5", "1").ArrayJson()) + "]}";
  Trace trace = ReadKinetoJsonText(json, "spaced.json", options);
  EXPECT_EQ(trace.activity_count(), 2u);
}

// A gzip of pure whitespace was reported as "not an SQLite database".
TEST(KinetoBadInput, AGzipOfWhitespaceSaysSo) {
  TempFile file("blank.json.gz");
  file.Write(Gzip(std::string(100'000, ' ')));
  const std::string error = ErrorOf([&] { ReadTrace(file.path()); });
  EXPECT_NE(error.find("holds only whitespace (100000 bytes once decompressed): no trace in it"),
            std::string::npos)
      << error;
}

// Resource limit: a gzip bomb stops at the decompressed-size limits with a clear message.
TEST(KinetoBadInput, AGzipBombStopsAtTheInflateLimits) {
  TempFile file("bomb.json.gz");
  std::string json = R"({"traceEvents": [)" + std::string(8 << 20, ' ') + "]}";
  file.Write(Gzip(json));
  KinetoReadOptions options;
  options.inflate.max_bytes = 1 << 20;
  std::string error = ErrorOf([&] { ReadKinetoJson(file.path(), options); });
  EXPECT_NE(error.find("gzip data inflates past 1 MiB, the limit on decompressed size"),
            std::string::npos)
      << error;
  options = {};
  options.inflate.ratio_after_bytes = 1 << 20;
  error = ErrorOf([&] { ReadKinetoJson(file.path(), options); });
  EXPECT_NE(error.find("gzip data inflates more than 200x"), std::string::npos) << error;
}

// Reads `path` through OpenByteSource in 1 MiB pieces: the bytes inflated before the end or the
// error, and the error ("" at the end).
std::pair<uint64_t, std::string> InflateAll(const std::filesystem::path& path,
                                            const InflateLimits& limits = {}) {
  uint64_t inflated = 0;
  try {
    std::unique_ptr<ByteSource> source = OpenByteSource(path, limits);
    std::string buffer(size_t{1} << 20, '\0');
    while (const size_t n = source->Read(buffer.data(), buffer.size()))
      inflated += n;
  } catch (const InputError& e) {
    return {inflated, e.what()};
  }
  return {inflated, ""};
}

// A gzip bomb stops once it has inflated more than 200 times the compressed file's size (and the
// 64 MiB floor), not after 1 GiB: 300 members of 1 MiB of spaces (~300 kB, 300 MiB inflated)
// were inflated whole (under 1 GiB) and now stop right after 64 MiB, with the file's compressed
// size in the message.
TEST(KinetoBadInput, AGzipBombStopsAsSoonAsItPassesTheRatio) {
  TempFile file("bomb300.json.gz");
  const std::string member = Gzip(std::string(size_t{1} << 20, ' '));
  std::string bomb;
  for (int i = 0; i < 300; ++i)
    bomb += member;
  file.Write(bomb);
  ASSERT_LT(bomb.size() * 200, uint64_t{64} << 20);
  const auto [inflated, error] = InflateAll(file.path());
  EXPECT_EQ(error.find(file.path().string() + ": gzip data inflates more than 200x ("), 0u)
      << error;
  EXPECT_NE(error.find(
                fmt::format(" MiB from {} compressed bytes): refused as a gzip bomb", bomb.size())),
            std::string::npos)
      << error;
  EXPECT_LE(inflated, uint64_t{65} << 20);
  // With a lower floor the same rule stops at 200x the file: after about 60 MB.
  InflateLimits limits;
  limits.file_ratio_after_bytes = 1 << 20;
  const auto [early, early_error] = InflateAll(file.path(), limits);
  EXPECT_NE(early_error.find("gzip data inflates more than 200x"), std::string::npos);
  EXPECT_LE(early, bomb.size() * 200 + (size_t{2} << 20));
  EXPECT_GE(early, bomb.size() * 200 - (size_t{1} << 20));
}

// The ratio against the file's size is the whole file's: a file whose start inflates 1000x but
// whose whole inflates ~60x (4 MiB of spaces, then 64 KiB of random bytes) is read to its end.
TEST(KinetoBadInput, AGzipRatioIsTheWholeFilesNotItsStarts) {
  TempFile file("mixed.json.gz");
  std::string random(size_t{64} << 10, '\0');
  uint32_t state = 12345;
  for (char& c : random) {
    state = state * 1664525u + 1013904223u;
    c = static_cast<char>(state >> 24);
  }
  file.Write(Gzip(std::string(size_t{4} << 20, ' ')) + Gzip(random));
  InflateLimits limits;
  limits.file_ratio_after_bytes = 1 << 20;
  const auto [inflated, error] = InflateAll(file.path(), limits);
  EXPECT_EQ(error, "");
  EXPECT_EQ(inflated, (uint64_t{4} << 20) + (uint64_t{64} << 10));
}

// Resource limit: nesting deeper than simdjson's 1024 levels makes that one event malformed
// (counted); the events around it are read.
TEST(KinetoBadInput, NestingBeyondTheDepthLimitSkipsOnlyThatEvent) {
  const std::string deep = R"({"ph": "X", "cat": "kernel", "name": "deep", "ts": 1, "dur": 1, )"
                           R"("args": {"x": )" +
                           std::string(5000, '[') + std::string(5000, ']') + "}}";
  const std::string json = R"({"traceEvents": [)" + deep + "," +
                           R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": 1, )"
                           R"("args": {"device": 0, "stream": 7}}]})";
  Trace trace = ReadKinetoJsonText(json, "deep.json");
  EXPECT_EQ(trace.activity_count(), 1u);
  EXPECT_GT(trace.diagnostics.records_skipped(), 0);
}

}  // namespace
}  // namespace gpuroof
