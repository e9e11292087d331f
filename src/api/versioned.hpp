// The versioned structs of fp8kit.h (struct_size first; docs/abi.md): how the
// library reads a caller's struct of any size and writes an output struct.
//
// Each struct has a Versioned<T> entry: its name in messages and the size of
// its first released layout (the smallest struct_size accepted). A caller's
// struct of struct_size bytes is read as its first min(struct_size, sizeof T)
// bytes, the rest taken as zero; bytes past sizeof T (a newer header's
// fields) must be zero, or the call is refused, since this library would
// ignore what they ask for.
#pragma once

#include <cstddef>
#include <cstring>

#include "core/error.hpp"
#include "fp8kit/fp8kit.h"

namespace fp8kit {

// The largest struct_size taken as a struct rather than garbage: far above
// any layout fp8kit will grow to, and small enough that reading it is safe.
constexpr size_t kMaxStructSize = 4096;

template <typename T>
struct Versioned;

// A versioned struct's sizes. `kFirstSize`: the end of the last field of its
// first release, written as offsetof so that growing the struct does not
// move it. `kLastFieldEnd`: the end of the last field now (a struct that
// grows updates it).
template <size_t kFirst, size_t kLast = kFirst>
struct VersionedSizes {
  static constexpr size_t kFirstSize = kFirst;
  static constexpr size_t kLastFieldEnd = kLast;
};

// `kName`: the struct's argument name in messages.
template <>
struct Versioned<fp8kit_gemm_desc>
    : VersionedSizes<offsetof(fp8kit_gemm_desc, op) + sizeof(fp8kit_gemm_operands)> {
  static constexpr const char* kName = "desc";
};
template <>
struct Versioned<fp8kit_grouped_gemm_desc>
    : VersionedSizes<offsetof(fp8kit_grouped_gemm_desc, op) + sizeof(fp8kit_gemm_operands)> {
  static constexpr const char* kName = "desc";
};
template <>
struct Versioned<fp8kit_quantize_desc>
    : VersionedSizes<offsetof(fp8kit_quantize_desc, rms_weight) + sizeof(const void*)> {
  static constexpr const char* kName = "desc";
};
template <>
struct Versioned<fp8kit_gemm_options>
    : VersionedSizes<offsetof(fp8kit_gemm_options, workspace_zeroed) + sizeof(int),
                     offsetof(fp8kit_gemm_options, reserved) + sizeof(int)> {
  static constexpr const char* kName = "options";
};
template <>
struct Versioned<fp8kit_path_choice> : VersionedSizes<offsetof(fp8kit_path_choice, image) + sizeof(const char*)> {
  static constexpr const char* kName = "choice";
};

template <>
struct Versioned<fp8kit_nvfp4_gemm_desc> : VersionedSizes<offsetof(fp8kit_nvfp4_gemm_desc, op) + sizeof(fp8kit_nvfp4_operands)> {
  static constexpr const char* kName = "desc";
};
template <>
struct Versioned<fp8kit_nvfp4_grouped_gemm_desc> : VersionedSizes<offsetof(fp8kit_nvfp4_grouped_gemm_desc, op) + sizeof(fp8kit_nvfp4_operands)> {
  static constexpr const char* kName = "desc";
};
template <>
struct Versioned<fp8kit_nvfp4_quantize_desc> : VersionedSizes<offsetof(fp8kit_nvfp4_quantize_desc, eps) + sizeof(float)> {
  static constexpr const char* kName = "desc";
};

// The struct_size at the head of the caller's struct `p`, checked: at least
// the first release's size and not absurd.
template <typename T>
fp8kit_status struct_size_of(const T* p, size_t* size) {
  using V = Versioned<T>;
  std::memcpy(size, p, sizeof *size);
  if (*size < V::kFirstSize || *size > kMaxStructSize)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                "%s->struct_size = %zu: must be sizeof the struct of the header the caller was built with (this "
                "library's is %zu; at least %zu); set it with the struct's FP8KIT_*_INIT or *_init",
                V::kName, *size, sizeof(T), V::kFirstSize);
  return FP8KIT_STATUS_SUCCESS;
}

// `*out` = the caller's struct `in` (not null), as this library knows it.
template <typename T>
fp8kit_status read_versioned(const T* in, T* out) {
  using V = Versioned<T>;
  size_t size = 0;
  FP8KIT_RETURN_IF_FAILED(struct_size_of(in, &size));
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  for (size_t i = sizeof(T); i < size; ++i)
    if (bytes[i] != 0)
      return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                  "%s->struct_size = %zu: the struct is larger than this library's (%zu bytes, fp8kit %s) and sets "
                  "fields it does not know (byte %zu is not zero)",
                  V::kName, size, sizeof(T), FP8KIT_VERSION_STRING, i);
  *out = T{};
  std::memcpy(out, in, size < sizeof(T) ? size : sizeof(T));
  out->struct_size = sizeof(T);
  return FP8KIT_STATUS_SUCCESS;
}

// Writes `value` to the caller's output struct `out` (not null; its
// struct_size set by the caller), at most struct_size bytes of it.
template <typename T>
fp8kit_status write_versioned(const T& value, T* out) {
  size_t size = 0;
  FP8KIT_RETURN_IF_FAILED(struct_size_of(out, &size));
  T copy = value;
  copy.struct_size = size;
  std::memcpy(out, &copy, size < sizeof(T) ? size : sizeof(T));
  return FP8KIT_STATUS_SUCCESS;
}

// Every struct ends at its last field (no tail padding): a field added at
// the end then always grows sizeof, so an older library sees the larger
// struct_size and refuses a request it cannot honour instead of taking the
// new field for padding.
template <typename T>
constexpr bool ends_at_last_field() {
  return sizeof(T) == Versioned<T>::kLastFieldEnd;
}
static_assert(ends_at_last_field<fp8kit_gemm_desc>() && ends_at_last_field<fp8kit_grouped_gemm_desc>() &&
                  ends_at_last_field<fp8kit_quantize_desc>() && ends_at_last_field<fp8kit_gemm_options>() &&
                  ends_at_last_field<fp8kit_path_choice>() && ends_at_last_field<fp8kit_nvfp4_gemm_desc>() &&
                  ends_at_last_field<fp8kit_nvfp4_grouped_gemm_desc>() &&
                  ends_at_last_field<fp8kit_nvfp4_quantize_desc>() &&
                  sizeof(fp8kit_nvfp4_operands) == offsetof(fp8kit_nvfp4_operands, bias_type) + sizeof(fp8kit_dtype),
              "a versioned struct has no tail padding");

}  // namespace fp8kit
