// Standalone harness of the native Hopper path (sm90_wgmma): correctness
// against a float64 host reference from the exact FP8 values, and timing.
// It calls the path's registry entry directly (no public API needed).
//
//   sm90_harness check [quick]   correctness over shapes x modes x types
//   sm90_harness bench           TFLOP/s and GB/s over the benchmark suite
//   sm90_harness sweep MODE CSV M N K ...   every tile x split candidate per shape
//
// Exit status 0 only if every check passed.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <array>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gemm/dispatch.hpp"
#include "gemm/sm90_fp8_gemm_config.hpp"

using namespace fp8kit;

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

// ---- FP8 / 16-bit codecs (host) -------------------------------------------------
double decode_fp8(fp8kit_dtype t, uint8_t v) {
  const int s = v >> 7;
  int e, m, ebits = t == FP8KIT_DTYPE_E4M3 ? 4 : 5, mbits = 7 - ebits, bias = t == FP8KIT_DTYPE_E4M3 ? 7 : 15;
  e = (v >> mbits) & ((1 << ebits) - 1);
  m = v & ((1 << mbits) - 1);
  double x = e == 0 ? std::ldexp(m, 1 - bias - mbits) : std::ldexp((1 << mbits) + m, e - bias - mbits);
  return s ? -x : x;
}
float bf16_to_f(uint16_t b) {
  uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
float f16_to_f(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float x;
  if (e == 0) x = std::ldexp(static_cast<float>(m), -24);
  else if (e == 31) x = m ? NAN : INFINITY;
  else x = std::ldexp(static_cast<float>(1024 + m), e - 25);
  return s ? -x : x;
}
uint16_t f_to_bf16(float f) {  // round to nearest even (finite inputs)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
uint16_t f_to_f16(float f) {  // via CUDA's host conversion
  __half h = __float2half_rn(f);
  uint16_t r;
  std::memcpy(&r, &h, 2);
  return r;
}
int dtype_bytes(fp8kit_dtype t) { return t == FP8KIT_DTYPE_F32 ? 4 : t == FP8KIT_DTYPE_E4M3 || t == FP8KIT_DTYPE_E5M2 ? 1 : 2; }
double load_el(fp8kit_dtype t, const void* p, int64_t i) {
  if (t == FP8KIT_DTYPE_F32) return static_cast<const float*>(p)[i];
  const uint16_t v = static_cast<const uint16_t*>(p)[i];
  return t == FP8KIT_DTYPE_BF16 ? bf16_to_f(v) : f16_to_f(v);
}
const char* tname(fp8kit_dtype t) {
  switch (t) {
    case FP8KIT_DTYPE_E4M3: return "e4m3";
    case FP8KIT_DTYPE_E5M2: return "e5m2";
    case FP8KIT_DTYPE_BF16: return "bf16";
    case FP8KIT_DTYPE_F16: return "f16";
    default: return "f32";
  }
}
const char* mname(fp8kit_scale_mode m) {
  const char* n[] = {"none", "tensor", "row", "col", "block"};
  return n[m];
}

// Random FP8 with exponents in [2^-3, 2^2]: finite, nonzero, every product
// of similar weight (no term dominates the sum).
uint8_t random_fp8(fp8kit_dtype t, std::mt19937& g) {
  const uint32_t r = g();
  if (t == FP8KIT_DTYPE_E4M3) return static_cast<uint8_t>(((r & 1) << 7) | ((4 + (r >> 1) % 6) << 3) | ((r >> 8) & 7));
  return static_cast<uint8_t>(((r & 1) << 7) | ((12 + (r >> 1) % 6) << 2) | ((r >> 8) & 3));
}

struct Case {
  int m, n, k;
  fp8kit_dtype at, bt, dt;
  fp8kit_scale_mode am, bm;
  bool bias;
  fp8kit_dtype bias_t;
  int pad_a, pad_d;  // extra leading-dimension elements (lda pad multiple of 16)
};

struct DevBuf {
  void* p = nullptr;
  explicit DevBuf(size_t n) { CK(cudaMalloc(&p, std::max<size_t>(n, 16))); }
  ~DevBuf() { cudaFree(p); }
};

DeviceInfo device_info() {
  DeviceInfo d;
  cudaDeviceProp pr;
  CK(cudaGetDevice(&d.device));
  CK(cudaGetDeviceProperties(&pr, d.device));
  d.cap = pr.major * 10 + pr.minor;
  d.sm_count = pr.multiProcessorCount;
  d.smem_per_block_optin = static_cast<int>(pr.sharedMemPerBlockOptin);
  d.smem_per_sm = static_cast<int>(pr.sharedMemPerMultiprocessor);
  d.l2_bytes = pr.l2CacheSize;
  std::snprintf(d.name, sizeof d.name, "%s", pr.name);
  return d;
}

constexpr size_t kWorkspace = size_t{256} << 20;

// Runs one case; returns true if it passes. Prints one line.
// check: run a case with this tile and split count instead of make_plan's
// (configurations the heuristics may pick on other shapes or GPUs).
int g_force_tile = -1;
int g_force_splits = 1;

bool run_case(const Case& c, const DeviceInfo& dev, void* ws, size_t ws_size, std::mt19937& g, bool verbose) {
  // ldd * sizeof(D) must be a multiple of 16 bytes: round up to 8 elements.
  const int64_t lda = c.k + c.pad_a, ldb = c.k, ldd = (c.n + c.pad_d + 7) / 8 * 8;
  const int kb = (c.k + 127) / 128;
  std::vector<uint8_t> a(size_t(c.m) * lda), b(size_t(c.n) * ldb);
  for (auto& v : a) v = random_fp8(c.at, g);
  for (auto& v : b) v = random_fp8(c.bt, g);
  std::uniform_real_distribution<float> us(0.5f, 2.0f), ub(-1.0f, 1.0f);
  auto nscale = [&](fp8kit_scale_mode md, bool is_a) -> size_t {
    switch (md) {
      case FP8KIT_SCALE_TENSOR: return 1;
      case FP8KIT_SCALE_ROW: return c.m;
      case FP8KIT_SCALE_COL: return c.n;
      case FP8KIT_SCALE_BLOCK: return is_a ? size_t(kb) * c.m : size_t((c.n + 127) / 128) * kb;
      default: return 0;
    }
  };
  std::vector<float> sa(nscale(c.am, true)), sb(nscale(c.bm, false));
  for (auto& v : sa) v = us(g);
  for (auto& v : sb) v = us(g);
  std::vector<uint8_t> bias(c.bias ? size_t(c.n) * dtype_bytes(c.bias_t) : 0);
  for (int n = 0; c.bias && n < c.n; ++n) {
    const float x = ub(g);
    if (c.bias_t == FP8KIT_DTYPE_F32) std::memcpy(&bias[n * 4], &x, 4);
    else {
      const uint16_t h = c.bias_t == FP8KIT_DTYPE_BF16 ? f_to_bf16(x) : f_to_f16(x);
      std::memcpy(&bias[n * 2], &h, 2);
    }
  }
  const int db = dtype_bytes(c.dt);
  DevBuf da(a.size()), dbuf(b.size()), dd(size_t(c.m + 1) * ldd * db), dsa(sa.size() * 4), dsb(sb.size() * 4),
      dbias(bias.size());
  CK(cudaMemcpy(da.p, a.data(), a.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dbuf.p, b.data(), b.size(), cudaMemcpyHostToDevice));
  if (!sa.empty()) CK(cudaMemcpy(dsa.p, sa.data(), sa.size() * 4, cudaMemcpyHostToDevice));
  if (!sb.empty()) CK(cudaMemcpy(dsb.p, sb.data(), sb.size() * 4, cudaMemcpyHostToDevice));
  if (!bias.empty()) CK(cudaMemcpy(dbias.p, bias.data(), bias.size(), cudaMemcpyHostToDevice));
  CK(cudaMemset(dd.p, 0xFF, size_t(c.m + 1) * ldd * db));  // poison: NaN in every output dtype; row M is a guard

  GemmParams p{};
  p.m = c.m; p.n = c.n; p.k = c.k; p.k_blocks = kb;
  p.a = static_cast<const uint8_t*>(da.p); p.lda = lda;
  p.b = static_cast<const uint8_t*>(dbuf.p); p.ldb = ldb;
  p.d = dd.p; p.ldd = ldd;
  p.a_type = c.at; p.b_type = c.bt; p.d_type = c.dt;
  p.a_scale_mode = c.am; p.b_scale_mode = c.bm;
  p.a_scale = sa.empty() ? nullptr : static_cast<const float*>(dsa.p);
  p.b_scale = sb.empty() ? nullptr : static_cast<const float*>(dsb.p);
  p.bias = c.bias ? dbias.p : nullptr; p.bias_type = c.bias_t;
  std::string why;
  if (!kSm90WgmmaPath.accepts(p, dev, &why)) {
    std::printf("REFUSED %s\n", why.c_str());
    return false;
  }
  LaunchEnv env;
  env.workspace = ws; env.workspace_size = ws_size;
  const char* kname = "";
  if (g_force_tile >= 0) {
    const sm90::Plan pl = sm90::plan_for(static_cast<sm90::Tile>(g_force_tile), g_force_splits, c.m, c.n, c.k,
                                         dev.sm_count, ws_size);
    CK(sm90::launch_plan(p, dev, env, nullptr, pl, &kname));
  } else {
    CK(kSm90WgmmaPath.launch(p, dev, env, nullptr, &kname));
  }
  CK(cudaDeviceSynchronize());
  std::vector<uint8_t> out(size_t(c.m + 1) * ldd * db);
  CK(cudaMemcpy(out.data(), dd.p, out.size(), cudaMemcpyDeviceToHost));

  // Every element written (poison gone), padding untouched.
  int64_t unwritten = 0, pad_touched = 0;
  for (int64_t m = 0; m <= c.m; ++m)
    for (int64_t n = 0; n < ldd; ++n) {
      const double v = load_el(c.dt, out.data(), m * ldd + n);
      if (n < c.n && m < c.m) unwritten += std::isnan(v);
      else pad_touched += !std::isnan(v);
    }

  // Reference on sampled rows (all if M <= 256), float64 from the exact FP8 values.
  std::vector<int> rows;
  if (c.m <= 256) for (int m = 0; m < c.m; ++m) rows.push_back(m);
  else {
    for (int m = 0; m < 24; ++m) rows.push_back(m);
    for (int m = c.m - 24; m < c.m; ++m) rows.push_back(m);
    for (int i = 0; i < 48; ++i) rows.push_back(24 + g() % (c.m - 48));
  }
  std::vector<float> bdec(size_t(c.n) * c.k);
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t k = 0; k < c.k; ++k) bdec[n * c.k + k] = float(decode_fp8(c.bt, b[n * ldb + k]));
  const double out_ulp = c.dt == FP8KIT_DTYPE_BF16 ? std::ldexp(1.0, -8) : c.dt == FP8KIT_DTYPE_F16 ? std::ldexp(1.0, -11) : 0.0;
  // vs sum |terms|: FP8 wgmma adds with ~14 mantissa bits inside each
  // 128-deep K block (4 wgmma k32 steps); the kernel promotes each block to f32.
  const double acc_tol = std::ldexp(1.0, -11);
  std::vector<double> worst_rel(rows.size(), 0.0), num(rows.size(), 0.0), den(rows.size(), 0.0);
  std::vector<int64_t> bad(rows.size(), 0);
  auto work = [&](size_t r0, size_t r1) {
    std::vector<double> arow(c.k);
    for (size_t ri = r0; ri < r1; ++ri) {
      const int m = rows[ri];
      for (int k = 0; k < c.k; ++k) arow[k] = decode_fp8(c.at, a[size_t(m) * lda + k]);
      for (int n = 0; n < c.n; ++n) {
        double ref = 0, mag = 0;
        const float* brow = &bdec[size_t(n) * c.k];
        for (int q = 0; q < kb; ++q) {
          double part = 0, pmag = 0;
          for (int k = q * 128; k < std::min(c.k, q * 128 + 128); ++k) {
            const double t = arow[k] * brow[k];
            part += t;
            pmag += std::fabs(t);
          }
          double s = 1;
          if (c.am == FP8KIT_SCALE_TENSOR) s *= sa[0];
          if (c.am == FP8KIT_SCALE_ROW) s *= sa[m];
          if (c.am == FP8KIT_SCALE_BLOCK) s *= sa[size_t(q) * c.m + m];
          if (c.bm == FP8KIT_SCALE_TENSOR) s *= sb[0];
          if (c.bm == FP8KIT_SCALE_COL) s *= sb[n];
          if (c.bm == FP8KIT_SCALE_BLOCK) s *= sb[size_t(n / 128) * kb + q];
          ref += part * s;
          mag += pmag * s;
        }
        if (c.bias) {
          const double bv = load_el(c.bias_t, bias.data(), n);
          ref += bv;
          mag += std::fabs(bv);
        }
        const double got = load_el(c.dt, out.data(), int64_t(m) * ldd + n);
        const double err = std::fabs(got - ref);
        const double tol = out_ulp * std::fabs(ref) + acc_tol * mag + 1e-30;
        if (!(err <= tol)) ++bad[ri];
        if (std::fabs(ref) > 1e-2 * mag) worst_rel[ri] = std::max(worst_rel[ri], err / std::fabs(ref));
        num[ri] += err * err;
        den[ri] += ref * ref;
      }
    }
  };
  const size_t nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> th;
  for (size_t t = 0; t < nt; ++t) th.emplace_back(work, rows.size() * t / nt, rows.size() * (t + 1) / nt);
  for (auto& t : th) t.join();
  double wr = 0, nu = 0, de = 0;
  int64_t nbad = 0;
  for (size_t i = 0; i < rows.size(); ++i) wr = std::max(wr, worst_rel[i]), nu += num[i], de += den[i], nbad += bad[i];
  const double normwise = std::sqrt(nu / std::max(de, 1e-300));
  const bool ok = nbad == 0 && unwritten == 0 && pad_touched == 0;
  if (verbose || !ok)
    std::printf("%s %5dx%5dx%5d %s.%s->%-4s a:%-6s b:%-6s bias:%-4s %-34s maxrel %.2e norm %.2e bad %lld unwritten %lld pad %lld\n",
                ok ? "PASS" : "FAIL", c.m, c.n, c.k, tname(c.at), tname(c.bt), tname(c.dt), mname(c.am), mname(c.bm),
                c.bias ? tname(c.bias_t) : "-", kname, wr, normwise, (long long)nbad, (long long)unwritten,
                (long long)pad_touched);
  return ok;
}

// A few small cases over every tile configuration and split-K, for the
// sanitizers (which slow kernels down by orders of magnitude).
int sanitize() {
  const DeviceInfo dev = device_info();
  DevBuf ws(kWorkspace);
  std::mt19937 g(777);
  const fp8kit_dtype E4 = FP8KIT_DTYPE_E4M3, E5 = FP8KIT_DTYPE_E5M2, BF = FP8KIT_DTYPE_BF16, F = FP8KIT_DTYPE_F32;
  // 17 x 600 x 8320: decode split-K (2 splits); 256 x 512: large-tile split-K;
  // 1000 x 2100: the wide tile, its stages reused within a unit.
  const int shapes[][3] = {{1, 129, 16}, {17, 600, 8320}, {200, 300, 528}, {256, 512, 2048}, {1000, 2100, 528}};
  int fails = 0, total = 0;
  for (const auto& s : shapes) {
    Case c1{s[0], s[1], s[2], E4, E5, BF, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, true, F, 16, 8};
    Case c2{s[0], s[1], s[2], E5, E4, F, FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL, true, BF, 0, 0};
    Case c3{s[0], s[1], s[2], E4, E4, BF, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, false, BF, 16, 0};
    for (const Case& c : {c1, c2, c3}) fails += !run_case(c, dev, ws.p, kWorkspace, g, true), ++total;
  }
  {  // The wide block tile with two K splits (the reduction of two sub-tiles).
    g_force_tile = static_cast<int>(sm90::Tile::kWideBlock);
    g_force_splits = 2;
    Case c{1000, 2100, 528, E5, E4, F, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, true, BF, 0, 0};
    fails += !run_case(c, dev, ws.p, kWorkspace, g, true);
    ++total;
    g_force_tile = -1;
  }
  {  // The swapped block tile without workspace (no split): 16 K blocks over 8
     // stages, so its scale slots are rewritten while consumers use others.
    Case c{17, 600, 2048, E4, E4, BF, FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, false, BF, 0, 0};
    fails += !run_case(c, dev, nullptr, 0, g, true);
    ++total;
  }
  std::printf("sanitize: %d / %d passed\n", total - fails, total);
  return fails ? 1 : 0;
}

int check(bool quick) {
  const DeviceInfo dev = device_info();
  DevBuf ws(kWorkspace);
  std::mt19937 g(12345);
  const fp8kit_dtype E4 = FP8KIT_DTYPE_E4M3, E5 = FP8KIT_DTYPE_E5M2, BF = FP8KIT_DTYPE_BF16, H = FP8KIT_DTYPE_F16,
                     F = FP8KIT_DTYPE_F32;
  struct Shape { int m, n, k; };
  std::vector<Shape> shapes = {{1, 129, 16}, {17, 2112, 7168}, {333, 1000, 528}, {64, 256, 256},
                               {65, 300, 1040}, {128, 7168, 2048}, {16, 4096, 4096},
                               {512, 2112, 7168}, {1000, 2100, 1040},  // 1000 x 2100: the 256 x 128 tile
                               {5, 300, 8320}, {200, 300, 4224}};        // split-K: decode (2), large tiles (4)
  if (!quick) shapes.push_back({4095, 4097, 4096});
  const fp8kit_scale_mode modes[][2] = {{FP8KIT_SCALE_NONE, FP8KIT_SCALE_NONE},
                                        {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR},
                                        {FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL},
                                        {FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_COL},
                                        {FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK}};
  const fp8kit_dtype types[][2] = {{E4, E4}, {E4, E5}, {E5, E4}, {E5, E5}};
  const fp8kit_dtype outs[] = {BF, H, F};
  int fails = 0, total = 0;
  int rot = 0;
  for (const Shape& s : shapes)
    for (const auto& md : modes) {
      // Rotate type pairs, output dtypes, bias and padding over the cases.
      for (int v = 0; v < (quick ? 1 : 2); ++v, ++rot) {
        Case c{s.m, s.n, s.k, types[rot % 4][0], types[rot % 4][1], outs[rot % 3], md[0], md[1],
               (rot % 4) != 3, outs[(rot / 3) % 3], (rot % 2) ? 16 : 0, (rot % 3 == 1) ? 8 : 0};
        if (s.m * int64_t(s.n) > (int64_t{1} << 22) && v > 0) continue;
        fails += !run_case(c, dev, ws.p, kWorkspace, g, true);
        ++total;
      }
    }
  // Every type pair x out dtype on one ragged shape per tile configuration.
  for (const Shape& s : std::vector<Shape>{{33, 1000, 528}, {333, 1000, 528}, {1000, 2100, 528}})
    for (const auto& tp : types)
      for (fp8kit_dtype od : outs)
        for (int blk = 0; blk < 2; ++blk) {
          Case c{s.m, s.n, s.k, tp[0], tp[1], od, blk ? FP8KIT_SCALE_BLOCK : FP8KIT_SCALE_ROW,
                 blk ? FP8KIT_SCALE_BLOCK : FP8KIT_SCALE_COL, true, od, 16, 8};
          fails += !run_case(c, dev, ws.p, kWorkspace, g, false);
          ++total;
        }
  // Forced configurations: the wide tiles with split-K, ragged M, N and K.
  for (int blk = 0; blk < 2; ++blk)
    for (int splits : {2, 3}) {
      g_force_tile = static_cast<int>(blk ? sm90::Tile::kWideBlock : sm90::Tile::kWide);
      g_force_splits = splits;
      for (fp8kit_dtype od : {BF, F}) {
        Case c{1000, 2100, 1040, E4, blk ? E4 : E5, od, blk ? FP8KIT_SCALE_BLOCK : FP8KIT_SCALE_ROW,
               blk ? FP8KIT_SCALE_BLOCK : FP8KIT_SCALE_COL, true, od, 16, 8};
        fails += !run_case(c, dev, ws.p, kWorkspace, g, true);
        ++total;
      }
      g_force_tile = -1;
    }
  // No workspace: the split-K plans must fall back to one split.
  {
    Case c{5, 300, 8320, E4, E4, BF, FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, true, BF, 0, 0};
    fails += !run_case(c, dev, nullptr, 0, g, true);
    ++total;
  }
  std::printf("check: %d / %d passed\n", total - fails, total);
  return fails ? 1 : 0;
}

// ---- Timing ---------------------------------------------------------------------
__global__ void fill_fp8(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    p[i] = static_cast<uint8_t>(((h & 1) << 7) | ((4 + (h >> 1) % 6) << 3) | ((h >> 8) & 7));  // e4m3, 2^-3..2^2
  }
}
__global__ void fill_f32(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = v;
}

__global__ void empty_kernel() {}

// Fixed costs of back-to-back launches, for the decode floor: an empty
// kernel, a 16-byte memset plus an empty kernel, and a device copy of `bytes`.
void launch_floor(size_t bytes) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  DevBuf src(bytes), dst(bytes), small(16);
  auto time = [&](auto&& fn) {
    for (int i = 0; i < 10; ++i) fn();
    CK(cudaDeviceSynchronize());
    const int n = 200;
    CK(cudaEventRecord(e0));
    for (int i = 0; i < n; ++i) fn();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e3 / n;
  };
  const double t_empty = time([&] { empty_kernel<<<132, 384>>>(); });
  const double t_memset = time([&] { CK(cudaMemsetAsync(small.p, 0, 16)); empty_kernel<<<132, 384>>>(); });
  const double t_copy = time([&] { CK(cudaMemcpyAsync(dst.p, src.p, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("FLOOR empty kernel %.2f us; memset + empty %.2f us; D2D copy of %.1f MB %.2f us = %.0f GB/s (read+write)\n",
              t_empty, t_memset, bytes / 1e6, t_copy, 2.0 * bytes / t_copy * 1e-3);
}

bool g_sweep = false;  // bench: time every configuration candidate instead of the chosen plan

int bench(int argc, char** argv) {
  const DeviceInfo dev = device_info();
  launch_floor(size_t{4096} * 4096);
  launch_floor(size_t{57344} * 8192);
  DevBuf ws(kWorkspace);
  const int ms[] = {1, 16, 64, 128, 512, 2048, 4096, 8192};
  const int nk[][2] = {{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}, {57344, 8192}, {8192, 28672},
                       {2112, 7168}, {24576, 1536}, {32768, 512},  {7168, 16384}, {4096, 7168}, {7168, 2048},
                       {65536, 5120}, {5120, 32768}};
  struct Mode { const char* name; fp8kit_scale_mode a, b; double anchor_geo, anchor_best, anchor_decode; };
  const Mode modes[] = {{"tensor", FP8KIT_SCALE_TENSOR, FP8KIT_SCALE_TENSOR, 1177, 1455, 2583},
                        {"rowcol", FP8KIT_SCALE_ROW, FP8KIT_SCALE_COL, 1046, 1291, 1538},
                        {"block", FP8KIT_SCALE_BLOCK, FP8KIT_SCALE_BLOCK, 972, 1125, 1992}};
  const char* only = argc > 2 ? argv[2] : nullptr;
  FILE* csv = argc > 3 && std::strcmp(argv[3], "-") ? std::fopen(argv[3], "w") : nullptr;
  if (csv) std::fprintf(csv, "mode,m,n,k,us,tflops,gbps,kernel\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (const Mode& md : modes) {
    if (only && std::strcmp(only, md.name) && std::strcmp(only, "all")) continue;
    double log_sum = 0, best = 0, log_dec = 0;
    int cnt = 0, cnt_dec = 0;
    std::vector<std::array<int, 3>> list;
    if (argc > 6) {  // explicit shapes: bench MODE CSV M N K [M N K ...]
      for (int i = 4; i + 2 < argc; i += 3) list.push_back({std::atoi(argv[i]), std::atoi(argv[i + 1]), std::atoi(argv[i + 2])});
    } else {
      for (int m : ms) for (auto& p : nk) list.push_back({m, p[0], p[1]});
      list.push_back({8192, 8192, 8192});
      list.push_back({8192, 16384, 16384});
    }
    for (auto& s : list) {
      const int m = s[0], n = s[1], k = s[2];
      const size_t ab = size_t(m) * k + size_t(n) * k;
      const int sets = static_cast<int>(std::max<size_t>(1, std::min<size_t>(8, (size_t(512) << 20) / ab + 1)));
      const int kb = (k + 127) / 128;
      DevBuf A(size_t(m) * k * sets), B(size_t(n) * k * sets), D(size_t(m) * n * 2);
      DevBuf SA(sizeof(float) * std::max<size_t>(size_t(kb) * m, m)), SB(sizeof(float) * std::max<size_t>(size_t(kb) * ((n + 127) / 128), n));
      fill_fp8<<<1024, 256>>>(static_cast<uint8_t*>(A.p), size_t(m) * k * sets, 1);
      fill_fp8<<<1024, 256>>>(static_cast<uint8_t*>(B.p), size_t(n) * k * sets, 2);
      fill_f32<<<256, 256>>>(static_cast<float*>(SA.p), std::max<size_t>(size_t(kb) * m, m), 0.75f);
      fill_f32<<<256, 256>>>(static_cast<float*>(SB.p), std::max<size_t>(size_t(kb) * ((n + 127) / 128), n), 1.25f);
      CK(cudaGetLastError());
      GemmParams p{};
      p.m = m; p.n = n; p.k = k; p.k_blocks = kb;
      p.lda = k; p.ldb = k; p.ldd = n;
      p.a_type = p.b_type = FP8KIT_DTYPE_E4M3; p.d_type = FP8KIT_DTYPE_BF16;
      p.a_scale_mode = md.a; p.b_scale_mode = md.b;
      p.a_scale = static_cast<float*>(SA.p); p.b_scale = static_cast<float*>(SB.p);
      p.d = D.p; p.bias = nullptr; p.bias_type = FP8KIT_DTYPE_BF16;
      LaunchEnv env; env.workspace = ws.p; env.workspace_size = kWorkspace;
      const char* kname = "";
      const sm90::Plan* forced = nullptr;  // sweep: this plan instead of make_plan's
      auto run = [&](int i) {
        p.a = static_cast<const uint8_t*>(A.p) + size_t(i % sets) * m * k;
        p.b = static_cast<const uint8_t*>(B.p) + size_t(i % sets) * n * k;
        if (forced) CK(sm90::launch_plan(p, dev, env, nullptr, *forced, &kname));
        else CK(kSm90WgmmaPath.launch(p, dev, env, nullptr, &kname));
      };
      const double flop = 2.0 * m * n * double(k);
      // Median over groups of back-to-back launches (about 20 ms of work).
      auto time_it = [&] {
        for (int i = 0; i < 3; ++i) run(i);
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e0));
        run(0);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float one = 0;
        CK(cudaEventElapsedTime(&one, e0, e1));
        const int reps = std::max(5, std::min(50, int(20.0 / std::max(one, 1e-3f))));
        const int per = std::max(1, std::min(20, int(2.0 / std::max(one, 1e-3f))));
        std::vector<float> t;
        for (int r = 0; r < reps; ++r) {
          CK(cudaEventRecord(e0));
          for (int i = 0; i < per; ++i) run(r * per + i + 1);
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float ms_ = 0;
          CK(cudaEventElapsedTime(&ms_, e0, e1));
          t.push_back(ms_ / per);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2] * 1e-3;
      };
      if (g_sweep) {  // every tile x split candidate (decode: the swapped tile)
        const bool blk = md.a == FP8KIT_SCALE_BLOCK;
        const sm90::Plan chosen = sm90::make_plan(m, n, k, blk, dev.sm_count, kWorkspace);
        std::vector<sm90::Tile> tiles;
        if (m <= sm90::kSwapMaxM) tiles = {blk ? sm90::Tile::kSmallBlock : sm90::Tile::kSmall};
        else tiles = {blk ? sm90::Tile::kLargeBlock : sm90::Tile::kLarge, blk ? sm90::Tile::kWideBlock : sm90::Tile::kWide};
        for (sm90::Tile tile : tiles)
          for (int splits : {1, 2, 3, 4, 6, 8, 12, 16}) {
            const sm90::Plan pl = sm90::plan_for(tile, splits, m, n, k, dev.sm_count, kWorkspace);
            if (pl.splits != splits) continue;
            forced = &pl;
            const double sec = time_it();
            const bool is_chosen = pl.tile == chosen.tile && pl.splits == chosen.splits;
            std::printf("SWEEP %-6s %5d %6d %6d %dx%d splits %d units %5d waves %.2f %9.1f us %7.1f TFLOP/s%s\n",
                        md.name, m, n, k, pl.block_m, pl.block_n, pl.splits, pl.num_units,
                        double(pl.num_units) / dev.sm_count, sec * 1e6, flop / sec * 1e-12, is_chosen ? "  <- plan" : "");
            if (csv) std::fprintf(csv, "%s,%d,%d,%d,%d,%d,%d,%.2f,%d\n", md.name, m, n, k, pl.block_m, pl.splits,
                                  pl.num_units, sec * 1e6, is_chosen);
            std::fflush(stdout);
          }
        continue;
      }
      std::vector<float> t{static_cast<float>(time_it() * 1e3)};
      const double sec = t[t.size() / 2] * 1e-3;
      const double tf = flop / sec * 1e-12;
      const double gbs = (ab + size_t(m) * n * 2) / sec * 1e-9;
      if (m >= 512) log_sum += std::log(tf), ++cnt, best = std::max(best, tf);
      if (m <= 16) log_dec += std::log(gbs), ++cnt_dec;
      std::printf("%-6s %5d %6d %6d %9.1f us %7.1f TFLOP/s %7.1f GB/s %s\n", md.name, m, n, k, sec * 1e6, tf, gbs, kname);
      if (csv) std::fprintf(csv, "%s,%d,%d,%d,%.2f,%.1f,%.1f,%s\n", md.name, m, n, k, sec * 1e6, tf, gbs, kname);
      std::fflush(stdout);
    }
    const double geo = std::exp(log_sum / std::max(cnt, 1)), dec = std::exp(log_dec / std::max(cnt_dec, 1));
    std::printf("SUMMARY %-6s geomean(M>=512) %.0f TFLOP/s (cuBLASLt %.0f, ratio %.3f)  best %.0f (cuBLASLt %.0f)  "
                "decode(M<=16) %.0f GB/s = %.3f of 4290 (cuBLASLt %.0f)\n",
                md.name, geo, md.anchor_geo, geo / md.anchor_geo, best, md.anchor_best, dec, dec / 4290.0,
                md.anchor_decode);
  }
  if (csv) std::fclose(csv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "check";
  if (mode == "check") return check(false);
  if (mode == "quick") return check(true);
  if (mode == "bench") return bench(argc, argv);
  if (mode == "sweep") return g_sweep = true, bench(argc, argv);
  if (mode == "sanitize") return sanitize();
  std::fprintf(stderr, "usage: sm90_harness check|quick|bench [tensor|rowcol|block|all] [csv]\n");
  return 2;
}
