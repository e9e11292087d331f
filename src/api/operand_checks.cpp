#include "api/operand_checks.hpp"

namespace fp8kit {

fp8kit_status check_scale_mode(const char* operand, int mode) {
  const bool is_a = *operand == 'a';
  const bool known = mode == FP8KIT_SCALE_NONE || mode == FP8KIT_SCALE_TENSOR || mode == FP8KIT_SCALE_BLOCK ||
                     (is_a ? mode == FP8KIT_SCALE_ROW : mode == FP8KIT_SCALE_COL);
  if (!known)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale_mode = %s: must be NONE, TENSOR, %s or BLOCK", operand,
                scale_mode_text(mode).c_str(), is_a ? "ROW" : "COL");
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_scale_pointer(const char* operand, int mode, const float* ptr) {
  if (mode == FP8KIT_SCALE_NONE && ptr)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale is not NULL but %s_scale_mode is NONE", operand, operand);
  if (mode != FP8KIT_SCALE_NONE && !ptr)
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT, "%s_scale is NULL but %s_scale_mode is %s", operand, operand,
                scale_mode_text(mode).c_str());
  if (ptr) return check_aligned(*operand == 'a' ? "a_scale" : "b_scale", ptr, sizeof(float));
  return FP8KIT_STATUS_SUCCESS;
}

fp8kit_status check_scale_modes(int a_mode, int b_mode) {
  FP8KIT_RETURN_IF_FAILED(check_scale_mode("a", a_mode));
  FP8KIT_RETURN_IF_FAILED(check_scale_mode("b", b_mode));
  if ((a_mode == FP8KIT_SCALE_BLOCK) != (b_mode == FP8KIT_SCALE_BLOCK))
    return fail(FP8KIT_STATUS_INVALID_ARGUMENT,
                "a_scale_mode = %s, b_scale_mode = %s: BLOCK scaling must be used on both operands or neither",
                scale_mode_text(a_mode).c_str(), scale_mode_text(b_mode).c_str());
  return FP8KIT_STATUS_SUCCESS;
}

}  // namespace fp8kit
