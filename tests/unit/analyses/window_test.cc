#include "gpuroof/analyses/window.h"

#include <fmt/format.h>
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
  for (const char* bad : {"", "ms", "1.2.3", "5min", "abc", "infs", "nan"}) {
    EXPECT_THROW(ParseDurationNs(bad, "--window"), InputError) << bad;
  }
}

// A number beyond the limit is a time, just too large: said so, with the limit.
TEST(ParseDurationNs, TooLargeSaysTheLimit) {
  // "1e400s": beyond a double too, still a time and not a malformed one.
  for (const char* big : {"9223372036854775807", "-9223372036854775807", "1e10s", "1e400s",
                          "-1e400ms", "2.5e400ms", "0.001e312", "1e99999999999999999999s"}) {
    try {
      ParseDurationNs(big, "--window");
      FAIL() << big;
    } catch (const InputError& e) {
      EXPECT_EQ(e.problem(),
                fmt::format("'{}' is too large: a time is at most 9e18 ns (9e9 s, about 285 "
                            "years) either way, and less on a trace whose clock does not start "
                            "near 0 (e.g. Kineto's, in ns since 1970: about 7.5e9 s)",
                            big));
    }
  }
  EXPECT_EQ(ParseDurationNs("9e9s", "--window"), 9'000'000'000'000'000'000);
  // Below a double's range: 0, whatever the notation (and whatever the locale: none is read).
  for (const char* tiny :
       {"1e-400s", "-1e-400s", "1.5e-400s", "1000e-330", "1e-99999999999999999999"})
    EXPECT_EQ(ParseDurationNs(tiny, "--window"), 0) << tiny;
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
  // The text is resolved against the trace (a range may be named "ProfilerStep#7"), so it is
  // kept whole; a domain-qualified name keeps its colon.
  EXPECT_EQ(ParseWindowSpec("nvtx:ProfilerStep#7").nvtx_name, "ProfilerStep#7");
  EXPECT_EQ(ParseWindowSpec("nvtx:TensorRT:layer@2").nvtx_name, "TensorRT:layer@2");
}

TEST(ParseWindowSpec, RejectsUnknownPolicies) {
  for (const char* bad : {"steadyish", "", "2ms:1ms", "5:5", "nvtx:", "1:"}) {
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

// Time after the last GPU op counts as idle, which the trace may never have recorded: kept as
// asked (a window is the user's), and said.
TEST(ResolveWindow, RangePastTheLastGpuOpIsSaid) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  Window w = ResolveWindow(trace, ParseWindowSpec("100:1us"), Span(), -100, 500);
  EXPECT_EQ(w.end_ns, 900);
  EXPECT_EQ(w.note,
            "the window ends 400 ns after the trace's last GPU op (600 ns from its first op); "
            "that time counts as idle");
  EXPECT_EQ(ResolveWindow(trace, ParseWindowSpec("100:600"), Span(), -100, 500).note, "");
}

// The same for time before the first GPU op (a negative START), with the figure.
TEST(ResolveWindow, RangeBeforeTheFirstGpuOpIsSaid) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  Window w = ResolveWindow(trace, ParseWindowSpec("-5us:100"), Span(), -100, 500);
  EXPECT_EQ(w.start_ns, -5100);
  EXPECT_EQ(w.note,
            "the window starts 5.000 us before the trace's first GPU op; that time counts as "
            "idle");
  EXPECT_EQ(ResolveWindow(trace, ParseWindowSpec("-1us:1us"), Span(), -100, 500).note,
            "the window starts 1.000 us before the trace's first GPU op; that time counts as "
            "idle; the window ends 400 ns after the trace's last GPU op (600 ns from its first "
            "op); that time counts as idle");
  EXPECT_EQ(ResolveWindow(trace, ParseWindowSpec("0:600"), Span(), -100, 500).note, "");
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

std::string ErrorOf(const Trace& trace, const std::string& window) {
  try {
    ResolveWindow(trace, ParseWindowSpec(window), Span(), -100, 500);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Kineto times are ns since 1970 (about 1.7e18): START:END from the first op must fit int64.
// 8e9 s past it wrapped to a negative time and read as a window before the trace.
TEST(ResolveWindow, RangePastTheClocksLimitIsRefused) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  constexpr int64_t kFirst = 1'700'000'000'000'000'000;
  DeviceSpan span = Span();
  span.first_start_ns = kFirst;
  span.last_end_ns = kFirst + 1'000'000'000;
  try {
    ResolveWindow(trace, ParseWindowSpec("0:8e9s"), span, kFirst, kFirst + 1'000'000'000);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(),
              "--window '0:8e9s' is too large for this trace's clock: its first GPU op is at "
              "1700000000000000000 ns, so a time is at most 7523372036.855 s after that op");
  }
  // Within the limit: kept, and the end past the last op said.
  const Window w =
      ResolveWindow(trace, ParseWindowSpec("0:7e9s"), span, kFirst, kFirst + 1'000'000'000);
  EXPECT_EQ(w.start_ns, kFirst);
  EXPECT_EQ(w.end_ns, kFirst + 7'000'000'000'000'000'000);
  EXPECT_NE(w.note.find("the window ends 6999999999.000 s after the trace's last GPU op"),
            std::string::npos)
      << w.note;
}

TEST(ResolveWindow, NvtxInstancesAndAll) {
  // No API calls: CPU ranges fall back to time overlap, and the window is their interval.
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  AddRange(trace, "epoch", 0, 100);
  AddRange(trace, "epoch", 120, 200);
  AddRange(trace, "epoch", 210, 400);
  AddRange(trace, "Domain:step", 10, 20);
  Window third = ResolveWindow(trace, ParseWindowSpec("nvtx:epoch@3"), Span(), -100, 500);
  EXPECT_EQ(third.start_ns, 210);
  EXPECT_EQ(third.end_ns, 400);
  EXPECT_EQ(third.resolved, "'epoch' instance 3 of 3");
  Window all = ResolveWindow(trace, ParseWindowSpec("nvtx:epoch@*"), Span(), -100, 500);
  EXPECT_EQ(all.start_ns, 0);
  EXPECT_EQ(all.end_ns, 400);
  EXPECT_EQ(all.resolved, "'epoch' (3 instances)");
  // The name without its domain prefix finds the domain's range.
  Window step = ResolveWindow(trace, ParseWindowSpec("nvtx:step"), Span(), -100, 500);
  EXPECT_EQ(step.start_ns, 10);
  EXPECT_EQ(step.resolved, "'step' (1 instance)");
  // Several instances and no choice: refused, with both spellings.
  EXPECT_NE(ErrorOf(trace, "nvtx:epoch").find("has 3 instances; choose one with nvtx:epoch@N"),
            std::string::npos);
  EXPECT_NE(ErrorOf(trace, "nvtx:epoch@4").find("range 'epoch' has 3 instance(s), no @4"),
            std::string::npos);
  // Instance numbers that are whole numbers but no instance: said so, not "no range named".
  EXPECT_EQ(ErrorOf(trace, "nvtx:epoch@0"),
            "memory.trace: --window 'epoch@0': instance numbers count from 1 (got @0); range "
            "'epoch' has 3 instance(s), @1 to @3");
  EXPECT_EQ(ErrorOf(trace, "nvtx:epoch@99999999999999999999999"),
            "memory.trace: --window 'epoch@99999999999999999999999': instance number "
            "99999999999999999999999 is too large; range 'epoch' has 3 instance(s), @1 to @3");
  EXPECT_NE(ErrorOf(trace, "nvtx:epoch@-2").find("instance numbers count from 1 (got @-2)"),
            std::string::npos);
  EXPECT_NE(ErrorOf(trace, "nvtx:missing@0").find("no NVTX range named 'missing@0'"),
            std::string::npos);
  // The old NAME#N spelling is not an instance: the message gives the new one.
  EXPECT_NE(ErrorOf(trace, "nvtx:epoch#3").find("instance 3 of range 'epoch' is written epoch@3"),
            std::string::npos);
  const std::string missing = ErrorOf(trace, "nvtx:missing");
  EXPECT_NE(missing.find("no NVTX range named 'missing'"), std::string::npos);
  EXPECT_NE(missing.find("'epoch'"), std::string::npos);
}

// One capture of two ranks without API calls (time overlap): a device's window spans the steps
// of the process driving it, not the other rank's, whose clock runs 50 ns later, and counts the
// ops running in them: device 0's kernel at 520 runs between its own steps, in the other rank's.
TEST(ResolveWindow, TimeOverlapStepsSpanTheStepsOfTheDevicesOwnProcess) {
  Trace trace = MakeTrace({{Engine::kKernel, 100, 200, 0},
                           {Engine::kKernel, 520, 540, 0},
                           {Engine::kKernel, 150, 250, 1}});
  for (StreamInfo& stream : trace.streams)
    stream.process_id = stream.device_id == 0 ? 1111 : 2222;
  AddRange(trace, "step", 0, 500, 1);
  AddRange(trace, "step", 600, 1000, 1);
  AddRange(trace, "step", 50, 550, 2);
  AddRange(trace, "step", 550, 1050, 2);
  for (NvtxRange& range : trace.nvtx_ranges)
    range.process_id = range.thread_id == 1 ? 1111 : 2222;
  DeviceSpan span = Span();
  for (int32_t device : {0, 1}) {
    span.device_id = device;
    const Window w = ResolveWindow(trace, ParseWindowSpec("nvtx:step@*"), span, -100, 500);
    EXPECT_EQ(w.start_ns, device == 0 ? 0 : 50) << device;
    EXPECT_EQ(w.end_ns, device == 0 ? 1000 : 1050) << device;
    EXPECT_NE(w.note.find("2 of them left out: another process's"), std::string::npos) << w.note;
    if (device == 1) continue;
    std::vector<int64_t> counted;
    for (const ActivityBlock& block : trace.blocks) {
      for (size_t i = 0; i < block.size(); ++i) {
        if (trace.streams[block.stream[i]].device_id == 0 && OpCountsInWindow(trace, block, i, w)) {
          counted.push_back(block.start_ns[i]);
        }
      }
    }
    EXPECT_EQ(counted, std::vector<int64_t>{100});
  }
  // One instance of the other rank only: used, and the guess is said.
  span.device_id = 0;
  const Window other = ResolveWindow(trace, ParseWindowSpec("nvtx:step@2"), span, -100, 500);
  EXPECT_EQ(other.start_ns, 50);
  EXPECT_NE(other.note.find("none of them is of a process that launched onto device 0"),
            std::string::npos)
      << other.note;
}

TEST(ResolveWindow, NvtxNamesComeBeforeInstanceNumbers) {
  // Kineto's steps are ranges named ProfilerStep#5 ... #7: "#7" is part of the name.
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  AddRange(trace, "ProfilerStep#5", 0, 100);
  AddRange(trace, "ProfilerStep#6", 100, 200);
  AddRange(trace, "ProfilerStep#7", 200, 300);
  Window seventh = ResolveWindow(trace, ParseWindowSpec("nvtx:ProfilerStep#7"), Span(), -100, 500);
  EXPECT_EQ(seventh.start_ns, 200);
  EXPECT_EQ(seventh.resolved, "'ProfilerStep#7' (1 instance)");
  EXPECT_NE(ErrorOf(trace, "nvtx:ProfilerStep#9").find("no NVTX range named 'ProfilerStep#9'"),
            std::string::npos);
  // The family, by its name or NAME#*, is every step.
  for (const char* family : {"nvtx:ProfilerStep", "nvtx:ProfilerStep#*"}) {
    Window steps = ResolveWindow(trace, ParseWindowSpec(family), Span(), -100, 500);
    EXPECT_EQ(steps.start_ns, 0) << family;
    EXPECT_EQ(steps.end_ns, 300) << family;
    EXPECT_EQ(steps.resolved, "'ProfilerStep#*' (3 instances)") << family;
  }
  Window second = ResolveWindow(trace, ParseWindowSpec("nvtx:ProfilerStep#*@2"), Span(), -100, 500);
  EXPECT_EQ(second.start_ns, 100);
  EXPECT_EQ(second.resolved, "'ProfilerStep#*' instance 2 of 3");
}

TEST(ResolveWindow, AmbiguousRangeTextListsBothReadings) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10}});
  AddRange(trace, "load", 0, 100);
  AddRange(trace, "load", 100, 200);
  AddRange(trace, "load@2", 300, 400);
  const std::string error = ErrorOf(trace, "nvtx:load@2");
  EXPECT_NE(error.find("ambiguous"), std::string::npos) << error;
  EXPECT_NE(error.find("names range 'load@2' (1 instance(s))"), std::string::npos) << error;
  EXPECT_NE(error.find("'load' instance 2 of 2"), std::string::npos) << error;
}

}  // namespace
}  // namespace gpuroof
