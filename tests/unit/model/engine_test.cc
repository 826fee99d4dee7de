#include "gpuroof/model/engine.h"

#include <string_view>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// docs/metrics.md, "Communication (comm)": NCCL-family names by prefix, and collective
// operations named by libraries that bypass NCCL, as real profiles spell them.
TEST(CollectiveKernelName, NcclFamilyByPrefix) {
  for (std::string_view name : {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage)",
                                "void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t",
                                "rcclKernel_Generic", "mscclKernel_Sum_float",
                                // NVSHMEM's own kernels.
                                "nvshmemi_transfer_rma_kernel", "nvshmemx_barrier_all_kernel"}) {
    EXPECT_TRUE(IsCollectiveKernelName(name)) << name;
  }
}

TEST(CollectiveKernelName, CollectivesOutsideNccl) {
  for (std::string_view name : {
           // PyTorch symmetric memory (a B200 vLLM trace), in demangled and short form.
           "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>("
           "c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)",
           "multimem_all_reduce_kernel",
           "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16, 8>(float*)",
           "void vllm::cross_device_reduce_1stage<half, 8>(vllm::RankData*)",
           "tensorrt_llm::kernels::allReduceFusionKernel<true>",
           "moe_all_to_all_dispatch",
           "ReduceScatterKernel",
           "multimemAllReduceKernel",  // a word at a case change
           "fused2allgather",          // a word after a digit
           // Namespaces are not the function's name, whichever holds the operation.
           "void rmsnorm_ns::all_reduce_kernel(float*)",
       }) {
    EXPECT_TRUE(IsCollectiveKernelName(name)) << name;
  }
}

TEST(CollectiveKernelName, ComputeKernelsStayCompute) {
  for (std::string_view name : {
           "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long)",
           "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>("
           "at::native::ReduceOp)",
           "cub::DeviceReduceKernel",
           // A reduction within a warp, a block, a work group or a CTA is not communication.
           "softmax_warp_allreduce_kernel",
           "layernorm_blockAllReduce",
           "wg_allreduce",
           "cta_all_reduce_max",
           // The operation must be a word of the name: MAGMA's zherk_small_reduce_kernel holds
           // "all_reduce" inside "small_reduce".
           "small_reduce_kernel",
           "void magmablas_zherk_small_reduce_kernel<8>(int)",
           "install_gather_kernel",
           // Namespaces, template and call arguments are not the function's own name.
           "void allreduce_ns::rmsnorm_kernel(float*)",
           "void gemm_kernel<AllReducePolicy>(float*)",
           "void gemm_kernel(all_reduce_args)",
           "",
       }) {
    EXPECT_FALSE(IsCollectiveKernelName(name)) << name;
  }
}

}  // namespace
}  // namespace gpuroof
