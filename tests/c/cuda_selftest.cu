/* The CUDA core's self-test as a consumer calls it, for scripts/cuda-static.sh (host) and
   scripts/cuda-device.sh (device): on the device, or with --host on the host path of the same
   functions; --ftz first sets flush-to-zero and denormals-are-zero in MXCSR (x86 only).
   Prints "status N: message" and exits 0, or 2 on a usage error. */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "aether_core.cuh"

int main(int argc, char **argv)
{
    char message[4096];
    int host = 0, i, status;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--host") == 0) {
            host = 1;
        } else if (strcmp(argv[i], "--ftz") == 0) {
#if defined(__x86_64__) || defined(__i386__)
            _mm_setcsr(_mm_getcsr() | 0x8040u);
#else
            fprintf(stderr, "cuda_selftest: --ftz needs x86\n");
            return 2;
#endif
        } else {
            fprintf(stderr, "usage: %s [--host] [--ftz]\n", argv[0]);
            return 2;
        }
    }
    status = host ? aether_cuda_selftest_host(message, sizeof message) : aether_cuda_selftest(message, sizeof message);
    printf("status %d: %s\n", status, message);
    return 0;
}
