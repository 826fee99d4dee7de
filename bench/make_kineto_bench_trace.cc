// gpuroof-make-kineto-bench-trace SIZE_MB OUTPUT.json
//
// Writes a synthetic PyTorch-profiler (Kineto) trace of at least SIZE_MB megabytes (10^6 bytes)
// of JSON, for the Kineto reader benchmark (docs/performance.md). It imitates the mix of the
// shared rank trace (hta_rank0_a100): per GPU op about a dozen CPU-side events (python
// functions, an aten operator with shapes, the launch call, flow arrows, event queries) and
// about 3 KB of JSON. Format of PyTorch >= 2.4: baseTimeNanoseconds before traceEvents, ts and
// dur as µs with 3 decimals. Fixed-seed jitter: the same SIZE_MB gives the same bytes.
//
// Each step: a ProfilerStep#N annotation; 64 kernels on stream 7, alternating with a D2D copy
// every 8 kernels and an H2D upload at the start of the step, each launched by a runtime call
// with its correlation id.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace {

constexpr int kPid = 4515;
constexpr int kTid = 4515;
constexpr int kOpsPerStep = 64;

class Writer {
 public:
  explicit Writer(std::FILE* out) : out_(out) {}
  void Event(const std::string& text) {
    std::fputs(first_ ? "\n  " : ",\n  ", out_);
    first_ = false;
    std::fputs(text.c_str(), out_);
    bytes_ += text.size() + 4;
  }
  uint64_t bytes() const { return bytes_; }

 private:
  std::FILE* out_;
  bool first_ = true;
  uint64_t bytes_ = 0;
};

// ns -> "µs.nnn"
std::string Us(int64_t ns) {
  return fmt::format("{}.{:03d}", ns / 1000, static_cast<int>(ns % 1000));
}

const char* const kKernelNames[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)",
    "ampere_sgemm_128x64_tn",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_"
    "tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
    "float, float const*, float const*, float const*, float*, float*, float*)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SIZE_MB OUTPUT.json\n", argv[0]);
    return 2;
  }
  uint64_t megabytes = 0;
  std::string_view size_text(argv[1]);
  if (std::from_chars(size_text.data(), size_text.data() + size_text.size(), megabytes).ec !=
          std::errc() ||
      megabytes == 0) {
    std::fprintf(stderr, "SIZE_MB must be a positive integer\n");
    return 2;
  }
  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr) {
    std::perror(argv[2]);
    return 2;
  }
  std::setvbuf(out, nullptr, _IOFBF, 1 << 20);
  std::fputs(
      "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA "
      "A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712, \"computeMajor\": 8, "
      "\"computeMinor\": 0, \"numSms\": 108}],\n  \"displayTimeUnit\": \"ms\",\n  "
      "\"baseTimeNanoseconds\": 1767189312000000000,\n  \"traceEvents\": [",
      out);
  Writer w(out);
  std::mt19937_64 random(42);
  auto jitter = [&](int64_t ns) { return ns + static_cast<int64_t>(random() % (ns / 10 + 1)); };
  int64_t cpu_ns = 1'000'000;
  int64_t gpu_ns = 1'500'000;
  uint64_t correlation = 1;
  uint64_t external = 1;
  uint64_t gpu_ops = 0;
  for (int step = 1; w.bytes() < megabytes * 1'000'000; ++step) {
    int64_t step_start = cpu_ns;
    std::string step_name = fmt::format("ProfilerStep#{}", step);
    for (int op = 0; op < kOpsPerStep; ++op) {
      bool upload = op == 0;
      bool copy = upload || op % 8 == 4;
      uint64_t c = correlation++;
      uint64_t e = external++;
      int64_t py = jitter(30'000);
      w.Event(fmt::format(
          R"j({{"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1501): _call_impl", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"Python parent id": {}, "Python id": {}, "Ev Idx": {}}}}})j",
          kPid, kTid, Us(cpu_ns), Us(py), e, e + 1, e + 2));
      std::string op_name = copy ? "aten::copy_" : "aten::addmm";
      w.Event(fmt::format(
          R"j({{"ph": "X", "cat": "cpu_op", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "Ev Idx": {}, "Input Dims": [[512, 1024], [1024, 4096], [], []], "Input type": ["float", "float", "Scalar", "Scalar"], "Concrete Inputs": ["", "", "1", "1"], "Sequence number": {}, "Fwd thread id": 0}}}})j",
          op_name, kPid, kTid, Us(cpu_ns + 1'000), Us(py - 2'000), e, e + 3, e));
      w.Event(fmt::format(
          R"j({{"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "pid": {}, "tid": {}, "ts": {}, "dur": 1.250, "args": {{"cbid": 18, "correlation": {}}}}})j",
          kPid, kTid, Us(cpu_ns + 2'000), correlation++));
      int64_t launch = cpu_ns + 5'000;
      std::string call = copy ? "cudaMemcpyAsync" : "cudaLaunchKernel";
      w.Event(fmt::format(
          R"j({{"ph": "X", "cat": "cuda_runtime", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "cbid": {}, "correlation": {}}}}})j",
          call, kPid, kTid, Us(launch), Us(jitter(6'000)), e, copy ? 41 : 211, c));
      w.Event(fmt::format(
          R"j({{"ph": "s", "id": {}, "pid": {}, "tid": {}, "ts": {}, "cat": "ac2g", "name": "ac2g"}})j",
          c, kPid, kTid, Us(launch)));
      gpu_ns = std::max(gpu_ns, launch + 10'000);
      int64_t duration = copy ? jitter(upload ? 200'000 : 20'000) : jitter(40'000);
      if (copy) {
        const char* name =
            upload ? "Memcpy HtoD (Pinned -> Device)" : "Memcpy DtoD (Device -> Device)";
        uint64_t bytes = upload ? 8'388'608 : 1'048'576;
        w.Event(fmt::format(
            R"j({{"ph": "X", "cat": "gpu_memcpy", "name": "{}", "pid": 0, "tid": 7, "ts": {}, "dur": {}, "args": {{"External id": {}, "device": 0, "context": 1, "stream": 7, "correlation": {}, "bytes": {}, "memory bandwidth (GB/s)": {:.3f}}}}})j",
            name, Us(gpu_ns), Us(duration), e, c, bytes,
            static_cast<double>(bytes) / static_cast<double>(duration)));
      } else {
        const char* name = kKernelNames[random() % std::size(kKernelNames)];
        w.Event(fmt::format(
            R"j({{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7, "ts": {}, "dur": {}, "args": {{"External id": {}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {}, "registers per thread": 128, "shared memory": 49152, "blocks per SM": 1.185185, "warps per SM": 9.481482, "grid": [128, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 19}}}})j",
            name, Us(gpu_ns), Us(duration), e, c));
      }
      w.Event(fmt::format(
          R"j({{"ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {}, "cat": "ac2g", "name": "ac2g", "bp": "e"}})j",
          c, Us(gpu_ns)));
      ++gpu_ops;
      gpu_ns += duration + 1'000;
      cpu_ns += py + 3'000;
    }
    w.Event(fmt::format(
        R"j({{"ph": "X", "cat": "user_annotation", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "Ev Idx": 0}}}})j",
        step_name, kPid, kTid, Us(step_start), Us(cpu_ns - step_start), external++));
  }
  std::fputs("\n  ],\n  \"traceName\": \"bench.pt.trace.json\"\n}\n", out);
  if (std::fclose(out) != 0) {
    std::perror(argv[2]);
    return 2;
  }
  std::fprintf(stderr, "wrote %s: %llu GPU ops, about %llu MB\n", argv[2],
               static_cast<unsigned long long>(gpu_ops),
               static_cast<unsigned long long>(w.bytes() / 1'000'000));
  return 0;
}
