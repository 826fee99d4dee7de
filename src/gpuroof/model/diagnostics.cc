#include "gpuroof/model/diagnostics.h"

#include <array>

#include <fmt/format.h>

#include "gpuroof/model/enum_names.h"

namespace gpuroof {

namespace {

// As the JSON's skipped[].severity writes them (docs/formats.md).
constexpr std::array<EnumName<Severity>, 3> kSeverityNames = {
    {{Severity::kInfo, "info"}, {Severity::kDataLoss, "data_loss"}, {Severity::kError, "error"}}};
static_assert(kSeverityNames.size() == static_cast<size_t>(Severity::kError) + 1,
              "every severity has its name");

}  // namespace

std::string_view SeverityName(Severity severity) {
  return NameOf(kSeverityNames, severity, "unknown");
}

void Diagnostics::Skip(std::string_view table, std::string_view reason, Severity severity,
                       int64_t n) {
  for (SkipCount& skip : skips_) {
    if (skip.table == table && skip.reason == reason) {
      skip.count += n;
      return;
    }
  }
  skips_.push_back(SkipCount{std::string(table), std::string(reason), severity, n});
}

void Diagnostics::Note(std::string message) {
  for (const std::string& note : notes_) {
    if (note == message) return;
  }
  notes_.push_back(std::move(message));
}

void Diagnostics::CountNote(std::string_view text, int64_t n) {
  for (CountedNote& counted : counted_notes_) {
    if (counted.text == text) {
      counted.count += n;
      notes_[counted.note_index] = fmt::format("{} {}", counted.count, counted.text);
      return;
    }
  }
  counted_notes_.push_back(CountedNote{std::string(text), n, notes_.size()});
  notes_.push_back(fmt::format("{} {}", n, text));
}

void Diagnostics::Merge(const Diagnostics& other) {
  read_ += other.read_;
  used_ += other.used_;
  for (const SkipCount& skip : other.skips_)
    Skip(skip.table, skip.reason, skip.severity, skip.count);
  std::vector<bool> counted(other.notes_.size(), false);
  for (const CountedNote& note : other.counted_notes_)
    counted[note.note_index] = true;
  for (size_t i = 0; i < other.notes_.size(); ++i) {
    if (!counted[i]) Note(other.notes_[i]);
  }
  for (const CountedNote& note : other.counted_notes_)
    CountNote(note.text, note.count);
}

int64_t Diagnostics::records_skipped() const {
  int64_t total = 0;
  for (const SkipCount& skip : skips_)
    total += skip.count;
  return total;
}

bool Diagnostics::has_data_loss() const {
  for (const SkipCount& skip : skips_) {
    if (skip.severity != Severity::kInfo && skip.count > 0) return true;
  }
  return false;
}

std::string Diagnostics::NoRecordsCause() const {
  int64_t lost = 0;
  std::string reasons;
  for (const SkipCount& skip : skips_) {
    if (skip.severity == Severity::kInfo || skip.count == 0) continue;
    lost += skip.count;
    reasons += fmt::format("{}{} {} in {}", reasons.empty() ? "" : "; ", skip.count, skip.reason,
                           skip.table);
  }
  if (lost == 0) return "(was CUDA tracing on, e.g. nsys profile --trace=cuda?)";
  return fmt::format("({} record{} the reader skipped as unusable: {})", lost, lost == 1 ? "" : "s",
                     reasons);
}

std::string Diagnostics::Summary() const {
  std::string out =
      fmt::format("read {} records, used {}, skipped {}", read_, used_, records_skipped());
  if (skips_.empty()) return out;
  out += " (";
  bool first = true;
  for (const SkipCount& skip : skips_) {
    if (!first) out += "; ";
    first = false;
    out += fmt::format("{} {} in {}", skip.count, skip.reason, skip.table);
  }
  out += ")";
  return out;
}

}  // namespace gpuroof
