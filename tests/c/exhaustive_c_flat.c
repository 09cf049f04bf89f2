/* The C core's flat thunks (c_core/check/aether_flat.c) with the core included header-only and
   the table renamed aether_c_flat_entries, so that tests/c/cuda_exhaustive.cu can link it beside
   the CUDA core's table of the same convention (aether_flat_entries) without a clash: every
   function of the core is static here, and the table is the one symbol this file exports.
   Built by scripts/cuda-device.sh and scripts/cuda-static.sh with gcc, as a consumer builds the
   core (-std=c99 -O2). */
#define AETHER_HEADER_ONLY
#define aether_flat_entries aether_c_flat_entries
#include "aether_flat.c"
