# 12.0 and 12.1 as separate cubins: with an exact guard in the sources, the
# 12.1 cubin is the guard's #else.
set(CUDA_ARCHS "12.0;12.1")
