#include "gpuroof/model/engine.h"

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// docs/metrics.md, "Communication (comm)": NCCL-family names by prefix, and collective
// operations named by libraries that bypass NCCL, as real profiles spell them.
TEST(CollectiveKernelName, NcclFamilyByPrefix) {
  EXPECT_TRUE(IsCollectiveKernelName("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage)"));
  EXPECT_TRUE(IsCollectiveKernelName("void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"));
  EXPECT_TRUE(IsCollectiveKernelName("rcclKernel_Generic"));
  EXPECT_TRUE(IsCollectiveKernelName("mscclKernel_Sum_float"));
}

TEST(CollectiveKernelName, CollectivesOutsideNccl) {
  // PyTorch symmetric memory (a B200 vLLM trace), in demangled and short form.
  EXPECT_TRUE(IsCollectiveKernelName(
      "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
      "unsigned long, unsigned int**, unsigned long, unsigned long)"));
  EXPECT_TRUE(IsCollectiveKernelName("multimem_all_reduce_kernel"));
  EXPECT_TRUE(IsCollectiveKernelName(
      "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16, 8>(float*)"));
  EXPECT_TRUE(
      IsCollectiveKernelName("void vllm::cross_device_reduce_1stage<half, 8>(vllm::RankData*)"));
  EXPECT_TRUE(IsCollectiveKernelName("tensorrt_llm::kernels::allReduceFusionKernel<true>"));
  EXPECT_TRUE(IsCollectiveKernelName("moe_all_to_all_dispatch"));
  EXPECT_TRUE(IsCollectiveKernelName("ReduceScatterKernel"));
  EXPECT_TRUE(IsCollectiveKernelName("multimemAllReduceKernel"));  // a word at a case change
  EXPECT_TRUE(IsCollectiveKernelName("fused2allgather"));          // a word after a digit
}

TEST(CollectiveKernelName, ComputeKernelsStayCompute) {
  EXPECT_FALSE(IsCollectiveKernelName(
      "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long)"));
  EXPECT_FALSE(IsCollectiveKernelName(
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(at::native::ReduceOp)"));
  EXPECT_FALSE(IsCollectiveKernelName("cub::DeviceReduceKernel"));
  // A reduction within a warp or a block is not communication.
  EXPECT_FALSE(IsCollectiveKernelName("softmax_warp_allreduce_kernel"));
  EXPECT_FALSE(IsCollectiveKernelName("layernorm_blockAllReduce"));
  EXPECT_FALSE(IsCollectiveKernelName("wg_allreduce"));
  EXPECT_FALSE(IsCollectiveKernelName("cta_all_reduce_max"));
  // The operation must be a word of the name: MAGMA's zherk_small_reduce_kernel holds
  // "all_reduce" inside "small_reduce".
  EXPECT_FALSE(IsCollectiveKernelName("small_reduce_kernel"));
  EXPECT_FALSE(IsCollectiveKernelName("void magmablas_zherk_small_reduce_kernel<8>(int)"));
  EXPECT_FALSE(IsCollectiveKernelName("install_gather_kernel"));
  // Namespaces are not the function's name.
  EXPECT_FALSE(IsCollectiveKernelName("void allreduce_ns::rmsnorm_kernel(float*)"));
  EXPECT_TRUE(IsCollectiveKernelName("void rmsnorm_ns::all_reduce_kernel(float*)"));
  // Only the function's own name counts, not its template or call arguments.
  EXPECT_FALSE(IsCollectiveKernelName("void gemm_kernel<AllReducePolicy>(float*)"));
  EXPECT_FALSE(IsCollectiveKernelName("void gemm_kernel(all_reduce_args)"));
  EXPECT_FALSE(IsCollectiveKernelName(""));
}

}  // namespace
}  // namespace gpuroof
