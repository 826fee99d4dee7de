// What every fuzz target shares: the analyses run on a trace that was read, and a scratch file
// for the readers that take a path. Bad input may throw InputError (the clean, expected end);
// anything else escaping a target is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "gpuroof/model/errors.h"
#include "gpuroof/model/trace.h"

namespace gpuroof::fuzz {

// The commands' analyses on `trace`: analyze (engine load), kernels, copies, gaps, ranges, and
// compare's profile summary. InputError (an empty trace, no ranges) is caught: it is a clean
// refusal, not a finding.
void RunAnalyses(const Trace& trace);

// `bytes` written to a file of this process (reused between inputs), named with `suffix`.
std::filesystem::path WriteScratchFile(std::string_view bytes, std::string_view suffix);

// `ranks`' use of a trace read as it reads them (ReadScope::launch_ends_only): summarised as a
// rank.
void SummariseAsRank(const Trace& trace);

// Runs `read` and then `use` on its trace; InputError from `read` ends the input cleanly.
template <typename Read, typename Use>
void ReadAnd(Read&& read, Use&& use) {
  Trace trace;
  try {
    trace = read();
  } catch (const InputError&) {
    return;
  }
  use(trace);
}

template <typename Read>
void ReadAndAnalyse(Read&& read) {
  ReadAnd(read, RunAnalyses);
}

}  // namespace gpuroof::fuzz
