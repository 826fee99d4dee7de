#include "gpuroof/readers/nsys_api_calls.h"

#include <algorithm>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/model/time_limits.h"
#include "gpuroof/readers/nsys_tables.h"
#include "gpuroof/readers/sqlite_database.h"

namespace gpuroof {
namespace {

// globalTid with the thread bits cleared is the globalPid of the activity tables (docs/formats.md,
// "Inputs").
constexpr uint64_t kGlobalPidMask = 0xFFFFFFFFFF000000ULL;

}  // namespace

NsysApiCalls ReadNsysApiCalls(const std::filesystem::path& path, bool all_calls) {
  NsysApiCalls out;
  SqliteDatabase db(path);
  const std::vector<std::string> present =
      db.RequireColumns(nsys_tables::kRuntime, {"start", "end", "globalTid"});
  const bool has_correlation =
      std::find(present.begin(), present.end(), "correlationId") != present.end();
  if (!has_correlation && !all_calls) {
    // Without correlation ids no call can be tied to its GPU work: read none.
    out.diagnostics.Skip(nsys_tables::kRuntime, "table has no correlationId column",
                         Severity::kInfo);
    return out;
  }
  const bool has_name = std::find(present.begin(), present.end(), "nameId") != present.end();
  SqliteStatement row = db.Prepare(
      fmt::format("SELECT start, \"end\", globalTid, {}, {} FROM CUPTI_ACTIVITY_KIND_RUNTIME {}",
                  has_correlation ? "correlationId" : "NULL", has_name ? "nameId" : "NULL",
                  all_calls ? "" : "WHERE correlationId IS NOT NULL AND correlationId != 0"));
  // One allocation for the whole table (min and max rowid are B-tree lookups, not a scan):
  // growing a vector of millions of calls by doubling costs more in page faults than reading
  // them. nsys numbers rows densely; a hand-edited file's sparse or huge rowids must not reserve
  // for rows it lacks, so the span is capped by what the file can hold.
  SqliteStatement bounds = db.Prepare(
      "SELECT (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_RUNTIME), "
      "(SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_RUNTIME)");
  if (bounds.Step() && !bounds.IsNull(0)) {
    const int64_t span = RowSpan(bounds.Int64(0), bounds.Int64(1));
    out.calls.reserve(static_cast<size_t>(std::min(span, db.RowCapacity())));
  }
  int64_t read = 0;
  while (row.Step()) {
    ++read;
    if (row.IsNull(0) || row.IsNull(1) || row.IsNull(2)) {
      out.diagnostics.Skip(nsys_tables::kRuntime, "null start, end or thread", Severity::kDataLoss);
      continue;
    }
    if (!row.IsInteger(0) || !row.IsInteger(1) || !row.IsInteger(2)) {
      out.diagnostics.Skip(nsys_tables::kRuntime, "non-integer time or thread",
                           Severity::kDataLoss);
      continue;
    }
    if (std::string_view problem = IntervalProblem(row.Int64(0), row.Int64(1)); !problem.empty()) {
      out.diagnostics.Skip(nsys_tables::kRuntime, problem, Severity::kError);
      continue;
    }
    const int64_t correlation = row.IsNull(3) ? 0 : row.Int64(3);
    if (correlation < 0 || correlation > 0xFFFFFFFFLL) {
      out.diagnostics.Skip(nsys_tables::kRuntime, "correlation id out of range",
                           Severity::kDataLoss);
      continue;
    }
    ApiCall call;
    call.start_ns = row.Int64(0);
    call.end_ns = row.Int64(1);
    call.thread_id = static_cast<uint64_t>(row.Int64(2));
    call.process_id = call.thread_id & kGlobalPidMask;
    call.correlation = static_cast<uint32_t>(correlation);
    const int64_t name = row.IsNull(4) ? -1 : row.Int64(4);
    if (name == -1 && has_name) {  // damaged: said, not silent
      out.diagnostics.CountNote("API call(s) with a NULL nameId: shown as \"(unnamed)\"");
    }
    call.name = name >= 0 && name < kNoApiCallName ? static_cast<uint32_t>(name) : kNoApiCallName;
    out.calls.push_back(call);
  }
  auto by_correlation = [](const ApiCall& a, const ApiCall& b) {
    return std::tie(a.process_id, a.correlation, a.start_ns) <
           std::tie(b.process_id, b.correlation, b.start_ns);
  };
  // Exports usually hold one process's calls in correlation order already: check before sorting.
  if (!std::is_sorted(out.calls.begin(), out.calls.end(), by_correlation)) {
    std::sort(out.calls.begin(), out.calls.end(), by_correlation);
  }
  // Exact duplicate rows (a concatenated or merged export) are dropped, as the Kineto reader
  // drops duplicate calls: equal calls are adjacent in this order unless their starts differ.
  const size_t before = out.calls.size();
  out.calls.erase(std::unique(out.calls.begin(), out.calls.end(),
                              [](const ApiCall& a, const ApiCall& b) {
                                return a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
                                       a.thread_id == b.thread_id &&
                                       a.correlation == b.correlation && a.name == b.name &&
                                       a.correlation != 0;
                              }),
                  out.calls.end());
  if (out.calls.size() < before) {
    out.diagnostics.Skip(nsys_tables::kRuntime, "exact duplicate row", Severity::kInfo,
                         static_cast<int64_t>(before - out.calls.size()));
  }
  out.diagnostics.CountRead(read);
  out.diagnostics.CountUsed(static_cast<int64_t>(out.calls.size()));
  return out;
}

}  // namespace gpuroof
