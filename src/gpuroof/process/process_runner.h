#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuroof/model/non_copyable.h"

namespace gpuroof {

// The one way gpuroof runs another program (the sweep's workloads and profilers, `nsys export`
// for .nsys-rep inputs, `gpuroof record`'s command): exec, never a shell.

// Where a child's output goes.
enum class ChildOutput {
  kCapture,   // into ProcessResult (stderr: its last 64 KiB)
  kInherit,   // our own stream
  kToStderr,  // our stderr (a child's progress text kept off our data on stdout)
};

// One program to run: argv[0] is looked up on PATH.
struct ProcessRequest {
  std::vector<std::string> argv;
  std::filesystem::path workdir;                         // empty: the current directory
  std::vector<std::pair<std::string, std::string>> env;  // set on top of our environment
  ChildOutput stdout_to = ChildOutput::kCapture;
  ChildOutput stderr_to = ChildOutput::kCapture;
  bool inherit_stdin = false;  // false: /dev/null
  // Ctrl-C and Ctrl-\ go to the child only: we ignore them while it runs and still clean up
  // after it, as system() does (an interactive command run by `gpuroof record`).
  bool child_takes_interrupts = false;
};

struct ProcessResult {
  int exit_code = 0;  // 127: could not start; 128 + N: killed by signal N
  std::string out;    // stdout
  std::string err;    // the last 64 KiB of stderr
  int64_t wall_ns = 0;
  int pid = 0;  // the process started, 0 when none was: tells its files from its children's
};

// Runs programs. An interface so tests run sweeps and exports with scripted results.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult Run(const ProcessRequest& request) = 0;
};

// posix_spawnp; captured outputs are drained through pipes together.
class PosixProcessRunner : public ProcessRunner {
 public:
  ProcessResult Run(const ProcessRequest& request) override;
};

// While a TerminationScope lives, SIGTERM, SIGINT and SIGHUP do not kill gpuroof: the signal is
// remembered, and forwarded to the process group of the child PosixProcessRunner is running
// (each child gets a group of its own, so the signal reaches a profiler's application too; a
// `child_takes_interrupts` child stays in ours, so Ctrl-C and signals to our group reach it
// whatever stdin is, and only the child itself gets a forwarded signal). The child's exit is
// waited for: after a second signal (not the same one again within 0.5 s), or
// kTerminationGraceEnv seconds (default 10) after the first, its process group and the child are
// killed (SIGKILL), each said in one line on stderr, as is the wait itself when it lasts; once the
// child exited, what is left of its own group is killed. The caller then sees TerminationSignal()
// != 0 (the first signal), removes its partial files and throws Interrupted, which the command
// turns into exit status 128 + N. One scope at a time (the CLI's command).
class TerminationScope : NonCopyable {
 public:
  TerminationScope();
  ~TerminationScope();
};

// The seconds a child may take to exit after a forwarded termination signal before it is killed
// (a number > 0; tests shorten it). Unset or not such a number: 10.
inline constexpr char kTerminationGraceEnv[] = "GPUROOF_TERMINATION_GRACE_S";

// The first termination signal received inside the current scope, 0 when none (and outside a
// scope).
int TerminationSignal();

// Thrown by a campaign once it stopped for a termination signal: the running configuration was
// dropped, its partial files removed, finished rows kept.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal_number);
  int signal_number() const { return signal_number_; }

 private:
  int signal_number_;
};

// Throws Interrupted when a termination signal arrived.
void ThrowIfTerminated();

// "<pid>-<host>" (host: 8 hex digits of a hash of the host name): what names this process's
// temporary files and folders (a sweep's partial traces, a record's scratch folder) in folders
// that machines may share.
std::string ProcessTag();

// The pid named by `tag`, a ProcessTag() or an earlier version's bare "<pid>", when that process
// is gone; 0 when it still runs (or is another user's), is this process, the tag is another
// machine's (its pids say nothing here) or is no tag. What decides that a left-over temporary
// file may be removed.
int DeadProcessOfTag(std::string_view tag);

// The last `count` non-empty lines of `text`, joined by " | " (for one-line CSV cells).
std::string LastLines(const std::string& text, int count);

}  // namespace gpuroof
