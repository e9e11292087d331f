#include "reference/nvfp4_codec.hpp"

#include <cmath>

#include "core/nvfp4_layout.hpp"
#include "reference/fp8_codec.hpp"

namespace fp8kit::ref {
namespace {

constexpr uint8_t kNibbleMask = 0xf;
constexpr uint8_t kSignBit = 0x8;
constexpr double kMagnitudes[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
constexpr int kNibbleBits = 4;

int64_t scale_index(fp8kit_nvfp4_scale_layout layout, int64_t row, int64_t kb, int64_t k) {
  return nvfp4::is_swizzled(layout) ? nvfp4::swizzled_offset(row, kb, nvfp4::padded_blocks(k))
                                    : nvfp4::linear_offset(row, kb, nvfp4::blocks_of(k));
}

template <bool kAbs>
double element(const HostNvfp4Gemm& g, int64_t m, int64_t n) {
  double total = 0.0;
  for (int64_t k = 0; k < g.k; ++k) {
    const double p = g.a.at(m, k, g.k) * g.b.at(n, k, g.k);
    total += kAbs ? std::fabs(p) : p;
  }
  total *= kAbs ? std::fabs(g.alpha) : g.alpha;
  if (g.bias) {
    const double bv = load_element(g.bias_type, g.bias, n);
    total += kAbs ? std::fabs(bv) : bv;
  }
  return total;
}

}  // namespace

double decode_e2m1(uint8_t nibble) {
  const double v = kMagnitudes[nibble & 0x7];
  return (nibble & kSignBit) ? -v : v;
}

uint8_t encode_e2m1(double x) {
  const uint8_t sign = std::signbit(x) ? kSignBit : 0;
  const double a = std::fabs(x);
  if (std::isnan(x)) return 0;
  // Ties between neighbours m_i and m_{i+1} go to the even code (i even).
  uint8_t best = 0;
  for (uint8_t i = 0; i + 1 < 8; ++i) {
    const double mid = (kMagnitudes[i] + kMagnitudes[i + 1]) / 2;
    if (a > mid || (a == mid && (i % 2) == 1)) best = i + 1;
  }
  return sign | best;
}

uint8_t nibble_at(const uint8_t* row, int64_t k) {
  return static_cast<uint8_t>((row[k / 2] >> ((k % 2) * kNibbleBits)) & kNibbleMask);
}

void set_nibble(uint8_t* row, int64_t k, uint8_t nibble) {
  const int shift = static_cast<int>(k % 2) * kNibbleBits;
  row[k / 2] = static_cast<uint8_t>((row[k / 2] & ~(kNibbleMask << shift)) | ((nibble & kNibbleMask) << shift));
}

uint8_t scale_byte(const uint8_t* scales, fp8kit_nvfp4_scale_layout layout, int64_t row, int64_t kb, int64_t k) {
  return scales[scale_index(layout, row, kb, k)];
}

void set_scale_byte(uint8_t* scales, fp8kit_nvfp4_scale_layout layout, int64_t row, int64_t kb, int64_t k,
                    uint8_t value) {
  scales[scale_index(layout, row, kb, k)] = value;
}

double HostNvfp4Operand::at(int64_t r, int64_t k, int64_t depth) const {
  if (type != FP8KIT_DTYPE_NVFP4) return load_element(type, data, r * ld + k);
  const double v = decode_e2m1(nibble_at(data + r * ld, k));
  // The scales are unsigned E4M3: the kernels ignore the sign bit, and so does this.
  constexpr uint8_t kUnsigned = 0x7f;
  return v * decode_e4m3(scale_byte(scales, layout, r, k / nvfp4::kBlock, depth) & kUnsigned);
}

double nvfp4_reference_element(const HostNvfp4Gemm& g, int64_t m, int64_t n) { return element<false>(g, m, n); }
double nvfp4_reference_magnitude(const HostNvfp4Gemm& g, int64_t m, int64_t n) { return element<true>(g, m, n); }

void nvfp4_quantize_reference(const std::vector<float>& x, int64_t m, int64_t k, float global_scale,
                              const std::vector<float>& rms_weight, float eps, fp8kit_nvfp4_scale_layout layout,
                              std::vector<uint8_t>* q, std::vector<uint8_t>* scales) {
  q->assign(static_cast<size_t>(m * k / 2), 0);
  scales->assign(static_cast<size_t>(nvfp4::scale_bytes(m, k, layout)), 0);
  std::vector<float> y(static_cast<size_t>(k));
  for (int64_t r = 0; r < m; ++r) {
    float inv_rms = 1.f;
    if (!rms_weight.empty()) {
      float sum = 0.f;
      for (int64_t i = 0; i < k; ++i) sum += x[r * k + i] * x[r * k + i];
      inv_rms = 1.f / std::sqrt(sum / static_cast<float>(k) + eps);
    }
    for (int64_t i = 0; i < k; ++i)
      y[i] = rms_weight.empty() ? x[r * k + i] : x[r * k + i] * rms_weight[i] * inv_rms;
    for (int64_t kb = 0; kb < nvfp4::blocks_of(k); ++kb) {
      float amax = 0.f;
      for (int i = 0; i < nvfp4::kBlock; ++i) amax = std::fmax(amax, std::fabs(y[kb * nvfp4::kBlock + i]));
      const uint8_t s = encode_e4m3(global_scale * (amax * (1.f / nvfp4::kE2m1Max)), true);
      const float sv = static_cast<float>(decode_e4m3(s));
      const float mul = sv > 0.f ? 1.f / (sv * (1.f / global_scale)) : 0.f;
      set_scale_byte(scales->data(), layout, r, kb, k, s);
      for (int i = 0; i < nvfp4::kBlock; ++i) {
        const int64_t e = kb * nvfp4::kBlock + i;
        set_nibble(q->data() + r * (k / 2), e, encode_e2m1(y[e] * mul));
      }
    }
  }
}

}  // namespace fp8kit::ref
