// PTX the native Hopper FP8 GEMM needs that CCCL's cuda::ptx does not have
// (wgmma, setmaxnreg, griddepcontrol, named barriers, the stateless
// mbarrier arrive, tensor-map prefetch, 4-byte cp.async, distributed shared
// memory: mapa, ld / arrive / wait at cluster scope), and the wgmma
// shared-memory descriptor. Everything cuda::ptx has (TMA, mbarrier wait /
// expect_tx, bulk groups, proxy fences) is used from there directly.
// Device code for sm_90a only: included under FP8KIT_HAS_WGMMA.
#pragma once

#include <cstdint>

#include <cuda/ptx>

#include "fp8kit/fp8kit.h"
#include "gemm/sm90/asm_operands.hpp"
#include "gemm/sm90/tile_config.hpp"

namespace fp8kit::sm90::ptx {

// ---- wgmma ----------------------------------------------------------------------
// The operand lists of a wgmma with R f32 accumulators are generated: the
// accumulator vector "{%0, %1, ..., %R-1}" and its constraints
// "+f"(d[0]), ..., "+f"(d[R-1]) come from one decimal sequence (inline asm
// takes neither a pack expansion nor named operands, so the preprocessor
// writes them: asm_operands.hpp). Then the X and Y descriptors (%R, %R+1) and scale-d (%R+2).
#define FP8KIT_WGMMA_REG(i) ", %" #i
#define FP8KIT_WGMMA_ACC(i) , "+f"(d[i])
// Per wgmma N: the sequence 1 .. R-1 and the operand numbers after it.
#define FP8KIT_WGMMA_SEQ_16 FP8KIT_PP_1_7
#define FP8KIT_WGMMA_TAIL_16 "%8, %9", "%10"
#define FP8KIT_WGMMA_SEQ_64 FP8KIT_PP_1_31
#define FP8KIT_WGMMA_TAIL_64 "%32, %33", "%34"
#define FP8KIT_WGMMA_SEQ_128 FP8KIT_PP_1_63
#define FP8KIT_WGMMA_TAIL_128 "%64, %65", "%66"
#define FP8KIT_WGMMA_SEQ_160 FP8KIT_PP_1_79
#define FP8KIT_WGMMA_TAIL_160 "%80, %81", "%82"
#define FP8KIT_WGMMA_SEQ_192 FP8KIT_PP_1_95
#define FP8KIT_WGMMA_TAIL_192 "%96, %97", "%98"
#define FP8KIT_WGMMA_SEQ_256 FP8KIT_PP_1_127
#define FP8KIT_WGMMA_TAIL_256 "%128, %129", "%130"
#define FP8KIT_WGMMA_ASM(N, TX, TY, DESCS, SCALE)                                              \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                             \
               "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." #TX "." #TY                  \
               " {%0" FP8KIT_WGMMA_SEQ_##N(FP8KIT_WGMMA_REG) "}, " DESCS ", p, 1, 1;\n}\n" \
               : "+f"(d[0]) FP8KIT_WGMMA_SEQ_##N(FP8KIT_WGMMA_ACC)                          \
               : "l"(dx), "l"(dy), "r"(scale_d))
#define FP8KIT_WGMMA_EXPAND(...) __VA_ARGS__
#define FP8KIT_WGMMA_CALL(N, TX, TY, TAIL) FP8KIT_WGMMA_EXPAND(FP8KIT_WGMMA_ASM(N, TX, TY, TAIL))
// D (+)= X . Y^T for one m64 x N x k32 step of FP8 types TX, TY. X and Y
// come from shared-memory descriptors (both K-major: the only FP8 layout
// wgmma has). scale_d == 0 overwrites D instead of accumulating.
#define FP8KIT_WGMMA_SELECT(N)                                                                     \
  if constexpr (kX4 && kY4) FP8KIT_WGMMA_CALL(N, e4m3, e4m3, FP8KIT_WGMMA_TAIL_##N);               \
  else if constexpr (kX4) FP8KIT_WGMMA_CALL(N, e4m3, e5m2, FP8KIT_WGMMA_TAIL_##N);                 \
  else if constexpr (kY4) FP8KIT_WGMMA_CALL(N, e5m2, e4m3, FP8KIT_WGMMA_TAIL_##N);                 \
  else FP8KIT_WGMMA_CALL(N, e5m2, e5m2, FP8KIT_WGMMA_TAIL_##N);

template <int N, fp8kit_dtype TX, fp8kit_dtype TY>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], uint64_t dx, uint64_t dy, uint32_t scale_d) {
  constexpr bool kX4 = (TX == FP8KIT_DTYPE_E4M3);
  constexpr bool kY4 = (TY == FP8KIT_DTYPE_E4M3);
  static_assert(N == 16 || N == 64 || N == 128 || N == 160 || N == 192 || N == 256, "wgmma N of a tile configuration");
  if constexpr (N == 16) {
    FP8KIT_WGMMA_SELECT(16)
  } else if constexpr (N == 64) {
    FP8KIT_WGMMA_SELECT(64)
  } else if constexpr (N == 128) {
    FP8KIT_WGMMA_SELECT(128)
  } else if constexpr (N == 160) {
    FP8KIT_WGMMA_SELECT(160)
  } else if constexpr (N == 192) {
    FP8KIT_WGMMA_SELECT(192)
  } else {
    FP8KIT_WGMMA_SELECT(256)
  }
}
#undef FP8KIT_WGMMA_SELECT
#undef FP8KIT_WGMMA_CALL
#undef FP8KIT_WGMMA_EXPAND
#undef FP8KIT_WGMMA_ASM
#undef FP8KIT_WGMMA_TAIL_256
#undef FP8KIT_WGMMA_SEQ_256
#undef FP8KIT_WGMMA_TAIL_160
#undef FP8KIT_WGMMA_SEQ_160
#undef FP8KIT_WGMMA_TAIL_192
#undef FP8KIT_WGMMA_SEQ_192
#undef FP8KIT_WGMMA_TAIL_128
#undef FP8KIT_WGMMA_SEQ_128
#undef FP8KIT_WGMMA_TAIL_64
#undef FP8KIT_WGMMA_SEQ_64
#undef FP8KIT_WGMMA_TAIL_16
#undef FP8KIT_WGMMA_SEQ_16
#undef FP8KIT_WGMMA_ACC
#undef FP8KIT_WGMMA_REG

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving accumulator reads/writes across wgmma issue
// and wait (the registers are written asynchronously by the tensor cores).
template <int R>
__device__ __forceinline__ void fence_operands(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor of a K-major tile whose rows are 128 bytes,
// 128B-swizzled, 8-row groups 1024 bytes apart. The tile must start on a
// 1024-byte boundary (the descriptor's base offset is 0).
constexpr uint64_t kDescSwizzle128B = uint64_t{1} << 62;
constexpr uint64_t kDescLeadingByteOffset = uint64_t{1} << 16;  // unused for swizzled K-major; 1 by convention
constexpr int kDescStrideShift = 32;
constexpr uint32_t kDescAddrMask = 0x3FFFF;
// Moving one wgmma K step (32 FP8 = 32 bytes) along K inside a swizzled row is
// +32 bytes on the start address, which the descriptor holds in 16-byte units.
constexpr uint64_t kDescKStep = kWgmmaK / 16;

__device__ __forceinline__ uint64_t smem_desc(const void* tile) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  return static_cast<uint64_t>((addr & kDescAddrMask) >> 4) | kDescLeadingByteOffset |
         (static_cast<uint64_t>(kSwizzleAtomBytes >> 4) << kDescStrideShift) | kDescSwizzle128B;
}

// ---- Barriers, registers, copies --------------------------------------------------
__device__ __forceinline__ void wait_barrier(uint64_t* bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// Arrive on a CTA mbarrier without keeping its state (one register pair less
// than cuda::ptx::mbarrier_arrive, which returns it).
__device__ __forceinline__ void arrive_no_state(uint64_t* bar) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(addr) : "memory");
}

// Hands the completion of this thread's earlier cp.async copies to `bar` as
// one arrival (counted in the barrier's expected arrivals).
__device__ __forceinline__ void cp_async_arrive_noinc(uint64_t* bar) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(addr) : "memory");
}

// Named barrier `id` over kCount threads (0 is __syncthreads).
template <int kCount>
__device__ __forceinline__ void named_barrier(int id) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(kCount) : "memory");
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

__device__ __forceinline__ void prefetch_tensormap(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}

// One f32 from global into shared memory through cp.async (zero-filled when
// !valid; the address is not read then).
__device__ __forceinline__ void cp_async_f32(float* dst, const float* src, bool valid) {
  const uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 4 : 0) : "memory");
}

// ---- Programmatic dependent launch ---------------------------------------------------
// Both are no-ops in a grid launched without the programmatic-serialisation
// attribute. wait: blocks until the grids this one depends on have completed
// and their memory is visible. launch_dependents: lets the next grid in the
// stream start its CTAs (which still wait before reading this one's output).
__device__ __forceinline__ void griddep_wait() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
__device__ __forceinline__ void griddep_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// ---- Distributed shared memory (cluster split, cluster_split.cuh) -------------------
// The shared::cluster address of `local` (an object of this CTA's shared
// memory) in the CTA of cluster rank `rank`: the same offset there.
__device__ __forceinline__ uint32_t cluster_address(const void* local, uint32_t rank) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(local));
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(a), "r"(rank));
  return remote;
}

// Four f32 from another CTA's shared memory (a cluster_address).
__device__ __forceinline__ float4 ld_cluster_f32x4(uint32_t remote) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(remote)
               : "memory");
  return v;
}

// Arrive without ordering on an mbarrier of another CTA: a signal that orders
// no memory of this thread's (its reads are complete).
__device__ __forceinline__ void arrive_cluster_relaxed(uint32_t remote_bar) {
  asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(remote_bar) : "memory");
}

// Four f32 into another CTA's shared memory (a cluster_address), counted as
// 16 bytes of complete-tx on that CTA's mbarrier `remote_bar` (a
// cluster_address): its waiter sees the data once the phase completes, with
// no fence or barrier on this side.
__device__ __forceinline__ void st_async_f32x4(uint32_t remote, float4 v, uint32_t remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];\n"
               ::"r"(remote), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(remote_bar)
               : "memory");
}

// Waits (acquire at cluster scope) for phase `parity` of a CTA mbarrier that
// other CTAs of the cluster arrive on.
__device__ __forceinline__ void wait_barrier_cluster(uint64_t* bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, parity)) {
  }
}

}  // namespace fp8kit::sm90::ptx
