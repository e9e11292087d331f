# 12.0 and 12.1 as separate cubins for a target that builds an exact guard:
# the 12.1 cubin is the guard's #else.
set(CUDA_ARCHS "12.0;12.1")
add_library(scaled_mm vllm_guard.cu)
set_target_properties(scaled_mm PROPERTIES CUDA_ARCHITECTURES "${CUDA_ARCHS}")
