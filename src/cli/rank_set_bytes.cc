#include "rank_set_bytes.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>

namespace gpuroof {

namespace {

class ByteWriter {
 public:
  void U64(uint64_t value) {
    for (int shift = 0; shift < 64; shift += 8)
      bytes_.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  void I64(int64_t value) { U64(static_cast<uint64_t>(value)); }
  void F64(double value) { U64(std::bit_cast<uint64_t>(value)); }
  void Bool(bool value) { U64(value ? 1 : 0); }
  void String(const std::string& value) {
    U64(value.size());
    bytes_ += value;
  }
  void OptionalI64(const std::optional<int64_t>& value) {
    Bool(value.has_value());
    if (value) I64(*value);
  }
  std::string Take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  uint64_t U64() {
    Need(8);
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 8)
      value |= uint64_t{static_cast<unsigned char>(bytes_[at_++])} << shift;
    return value;
  }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  uint32_t U32() {
    uint64_t value = U64();
    if (value > UINT32_MAX) Fail();
    return static_cast<uint32_t>(value);
  }
  double F64() { return std::bit_cast<double>(U64()); }
  bool Bool() { return U64() != 0; }
  std::string String() {
    uint64_t size = U64();
    Need(size);
    std::string value = bytes_.substr(at_, size);
    at_ += size;
    return value;
  }
  std::optional<int64_t> OptionalI64() {
    if (!Bool()) return std::nullopt;
    return I64();
  }
  // A count of items that each take at least `item_bytes`: checked against what is left, so
  // a bad count cannot reserve memory it does not describe.
  uint64_t Count(uint64_t item_bytes) {
    uint64_t count = U64();
    if (count > (bytes_.size() - at_) / item_bytes) Fail();
    return count;
  }
  void ExpectEnd() const {
    if (at_ != bytes_.size()) Fail();
  }
  [[noreturn]] static void Fail() {
    throw std::runtime_error("ranks: a message between MPI processes is malformed");
  }

 private:
  void Need(uint64_t size) const {
    if (size > bytes_.size() - at_) Fail();
  }
  const std::string& bytes_;
  size_t at_ = 0;
};

void WriteSummary(ByteWriter& out, const RankSummary& summary) {
  out.String(summary.source);
  out.String(summary.format);
  out.OptionalI64(summary.rank);
  out.OptionalI64(summary.world_size);
  out.String(summary.rank_origin);
  out.String(summary.rank_left_out);
  out.I64(summary.device_id);
  out.String(summary.device_name);
  out.U64(summary.other_devices);
  out.U64(summary.tied_devices);
  out.I64(summary.other_device_ops);
  out.String(summary.steps_label);
  out.Bool(summary.whole_trace);
  out.I64(summary.ops_outside_steps);
  out.I64(summary.busy_outside_steps_ns);
  out.I64(summary.records_lost);
  out.I64(summary.last_record_ns);
  out.U64(summary.step_numbers.size());
  for (int64_t number : summary.step_numbers)
    out.I64(number);
  out.U64(summary.steps.size());
  for (const StepFigures& step : summary.steps) {
    for (int64_t value : {step.start_ns, step.end_ns, step.compute_busy_ns, step.comm_busy_ns,
                          step.overlap_ns, step.copy_busy_ns, step.busy_ns, step.idle.host_bound_ns,
                          step.idle.waiting_ns, step.idle.other_ns})
      out.I64(value);
  }
  out.F64(summary.step_median_ns);
  out.F64(summary.step_p95_ns);
  out.U64(summary.collective_names.size());
  for (const std::string& name : summary.collective_names)
    out.String(name);
  out.U64(summary.collectives.size());
  for (const CollectiveArrival& collective : summary.collectives) {
    out.U64(collective.step);
    out.U64(collective.order);
    out.U64(collective.name_id);
    out.I64(collective.arrival_ns);
  }
}

RankSummary ReadSummary(ByteReader& in) {
  RankSummary summary;
  summary.source = in.String();
  summary.format = in.String();
  summary.rank = in.OptionalI64();
  summary.world_size = in.OptionalI64();
  summary.rank_origin = in.String();
  summary.rank_left_out = in.String();
  summary.device_id = static_cast<int32_t>(in.I64());
  summary.device_name = in.String();
  summary.other_devices = in.U64();
  summary.tied_devices = in.U64();
  summary.other_device_ops = in.I64();
  summary.steps_label = in.String();
  summary.whole_trace = in.Bool();
  summary.ops_outside_steps = in.I64();
  summary.busy_outside_steps_ns = in.I64();
  summary.records_lost = in.I64();
  summary.last_record_ns = in.I64();
  summary.step_numbers.resize(in.Count(8));
  for (int64_t& number : summary.step_numbers)
    number = in.I64();
  summary.steps.resize(in.Count(10 * 8));
  for (StepFigures& step : summary.steps) {
    for (int64_t* value : {&step.start_ns, &step.end_ns, &step.compute_busy_ns, &step.comm_busy_ns,
                           &step.overlap_ns, &step.copy_busy_ns, &step.busy_ns,
                           &step.idle.host_bound_ns, &step.idle.waiting_ns, &step.idle.other_ns})
      *value = in.I64();
  }
  summary.step_median_ns = in.F64();
  summary.step_p95_ns = in.F64();
  summary.collective_names.resize(in.Count(8));
  for (std::string& name : summary.collective_names)
    name = in.String();
  summary.collectives.resize(in.Count(4 * 8));
  for (CollectiveArrival& collective : summary.collectives) {
    collective.step = in.U32();
    collective.order = in.U32();
    collective.name_id = in.U32();
    if (collective.name_id >= summary.collective_names.size()) in.Fail();
    collective.arrival_ns = in.I64();
  }
  return summary;
}

void WriteTally(ByteWriter& out, const CollectiveTally& tally) {
  out.U64(tally.names().size());
  for (const std::string& name : tally.names())
    out.String(name);
  std::vector<CollectiveTally::Instance> instances = tally.Instances();
  out.U64(instances.size());
  for (const CollectiveTally::Instance& instance : instances) {
    for (uint32_t value : {instance.step, instance.occurrence, instance.name_id, instance.order,
                           instance.order_input, instance.ranks_present})
      out.U64(value);
    for (int64_t value : {instance.earliest_arrival_ns, instance.latest_arrival_ns})
      out.I64(value);
    out.Bool(instance.whole_trace);
    out.U64(instance.latest_inputs.size());
    for (uint32_t input : instance.latest_inputs)
      out.U64(input);
  }
  std::vector<CollectiveTally::NameCount> counts = tally.NameCounts();
  out.U64(counts.size());
  for (const CollectiveTally::NameCount& count : counts) {
    out.Bool(count.whole_trace);
    for (uint32_t value : {count.step, count.input, count.name_id, count.count})
      out.U64(value);
  }
}

CollectiveTally ReadTally(ByteReader& in) {
  std::vector<std::string> names(in.Count(8));
  for (std::string& name : names)
    name = in.String();
  std::vector<CollectiveTally::Instance> instances(in.Count(10 * 8));
  for (CollectiveTally::Instance& instance : instances) {
    for (uint32_t* value : {&instance.step, &instance.occurrence, &instance.name_id,
                            &instance.order, &instance.order_input, &instance.ranks_present})
      *value = in.U32();
    for (int64_t* value : {&instance.earliest_arrival_ns, &instance.latest_arrival_ns})
      *value = in.I64();
    instance.whole_trace = in.Bool();
    instance.latest_inputs.resize(in.Count(8));
    for (uint32_t& input : instance.latest_inputs)
      input = in.U32();
  }
  std::vector<CollectiveTally::NameCount> counts(in.Count(5 * 8));
  for (CollectiveTally::NameCount& count : counts) {
    count.whole_trace = in.Bool();
    for (uint32_t* value : {&count.step, &count.input, &count.name_id, &count.count})
      *value = in.U32();
  }
  try {
    return CollectiveTally::FromParts(std::move(names), std::move(instances), std::move(counts));
  } catch (const std::invalid_argument&) {
    ByteReader::Fail();
  }
}

}  // namespace

std::vector<int> ShareByFileSize(const std::vector<uint64_t>& file_bytes, int processes) {
  std::vector<size_t> order(file_bytes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return file_bytes[a] > file_bytes[b]; });
  std::vector<uint64_t> load(static_cast<size_t>(std::max(processes, 1)), 0);
  std::vector<int> process_of(file_bytes.size(), 0);
  for (size_t i : order) {
    // min_element keeps the first of equal loads: the lower process number.
    auto least = std::min_element(load.begin(), load.end());
    *least += file_bytes[i];
    process_of[i] = static_cast<int>(least - load.begin());
  }
  return process_of;
}

std::string EncodeRankShares(const RankShares& shares) {
  ByteWriter out;
  out.U64(shares.paths.size());
  for (size_t i = 0; i < shares.paths.size(); ++i) {
    out.String(shares.paths[i]);
    out.I64(shares.process_of.at(i));
  }
  return out.Take();
}

RankShares DecodeRankShares(const std::string& bytes) {
  ByteReader in(bytes);
  RankShares shares;
  uint64_t count = in.Count(2 * 8);
  for (uint64_t i = 0; i < count; ++i) {
    shares.paths.push_back(in.String());
    shares.process_of.push_back(static_cast<int>(in.I64()));
  }
  in.ExpectEnd();
  return shares;
}

std::string EncodeLoadedShare(const LoadedShare& share) {
  ByteWriter out;
  out.U64(share.ranks.size());
  for (const IndexedLoadedRank& rank : share.ranks) {
    out.U64(rank.index);
    out.Bool(rank.loaded.summary.has_value());
    if (rank.loaded.summary) WriteSummary(out, *rank.loaded.summary);
    out.String(rank.loaded.error);
    out.String(rank.loaded.diagnostics_summary);
    out.U64(rank.loaded.reader_notes.size());
    for (const std::string& note : rank.loaded.reader_notes)
      out.String(note);
    out.Bool(rank.loaded.data_loss);
  }
  WriteTally(out, share.collectives);
  return out.Take();
}

LoadedShare DecodeLoadedShare(const std::string& bytes) {
  ByteReader in(bytes);
  LoadedShare share;
  share.ranks.resize(in.Count(5 * 8));
  for (IndexedLoadedRank& rank : share.ranks) {
    rank.index = in.U64();
    if (in.Bool()) rank.loaded.summary = ReadSummary(in);
    rank.loaded.error = in.String();
    rank.loaded.diagnostics_summary = in.String();
    rank.loaded.reader_notes.resize(in.Count(8));
    for (std::string& note : rank.loaded.reader_notes)
      note = in.String();
    rank.loaded.data_loss = in.Bool();
  }
  share.collectives = ReadTally(in);
  in.ExpectEnd();
  return share;
}

}  // namespace gpuroof
