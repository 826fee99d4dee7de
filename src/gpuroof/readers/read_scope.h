#pragma once

namespace gpuroof {

// How much of each op to read. Engine-load analyses (analyze) need only when, where and what
// engine; reading nothing else keeps the scan at the cost of the SQLite floor.
enum class ReadDetail {
  kFull,        // everything: process, context, correlation, kernel shape, memory kinds
  kEngineLoad,  // start, end, device, stream, engine, bytes, kernel short name; no correlation
                // column, and signatures hold only the engine and the kernel name
  kBreakdown,   // what `report`'s tables need: kEngineLoad plus memory kinds and peer devices
                // (copy classes), and, only when the file has NVTX ranges to attribute work to,
                // process, context, correlation and the API calls (always with all_api_calls); no
                // kernel shapes or demangled names (Kineto traces are read as with kFull)
};

// What every reader is asked to keep, whatever the format: the registry's ReadOptions hand it on
// to the reader the file's content picks.
struct ReadScope {
  ReadDetail detail = ReadDetail::kFull;
  // With kFull: also read the CUDA API calls that launched GPU work (NVTX range attribution).
  // Commands that never attribute work to ranges turn it off: a real trace has as many calls as
  // ops.
  bool api_calls = true;
  // With api_calls: every CUDA runtime/driver call the trace records, not only the launches (the
  // API-side commands and findings need synchronising calls, allocations, ...). Memory: one
  // ApiCall (40 bytes) per call.
  bool all_api_calls = false;
  // With api_calls (and not all_api_calls): of each launch call only its end, process and
  // correlation id, in Trace::launch_ends instead of Trace::api_calls (`ranks`' idle breakdown).
  // Memory: 24 bytes a call, 16 while a Kineto trace is parsed.
  bool launch_ends_only = false;
};

}  // namespace gpuroof
