#pragma once

#include <string>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// Which op signatures a kernel name the user typed (--units-from kernel:NAME, the steady-state
// series) means, by the first rule that matches (docs/cli.md, "Kernel names"):
//   1. the kernel's name or demangled name, exactly;
//   2. its base name (ShortKernelName: the name text tables shorten to);
//   3. a substring of the names of exactly one kernel base name.
// Only kernel and comm engine signatures take part. Throws InputError naming the trace when no
// rule matches (with the 5 closest base names) or when a substring fits several kernels (with
// some of them).
enum class KernelMatchRule { kExact, kBaseName, kSubstring };

struct KernelMatch {
  std::vector<bool> signatures;  // per Trace::signatures: the kernel's
  KernelMatchRule rule = KernelMatchRule::kExact;
  std::string base_name;  // the kernel matched, by its base name (ShortKernelName)
  // What the output must say when the name was not taken exactly (rules 2 and 3): which kernel
  // the typed name was taken to mean and by which rule; "" for an exact match.
  std::string Disclosure(const std::string& typed) const;
};

KernelMatch MatchKernelSignatures(const Trace& trace, const std::string& typed);

}  // namespace gpuroof
