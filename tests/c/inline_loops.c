/* The header-only core inlined into a caller's loops, against the shipped object item by item
   (tests/tests/inline_loops.rs builds and runs it).

   One file, two translation units:
     -DINLINE_LOOPS  the loops: AETHER_HEADER_ONLY, one loop per function over arrays, as a caller
                     writes it; with clang on x86-64 this is the form laid out for LLVM's loop
                     vectoriser (AETHER_VECTOR_INLINE), so these loops run several items per
                     instruction, each item's products and selects in vector lanes
     (otherwise)     main: the same functions called item by item through the object
                     (aether_core.c compiled on its own, linked beside), and every result compared.
   A NaN against a NaN is the same result (the contract's comparison policy: payloads and signs of
   NaNs are not part of it); every other result must have the object's bits.

   Inputs: binary32, every 2^32 / N-th pattern (N = argv[1], default 2^20, so every exponent and
   both signs), then N uniform in [-4, 4] and [-100, 100]; binary64, N random patterns and N
   uniform values in the same intervals. Two-input functions take (x_i, x_{p(i)}), p a fixed
   permutation. Prints one line per function and "inline_loops: N mismatches in M results". */
#include <stddef.h>
#include <stdint.h>

/* name, arity; the scalar functions of one or two inputs, both widths. */
#define ONE(X, T) X(T, sin) X(T, cos) X(T, tan) X(T, atan) X(T, exp) X(T, exp2) X(T, log) X(T, log2) \
    X(T, asin) X(T, acos) X(T, sign) X(T, abs) X(T, neg)
#define TWO(X, T) X(T, atan2) X(T, pow)

#if defined(INLINE_LOOPS)

#define AETHER_HEADER_ONLY
#include "aether_core.h"

#define LOOP1(T, fn)                                                                           \
    void loop_##T##_##fn(const T##_t *x, const T##_t *y, T##_t *out, size_t n);                \
    void loop_##T##_##fn(const T##_t *x, const T##_t *y, T##_t *out, size_t n)                 \
    {                                                                                          \
        size_t i;                                                                              \
        (void)y;                                                                               \
        for (i = 0; i < n; ++i) out[i] = aether_##T##_##fn(x[i]);                              \
    }
#define LOOP2(T, fn)                                                                           \
    void loop_##T##_##fn(const T##_t *x, const T##_t *y, T##_t *out, size_t n);                \
    void loop_##T##_##fn(const T##_t *x, const T##_t *y, T##_t *out, size_t n)                 \
    {                                                                                          \
        size_t i;                                                                              \
        for (i = 0; i < n; ++i) out[i] = aether_##T##_##fn(x[i], y[i]);                        \
    }
typedef float f32_t;
typedef double f64_t;
ONE(LOOP1, f32)
ONE(LOOP1, f64)
TWO(LOOP2, f32)
TWO(LOOP2, f64)

#else

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aether_core.h"

typedef float f32_t;
typedef double f64_t;

#define DECLARE(T, fn) void loop_##T##_##fn(const T##_t *x, const T##_t *y, T##_t *out, size_t n);
ONE(DECLARE, f32)
ONE(DECLARE, f64)
TWO(DECLARE, f32)
TWO(DECLARE, f64)

static uint64_t state = 0x9E3779B97F4A7C15u;
static uint64_t next(void) /* splitmix64 */
{
    uint64_t z = (state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next() >> 11) * 0x1p-53);
}

static size_t n_total, n_results, n_bad;
static f32_t *x32, *y32, *o32;
static f64_t *x64, *y64, *o64;

static int same32(float a, float b)
{
    uint32_t u, v;
    if (a != a && b != b) return 1;
    memcpy(&u, &a, 4);
    memcpy(&v, &b, 4);
    return u == v;
}
static int same64(double a, double b)
{
    uint64_t u, v;
    if (a != a && b != b) return 1;
    memcpy(&u, &a, 8);
    memcpy(&v, &b, 8);
    return u == v;
}

#define CHECK1(T, fn) CHECK(T, fn, aether_##T##_##fn(X(T)[i]))
#define CHECK2(T, fn) CHECK(T, fn, aether_##T##_##fn(X(T)[i], Y(T)[i]))
#define CHECK(T, fn, call)                                                                     \
    {                                                                                          \
        size_t i, bad = 0;                                                                     \
        loop_##T##_##fn(X(T), Y(T), O(T), n_total);                                            \
        for (i = 0; i < n_total; ++i) {                                                        \
            const T##_t want = call;                                                           \
            if (!SAME(T)(O(T)[i], want)) {                                                     \
                if (bad < 3) printf("  aether_%s_%s item %zu: loop %a, object %a\n", #T, #fn, i, (double)O(T)[i], (double)want); \
                ++bad;                                                                         \
            }                                                                                  \
        }                                                                                      \
        printf("aether_%s_%s: %zu of %zu differ\n", #T, #fn, bad, n_total);                    \
        n_results += n_total;                                                                  \
        n_bad += bad;                                                                          \
    }
#define X(T) X_##T
#define Y(T) Y_##T
#define O(T) O_##T
#define SAME(T) SAME_##T
#define X_f32 x32
#define Y_f32 y32
#define O_f32 o32
#define SAME_f32 same32
#define X_f64 x64
#define Y_f64 y64
#define O_f64 o64
#define SAME_f64 same64

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)1 << 20;
    size_t i;
    n_total = 3 * n;
    x32 = malloc(n_total * sizeof *x32);
    y32 = malloc(n_total * sizeof *y32);
    o32 = malloc(n_total * sizeof *o32);
    x64 = malloc(n_total * sizeof *x64);
    y64 = malloc(n_total * sizeof *y64);
    o64 = malloc(n_total * sizeof *o64);
    if (!x32 || !y32 || !o32 || !x64 || !y64 || !o64 || n == 0) return 2;
    for (i = 0; i < n; ++i) {
        const uint32_t w = (uint32_t)(((uint64_t)i << 32) / n) + 0x5A5u;
        const uint64_t d = next();
        memcpy(&x32[i], &w, 4);
        memcpy(&x64[i], &d, 8);
        x32[n + i] = (float)uniform(-4, 4);
        x32[2 * n + i] = (float)uniform(-100, 100);
        x64[n + i] = uniform(-4, 4);
        x64[2 * n + i] = uniform(-100, 100);
    }
    for (i = 0; i < n_total; ++i) {
        const size_t j = (size_t)(next() % n_total);
        y32[i] = x32[j];
        y64[i] = x64[j];
    }
    ONE(CHECK1, f32)
    ONE(CHECK1, f64)
    TWO(CHECK2, f32)
    TWO(CHECK2, f64)
    printf("inline_loops: %zu mismatches in %zu results\n", n_bad, n_results);
    return n_bad != 0;
}

#endif
