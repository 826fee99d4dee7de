// A small frame pipeline for gpuroof: pinned host frames; per frame an H2D copy, a kernel and a
// D2H copy, frames assigned round-robin to --streams streams. Its sizes and kernel time make any
// engine the bottleneck (--frame-bytes: H2D, --kernel-us: kernel, --result-bytes: D2H). It
// prints its own throughput so a recorded run can be checked against it:
//   gpuroof record -o run.sqlite -- ./gpuroof_pipeline --frames 2000 --streams 3
//   gpuroof analyze run.sqlite --units 2000
// Its GPU work, for checking a trace's record counts: one untimed frame per stream, then
// --frames frames, each one kernel and two copies (H2D, D2H): (frames + streams) kernels and
// 2 x (frames + streams) copies, no memsets. With --nvtx 1 each frame's launches sit inside an
// NVTX push/pop range named "frame" (NVTX3, header-only): (frames + streams) ranges.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

namespace {

struct Options {
  long frames = 1000;
  long streams = 2;
  long frame_bytes = 8L << 20;
  long result_bytes = 1L << 20;
  long kernel_us = 200;
  bool nvtx = false;
};

void Check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    std::fprintf(stderr, "pipeline: %s: %s\n", what, cudaGetErrorString(rc));
    std::exit(1);
  }
}

[[noreturn]] void Usage(const char* problem) {
  std::fprintf(stderr,
               "pipeline: %s\nusage: pipeline [--frames N] [--streams N] [--frame-bytes N] "
               "[--result-bytes N] [--kernel-us N] [--nvtx 0|1]\n",
               problem);
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Usage(("missing value after " + flag).c_str());
    char* end = nullptr;
    long value = std::strtol(argv[++i], &end, 10);
    if (*end != '\0' || value < 0) Usage(("bad value for " + flag).c_str());
    if (flag == "--frames")
      o.frames = value;
    else if (flag == "--streams")
      o.streams = value;
    else if (flag == "--frame-bytes")
      o.frame_bytes = value;
    else if (flag == "--result-bytes")
      o.result_bytes = value;
    else if (flag == "--kernel-us")
      o.kernel_us = value;
    else if (flag == "--nvtx" && value <= 1)
      o.nvtx = value == 1;
    else
      Usage(("unknown option " + flag).c_str());
  }
  if (o.frames < 1 || o.streams < 1 || o.frame_bytes < 1 || o.result_bytes < 1) {
    Usage("--frames, --streams, --frame-bytes and --result-bytes must be at least 1");
  }
  return o;
}

__device__ unsigned long long GlobalTimerNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Reads the frame, writes the result, and spins until `kernel_ns` have passed, so its duration
// is set by the command line rather than by the data size.
__global__ void ProcessFrame(const unsigned char* frame, size_t frame_bytes, unsigned char* result,
                             size_t result_bytes, unsigned long long kernel_ns) {
  const unsigned long long start = GlobalTimerNs();
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t index = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned char sample = frame[index % frame_bytes];
  for (size_t i = index; i < result_bytes; i += stride)
    result[i] = sample ^ static_cast<unsigned char>(i);
  while (GlobalTimerNs() - start < kernel_ns) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  const size_t s_count = static_cast<size_t>(o.streams);
  std::vector<cudaStream_t> streams(s_count);
  std::vector<unsigned char*> host_in(s_count), host_out(s_count), dev_in(s_count),
      dev_out(s_count);
  for (size_t s = 0; s < s_count; ++s) {
    Check(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking), "cudaStreamCreate");
    Check(cudaMallocHost(&host_in[s], o.frame_bytes), "cudaMallocHost");
    Check(cudaMallocHost(&host_out[s], o.result_bytes), "cudaMallocHost");
    Check(cudaMalloc(&dev_in[s], o.frame_bytes), "cudaMalloc");
    Check(cudaMalloc(&dev_out[s], o.result_bytes), "cudaMalloc");
    std::memset(host_in[s], static_cast<int>(s + 1), o.frame_bytes);
  }
  const unsigned long long kernel_ns = static_cast<unsigned long long>(o.kernel_us) * 1000;
  auto frame = [&](long f) {
    const size_t s = static_cast<size_t>(f) % s_count;
    if (o.nvtx) nvtxRangePushA("frame");
    Check(cudaMemcpyAsync(dev_in[s], host_in[s], o.frame_bytes, cudaMemcpyHostToDevice, streams[s]),
          "H2D copy");
    ProcessFrame<<<1, 256, 0, streams[s]>>>(dev_in[s], o.frame_bytes, dev_out[s], o.result_bytes,
                                            kernel_ns);
    Check(cudaGetLastError(), "kernel launch");
    Check(cudaMemcpyAsync(host_out[s], dev_out[s], o.result_bytes, cudaMemcpyDeviceToHost,
                          streams[s]),
          "D2H copy");
    if (o.nvtx) nvtxRangePop();
  };
  // One untimed frame per stream: first-use costs (module load, page mapping) stay out.
  for (size_t s = 0; s < s_count; ++s)
    frame(static_cast<long>(s));
  Check(cudaDeviceSynchronize(), "warm-up");

  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "cudaEventCreate");
  Check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<cudaEvent_t> done(s_count);
  for (cudaEvent_t& e : done)
    Check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event");
  const auto wall_start = std::chrono::steady_clock::now();
  // Every stream starts after `start` and `stop` waits for every stream, so the event interval
  // covers all frames.
  Check(cudaEventRecord(start, streams[0]), "cudaEventRecord");
  for (size_t s = 1; s < s_count; ++s)
    Check(cudaStreamWaitEvent(streams[s], start, 0), "wait");
  for (long f = 0; f < o.frames; ++f)
    frame(f);
  for (size_t s = 1; s < s_count; ++s) {
    Check(cudaEventRecord(done[s], streams[s]), "cudaEventRecord");
    Check(cudaStreamWaitEvent(streams[0], done[s], 0), "wait");
  }
  Check(cudaEventRecord(stop, streams[0]), "cudaEventRecord");
  Check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  float gpu_ms = 0;
  Check(cudaEventElapsedTime(&gpu_ms, start, stop), "cudaEventElapsedTime");
  const double gpu_s = gpu_ms * 1e-3;
  std::printf(
      "pipeline: frames %ld, streams %ld, frame-bytes %ld, result-bytes %ld, kernel-us %ld, "
      "nvtx %d\n",
      o.frames, o.streams, o.frame_bytes, o.result_bytes, o.kernel_us, o.nvtx ? 1 : 0);
  std::printf("pipeline: events %.6f s -> %.1f frames/s; wall %.6f s -> %.1f frames/s\n", gpu_s,
              o.frames / gpu_s, wall_s, o.frames / wall_s);
  for (size_t s = 0; s < s_count; ++s) {
    cudaFreeHost(host_in[s]);
    cudaFreeHost(host_out[s]);
    cudaFree(dev_in[s]);
    cudaFree(dev_out[s]);
    cudaStreamDestroy(streams[s]);
  }
  return 0;
}
