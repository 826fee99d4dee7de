#include "gpuroof/model/engine.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>

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

// Collective operations named inside a kernel's name by libraries that do not go through NCCL:
// PyTorch's symmetric memory (multimem_all_reduce_kernel, one_shot_all_reduce_kernel), vLLM's
// custom all-reduce (cross_device_reduce_1stage), TensorRT-LLM's fused all-reduce kernels.
constexpr std::string_view kCollectiveOperations[] = {
    "all_reduce",    "allreduce",  "all_gather", "allgather",          "reduce_scatter",
    "reducescatter", "all_to_all", "alltoall",   "cross_device_reduce"};

// A reduction across a warp, a block (CTA), a work group, threads or lanes happens inside one
// kernel: it is not communication.
bool NamesALocalReduction(std::string_view lower, size_t at) {
  std::string_view before = lower.substr(0, at);
  if (before.ends_with('_')) before.remove_suffix(1);
  for (std::string_view scope : {"warp", "block", "cta", "wg", "thread", "lane"}) {
    if (before.ends_with(scope)) return true;
  }
  return false;
}

// An operation word starts the name, follows '_' or a digit, or starts at a lower-to-upper case
// change ("multimemAllReduce"): "small_reduce" holds "all_reduce" but names no all-reduce.
bool StartsAWord(std::string_view own, size_t at) {
  if (at == 0) return true;
  const auto before = static_cast<unsigned char>(own[at - 1]);
  const auto first = static_cast<unsigned char>(own[at]);
  return before == '_' || std::isdigit(before) || (std::islower(before) && std::isupper(first));
}

bool NamesACollectiveOperation(std::string_view name) {
  // The function's own name: its namespaces, template and call arguments say nothing.
  std::string own(name);
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  for (size_t at = own.find(kAnonymous); at != std::string::npos; at = own.find(kAnonymous))
    own.erase(at, kAnonymous.size());
  own.resize(std::min(own.size(), own.find_first_of("(<")));
  if (const size_t scope = own.rfind("::"); scope != std::string::npos) own.erase(0, scope + 2);
  std::string lower = own;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view operation : kCollectiveOperations) {
    for (size_t at = lower.find(operation); at != std::string::npos;
         at = lower.find(operation, at + 1)) {
      if (StartsAWord(own, at) && !NamesALocalReduction(lower, at)) return true;
    }
  }
  return false;
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
  // NVSHMEM's own kernels (nvshmemi_*, nvshmemx_*) as well. DeepEP's all-to-all kernels are
  // named dispatch/combine inside its namespaces, which an nsys short name drops: no rule here
  // would class them alike in every command (docs/metrics.md says so).
  constexpr std::string_view kCollectivePrefixes[] = {"nccl", "rccl", "msccl", "nvshmem"};
  return std::any_of(
             std::begin(kCollectivePrefixes), std::end(kCollectivePrefixes),
             [&](std::string_view prefix) { return StartsWithIgnoringCase(name, prefix); }) ||
         NamesACollectiveOperation(name);
}

bool EngineMovesBytes(Engine engine) {
  return !IsKernelEngine(engine) && engine != Engine::kGraph;
}

}  // namespace gpuroof
