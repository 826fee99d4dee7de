// gpuroof-kineto-simdjson-baseline TRACE.json
//
// simdjson's own speed on a Kineto trace, the yardstick of the reader's figure in
// docs/performance.md: the file is loaded whole into memory (not timed), then On Demand walks
// every event of traceEvents and every key of each event, touching no value. Prints MB/s.
#include <chrono>
#include <cstdio>

#include <simdjson.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s TRACE.json\n", argv[0]);
    return 2;
  }
  simdjson::padded_string json;
  if (simdjson::padded_string::load(argv[1]).get(json) != simdjson::SUCCESS) {
    std::fprintf(stderr, "cannot load %s\n", argv[1]);
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  simdjson::ondemand::parser parser(json.size() + 1);
  simdjson::ondemand::document doc;
  uint64_t events = 0;
  uint64_t keys = 0;
  simdjson::ondemand::array array;
  if (parser.iterate(json).get(doc) != simdjson::SUCCESS ||
      doc["traceEvents"].get_array().get(array) != simdjson::SUCCESS) {
    std::fprintf(stderr, "not a Kineto trace\n");
    return 2;
  }
  for (auto element : array) {
    simdjson::ondemand::object object;
    if (element.get_object().get(object) != simdjson::SUCCESS) return 2;
    ++events;
    for (auto field : object) {
      keys += field.key().value().raw() != nullptr;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%llu events, %llu keys, %.3f s, %.0f MB/s\n",
              static_cast<unsigned long long>(events), static_cast<unsigned long long>(keys),
              seconds, static_cast<double>(json.size()) / 1e6 / seconds);
  return 0;
}
