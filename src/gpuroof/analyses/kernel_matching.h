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
std::vector<bool> MatchKernelSignatures(const Trace& trace, const std::string& typed);

}  // namespace gpuroof
