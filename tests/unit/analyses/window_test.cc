#include "gpuroof/analyses/window.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddRange;
using testing::MakeTrace;

TEST(ParseDurationNs, AcceptsUnitSuffixes) {
  EXPECT_EQ(ParseDurationNs("1500", "--x"), 1500);
  EXPECT_EQ(ParseDurationNs("1500ns", "--x"), 1500);
  EXPECT_EQ(ParseDurationNs("16.35us", "--x"), 16350);
  EXPECT_EQ(ParseDurationNs("2ms", "--x"), 2'000'000);
  EXPECT_EQ(ParseDurationNs("0.25s", "--x"), 250'000'000);
  EXPECT_EQ(ParseDurationNs("-1ms", "--x"), -1'000'000);
}

TEST(ParseDurationNs, RejectsGarbage) {
  for (const char* bad : {"", "ms", "1.2.3", "5min", "abc", "1e400s"}) {
    EXPECT_THROW(ParseDurationNs(bad, "--window"), InputError) << bad;
  }
}

TEST(ParseWindowSpec, ReadsEveryPolicy) {
  EXPECT_EQ(ParseWindowSpec("processing").kind, WindowSpec::Kind::kProcessing);
  EXPECT_EQ(ParseWindowSpec("all").kind, WindowSpec::Kind::kAll);
  WindowSpec range = ParseWindowSpec("1ms:2.5ms");
  EXPECT_EQ(range.kind, WindowSpec::Kind::kRange);
  EXPECT_EQ(range.start_ns, 1'000'000);
  EXPECT_EQ(range.end_ns, 2'500'000);
  WindowSpec nvtx = ParseWindowSpec("nvtx:epoch");
  EXPECT_EQ(nvtx.kind, WindowSpec::Kind::kNvtx);
  EXPECT_EQ(nvtx.nvtx_name, "epoch");
  EXPECT_EQ(nvtx.instance, 1);
  EXPECT_EQ(ParseWindowSpec("nvtx:epoch#3").instance, 3);
  EXPECT_EQ(ParseWindowSpec("nvtx:epoch#*").instance, 0);
  // A domain-qualified name keeps its colon.
  EXPECT_EQ(ParseWindowSpec("nvtx:TensorRT:layer#2").nvtx_name, "TensorRT:layer");
}

TEST(ParseWindowSpec, RejectsUnknownPolicies) {
  for (const char* bad :
       {"steadyish", "", "2ms:1ms", "5:5", "nvtx:", "nvtx:a#0", "nvtx:a#x", "1:"}) {
    EXPECT_THROW(ParseWindowSpec(bad), InputError) << bad;
  }
  try {
    ParseWindowSpec("bogus");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--window");
    EXPECT_NE(std::string(e.what()).find("unknown window policy 'bogus'"), std::string::npos);
  }
}

DeviceSpan Span() {
  DeviceSpan span;
  span.has_ops = true;
  span.first_start_ns = -100;
  span.last_end_ns = 500;
  span.has_kernels = true;
  span.first_kernel_start_ns = 0;
  span.last_kernel_end_ns = 260;
  span.has_d2h = true;
  span.last_d2h_end_ns = 300;
  return span;
}

TEST(ResolveWindow, ProcessingRunsFromFirstKernelToLastKernelOrD2H) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  Window w = ResolveWindow(trace, ParseWindowSpec("processing"), Span(), -100, 500);
  EXPECT_EQ(w.start_ns, 0);
  EXPECT_EQ(w.end_ns, 300);
  DeviceSpan span = Span();
  span.last_d2h_end_ns = 100;  // D2H ends before the last kernel: the kernel decides
  w = ResolveWindow(trace, ParseWindowSpec("processing"), span, -100, 500);
  EXPECT_EQ(w.end_ns, 260);
}

TEST(ResolveWindow, ProcessingWithoutKernelFallsBackToAllAndSaysSo) {
  Trace trace = MakeTrace({{Engine::kH2D, 0, 10}});
  DeviceSpan span = Span();
  span.has_kernels = false;
  Window w = ResolveWindow(trace, ParseWindowSpec("processing"), span, -100, 500);
  EXPECT_EQ(w.policy, "all");
  EXPECT_EQ(w.start_ns, -100);
  EXPECT_EQ(w.end_ns, 500);
  EXPECT_NE(w.note.find("falls back"), std::string::npos);
}

TEST(ResolveWindow, RangeIsRelativeToTheFirstGpuOp) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  Window w = ResolveWindow(trace, ParseWindowSpec("50:250"), Span(), -100, 500);
  EXPECT_EQ(w.start_ns, -50);
  EXPECT_EQ(w.end_ns, 150);
}

TEST(ResolveWindow, RangeOutsideTheTraceIsAnError) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  EXPECT_THROW(ResolveWindow(trace, ParseWindowSpec("1s:2s"), Span(), -100, 500), InputError);
  try {
    ResolveWindow(trace, ParseWindowSpec("600:700"), Span(), -100, 500);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "memory.trace");
    EXPECT_NE(std::string(e.what()).find("outside"), std::string::npos);
  }
}

TEST(ResolveWindow, NvtxInstancesAndAll) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  AddRange(trace, "epoch", 0, 100);
  AddRange(trace, "epoch", 120, 200);
  AddRange(trace, "epoch", 210, 400);
  AddRange(trace, "Domain:step", 10, 20);
  Window first = ResolveWindow(trace, ParseWindowSpec("nvtx:epoch"), Span(), -100, 500);
  EXPECT_EQ(first.start_ns, 0);
  EXPECT_EQ(first.end_ns, 100);
  Window third = ResolveWindow(trace, ParseWindowSpec("nvtx:epoch#3"), Span(), -100, 500);
  EXPECT_EQ(third.start_ns, 210);
  EXPECT_EQ(third.end_ns, 400);
  Window all = ResolveWindow(trace, ParseWindowSpec("nvtx:epoch#*"), Span(), -100, 500);
  EXPECT_EQ(all.start_ns, 0);
  EXPECT_EQ(all.end_ns, 400);
  // The name without its domain prefix finds the domain's range.
  Window step = ResolveWindow(trace, ParseWindowSpec("nvtx:step"), Span(), -100, 500);
  EXPECT_EQ(step.start_ns, 10);
  EXPECT_THROW(ResolveWindow(trace, ParseWindowSpec("nvtx:epoch#4"), Span(), -100, 500),
               InputError);
  try {
    ResolveWindow(trace, ParseWindowSpec("nvtx:missing"), Span(), -100, 500);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no NVTX range named 'missing'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'epoch'"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuroof
