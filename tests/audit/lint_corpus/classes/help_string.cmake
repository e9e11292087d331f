# Class 1: a cached variable's help string and an option's text are prose, not
# architecture lists. Only the default value ("90a") is a target.
set(GEMM_ARCHS "90a" CACHE STRING "targets to build, e.g. 90a for Hopper, 100a for Blackwell")
option(GEMM_BUILD_SM100A "also build the 100a kernels" OFF)
set_property(CACHE GEMM_ARCHS PROPERTY HELPSTRING "120a for RTX 50")
