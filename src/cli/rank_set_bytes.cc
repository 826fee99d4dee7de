#include "rank_set_bytes.h"

#include <algorithm>
#include <bit>
#include <concepts>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace gpuroof {

namespace {

// Each message's fields are listed once, in the order they travel, by a `Fields(archive, value)`
// overload that the writer, the reader and the size count all walk: what is written and what is
// read cannot drift apart. `Self` is the struct, const or not (the writer reads it, the reader
// fills it).
template <typename Self, typename Struct>
concept Is = std::same_as<std::remove_const_t<Self>, Struct>;

template <typename Archive, Is<IdleBreakdown> Self>
void Fields(Archive& a, Self& idle) {
  a(idle.host_bound_ns, idle.waiting_ns, idle.other_ns);
}

template <typename Archive, Is<StepFigures> Self>
void Fields(Archive& a, Self& step) {
  a(step.start_ns, step.end_ns, step.compute_busy_ns, step.comm_busy_ns, step.overlap_ns,
    step.copy_busy_ns, step.busy_ns, step.idle);
}

template <typename Archive, Is<CollectiveArrival> Self>
void Fields(Archive& a, Self& arrival) {
  a(arrival.step, arrival.order, arrival.name_id, arrival.arrival_ns);
}

template <typename Archive, Is<RankSummary> Self>
void Fields(Archive& a, Self& s) {
  a(s.source, s.format, s.rank, s.world_size, s.rank_origin, s.rank_left_out);
  a(s.device_id, s.device_name, s.other_devices, s.tied_devices, s.other_device_ops);
  a(s.steps_label, s.whole_trace, s.ops_outside_steps, s.busy_outside_steps_ns, s.records_lost,
    s.last_record_ns);
  a(s.step_numbers, s.steps, s.step_median_ns, s.step_p95_ns, s.collective_names, s.collectives);
}

template <typename Archive, Is<LoadedRank> Self>
void Fields(Archive& a, Self& loaded) {
  a(loaded.summary, loaded.error, loaded.diagnostics_summary, loaded.reader_notes,
    loaded.data_loss);
}

template <typename Archive, Is<IndexedLoadedRank> Self>
void Fields(Archive& a, Self& rank) {
  a(rank.index, rank.loaded);
}

template <typename Archive, Is<CollectiveTally::Instance> Self>
void Fields(Archive& a, Self& i) {
  a(i.step, i.occurrence, i.name_id, i.order, i.order_input, i.ranks_present);
  a(i.earliest_arrival_ns, i.latest_arrival_ns, i.whole_trace, i.latest_inputs);
}

template <typename Archive, Is<CollectiveTally::NameCount> Self>
void Fields(Archive& a, Self& count) {
  a(count.whole_trace, count.step, count.input, count.name_id, count.count);
}

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;
template <typename T>
inline constexpr bool kIsVector = false;
template <typename T>
inline constexpr bool kIsVector<std::vector<T>> = true;

// Every value travels in 8-byte words: integers and bools as one little-endian word (signed ones
// sign-extended), doubles as their bits, strings and lists as a length then their contents, an
// optional as a presence flag then its value, a struct as its fields.
class ByteWriter {
 public:
  template <typename... T>
  void operator()(const T&... values) {
    (Put(values), ...);
  }
  std::string Take() { return std::move(bytes_); }

 private:
  void Word(uint64_t value) {
    for (int shift = 0; shift < 64; shift += 8)
      bytes_.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  template <typename T>
  void Put(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      Word(value ? 1 : 0);
    } else if constexpr (std::is_integral_v<T>) {
      Word(static_cast<uint64_t>(
          static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(value)));
    } else if constexpr (std::is_same_v<T, double>) {
      Word(std::bit_cast<uint64_t>(value));
    } else if constexpr (std::is_same_v<T, std::string>) {
      Word(value.size());
      bytes_ += value;
    } else if constexpr (kIsOptional<T>) {
      Put(value.has_value());
      if (value) Put(*value);
    } else if constexpr (kIsVector<T>) {
      Word(value.size());
      for (const auto& item : value)
        Put(item);
    } else {
      Fields(*this, value);
    }
  }
  std::string bytes_;
};

// The fewest bytes a value of type T takes on the wire (an empty string, list or optional takes
// its one word): a list's count is checked against it before anything is reserved.
class WireSize {
 public:
  template <typename... T>
  void operator()(const T&... values) {
    (Add(values), ...);
  }
  template <typename T>
  static uint64_t Of() {
    WireSize size;
    size.Add(T{});
    return size.bytes_;
  }

 private:
  template <typename T>
  void Add(const T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string> || kIsOptional<T> ||
                  kIsVector<T>) {
      bytes_ += 8;
    } else {
      Fields(*this, value);
    }
  }
  uint64_t bytes_ = 0;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  template <typename... T>
  void operator()(T&... values) {
    (Get(values), ...);
  }
  void ExpectEnd() const {
    if (at_ != bytes_.size()) Fail();
  }
  [[noreturn]] static void Fail() {
    throw std::runtime_error("ranks: a message between MPI processes is malformed");
  }

 private:
  uint64_t Word() {
    Need(8);
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 8)
      value |= uint64_t{static_cast<unsigned char>(bytes_[at_++])} << shift;
    return value;
  }
  template <typename T>
  void Get(T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      value = Word() != 0;
    } else if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
      const auto word = static_cast<int64_t>(Word());
      if (word < std::numeric_limits<T>::min() || word > std::numeric_limits<T>::max()) Fail();
      value = static_cast<T>(word);
    } else if constexpr (std::is_integral_v<T>) {
      const uint64_t word = Word();
      if (word > std::numeric_limits<T>::max()) Fail();
      value = static_cast<T>(word);
    } else if constexpr (std::is_same_v<T, double>) {
      value = std::bit_cast<double>(Word());
    } else if constexpr (std::is_same_v<T, std::string>) {
      const uint64_t size = Word();
      Need(size);
      value = bytes_.substr(at_, size);
      at_ += size;
    } else if constexpr (kIsOptional<T>) {
      value.reset();
      bool present = false;
      Get(present);
      if (present) Get(value.emplace());
    } else if constexpr (kIsVector<T>) {
      // A bad count cannot reserve memory the bytes do not describe.
      const uint64_t count = Word();
      if (count > (bytes_.size() - at_) / WireSize::Of<typename T::value_type>()) Fail();
      value.resize(count);
      for (auto& item : value)
        Get(item);
    } else {
      Fields(*this, value);
    }
  }
  void Need(uint64_t size) const {
    if (size > bytes_.size() - at_) Fail();
  }
  const std::string& bytes_;
  size_t at_ = 0;
};

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

namespace {

// One path and its process, as RankShares travels: a list of these.
struct PathShare {
  std::string path;
  int process = 0;
};

template <typename Archive, Is<PathShare> Self>
void Fields(Archive& a, Self& share) {
  a(share.path, share.process);
}

}  // namespace

std::string EncodeRankShares(const RankShares& shares) {
  std::vector<PathShare> list;
  for (size_t i = 0; i < shares.paths.size(); ++i)
    list.push_back({shares.paths[i], shares.process_of.at(i)});
  ByteWriter out;
  out(list);
  return out.Take();
}

RankShares DecodeRankShares(const std::string& bytes) {
  ByteReader in(bytes);
  std::vector<PathShare> list;
  in(list);
  in.ExpectEnd();
  RankShares shares;
  for (PathShare& share : list) {
    shares.paths.push_back(std::move(share.path));
    shares.process_of.push_back(share.process);
  }
  return shares;
}

std::string EncodeLoadedShare(const LoadedShare& share) {
  ByteWriter out;
  out(share.ranks, share.collectives.names(), share.collectives.Instances(),
      share.collectives.NameCounts());
  return out.Take();
}

LoadedShare DecodeLoadedShare(const std::string& bytes) {
  ByteReader in(bytes);
  LoadedShare share;
  std::vector<std::string> names;
  std::vector<CollectiveTally::Instance> instances;
  std::vector<CollectiveTally::NameCount> counts;
  in(share.ranks, names, instances, counts);
  in.ExpectEnd();
  for (const IndexedLoadedRank& rank : share.ranks) {
    if (!rank.loaded.summary) continue;
    for (const CollectiveArrival& arrival : rank.loaded.summary->collectives) {
      if (arrival.name_id >= rank.loaded.summary->collective_names.size()) ByteReader::Fail();
    }
  }
  try {
    share.collectives =
        CollectiveTally::FromParts(std::move(names), std::move(instances), std::move(counts));
  } catch (const std::invalid_argument&) {
    ByteReader::Fail();
  }
  return share;
}

}  // namespace gpuroof
