#include "sweep_workload.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gpuroof::testing {

namespace {

void WriteExecutable(const std::filesystem::path& path, const std::string& text) {
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

}  // namespace

std::filesystem::path WriteWorkloadScript(const std::filesystem::path& folder) {
  std::filesystem::path script = folder / "workload.sh";
  WriteExecutable(script, R"(#!/bin/sh
set -e
kernel=5000 frames=10 streams=1 note= note_file= fail=0 out=
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel-ns) kernel=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    --sleep) sleep "$2"; shift 2 ;;
    --fail) fail=$2; shift 2 ;;
    --note) note=$2; shift 2 ;;
    --note-file) note_file=$2; shift 2 ;;
    --touch) : > "$out"; shift ;;
    --pid-file) printf '%s' $$ > "$2.tmp"; mv "$2.tmp" "$2"; shift 2 ;;
    -o) out=$2; shift 2 ;;
    *) echo "workload: unknown argument $1" >&2; exit 64 ;;
  esac
done
if [ -n "$note_file" ]; then printf '%s' "$note" > "$note_file"; fi
if [ "$fail" != 0 ]; then echo "workload: CUDA error: out of memory" >&2; exit "$fail"; fi
echo "throughput: $((frames * 1000)) frames/s"
desc=$(mktemp)
cat > "$desc" <<EOF
gpu 0 "Fake GPU"
repeat $frames step=20us {
  memcpy start=0 end=3000 kind=HtoD bytes=1000 stream=1+i%$streams
  kernel start=3000 end=$((3000 + kernel)) stream=1+i%$streams name=work
  memcpy start=$((3000 + kernel)) end=$((5000 + kernel)) kind=DtoH bytes=100 stream=1+i%$streams
}
EOF
"$GPUROOF_TRACE_BUILDER" "$desc" "$out"
rm -f "$desc"
)");
  return script;
}

void WriteFakeNvidiaSmi(const std::filesystem::path& folder, int utilisation_pct) {
  WriteExecutable(folder / "nvidia-smi",
                  "#!/bin/sh\necho 'Fake GPU, 555.42, " + std::to_string(utilisation_pct) + "'\n");
}

void UseFakeGpuTools(const std::filesystem::path& folder) {
  const char* path = std::getenv("PATH");
  std::string value = folder.string() + ":" + (path != nullptr ? path : "/usr/bin:/bin");
  setenv("PATH", value.c_str(), 1);
  setenv("GPUROOF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
}

pid_t StartGpuroof(const std::vector<std::string>& args, const std::filesystem::path& folder,
                   const std::string& name) {
  std::string out = (folder / (name + ".out")).string();
  std::string err = (folder / (name + ".err")).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> argv = {GPUROOF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& arg : argv)
    pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, GPUROOF_BINARY, &actions, &attributes, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) throw std::runtime_error("cannot start gpuroof");
  return pid;
}

int WaitFor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace gpuroof::testing
