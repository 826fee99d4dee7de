// Bad Kineto input ends in one clear InputError naming the file and the byte offset, or, for a
// single bad event, in a counted diagnostic; never in a crash.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include "gpuroof/model/errors.h"
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

// An odd number of unescaped quotes desynchronises every later string: the file cannot be
// split into events any more, which must still end in a clear error.
TEST(KinetoBadInput, OddUnescapedQuoteIsAClearError) {
  std::string json =
      KinetoJsonBuilder()
          .Kernel("ok", "1", "1")
          .Raw(
              R"j({"ph": "X", "cat": "kernel", "name": "f(")", "pid": 0, "tid": 7, "ts": 2, "dur": 1})j")
          .Kernel("later", "3", "1")
          .ObjectJson();
  std::string error = TextError(json);
  EXPECT_NE(error.find("bad.json: "), std::string::npos) << error;
  EXPECT_NE(error.find("(at byte "), std::string::npos) << error;
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
