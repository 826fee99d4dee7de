// Category and copy-name classification, and the exact decimal µs -> ns parser.
#include "gpuroof/readers/kineto_event_kinds.h"

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

TEST(KinetoEventKinds, CategoriesCaseInsensitiveWithLegacyNames) {
  EXPECT_EQ(ClassifyKinetoCategory("kernel"), KinetoEventKind::kKernel);
  EXPECT_EQ(ClassifyKinetoCategory("Kernel"), KinetoEventKind::kKernel);
  EXPECT_EQ(ClassifyKinetoCategory("Memcpy"), KinetoEventKind::kMemcpy);
  EXPECT_EQ(ClassifyKinetoCategory("gpu_memset"), KinetoEventKind::kMemset);
  EXPECT_EQ(ClassifyKinetoCategory("gpu_user_Annotation"), KinetoEventKind::kGpuAnnotation);
  EXPECT_EQ(ClassifyKinetoCategory("User"), KinetoEventKind::kCpuAnnotation);
  EXPECT_EQ(ClassifyKinetoCategory("cuda_driver"), KinetoEventKind::kRuntimeCall);
  EXPECT_EQ(ClassifyKinetoCategory("Runtime"), KinetoEventKind::kRuntimeCall);
  EXPECT_EQ(ClassifyKinetoCategory("cuda_sync"), KinetoEventKind::kGpuNotEngineWork);
  EXPECT_EQ(ClassifyKinetoCategory("hardware_counters"), KinetoEventKind::kOther);
  EXPECT_EQ(ClassifyKinetoCategory("cpu_op"), KinetoEventKind::kOther);
  EXPECT_EQ(ClassifyKinetoCategory(""), KinetoEventKind::kOther);
  EXPECT_EQ(ClassifyKinetoCategory("Operator"), KinetoEventKind::kOther);
  // A category none of these: read whole, to count it when it lies on a GPU stream.
  EXPECT_EQ(ClassifyKinetoCategory("gpu_kernel"), KinetoEventKind::kUnknownCategory);
}

TEST(KinetoEventKinds, CopyNamesGiveDirectionAndMemory) {
  std::optional<CopyShape> h2d = ParseMemcpyName("Memcpy HtoD (Pageable -> Device)");
  ASSERT_TRUE(h2d);
  EXPECT_EQ(h2d->engine, Engine::kH2D);
  EXPECT_EQ(h2d->src, MemoryKind::kPageable);
  EXPECT_EQ(h2d->dst, MemoryKind::kDevice);
  std::optional<CopyShape> static_copy = ParseMemcpyName("Memcpy DtoD (Device Static -> Managed)");
  ASSERT_TRUE(static_copy);
  EXPECT_EQ(static_copy->src, MemoryKind::kDeviceStatic);
  EXPECT_EQ(static_copy->dst, MemoryKind::kManaged);
  EXPECT_EQ(ParseMemcpyName("Memcpy PtoP (Device -> Device)")->engine, Engine::kP2P);
  EXPECT_EQ(ParseMemcpyName("Memcpy DtoH")->src, MemoryKind::kUnknown);  // no "(..)" part
  EXPECT_EQ(ParseMemcpyName("Memcpy AtoH (Array -> Pinned)")->engine, Engine::kD2H);
  // Array to array is D2D, as nsys's copyKind 5 (docs/metrics.md, "Engines").
  std::optional<CopyShape> array_copy = ParseMemcpyName("Memcpy AtoA (Array -> Array)");
  ASSERT_TRUE(array_copy);
  EXPECT_EQ(array_copy->engine, Engine::kD2D);
  EXPECT_EQ(array_copy->src, MemoryKind::kArray);
  EXPECT_EQ(array_copy->dst, MemoryKind::kArray);
  EXPECT_FALSE(ParseMemcpyName("Memcpy <unknown> (Unknown -> Unknown)"));
  EXPECT_EQ(ParseMemsetName("Memset (Device)"), MemoryKind::kDevice);
  EXPECT_EQ(ParseMemsetName("Memset (Unknown)"), MemoryKind::kUnknown);
  EXPECT_EQ(ParseMemsetName("Memset"), MemoryKind::kUnknown);
}

TEST(KinetoEventKinds, MicrosecondsParseExactlyToNanoseconds) {
  EXPECT_EQ(ParseMicrosecondsAsNs("0"), 0);
  EXPECT_EQ(ParseMicrosecondsAsNs("12"), 12'000);
  EXPECT_EQ(ParseMicrosecondsAsNs("2.08"), 2'080);
  EXPECT_EQ(ParseMicrosecondsAsNs("-3.5"), -3'500);
  EXPECT_EQ(ParseMicrosecondsAsNs("1.5e3"), 1'500'000);
  EXPECT_EQ(ParseMicrosecondsAsNs("25E-2"), 250);
  // Below the nanosecond: truncated toward zero.
  EXPECT_EQ(ParseMicrosecondsAsNs("0.0019"), 1);
  EXPECT_EQ(ParseMicrosecondsAsNs("-0.0019"), -1);
  // 19 significant digits, beyond a double's 15.9 (1712345678901234.567 as a double is
  // 1712345678901234.5 -> ...500 ns).
  EXPECT_EQ(ParseMicrosecondsAsNs("1712345678901234.567"), 1'712'345'678'901'234'567);
  // int64 holds 9223372036854775807 ns = 9223372036854775.807 µs.
  EXPECT_EQ(ParseMicrosecondsAsNs("9223372036854775.807"), INT64_MAX);
  EXPECT_FALSE(ParseMicrosecondsAsNs("9223372036854775.808"));
  EXPECT_FALSE(ParseMicrosecondsAsNs("1e400"));
  EXPECT_EQ(ParseMicrosecondsAsNs("0e400"), 0);
  for (const char* bad : {"", "-", ".", "1.2.3", "1e", "12us", "N/A", " 1", "0x10"}) {
    EXPECT_FALSE(ParseMicrosecondsAsNs(bad)) << bad;
  }
}

TEST(KinetoEventKinds, IntegersParseWithinInt64) {
  EXPECT_EQ(ParseInteger("-1"), -1);
  EXPECT_EQ(ParseInteger("4294967295"), 4294967295);
  EXPECT_EQ(ParseInteger("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(ParseInteger("9223372036854775808"));
  EXPECT_FALSE(ParseInteger("7.0"));
  EXPECT_FALSE(ParseInteger("stream 7"));
  EXPECT_FALSE(ParseInteger(""));
}

}  // namespace
}  // namespace gpuroof
