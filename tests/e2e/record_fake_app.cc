// A stand-in for a CUDA program run under `gpuroof record`: it does what the injected recorder
// would (write a trace through the record sink and a status file at the path the environment
// names), so the command's handling of traces, failures and exit codes is tested without a GPU.
// Usage: gpuroof_record_fake_app EXIT_CODE MODE, MODE one of
//   trace    a kernel and an H2D copy            dropped  the same, reporting 3 dropped records
//   error    a status saying the recorder failed none     nothing (a program that never used CUDA)
//   killed   starts a trace and leaves through _exit, as a killed process would: no status
// It prints the injection variables it saw, so tests can check the environment.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

#include "gpuroof/recorder/record_sink.h"
#include "gpuroof/recorder/recorder_env.h"

namespace rec = gpuroof::recorder;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: gpuroof_record_fake_app EXIT_CODE trace|dropped|error|none|killed\n");
    return 100;
  }
  const int exit_code = std::atoi(argv[1]);
  const std::string mode = argv[2];
  for (const char* name : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", rec::kNvtxEnv}) {
    const char* value = std::getenv(name);
    std::printf("%s=%s\n", name, value != nullptr ? value : "(unset)");
  }
  if (std::getenv("CUDA_INJECTION64_PATH") == nullptr || std::getenv(rec::kOutputEnv) == nullptr) {
    return 101;
  }
  const rec::RecorderConfig config = rec::ReadRecorderConfig(getpid());
  if (mode == "error") {
    rec::RecorderStatus status;
    status.error = "cannot subscribe to CUPTI: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    rec::WriteRecorderStatus(rec::StatusPath(config.output), status);
  } else if (mode == "killed") {
    std::fflush(stdout);
    // Never destroyed: the exit handler that would finish it does not run.
    auto* sink =
        new rec::RecordSink(config.output, rec::SinkOptions{static_cast<uint32_t>(getpid()), ""});
    rec::KernelRecord kernel;
    kernel.start_ns = 1'700'000'000'000'000'000;
    kernel.end_ns = kernel.start_ns + 1000;
    kernel.mangled_name = "_Z7processv";
    sink->AddKernel(kernel);
    _exit(exit_code);
  } else if (mode == "trace" || mode == "dropped") {
    const int64_t t0 = 1'700'000'000'000'000'000;
    rec::RecordSink sink(config.output, rec::SinkOptions{static_cast<uint32_t>(getpid()), ""});
    rec::MemcpyRecord copy;
    copy.start_ns = t0;
    copy.end_ns = t0 + 3000;
    copy.bytes = 1 << 20;
    copy.copy_kind = 1;
    copy.cupti_src_kind = 2;
    copy.cupti_dst_kind = 3;
    sink.AddMemcpy(copy);
    rec::KernelRecord kernel;
    kernel.start_ns = t0 + 3000;
    kernel.end_ns = t0 + 4000;
    kernel.mangled_name = "_Z7processv";
    sink.AddKernel(kernel);
    rec::SinkStats stats = sink.Finish(mode == "dropped" ? 3 : 0);
    rec::RecorderStatus status;
    status.records = stats.RecordsWritten();
    status.dropped = stats.dropped;
    status.finish_ns = 1000;
    rec::WriteRecorderStatus(rec::StatusPath(config.output), status);
  }
  return exit_code;
}
