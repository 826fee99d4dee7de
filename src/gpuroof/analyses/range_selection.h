// Which NVTX (or annotation) range instances a name given by the user means: `--window nvtx:`,
// `--units-from nvtx:`, `ranges --name`, `--iteration-range` (docs/cli.md, "Naming a range").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// NVTX ranges named `name`, in start order: those whose full name ("Domain:name") matches, or,
// when none does, those whose name after the domain prefix matches, or, when none does, the
// numbered family `name#1`, `name#2`, ... (Kineto's ProfilerStep#N). "NAME#*" asks for the
// numbered family only. Throws InputError naming the trace when `name` matches ranges of more
// than one domain only without their domain ("A:name" and "B:name").
std::vector<const NvtxRange*> FindNvtxRanges(const Trace& trace, std::string_view name);

// "ProfilerStep" for "ProfilerStep#12" (a name ending in '#' and digits); empty otherwise.
std::string_view NumberedFamily(std::string_view name);

// The instances a range text selects.
struct RangeSelection {
  std::string text;                      // as the user wrote it
  std::string name;                      // the range name it resolved to
  std::vector<const NvtxRange*> ranges;  // the selected instances, in start order
  size_t instances_of_name = 0;          // how many instances `name` has
  int instance = 0;                      // 1-based, from NAME@N; 0 = every instance
  bool family = false;                   // a numbered family (NAME#1, NAME#2, ...)

  // For window lines and notes: "'ProfilerStep#7' (1 instance)", "'epoch' instance 2 of 3",
  // "'ProfilerStep#*' (6 instances)".
  std::string Describe() const;
};

// Resolves `text`: a range name first (FindNvtxRanges; "ProfilerStep#7" is a name), then
// NAME@N (instance N, 1-based, in start order) or NAME@* (every instance). Throws InputError
// naming the trace when nothing matches (listing a few names the trace has, and the NAME@N
// spelling when `text` reads as an old NAME#N instance), when both readings match (listing
// both), or when instance N does not exist. `option` names the flag in messages.
RangeSelection SelectRanges(const Trace& trace, std::string_view text, std::string_view option);

// A few range names of the trace for messages: "'a', 'b', ..." (at most 8). The closest to
// `typed` come first: the names it starts (a name printed cut, its "…" dropped), then those that
// hold it, in any case; then the others; each group sorted.
std::string SomeRangeNames(const Trace& trace, std::string_view typed = {});

}  // namespace gpuroof
