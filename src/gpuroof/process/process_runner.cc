#include "gpuroof/process/process_runner.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuroof/model/non_copyable.h"

extern char** environ;

namespace gpuroof {

namespace {

constexpr size_t kStderrKeepBytes = 64 * 1024;

// The child's environment: ours with the request's additions replacing same-named entries.
std::vector<std::string> ChildEnvironment(const ProcessRequest& request) {
  std::map<std::string, std::string> added(request.env.begin(), request.env.end());
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::string name(text.substr(0, text.find('=')));
    if (added.count(name) == 0) out.emplace_back(text);
  }
  for (const auto& [name, value] : added)
    out.push_back(name + "=" + value);
  return out;
}

void ClosePipe(int fds[2]) {
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
}

// Ignores SIGINT and SIGQUIT for its lifetime (the child gets the defaults back).
class InterruptsToChild : NonCopyable {
 public:
  explicit InterruptsToChild(bool active) : active_(active) {
    if (!active_) return;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int_);
    sigaction(SIGQUIT, &ignore, &old_quit_);
  }
  ~InterruptsToChild() {
    if (!active_) return;
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGQUIT, &old_quit_, nullptr);
  }

 private:
  bool active_;
  struct sigaction old_int_ {};
  struct sigaction old_quit_ {};
};

// Termination state, shared with the signal handler (async-signal-safe: plain sig_atomic_t).
volatile sig_atomic_t g_scope_active = 0;
volatile sig_atomic_t g_termination_signal = 0;
volatile sig_atomic_t g_child_group = 0;  // the running child's own process group, 0 when none
volatile sig_atomic_t g_child_pid = 0;    // the running child's pid, 0 when none
// The child shares our process group and we lead it (a shell's job, setsid): a forwarded signal
// goes to the whole group, so that what the child started (a wrapper script's application) stops
// too; we get our own copy, which the handler knows by its sender. Not when someone else leads
// the group (make, a script): the signal would reach them.
volatile sig_atomic_t g_shared_group_we_lead = 0;
volatile sig_atomic_t g_second_signal = 0;  // a further signal came (its number)
volatile sig_atomic_t g_second_kill = 0;    // what its SIGKILL reached (a SignalChild result)
// When the first signal came (CLOCK_MONOTONIC; read and written by the handler only, which the
// three signals cannot interrupt: sa_mask blocks them).
timespec g_first_signal_time{};
// A repeat of the first signal within this time is the same request, not a second signal:
// `timeout` signals gpuroof and then its process group, a terminal hang-up comes from the kernel
// and from the shell.
constexpr double kRepeatSeconds = 0.5;

constexpr int kTerminationSignals[] = {SIGTERM, SIGINT, SIGHUP};
struct sigaction g_old_actions[3];

// Sends `signal_number` to the running child's own process group, and to the child itself when
// it has none, when that failed (the child left the group) or for SIGKILL. 2: the group got it,
// 1: only the child, 0: nothing was signalled.
int SignalChild(int signal_number) {
  const pid_t group = static_cast<pid_t>(g_child_group);
  const pid_t pid = static_cast<pid_t>(g_child_pid);
  const bool to_group = (group > 0 && kill(-group, signal_number) == 0) ||
                        (group == 0 && signal_number != SIGKILL && g_shared_group_we_lead != 0 &&
                         pid > 0 && kill(0, signal_number) == 0);
  const bool to_pid =
      (!to_group || signal_number == SIGKILL) && pid > 0 && kill(pid, signal_number) == 0;
  return to_group ? 2 : to_pid ? 1 : 0;
}

// The first signal is remembered and forwarded; a further one kills the child (SIGKILL): a
// command that ignores the first must not make gpuroof unstoppable.
void OnTerminationSignal(int signal_number, siginfo_t* info, void* /*context*/) {
  const int saved_errno = errno;
  // Our own copy of a signal forwarded to the group we lead: not a further request.
  if (info != nullptr && info->si_code == SI_USER && info->si_pid == getpid()) {
    errno = saved_errno;
    return;
  }
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (g_termination_signal == 0) {
    g_first_signal_time = now;
    g_termination_signal = signal_number;
    SignalChild(signal_number);
  } else if (signal_number != g_termination_signal ||
             static_cast<double>(now.tv_sec - g_first_signal_time.tv_sec) +
                     static_cast<double>(now.tv_nsec - g_first_signal_time.tv_nsec) * 1e-9 >=
                 kRepeatSeconds) {
    const int reached = SignalChild(SIGKILL);
    if (g_second_signal == 0) {
      g_second_kill = reached;
      g_second_signal = signal_number;
    }
  }
  errno = saved_errno;
}

double TerminationGraceSeconds() {
  const char* text = std::getenv(kTerminationGraceEnv);
  if (text == nullptr || *text == '\0') return 10.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  return (*end == '\0' && seconds > 0 && seconds < 1e6) ? seconds : 10.0;
}

std::string SignalText(int signal_number) {
  return "signal " + std::to_string(signal_number) + " (" + strsignal(signal_number) + ")";
}

// While a forwarded signal waits for the child to exit: says so once the wait lasts, and kills
// the child's group when its grace period ends or a further signal came, each said once.
class TerminationWait {
 public:
  TerminationWait(bool active, pid_t pid, bool own_group, std::string program)
      : active_(active),
        pid_(pid),
        own_group_(own_group),
        program_(std::move(program)),
        grace_s_(TerminationGraceSeconds()) {}

  // How long to wait for the child before calling again (ms), -1: as long as it takes.
  int Tick() {
    if (!active_) return -1;
    const int signal_number = static_cast<int>(g_termination_signal);
    // Until a signal comes, the wait blocks: the handler's EINTR ends it (no added latency to
    // the wall time of the child).
    if (signal_number == 0) return -1;
    const auto now = std::chrono::steady_clock::now();
    if (!signalled_) {
      signalled_ = true;
      since_ = now;
    }
    const double waited = std::chrono::duration<double>(now - since_).count();
    if (g_second_signal != 0 && !killed_) {
      killed_ = true;
      const int reached = static_cast<int>(g_second_kill);
      if (reached == 0) {
        std::fprintf(stderr, "gpuroof: a second signal (%s) came: could not kill %s (pid %d)\n",
                     SignalText(static_cast<int>(g_second_signal)).c_str(), program_.c_str(),
                     static_cast<int>(pid_));
      } else {
        std::fprintf(stderr, "gpuroof: a second signal came (%s): killed %s (pid %d)%s\n",
                     SignalText(static_cast<int>(g_second_signal)).c_str(), program_.c_str(),
                     static_cast<int>(pid_), reached == 2 ? " and its process group" : "");
      }
    }
    if (!killed_ && waited >= grace_s_) {
      killed_ = true;
      // The pid is ours until it is reaped: it is killed too when it left its group.
      const bool group = own_group_ && kill(-pid_, SIGKILL) == 0;
      const bool alone = kill(pid_, SIGKILL) == 0;
      if (group || alone) {
        std::fprintf(stderr, "gpuroof: %s (pid %d) did not exit %g s after %s: killed it%s\n",
                     program_.c_str(), static_cast<int>(pid_), grace_s_,
                     SignalText(signal_number).c_str(), group ? " and its process group" : "");
      } else {
        std::fprintf(stderr,
                     "gpuroof: %s (pid %d) did not exit %g s after %s: could not kill it: %s\n",
                     program_.c_str(), static_cast<int>(pid_), grace_s_,
                     SignalText(signal_number).c_str(), std::strerror(errno));
      }
    }
    if (!announced_ && !killed_ && waited >= std::min(1.0, grace_s_ / 2)) {
      announced_ = true;
      std::fprintf(stderr,
                   "gpuroof: %s: waiting for %s (pid %d) to exit; a second signal, or %g s, "
                   "kills it\n",
                   SignalText(signal_number).c_str(), program_.c_str(), static_cast<int>(pid_),
                   grace_s_);
    }
    return 50;
  }

 private:
  bool active_;
  pid_t pid_;
  bool own_group_;
  std::string program_;
  double grace_s_;
  bool signalled_ = false;
  bool announced_ = false;
  bool killed_ = false;
  std::chrono::steady_clock::time_point since_;
};

// `milliseconds` (-1: none) as ppoll's timeout.
const timespec* PollTimeout(int milliseconds, timespec& storage) {
  if (milliseconds < 0) return nullptr;
  storage.tv_sec = milliseconds / 1000;
  storage.tv_nsec = static_cast<long>(milliseconds % 1000) * 1000000L;
  return &storage;
}

// No scope, no child, no signal: the state a scope starts from and leaves behind.
void ResetTerminationState() {
  g_scope_active = 0;
  g_termination_signal = 0;
  g_second_signal = 0;
  g_second_kill = 0;
  g_child_group = 0;
  g_child_pid = 0;
  g_shared_group_we_lead = 0;
}

}  // namespace

TerminationScope::TerminationScope() {
  ResetTerminationState();
  g_scope_active = 1;
  struct sigaction action {};
  action.sa_sigaction = OnTerminationSignal;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (int signal_number : kTerminationSignals)
    sigaddset(&action.sa_mask, signal_number);
  for (size_t i = 0; i < std::size(kTerminationSignals); ++i)
    sigaction(kTerminationSignals[i], &action, &g_old_actions[i]);
}

TerminationScope::~TerminationScope() {
  for (size_t i = 0; i < std::size(kTerminationSignals); ++i)
    sigaction(kTerminationSignals[i], &g_old_actions[i], nullptr);
  ResetTerminationState();
}

int TerminationSignal() {
  return static_cast<int>(g_termination_signal);
}

Interrupted::Interrupted(int signal_number)
    : std::runtime_error(std::string("interrupted by signal ") + std::to_string(signal_number) +
                         " (" + strsignal(signal_number) + ")"),
      signal_number_(signal_number) {}

void ThrowIfTerminated() {
  if (int signal_number = TerminationSignal(); signal_number != 0) throw Interrupted(signal_number);
}

ProcessResult PosixProcessRunner::Run(const ProcessRequest& request) {
  ProcessResult result;
  auto started = std::chrono::steady_clock::now();
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  const bool capture_out = request.stdout_to == ChildOutput::kCapture;
  const bool capture_err = request.stderr_to == ChildOutput::kCapture;
  if (request.argv.empty() || (capture_out && pipe2(out_pipe, O_CLOEXEC) != 0) ||
      (capture_err && pipe2(err_pipe, O_CLOEXEC) != 0)) {
    ClosePipe(out_pipe);
    ClosePipe(err_pipe);
    result.exit_code = 127;
    result.err =
        "cannot start: " + std::string(request.argv.empty() ? "no program" : std::strerror(errno));
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!request.inherit_stdin) {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  if (capture_out) posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  if (request.stdout_to == ChildOutput::kToStderr) {
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  }
  if (capture_err) posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  if (!request.workdir.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, request.workdir.c_str());
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Inside a TerminationScope the child leads a process group of its own, so a forwarded
  // signal reaches everything it started (nsys and the application under it); one that takes
  // the interrupts stays in ours, so that Ctrl-C and any signal to our group (a terminal's, a
  // `kill -9 %1`, `timeout`'s) reach it whatever stdin is; a forwarded signal then reaches the
  // child itself only.
  const bool forward = g_scope_active != 0;
  const bool own_group = forward && !request.child_takes_interrupts;
  if (forward && g_termination_signal != 0) {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ClosePipe(out_pipe);
    ClosePipe(err_pipe);
    result.exit_code = 128 + static_cast<int>(g_termination_signal);
    result.err = "not started: gpuroof is stopping";
    return result;
  }
  // The termination signals wait (blocked) from before the spawn until the child's group is
  // known, so the handler forwards each exactly once; the child starts with the mask we had.
  sigset_t termination;
  sigset_t mask_before;
  sigemptyset(&termination);
  sigemptyset(&mask_before);
  for (int signal_number : kTerminationSignals)
    sigaddset(&termination, signal_number);
  int signal_before_block = 0;
  if (forward) {
    pthread_sigmask(SIG_BLOCK, &termination, &mask_before);
    signal_before_block = static_cast<int>(g_termination_signal);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &mask_before);
  }
  short flags = 0;
  if (forward) flags |= POSIX_SPAWN_SETSIGMASK;
  if (own_group) flags |= POSIX_SPAWN_SETPGROUP;
  if (request.child_takes_interrupts) {
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGQUIT);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    flags |= POSIX_SPAWN_SETSIGDEF;
  }
  posix_spawnattr_setflags(&attributes, flags);
  std::vector<std::string> env = ChildEnvironment(request);
  std::vector<char*> envp;
  for (std::string& entry : env)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& arg : request.argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  InterruptsToChild interrupts(request.child_takes_interrupts);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  // While the child runs the termination signals stay blocked but inside ppoll, which unblocks
  // them atomically: one cannot land between the check for a signal and the wait (with no
  // timeout) for the child. The child's exit is polled through a pidfd; without one (kernels
  // before 5.3) the signals are unblocked and the waits are as before.
  int pidfd = -1;
  if (forward) {
    if (rc == 0) {
      g_child_pid = static_cast<sig_atomic_t>(pid);
      if (own_group) g_child_group = static_cast<sig_atomic_t>(pid);
      g_shared_group_we_lead = !own_group && getpgrp() == getpid();
      // One handled before the block found no child to forward to; those during it are pending
      // and reach the handler, which now knows the child, when the mask is restored.
      if (signal_before_block != 0) kill(own_group ? -pid : pid, signal_before_block);
      pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    }
    if (pidfd < 0) pthread_sigmask(SIG_SETMASK, &mask_before, nullptr);
  }
  if (out_pipe[1] >= 0) close(out_pipe[1]);
  if (err_pipe[1] >= 0) close(err_pipe[1]);
  if (rc != 0) {
    if (out_pipe[0] >= 0) close(out_pipe[0]);
    if (err_pipe[0] >= 0) close(err_pipe[0]);
    result.exit_code = 127;
    result.err = "cannot start " + request.argv[0] + ": " + std::strerror(rc);
    return result;
  }
  TerminationWait wait(forward, pid, own_group, request.argv[0]);
  // Drain both pipes together: a child that fills one while we block on the other would hang.
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = (capture_out ? 1 : 0) + (capture_err ? 1 : 0);
  char buffer[65536];
  timespec timeout_storage{};
  while (open_fds > 0) {
    const int tick_ms = wait.Tick();
    if ((pidfd >= 0 ? ppoll(fds, 2, PollTimeout(tick_ms, timeout_storage), &mask_before)
                    : poll(fds, 2, tick_ms)) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      std::string& sink = i == 0 ? result.out : result.err;
      sink.append(buffer, static_cast<size_t>(n));
      if (i == 1 && sink.size() > 2 * kStderrKeepBytes)
        sink.erase(0, sink.size() - kStderrKeepBytes);
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  if (result.err.size() > kStderrKeepBytes)
    result.err.erase(0, result.err.size() - kStderrKeepBytes);
  int status = 0;
  for (;;) {
    const int timeout_ms = wait.Tick();
    const pid_t waited = waitpid(pid, &status, timeout_ms < 0 && pidfd < 0 ? 0 : WNOHANG);
    if (waited == pid) break;
    if (waited < 0 && errno != EINTR) {
      status = 127 << 8;
      break;
    }
    if (waited != 0) continue;
    if (pidfd >= 0) {
      pollfd exited = {pidfd, POLLIN, 0};
      ppoll(&exited, 1, PollTimeout(timeout_ms, timeout_storage), &mask_before);
    } else {
      poll(nullptr, 0, timeout_ms);
    }
  }
  if (forward) {
    // After a forwarded signal, what is left of the child's group once it exited (a background
    // job that ignored the signal) is killed: the group id stays valid while members remain.
    if (own_group && g_termination_signal != 0) kill(-pid, SIGKILL);
    g_child_group = 0;
    g_child_pid = 0;
    g_shared_group_we_lead = 0;
    if (pidfd >= 0) {
      close(pidfd);
      pthread_sigmask(SIG_SETMASK, &mask_before, nullptr);
    }
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.pid = static_cast<int>(pid);
  result.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
  return result;
}

std::string ProcessTag() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  uint32_t hash = 2166136261u;
  for (const char* c = host; *c != 0; ++c)
    hash = (hash ^ static_cast<unsigned char>(*c)) * 16777619u;
  char tag[32];
  std::snprintf(tag, sizeof tag, "%d-%08x", static_cast<int>(getpid()),
                static_cast<unsigned>(hash));
  return tag;
}

int DeadProcessOfTag(std::string_view tag) {
  const size_t dash = tag.find('-');
  if (dash != std::string_view::npos) {
    const std::string own = ProcessTag();
    if (tag.substr(dash) != std::string_view(own).substr(own.find('-'))) return 0;
    tag = tag.substr(0, dash);
  }
  if (tag.empty() || tag.size() > 9) return 0;
  pid_t pid = 0;
  for (char c : tag) {
    if (c < '0' || c > '9') return 0;
    pid = pid * 10 + (c - '0');
  }
  if (pid <= 0 || pid == getpid()) return 0;
  const bool alive = kill(pid, 0) == 0 || errno == EPERM;
  return alive ? 0 : static_cast<int>(pid);
}

std::string LastLines(const std::string& text, int count) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  std::string out;
  size_t first = lines.size() > static_cast<size_t>(count) ? lines.size() - count : 0;
  for (size_t i = first; i < lines.size(); ++i)
    out += (out.empty() ? "" : " | ") + lines[i];
  return out;
}

}  // namespace gpuroof
