#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuroof {

// How bad a skipped record is: kInfo loses nothing the analyses use (a row outside every table we
// read), kDataLoss drops GPU work from the figures, kError marks a record that contradicts itself.
enum class Severity : uint8_t { kInfo, kDataLoss, kError };

std::string_view SeverityName(Severity severity);

// One reason records were skipped, with how many.
struct SkipCount {
  std::string table;   // where the records came from, e.g. "CUPTI_ACTIVITY_KIND_MEMCPY"
  std::string reason;  // e.g. "end before start"
  Severity severity = Severity::kDataLoss;
  int64_t count = 0;
};

// What a reader (or an analysis) could not use, counted by reason and never silently dropped.
// Invariant: records_read() == records_used() + records_skipped().
class Diagnostics {
 public:
  void CountRead(int64_t n) { read_ += n; }
  void CountUsed(int64_t n) { used_ += n; }
  // Counts `n` records skipped for `reason` (merged with earlier counts of the same reason).
  void Skip(std::string_view table, std::string_view reason, Severity severity, int64_t n = 1);
  // A remark that is not a loss (a fallback taken, a table missing in this nsys version).
  void Note(std::string message);
  // A note that counts: "<n> <text>", its count adding up over calls and Merge (one note for a
  // whole file read in chunks).
  void CountNote(std::string_view text, int64_t n = 1);
  // Adds another reader's counts (used to join the results of parallel table readers).
  void Merge(const Diagnostics& other);

  int64_t records_read() const { return read_; }
  int64_t records_used() const { return used_; }
  int64_t records_skipped() const;
  bool has_data_loss() const;
  const std::vector<SkipCount>& skips() const { return skips_; }
  const std::vector<std::string>& notes() const { return notes_; }

  // Why a trace may hold no record of a kind, for "no kernels"-style errors, in parentheses:
  // the records the reader skipped as unusable, with their count and reasons, when it skipped
  // any with data loss (the records were there), else tracing that may have been off.
  std::string NoRecordsCause() const;

  // One line: "read 1200 records, used 1195, skipped 5 (3 end before start in ...; 2 ...)".
  std::string Summary() const;

 private:
  int64_t read_ = 0;
  int64_t used_ = 0;
  std::vector<SkipCount> skips_;
  std::vector<std::string> notes_;
  struct CountedNote {
    std::string text;
    int64_t count = 0;
    size_t note_index = 0;  // into notes_
  };
  std::vector<CountedNote> counted_notes_;
};

}  // namespace gpuroof
