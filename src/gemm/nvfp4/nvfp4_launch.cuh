// Host side of the NVFP4 GEMM, shared by its kernel families
// (nvfp4_hmma_gemm.cu, nvfp4_hmma_bf16_gemm.cu, nvfp4_sm120_gemm.cu): per
// policy and A kind, the dense and grouped kernels of each tile shape in
// tables generated from the template parameters, the tile choice and the
// launch.
#pragma once

#include <array>
#include <climits>
#include <string>
#include <utility>

#include "core/environment.hpp"
#include "gemm/nvfp4/nvfp4_paths.hpp"
#include "gemm/nvfp4/nvfp4_tile.cuh"

namespace fp8kit::nvfp4 {

using DenseFn = void (*)(Nvfp4Params);
using GroupedFn = void (*)(Nvfp4GroupedParams);

// One policy and A kind. kDecodeTiles: the family carries the decode tiles
// (HMMA policies); without them only the CTA tiles are instantiated.
template <class Policy, bool kA16, bool kDecodeTiles>
struct Family {
  static constexpr bool carries(TileId id) { return kDecodeTiles || tile_shape(id).kind == TileKind::Cta; }
  // A tile the family does not carry is not instantiated (if constexpr): the
  // self-audit checks every kernel of the block-scaled family for OMMA.SF.
  template <size_t kId>
  static constexpr DenseFn dense_fn() {
    if constexpr (carries(TileId(kId))) return &nvfp4_gemm_kernel<TileId(kId), Policy, kA16>;
    else return nullptr;
  }
  template <size_t kId>
  static constexpr GroupedFn grouped_fn() {
    if constexpr (carries(TileId(kId))) return &nvfp4_grouped_gemm_kernel<TileId(kId), Policy, kA16>;
    else return nullptr;
  }
  template <size_t... kIds>
  static constexpr std::array<DenseFn, kTileCount> dense_table(std::index_sequence<kIds...>) {
    return {dense_fn<kIds>()...};
  }
  template <size_t... kIds>
  static constexpr std::array<GroupedFn, kTileCount> grouped_table(std::index_sequence<kIds...>) {
    return {grouped_fn<kIds>()...};
  }
  static constexpr std::array<DenseFn, kTileCount> kDense = dense_table(std::make_index_sequence<kTileCount>{});
  static constexpr std::array<GroupedFn, kTileCount> kGrouped = grouped_table(std::make_index_sequence<kTileCount>{});

  static const char* name(bool grouped, const char* policy, int tile) {
    static const std::array<std::array<std::string, kTileCount>, 2> names = [&] {
      std::array<std::array<std::string, kTileCount>, 2> n;
      for (int kind = 0; kind < 2; ++kind)
        for (int t = 0; t < kTileCount; ++t)
          n[kind][t] = std::string(kind ? "nvfp4_grouped_gemm" : "nvfp4_gemm") + "<" + kTileShapes[t].name + "," +
                       policy + ">";
      return n;
    }();
    return names[grouped][tile].c_str();
  }

  // Rows an expert can have: masked max_m, contiguous T / E rounded up.
  static int64_t grouped_rows(const Nvfp4GroupedParams& g) {
    return g.layout == FP8KIT_GROUPED_MASKED ? g.rows : ceil_div(g.rows, g.experts);
  }

  // The problem as the kernel of `tile` takes it: the decode split chosen.
  static Nvfp4Params planned(const Nvfp4Params& p, int64_t m_slots, const TileShape& t, const DeviceInfo& dev) {
    Nvfp4Params q = p;
    const int forced = environment().nvfp4_decode_warps_n;
    q.decode_warps_n =
        t.kind != TileKind::Decode ? 1 : forced > 0 ? forced : choose_decode_warps_n(p.n, m_slots, dev.sm_count);
    return q;
  }
  static Nvfp4Params planned(const Nvfp4Params& p, const TileShape& t, const DeviceInfo& dev) {
    return planned(p, ceil_div(p.m, t.block_m), t, dev);
  }
  static Nvfp4GroupedParams planned(const Nvfp4GroupedParams& g, const TileShape& t, const DeviceInfo& dev) {
    Nvfp4GroupedParams q = g;
    q.dense = planned(g.dense, nvfp4_grouped_m_slots(g, t.block_m), t, dev);
    return q;
  }
  // CTAs of a planned problem.
  static int64_t dense_ctas(const Nvfp4Params& p, const TileShape& t) {
    return ceil_div(p.m, t.block_m) * ceil_div(p.n, int64_t{cta_columns(t, p.decode_warps_n)});
  }
  static int64_t grouped_ctas(const Nvfp4GroupedParams& g, const TileShape& t) {
    return nvfp4_grouped_m_slots(g, t.block_m) * ceil_div(g.dense.n, int64_t{cta_columns(t, g.dense.decode_warps_n)});
  }

  static bool fits(int tile, int64_t ctas, const DeviceInfo& dev, std::string* why) {
    if (tile < 0) {
      if (why)
        *why = "the NVFP4 kernel needs " + std::to_string(kTileShapes[0].smem_bytes(kA16)) +
               " bytes of shared memory per block; the device offers " + std::to_string(dev.smem_per_block_optin);
      return false;
    }
    if (ctas > INT_MAX) {
      if (why) *why = "the problem needs more than 2^31 - 1 CTAs of " + std::string(kTileShapes[tile].name);
      return false;
    }
    return true;
  }

  static bool takes_dense(const Nvfp4Params& p, const DeviceInfo& dev, std::string* why) {
    const int tile = choose_tile(p.m, kA16, dev, kDecodeTiles);
    if (tile < 0) return fits(tile, 0, dev, why);
    return fits(tile, dense_ctas(planned(p, kTileShapes[tile], dev), kTileShapes[tile]), dev, why);
  }
  static bool takes_grouped(const Nvfp4GroupedParams& g, const DeviceInfo& dev, std::string* why) {
    const int tile = choose_tile(grouped_rows(g), kA16, dev, kDecodeTiles);
    if (tile < 0) return fits(tile, 0, dev, why);
    return fits(tile, grouped_ctas(planned(g, kTileShapes[tile], dev), kTileShapes[tile]), dev, why);
  }

  // With `programmatic` (a decode tile on a device that has it: the decode
  // tile alone waits on griddepcontrol before reading what the previous
  // kernel may write) the grid may start while that kernel finishes.
  template <class P>
  static cudaError_t start(void (*fn)(P), const TileShape& t, int64_t ctas, const P& p, bool programmatic,
                           const DeviceInfo& dev, cudaStream_t stream) {
    if (ctas == 0) return cudaSuccess;  // grouped: no rows at all
    const int smem = t.smem_bytes(kA16);
    cudaError_t err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return err;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(ctas));
    config.blockDim = dim3(t.threads());
    config.dynamicSmemBytes = static_cast<size_t>(smem);
    config.stream = stream;
    const bool overlap = programmatic && t.kind == TileKind::Decode && arch::kProgrammaticLaunch.contains(dev.cap);
    config.attrs = overlap ? &attr : nullptr;
    config.numAttrs = overlap ? 1 : 0;
    return cudaLaunchKernelEx(&config, fn, p);
  }

  static cudaError_t launch_dense(const char* policy, const Nvfp4Params& p, const DeviceInfo& dev, bool programmatic,
                                  cudaStream_t stream, const char** kernel) {
    const int tile = choose_tile(p.m, kA16, dev, kDecodeTiles);
    *kernel = name(false, policy, tile);
    const TileShape& t = kTileShapes[tile];
    const Nvfp4Params q = planned(p, t, dev);
    return start(kDense[tile], t, dense_ctas(q, t), q, programmatic, dev, stream);
  }
  static cudaError_t launch_grouped(const char* policy, const Nvfp4GroupedParams& g, const DeviceInfo& dev,
                                    bool programmatic, cudaStream_t stream, const char** kernel) {
    const int tile = choose_tile(grouped_rows(g), kA16, dev, kDecodeTiles);
    *kernel = name(true, policy, tile);
    const TileShape& t = kTileShapes[tile];
    const Nvfp4GroupedParams q = planned(g, t, dev);
    return start(kGrouped[tile], t, grouped_ctas(q, t), q, programmatic, dev, stream);
  }

  static const void* probe() { return reinterpret_cast<const void*>(kDense[static_cast<int>(TileId::M128N128)]); }
};

}  // namespace fp8kit::nvfp4
