/* A process whose floating-point environment is changed before the core's self-test runs:
   the negative controls of scripts/negative-controls.sh. Prints the self-test's message and
   exits with its status (0 when all is well).

   usage: selftest_env MODE   with MODE one of
     plain        nothing changed: the self-test must pass
     setcsr       flush-to-zero and denormals-are-zero set with _mm_setcsr (x86)
     setfz        flush-to-zero set in FPCR (aarch64)
     upward, downward, towardzero   fesetround() to that mode
     wrong-id     the self-test asked for another contract's fingerprint */
#include <fenv.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "aether_core.h"

int main(int argc, char **argv)
{
    char message[4096];
    const char *mode = argc > 1 ? argv[1] : "plain";
    int status;
    if (strcmp(mode, "setcsr") == 0) {
#if defined(__x86_64__) || defined(__i386__)
        _mm_setcsr(_mm_getcsr() | 0x8040u);
#else
        fprintf(stderr, "selftest_env: setcsr needs x86\n");
        return 100;
#endif
    } else if (strcmp(mode, "setfz") == 0) {
#if defined(__aarch64__)
        unsigned long long fpcr;
        __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
        fpcr |= 1ull << 24;
        __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr));
#else
        fprintf(stderr, "selftest_env: setfz needs aarch64\n");
        return 100;
#endif
    } else if (strcmp(mode, "upward") == 0) {
        fesetround(FE_UPWARD);
    } else if (strcmp(mode, "downward") == 0) {
        fesetround(FE_DOWNWARD);
    } else if (strcmp(mode, "towardzero") == 0) {
        fesetround(FE_TOWARDZERO);
    } else if (strcmp(mode, "wrong-id") == 0) {
        status = aether_selftest("aether 0.0.0 00000000000000000000000000000000", message, sizeof message);
        printf("%s\n", message);
        return status;
    } else if (strcmp(mode, "plain") != 0) {
        fprintf(stderr, "selftest_env: unknown mode %s\n", mode);
        return 100;
    }
    status = AETHER_SELFTEST(message, sizeof message);
    printf("%s\n", message);
    return status;
}
