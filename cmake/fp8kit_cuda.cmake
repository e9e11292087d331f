# Per-family compilation of kernel sources.
#
# FP8KIT_CUDA_TARGETS lists GPU capabilities (75 ... 121). Each kernel source
# declares the capability range where it is valid; it is compiled for the
# listed targets inside that range and nothing else, so no image fp8kit ships
# is a stub. A source with no target in range is not built at all, and its
# path is left out of the dispatch registry.

# fp8kit_kernel_family(<var> SOURCES <files...> RANGE <lo> <hi>
#                      [SUFFIX a|f] [PTX_FROM <cap>])
# SUFFIX a: one arch-specific image per listed target (sm_90a loads on 9.0 only).
# SUFFIX f: ONE family image, for the lowest listed target in range (sm_120f
# loads on 12.0, 12.1 and every later 12.x); nvcc refuses sm_120 and sm_120f
# in one command, which is why such a source is a family of its own.
# Creates object library <var>_objects and sets in the parent scope:
#   <var>_ENABLED  ON/OFF
#   <var>_IMAGES   C++ initialiser of fp8kit::arch::Image entries
#   <var>_TARGETS  human-readable list ("sm_89 sm_90 compute_120")
function(fp8kit_kernel_family var)
  cmake_parse_arguments(K "" "SUFFIX;PTX_FROM" "SOURCES;RANGE" ${ARGN})
  list(GET K_RANGE 0 lo)
  list(GET K_RANGE 1 hi)
  set(flags "")
  set(images "")
  set(names "")
  set(newest 0)
  set(variant "fp8kit::arch::Variant::Plain")
  set(family_image OFF)
  if(K_SUFFIX STREQUAL "a")
    set(variant "fp8kit::arch::Variant::ArchSpecific")
  elseif(K_SUFFIX STREQUAL "f")
    set(variant "fp8kit::arch::Variant::FamilySpecific")
    set(family_image ON)
  endif()
  set(targets ${FP8KIT_CUDA_TARGETS})
  list(SORT targets COMPARE NATURAL)
  foreach(cap IN LISTS targets)
    if(family_image AND NOT flags STREQUAL "")
      break()  # the family image of the lowest listed target covers the rest
    endif()
    if(cap GREATER_EQUAL lo AND cap LESS hi)
      list(APPEND flags "-gencode=arch=compute_${cap}${K_SUFFIX},code=sm_${cap}${K_SUFFIX}")
      string(APPEND images "{fp8kit::arch::ImageKind::Sass, ${cap}, ${variant}},")
      string(APPEND names " sm_${cap}${K_SUFFIX}")
      if(cap GREATER newest)
        set(newest ${cap})
      endif()
    endif()
  endforeach()
  if(flags STREQUAL "")
    set(${var}_ENABLED OFF PARENT_SCOPE)
    set(${var}_IMAGES "" PARENT_SCOPE)
    set(${var}_TARGETS "" PARENT_SCOPE)
    return()
  endif()
  # PTX of the newest target in range lets a future GPU JIT the kernel.
  if(FP8KIT_EMBED_PTX AND NOT K_SUFFIX)
    set(ptx ${newest})
    if(K_PTX_FROM)
      set(ptx ${K_PTX_FROM})
    endif()
    list(APPEND flags "-gencode=arch=compute_${ptx},code=compute_${ptx}")
    string(APPEND images "{fp8kit::arch::ImageKind::Ptx, ${ptx}, fp8kit::arch::Variant::Plain},")
    string(APPEND names " compute_${ptx}")
  endif()
  add_library(${var}_objects OBJECT ${K_SOURCES})
  set_target_properties(${var}_objects PROPERTIES
    CUDA_ARCHITECTURES OFF
    POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${var}_objects PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${flags}>)
  target_link_libraries(${var}_objects PRIVATE fp8kit_internal)
  set(${var}_ENABLED ON PARENT_SCOPE)
  set(${var}_IMAGES "${images}" PARENT_SCOPE)
  string(STRIP "${names}" names)
  set(${var}_TARGETS "${names}" PARENT_SCOPE)
endfunction()
