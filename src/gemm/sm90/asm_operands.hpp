// Decimal sequences for inline-asm operand lists of the Hopper wgmma
// wrappers (gemm/sm90/ptx.cuh: FP8; gemm/nvfp4/nvfp4_sm90_wgmma.cuh: bf16 /
// f16 with A in registers). A wgmma with R f32 accumulators names R operands
// "%0 .. %R-1" and R constraints; inline asm takes neither a pack expansion
// nor named operands, so the preprocessor writes them: FP8KIT_PP_1_n(M)
// expands to M(1) M(2) ... M(n).
#pragma once

#define FP8KIT_PP_1_9(M, t) M(t##1) M(t##2) M(t##3) M(t##4) M(t##5) M(t##6) M(t##7) M(t##8) M(t##9)
#define FP8KIT_PP_0_9(M, t) M(t##0) FP8KIT_PP_1_9(M, t)
#define FP8KIT_PP_1_7(M) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define FP8KIT_PP_1_29(M) FP8KIT_PP_1_9(M, ) FP8KIT_PP_0_9(M, 1) FP8KIT_PP_0_9(M, 2)
#define FP8KIT_PP_1_31(M) FP8KIT_PP_1_29(M) M(30) M(31)
#define FP8KIT_PP_1_63(M) \
  FP8KIT_PP_1_29(M) FP8KIT_PP_0_9(M, 3) FP8KIT_PP_0_9(M, 4) FP8KIT_PP_0_9(M, 5) M(60) M(61) M(62) M(63)
#define FP8KIT_PP_1_79(M) FP8KIT_PP_1_63(M) M(64) M(65) M(66) M(67) M(68) M(69) FP8KIT_PP_0_9(M, 7)
#define FP8KIT_PP_1_95(M) FP8KIT_PP_1_79(M) FP8KIT_PP_0_9(M, 8) M(90) M(91) M(92) M(93) M(94) M(95)
#define FP8KIT_PP_1_127(M)                                                                                      \
  FP8KIT_PP_1_95(M) M(96) M(97) M(98) M(99) FP8KIT_PP_0_9(M, 10) FP8KIT_PP_0_9(M, 11) M(120) M(121) M(122) \
      M(123) M(124) M(125) M(126) M(127)
