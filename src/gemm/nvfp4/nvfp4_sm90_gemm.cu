// NVFP4 GEMM on Hopper (sm_90a only): the weights decoded in registers into
// bf16 / f16 wgmma, the tokens by TMA. Three kernels: prefill (W4A16, more
// than kDecodeTokens16 rows, K split over a cluster where the tiles are few,
// in an instantiation of its own, nvfp4_sm90_kernel.cuh), decode (W4A16 and
// W4A4, at most kDecodeTokens16 rows, nvfp4_sm90_decode_kernel.cuh, K split
// over a cluster; below kDecodeMinTokens rows, and NVFP4 rows, only the
// grids it splits little) and
// grouped (W4A16, the prefill CTA per expert tile, at least
// kMinGroupedTokens rows per expert, nvfp4_sm90_grouped_kernel.cuh); NVFP4
// A beyond decode, dense or grouped, widened to bf16 into the caller's
// workspace (nvfp4_sm90_widen_kernel.cuh) and run as W4A16.
// Host side: which problems it takes, the tensor maps, the split and the
// launch. Decode rows the split rule leaves out, W4A4 beyond decode
// without workspace and smaller experts run sm75_hmma.
#include "arch/config.hpp"

#if defined(__CUDA_ARCH__) && !FP8KIT_HAS_WGMMA
#error "nvfp4_sm90_gemm.cu is valid for sm_90a only; its CMake range must exclude this target"
#endif

#include <algorithm>
#include <atomic>
#include <climits>
#include <string>

#include "core/environment.hpp"
#include "gemm/nvfp4/nvfp4_paths.hpp"
#include "gemm/nvfp4/nvfp4_sm90_decode_kernel.cuh"
#include "gemm/nvfp4/nvfp4_sm90_grouped_kernel.cuh"
#include "gemm/nvfp4/nvfp4_sm90_kernel.cuh"
#include "gemm/nvfp4/nvfp4_sm90_widen_kernel.cuh"
#include "gemm/sm90/host_launch.hpp"

namespace fp8kit::nvfp4 {
namespace {

using namespace sm90w;

constexpr int kTokenTiles = 2;

// One kernel: its function and shared memory.
struct Kernel {
  const void* fn;
  int smem;
  const char* name;
};

// The kernels the prefill CTA runs in (nvfp4_sm90_kernel.cuh: one dense
// problem, all of K per CTA or K split over a cluster; nvfp4_sm90_grouped_kernel.cuh:
// a tile of one expert per CTA), by token tile and token type; all take the
// CTA's shared memory.
enum class Problem { kDense, kDenseSplit, kGrouped };
constexpr int kProblems = 3;
// sm90::allow_smem's masks: per problem, token tile, bf16 and f16.
std::atomic<uint64_t> g_smem_set[kProblems][kTokenTiles][2];

template <Problem P, Tokens kT, bool kBf16>
Kernel cta_kernel() {
  static const std::string name = std::string(P == Problem::kGrouped ? "nvfp4_sm90_grouped<" : "nvfp4_sm90_gemm<") +
                                  (kT == Tokens::k256 ? "256," : "128,") + (kBf16 ? "bf16" : "f16") +
                                  (P == Problem::kDenseSplit ? ",split>" : ">");
  const void* fn = P == Problem::kDense        ? reinterpret_cast<const void*>(&nvfp4_sm90_gemm_kernel<kT, kBf16, false>)
                   : P == Problem::kDenseSplit ? reinterpret_cast<const void*>(&nvfp4_sm90_gemm_kernel<kT, kBf16, true>)
                                               : reinterpret_cast<const void*>(&nvfp4_sm90_grouped_kernel<kT, kBf16>);
  return {fn, TileT<kT>::kSmemBytes, name.c_str()};
}
template <Problem P>
Kernel cta_kernel(Tokens t, bool bf16) {
  if (t == Tokens::k256) return bf16 ? cta_kernel<P, Tokens::k256, true>() : cta_kernel<P, Tokens::k256, false>();
  return bf16 ? cta_kernel<P, Tokens::k128, true>() : cta_kernel<P, Tokens::k128, false>();
}
template <Problem P>
std::atomic<uint64_t>& smem_set(Tokens t, bool bf16) {
  return g_smem_set[static_cast<int>(P)][static_cast<int>(t)][bf16 ? 0 : 1];
}
constexpr int kMaxSmem =
    TileT<Tokens::k256>::kSmemBytes > TileT<Tokens::k128>::kSmemBytes ? TileT<Tokens::k256>::kSmemBytes
                                                                        : TileT<Tokens::k128>::kSmemBytes;
static_assert(kDecodeSmemBytes <= kMaxSmem, "the decode kernel fits where the prefill kernels do");

// The decode kernels by token type: bf16, f16, NVFP4 (decoded to bf16).
enum class DecodeTokens { kBf16, kF16, kNvfp4 };
constexpr int kDecodeTokenTypes = 3;
std::atomic<uint64_t> g_decode_smem_set[kDecodeTokenTypes];
DecodeTokens decode_tokens_of(const Nvfp4Params& p) {
  if (p.a_type == FP8KIT_DTYPE_NVFP4) return DecodeTokens::kNvfp4;
  return p.a_type == FP8KIT_DTYPE_BF16 ? DecodeTokens::kBf16 : DecodeTokens::kF16;
}
Kernel decode_kernel_of(DecodeTokens t) {
  switch (t) {
    case DecodeTokens::kNvfp4:
      return {reinterpret_cast<const void*>(&nvfp4_sm90_decode_kernel<true, true>), kDecodeSmemBytes,
              "nvfp4_sm90_decode<16,nvfp4>"};
    case DecodeTokens::kBf16:
      return {reinterpret_cast<const void*>(&nvfp4_sm90_decode_kernel<true, false>), kDecodeSmemBytes,
              "nvfp4_sm90_decode<16,bf16>"};
    default:
      return {reinterpret_cast<const void*>(&nvfp4_sm90_decode_kernel<false, false>), kDecodeSmemBytes,
              "nvfp4_sm90_decode<16,f16>"};
  }
}

// Tokens [rows, K] 16-bit, boxes (`box_rows` tokens, kBlockK elements), 128B-swizzled.
bool encode_tokens(CUtensorMap* map, const Nvfp4Params& p, int64_t rows, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = sm90::encode_fn();
  if (fn == nullptr) return false;
  const CUtensorMapDataType type =
      p.a_type == FP8KIT_DTYPE_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const cuuint64_t dims[sm90::kTensorRank] = {static_cast<cuuint64_t>(p.k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[sm90::kTensorRank - 1] = {static_cast<cuuint64_t>(p.lda) * 2};
  const cuuint32_t box[sm90::kTensorRank] = {kBlockK, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[sm90::kTensorRank] = {1, 1};
  return fn(map, type, sm90::kTensorRank, const_cast<uint8_t*>(p.a), dims, strides, box, elem_strides,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Packed NVFP4 tokens [rows, K / 2] bytes, boxes (`box_rows` tokens, 32
// bytes), unswizzled.
bool encode_packed_tokens(CUtensorMap* map, const Nvfp4Params& p, int64_t rows, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = sm90::encode_fn();
  if (fn == nullptr) return false;
  const cuuint64_t dims[sm90::kTensorRank] = {static_cast<cuuint64_t>(p.k / kElementsPerByte),
                                              static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[sm90::kTensorRank - 1] = {static_cast<cuuint64_t>(p.lda)};
  const cuuint32_t box[sm90::kTensorRank] = {kPackedRowBytes, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[sm90::kTensorRank] = {1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, sm90::kTensorRank, const_cast<uint8_t*>(p.a), dims, strides, box,
            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Packed weights [rows, K / 2] bytes, boxes (kBlockW rows, 32 bytes), unswizzled.
bool encode_weights(CUtensorMap* map, const Nvfp4Params& p, int64_t rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 fn = sm90::encode_fn();
  if (fn == nullptr) return false;
  const cuuint64_t dims[sm90::kTensorRank] = {static_cast<cuuint64_t>(p.k / kElementsPerByte),
                                              static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[sm90::kTensorRank - 1] = {static_cast<cuuint64_t>(p.ldb)};
  const cuuint32_t box[sm90::kTensorRank] = {kPackedRowBytes, kBlockW};
  const cuuint32_t elem_strides[sm90::kTensorRank] = {1, 1};
  return fn(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, sm90::kTensorRank, const_cast<uint8_t*>(p.b), dims, strides, box,
            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool granular(const void* ptr, int64_t ld_bytes) {
  return reinterpret_cast<uintptr_t>(ptr) % sm90::kTmaGranule == 0 && ld_bytes % sm90::kTmaGranule == 0;
}

int64_t tiles_of(const Nvfp4Params& p, Tokens t) {
  return ceil_div(int64_t{p.n}, int64_t{kBlockW}) * ceil_div(int64_t{p.m}, int64_t{tokens_of(t)});
}

// CTAs of the prefill kernels resident at once in clusters of s = 1 ..
// kMaxSplit (the device's answer per size, asked once per device, of the
// kernel with the most shared memory: every prefill kernel holds an SM
// alone).
static_assert(2 * TileT<Tokens::k128>::kSmemBytes > fp8kit::sm90::kSmemBytesMax &&
                  2 * TileT<Tokens::k256>::kSmemBytes > fp8kit::sm90::kSmemBytesMax,
              "one prefill CTA per SM");
std::atomic<int> g_prefill_clusters[kMaxSplit + 1][sm90::kAttrDevices];
cudaError_t prefill_waves(const DeviceInfo& dev, int (&wave)[kMaxSplit + 1]) {
  constexpr Tokens kWidest = TileT<Tokens::k256>::kSmemBytes >= TileT<Tokens::k128>::kSmemBytes ? Tokens::k256
                                                                                                 : Tokens::k128;
  const Kernel k = cta_kernel<Problem::kDenseSplit>(kWidest, true);
  if (const cudaError_t e = sm90::allow_smem(k.fn, k.smem, dev.device, smem_set<Problem::kDenseSplit>(kWidest, true));
      e != cudaSuccess)
    return e;
  wave[0] = 0;
  wave[1] = dev.sm_count;
  for (int s = 2; s <= kMaxSplit; ++s)
    wave[s] = s * sm90::resident_clusters(k.fn, k.smem, s, dev.device, g_prefill_clusters[s]);
  return cudaSuccess;
}

// The plan of `groups` groups of m tokens, K split over at most max_split
// CTAs (and the grid within 2^31 - 1 CTAs): the cost model's
// (choose_plan), where FP8KIT_NVFP4_SM90_TOKENS and FP8KIT_NVFP4_SM90_SPLIT
// do not force the token tile or the split.
cudaError_t prefill_plan(int64_t m, int64_t n, int64_t k, int64_t groups, int max_split, const DeviceInfo& dev,
                         Plan* plan) {
  int wave[kMaxSplit + 1];
  if (const cudaError_t e = prefill_waves(dev, wave); e != cudaSuccess) return e;
  const int64_t tiles128 = groups * ceil_div(n, int64_t{kBlockW}) * ceil_div(m, int64_t{tokens_of(Tokens::k128)});
  while (max_split > 1 && tiles128 * max_split > INT_MAX) --max_split;
  *plan = choose_plan(m, n, k, wave, groups, max_split);
  const Environment& env = environment();
  if (env.nvfp4_sm90_tokens == tokens_of(Tokens::k128)) plan->tokens = Tokens::k128;
  if (env.nvfp4_sm90_tokens == tokens_of(Tokens::k256)) plan->tokens = Tokens::k256;
  if (env.nvfp4_sm90_split >= 1 && env.nvfp4_sm90_split <= kMaxSplit)
    plan->splits = std::min(env.nvfp4_sm90_split, max_split);
  return cudaSuccess;
}

// CTAs resident at once in clusters of s = 1 .. kDecodeMaxSplit (the
// device's answer per size, asked once per device).
std::atomic<int> g_decode_clusters[kDecodeMaxSplit + 1][sm90::kAttrDevices];
void decode_waves(const Kernel& k, const DeviceInfo& dev, int (&wave)[kDecodeMaxSplit + 1]) {
  wave[0] = 0;
  wave[1] = sm90w::kDecodeCtasPerSm * dev.sm_count;
  for (int s = 2; s <= kDecodeMaxSplit; ++s)
    wave[s] = s * sm90::resident_clusters(k.fn, k.smem, s, dev.device, g_decode_clusters[s]);
}

// The K split of a decode problem: FP8KIT_NVFP4_SM90_SPLIT's when it names
// one, else the plan's from the device's resident clusters (the kernel's
// shared-memory limit set first: the occupancy query reads it).
cudaError_t decode_split(const Nvfp4Params& p, const DeviceInfo& dev, int* splits) {
  const DecodeTokens t = decode_tokens_of(p);
  const Kernel k = decode_kernel_of(t);
  if (const cudaError_t e = sm90::allow_smem(k.fn, k.smem, dev.device, g_decode_smem_set[static_cast<int>(t)]);
      e != cudaSuccess)
    return e;
  const int forced = environment().nvfp4_sm90_split;
  if (forced >= 1 && forced <= kDecodeMaxSplit) {
    *splits = forced;
    return cudaSuccess;
  }
  int wave[kDecodeMaxSplit + 1];
  decode_waves(k, dev, wave);
  *splits = choose_decode_split(p.n, p.k, wave);
  return cudaSuccess;
}

// NVFP4 A widened: the W4A16 problem the kernels run after the widening.
Nvfp4Params widened(const Nvfp4Params& p) {
  Nvfp4Params q = p;
  q.a = static_cast<const uint8_t*>(p.a_wide);
  q.lda = p.k;
  q.a_scale = nullptr;
  q.a_scale_row0 = 0;
  q.a_type = FP8KIT_DTYPE_BF16;
  q.a_widen = false;
  q.a_wide = nullptr;
  return q;
}
Nvfp4GroupedParams widened(const Nvfp4GroupedParams& g) {
  Nvfp4GroupedParams q = g;
  q.dense = widened(g.dense);
  q.a_scale_expert_stride = 0;
  return q;
}

constexpr const char* kNoWorkspace =
    " as bf16, widened into the workspace: lend options->workspace of the bytes fp8kit_nvfp4_gemm_workspace_size "
    "(grouped: fp8kit_nvfp4_grouped_gemm_workspace_size) reports (rows of A x K x 2, 16-byte aligned, without "
    "workspace_zeroed); without it sm75_hmma runs them";

std::string refusal(const Nvfp4Params& p, const DeviceInfo& dev) {
  if (std::string no = sm90::hopper_refusal(dev, kMaxSmem); !no.empty()) return no;
  const bool a4 = p.a_type == FP8KIT_DTYPE_NVFP4;
  if (a4 && p.m > kDecodeTokens16) {
    if (!p.a_widen)
      return "sm90_wgmma runs NVFP4 activations (W4A4) of more than " + std::to_string(kDecodeTokens16) + " tokens" +
             kNoWorkspace;
    return refusal(widened(p), dev);
  }
  if (p.m < kDecodeMinTokens || (a4 && p.m <= kDecodeTokens16)) {
    int splits = 0;
    if (decode_split(p, dev, &splits) != cudaSuccess) {
      cudaGetLastError();  // not sticky; leave no error behind
      return "sm90_wgmma could not size its decode kernel's K split on this device";
    }
    // A forced split runs as forced (the sweep that fits the caps); the caps
    // bound the plan's choice.
    const bool forced = environment().nvfp4_sm90_split == splits;
    if (!forced && !decode_takes_tokens(p.m, a4, splits)) {
      const bool few = p.m < kDecodeMinTokens;
      return std::string("sm90_wgmma takes ") +
             (few ? "fewer than " + std::to_string(kDecodeMinTokens) + " tokens" : std::string("NVFP4 tokens")) +
             " only where its K split is " +
             std::to_string(few ? kDecodeFewTokensMaxSplit : kDecodeA4MaxSplit) +
             " CTAs per weight tile or fewer (here " + std::to_string(splits) + "); the decode tiles of sm75_hmma run it";
    }
  }
  if (!granular(p.a, a4 ? p.lda : p.lda * 2) || !granular(p.b, p.ldb))
    return "sm90_wgmma reads A and B by TMA: their base addresses and row strides must be multiples of 16 bytes";
  if (tiles_of(p, Tokens::k128) > INT_MAX) return "the problem needs more than 2^31 - 1 CTAs of sm90_wgmma";
  if (sm90::encode_fn() == nullptr) return "sm90_wgmma needs cuTensorMapEncodeTiled (CUDA driver 12.0 or newer)";
  return {};
}

bool takes_dense(const Nvfp4Params& p, const DeviceInfo& dev, std::string* why) {
  const std::string no = refusal(p, dev);
  if (why) *why = no;
  return no.empty();
}

// A grouped problem's rows in the weight map (E x N); its token map holds
// nvfp4_grouped_a_rows.
int64_t grouped_weight_rows(const Nvfp4GroupedParams& g) { return int64_t{g.experts} * g.dense.n; }
// Rows per expert as the host knows them (the counts are the device's):
// masked max_m, contiguous T / E rounded up.
int64_t grouped_rows_per_expert(const Nvfp4GroupedParams& g) {
  return g.layout == FP8KIT_GROUPED_MASKED ? g.rows : ceil_div(int64_t{g.rows}, int64_t{g.experts});
}
int64_t grouped_ctas(const Nvfp4GroupedParams& g, Tokens t) {
  return nvfp4_grouped_m_slots(g, tokens_of(t)) * ceil_div(int64_t{g.dense.n}, int64_t{kBlockW});
}

std::string grouped_refusal(const Nvfp4GroupedParams& g, const DeviceInfo& dev) {
  const Nvfp4Params& p = g.dense;
  if (std::string no = sm90::hopper_refusal(dev, kMaxSmem); !no.empty()) return no;
  if (p.a_type == FP8KIT_DTYPE_NVFP4) {
    if (!p.a_widen) return std::string("sm90_wgmma runs grouped NVFP4 activations (W4A4)") + kNoWorkspace;
    return grouped_refusal(widened(g), dev);
  }
  if (grouped_rows_per_expert(g) < kMinGroupedTokens)
    return "sm90_wgmma takes grouped problems of at least " + std::to_string(kMinGroupedTokens) +
           " rows per expert (contiguous: rows / experts; masked: max_m); smaller experts run sm75_hmma";
  if (!granular(p.a, p.lda * 2) || !granular(p.b, p.ldb))
    return "sm90_wgmma reads A and B by TMA: their base addresses and row strides must be multiples of 16 bytes";
  // A box's coordinates are 32-bit: the last box of either map starts inside it.
  if (nvfp4_grouped_a_rows(g) > INT_MAX || grouped_weight_rows(g) > INT_MAX)
    return "sm90_wgmma addresses all experts' tokens and weights as one tensor each: experts x rows and experts x "
           "N must be below 2^31";
  if (grouped_ctas(g, Tokens::k128) > INT_MAX) return "the problem needs more than 2^31 - 1 CTAs of sm90_wgmma";
  if (sm90::encode_fn() == nullptr) return "sm90_wgmma needs cuTensorMapEncodeTiled (CUDA driver 12.0 or newer)";
  return {};
}

bool takes_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, std::string* why) {
  const std::string no = grouped_refusal(g, dev);
  if (why) *why = no;
  return no.empty();
}

cudaError_t launch_decode(const Nvfp4Params& p, const DeviceInfo& dev, bool programmatic, cudaStream_t stream,
                          const char** kernel) {
  const DecodeTokens t = decode_tokens_of(p);
  const Kernel k = decode_kernel_of(t);
  *kernel = k.name;
  CUtensorMap tmap_t{}, tmap_w{};
  const bool tokens = t == DecodeTokens::kNvfp4 ? encode_packed_tokens(&tmap_t, p, p.m, kDecodeTokens16)
                                                : encode_tokens(&tmap_t, p, p.m, kDecodeTokens16);
  if (!tokens || !encode_weights(&tmap_w, p, p.n)) return cudaErrorInvalidValue;
  int splits = 0;
  if (const cudaError_t e = decode_split(p, dev, &splits); e != cudaSuccess) return e;
  Nvfp4Params q = p;
  void* args[] = {&tmap_t, &tmap_w, &q, &splits};
  const int tiles = static_cast<int>(ceil_div(int64_t{p.n}, int64_t{kBlockW}));
  return sm90::launch_kernel(k.fn, tiles * splits, k.smem, stream, args, programmatic, splits);
}

// Widens `w.rows` rows of p's NVFP4 A into p.a_wide.
cudaError_t launch_widen(const Nvfp4Params& p, const WidenRows& w, const DeviceInfo& dev, cudaStream_t stream,
                         const char** kernel) {
  *kernel = "nvfp4_sm90_widen";
  const int64_t ctas = std::min(ceil_div(w.rows * p.k_blocks, int64_t{kWidenThreads}),
                                int64_t{kWidenCtasPerSm} * dev.sm_count);
  if (ctas == 0) return cudaSuccess;
  Nvfp4Params q = p;
  WidenRows r = w;
  void* args[] = {&q, &r};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&nvfp4_sm90_widen_kernel), dim3(static_cast<unsigned>(ctas)),
                          dim3(kWidenThreads), args, 0, stream);
}

size_t dense_workspace(const Nvfp4Params& p) {
  const bool widens = p.a_type == FP8KIT_DTYPE_NVFP4 && p.a_widen && p.m > kDecodeTokens16;
  return widens ? static_cast<size_t>(nvfp4_widened_bytes(p.m, p.k)) : 0;
}
size_t grouped_workspace(const Nvfp4GroupedParams& g) {
  const bool widens = g.dense.a_type == FP8KIT_DTYPE_NVFP4 && g.dense.a_widen;
  return widens ? static_cast<size_t>(nvfp4_widened_bytes(nvfp4_grouped_a_rows(g), g.dense.k)) : 0;
}

// The widening, then (checked) its fault reported under its own name before
// the GEMM that reads it is queued.
cudaError_t widen_first(const Nvfp4Params& p, const WidenRows& w, const DeviceInfo& dev, const LaunchEnv& env,
                        cudaStream_t stream, const char** kernel) {
  if (const cudaError_t e = launch_widen(p, w, dev, stream, kernel); e != cudaSuccess) return e;
  return env.checked ? cudaStreamSynchronize(stream) : cudaSuccess;
}

cudaError_t launch_dense(const Nvfp4Params& p, const DeviceInfo& dev, const LaunchEnv& env, cudaStream_t stream,
                         const char** kernel) {
  if (p.m <= kDecodeTokens16) return launch_decode(p, dev, env.programmatic_launch, stream, kernel);
  if (p.a_type == FP8KIT_DTYPE_NVFP4) {
    if (const cudaError_t e = widen_first(p, {p.m, p.m, 0}, dev, env, stream, kernel); e != cudaSuccess) return e;
    return launch_dense(widened(p), dev, env, stream, kernel);
  }
  const bool bf16 = p.a_type == FP8KIT_DTYPE_BF16;
  Plan plan{};
  if (const cudaError_t e = prefill_plan(p.m, p.n, p.k, 1, kMaxSplit, dev, &plan); e != cudaSuccess) return e;
  const Tokens t = plan.tokens;
  const Problem problem = plan.splits > 1 ? Problem::kDenseSplit : Problem::kDense;
  const Kernel k = problem == Problem::kDenseSplit ? cta_kernel<Problem::kDenseSplit>(t, bf16)
                                                   : cta_kernel<Problem::kDense>(t, bf16);
  *kernel = k.name;
  CUtensorMap tmap_t{}, tmap_w{};
  if (!encode_tokens(&tmap_t, p, p.m, tokens_of(t)) || !encode_weights(&tmap_w, p, p.n))
    return cudaErrorInvalidValue;
  std::atomic<uint64_t>& set = problem == Problem::kDenseSplit ? smem_set<Problem::kDenseSplit>(t, bf16)
                                                               : smem_set<Problem::kDense>(t, bf16);
  if (const cudaError_t e = sm90::allow_smem(k.fn, k.smem, dev.device, set); e != cudaSuccess) return e;
  Nvfp4Params q = p;
  int splits = plan.splits;
  void* args[] = {&tmap_t, &tmap_w, &q, &splits};
  return sm90::launch_kernel(k.fn, static_cast<int>(tiles_of(p, t) * splits), k.smem, stream, args, false,
                             splits);
}

cudaError_t launch_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, const LaunchEnv& env,
                           cudaStream_t stream, const char** kernel) {
  if (g.dense.a_type == FP8KIT_DTYPE_NVFP4) {
    const bool masked = g.layout == FP8KIT_GROUPED_MASKED;
    const WidenRows w{nvfp4_grouped_a_rows(g), masked ? g.rows : nvfp4_grouped_a_rows(g), g.a_scale_expert_stride};
    if (const cudaError_t e = widen_first(g.dense, w, dev, env, stream, kernel); e != cudaSuccess) return e;
    return launch_grouped(widened(g), dev, env, stream, kernel);
  }
  Plan plan{};
  if (const cudaError_t e = prefill_plan(grouped_rows_per_expert(g), g.dense.n, g.dense.k, g.experts, 1, dev, &plan);
      e != cudaSuccess)
    return e;
  const Tokens t = plan.tokens;
  const bool bf16 = g.dense.a_type == FP8KIT_DTYPE_BF16;
  const Kernel k = cta_kernel<Problem::kGrouped>(t, bf16);
  *kernel = k.name;
  if (nvfp4_grouped_a_rows(g) == 0) return cudaSuccess;  // no rows at all (a tensor map needs one)
  CUtensorMap tmap_t{}, tmap_w{};
  if (!encode_tokens(&tmap_t, g.dense, nvfp4_grouped_a_rows(g), tokens_of(t)) ||
      !encode_weights(&tmap_w, g.dense, grouped_weight_rows(g)))
    return cudaErrorInvalidValue;
  if (const cudaError_t e =
          sm90::allow_smem(k.fn, k.smem, dev.device, smem_set<Problem::kGrouped>(t, bf16));
      e != cudaSuccess)
    return e;
  Nvfp4GroupedParams q = g;
  void* args[] = {&tmap_t, &tmap_w, &q};
  return sm90::launch_kernel(k.fn, static_cast<int>(grouped_ctas(g, t)), k.smem, stream, args, false);
}

const void* probe() { return cta_kernel<Problem::kDense, Tokens::k256, true>().fn; }

}  // namespace

const FamilyEntry& wgmma() {
  static const FamilyEntry e{&takes_dense,    &takes_grouped,  &launch_dense,     &launch_grouped,
                             &probe,          &dense_workspace, &grouped_workspace};
  return e;
}

}  // namespace fp8kit::nvfp4
