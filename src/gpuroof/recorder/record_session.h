// One `gpuroof record` run, apart from the command line: run the command with the recorder
// injected, keep the trace each CUDA process wrote, say what happened. The program runs through a
// ProcessRunner, so tests script the command (and what its recorder wrote) without a GPU.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpuroof/process/process_runner.h"

namespace gpuroof::recorder {

struct RecordSessionRequest {
  std::filesystem::path output;      // the trace to write; its folder exists and is writable
  std::vector<std::string> command;  // argv, at least one word
  std::filesystem::path library;     // the injection library (RequireRecorder)
  bool nvtx = false;                 // also record NVTX ranges and marks
};

struct RecordSessionResult {
  int command_exit_code = 0;  // the command's own exit code
  int traces_kept = 0;        // 0: no process recorded anything, `output` was not written
  int traces_lost = 0;        // processes that started recording but never finished (killed)
  // What to tell the user, one line each: warnings first (per process: dropped records, failed
  // buffer requests, records without timestamps, 0 records, kinds not recorded, no trace written,
  // killed while recording; which process the output is), then the command's exit and wall time,
  // then where each trace went and how many records it has.
  std::vector<std::string> messages;
};

// Runs `request.command` (exec, no shell, our stdio; Ctrl-C goes to the command) under the
// recorder, in a scratch folder beside the output that is removed afterwards. The trace with the
// most records (ties: the command's own process) becomes `output`; other CUDA processes' traces go
// beside it as "<stem>.<pid><ext>", and a message says which process is which. Processes killed
// while recording (no exit handler ran) are reported as lost, their partial files removed. Throws
// InputError naming the command when it cannot be started, or the output when a trace cannot be
// moved into place; Interrupted, the scratch folder removed and `output` untouched, when a
// termination signal stopped the command (inside a TerminationScope).
RecordSessionResult RunRecordSession(const RecordSessionRequest& request, ProcessRunner& runner);

}  // namespace gpuroof::recorder
