#include "gpuroof/model/engine.h"

#include <algorithm>
#include <cctype>

namespace gpuroof {

namespace {
constexpr std::array<std::string_view, kEngineCount> kEngineNames = {
    "kernel", "comm",   "H2D",     "D2H",     "D2D",     "P2P",
    "H2H",    "memset", "UVM_H2D", "UVM_D2H", "UVM_D2D", "graph"};

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

std::string_view EngineName(Engine engine) {
  return kEngineNames[EngineIndex(engine)];
}

std::optional<Engine> EngineFromName(std::string_view name) {
  for (Engine engine : kAllEngines) {
    if (EqualsIgnoringCase(EngineName(engine), name)) return engine;
  }
  return std::nullopt;
}

bool IsCollectiveKernelName(std::string_view name) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  return StartsWithIgnoringCase(name, "nccl") || StartsWithIgnoringCase(name, "rccl") ||
         StartsWithIgnoringCase(name, "msccl");
}

bool EngineMovesBytes(Engine engine) {
  return !IsKernelEngine(engine) && engine != Engine::kGraph;
}

}  // namespace gpuroof
