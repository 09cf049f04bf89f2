/* The accuracy and speed of the C core's elementary functions
 * (scripts/elementary-report.sh writes docs/reports/elementary-functions.md
 * from this program's output).
 *
 * Accuracy. f32: every input of the domain (all 2^32 bit patterns are
 * visited; the ones outside the domain must give NaN, and do, or the run
 * fails). The correctly rounded reference: glibc's binary64 sin/cos rounded
 * once to binary32, unless that double lies within 2^-50 (relative) of a
 * binary32 rounding boundary, where its own error (under 1 ulp of binary64)
 * could decide the rounding; those cases are decided by the x87 long double
 * sinl/cosl (64-bit significand) and counted. A case still within 2^-60 of a
 * boundary there is counted as undecided (and would be reported).
 * f64: random inputs in every binade of the domain and inputs next to
 * multiples of pi/2, against sinl/cosl: the error in ulps of the result (as
 * a real number) and the share equal to sinl/cosl rounded once to binary64.
 *
 * Arguments: [f64 inputs per binade] [all|speed|accuracy] [f32 stride].
 * Speed: ns per call, each function against glibc's, interleaved rounds on
 * the same inputs, the best round of each (a benchmark, not a test). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aether_core.h"

static float f32_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t bits_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* Whether binary64's d decides the binary32 rounding of the exact value (into *f): an infinite or
   zero d (exact here, or past binary32's range, where binary32's result is the same infinity or
   zero), or every double within 2^-50 relative of d rounding the same way. */
static int decided64(double d, float *f)
{
    *f = (float)d;
    if (isinf(d) || d == 0) return 1;
    double up = nextafter(d, INFINITY), down = nextafter(d, -INFINITY);
    double span = fabs(d) * 0x1p-50;
    return (float)(d + span) == *f && (float)(d - span) == *f && (float)up == *f && (float)down == *f;
}

/* The binary32 rounding of long double's l; *how: 1 decided (every value within 2^-60 relative of l
   rounds the same way), 2 undecided. */
static float decided_ld(long double l, int *how)
{
    long double lspan = fabsl(l) * 0x1p-60L;
    float g = (float)l;
    *how = ((float)(l + lspan) == g && (float)(l - lspan) == g) ? 1 : 2;
    return g;
}

/* The binary32 rounding of the exact value, decided as the file's opening says.
 * *how: 0 from binary64, 1 from long double, 2 undecided. */
static float cr32(double d, long double (*fl)(long double), float x, int *how)
{
    float f;
    if (decided64(d, &f)) {
        *how = 0;
        return f;
    }
    return decided_ld(fl((long double)x), how);
}

static double ulp32_of(double ref)
{
    int e;
    double a = fabs(ref);
    if (a == 0) return 0x1p-149;
    frexp(a, &e);
    return e - 1 < -126 ? 0x1p-149 : ldexp(1.0, e - 1 - 23);
}

static long ulp_distance32(float a, float b)
{
    int32_t ia = (int32_t)bits_of(a), ib = (int32_t)bits_of(b);
    if (ia < 0) ia = (int32_t)(0x80000000u - (uint32_t)ia);
    if (ib < 0) ib = (int32_t)(0x80000000u - (uint32_t)ib);
    return labs((long)ia - (long)ib);
}

struct acc {
    double max_err;   /* real-valued, ulps of the result */
    float worst;      /* the input of max_err */
    long max_dist;    /* integer ulp distance to the correctly rounded result */
    uint64_t n, cr, long_double, undecided, bad_outside;
};

static unsigned stride32 = 1; /* 1: every input; k: every k-th (a bounded run) */

/* Every f32 input (or every stride32-th): low <= x and |x| <= limit is the domain (compared with the
   correctly rounded result), the rest (NaN always) must give NaN. */
static void sweep32(const char *name, float (*fn)(float), double (*ref)(double), long double (*refl)(long double),
                    float low, float limit, const char *domain)
{
    struct acc t = {0};
    #pragma omp parallel
    {
        struct acc a = {0};
        #pragma omp for schedule(dynamic, 1)
        for (uint32_t hi = 0; hi < 65536; hi++) {
            for (uint32_t lo = (hi * 7u) % stride32; lo < 65536; lo += stride32) {
                float x = f32_of(hi << 16 | lo), y = fn(x);
                if (!(fabsf(x) <= limit && x >= low)) {
                    a.bad_outside += !isnan(y);
                    continue;
                }
                double d = ref((double)x);
                int how;
                float c = cr32(d, refl, x, &how);
                a.n++;
                a.long_double += how == 1;
                a.undecided += how == 2;
                if (!isinf(c) && !isinf(d)) { /* past the range, the distance below says it all */
                    double err = fabs((double)y - d) / ulp32_of(d);
                    if (err > a.max_err) { a.max_err = err; a.worst = x; }
                }
                if (how == 2) {
                    /* Too close to a rounding boundary for long double: the report script decides it in
                       multiple precision (mpmath) and adds it to the correctly rounded count and the
                       distance; this row counts it only as undecided. */
                    #pragma omp critical
                    printf("und|%s|f32|%a|%a\n", name, (double)x, (double)y);
                    continue;
                }
                a.cr += bits_of(y) == bits_of(c);
                long dist = ulp_distance32(y, c);
                if (dist > a.max_dist) a.max_dist = dist;
            }
        }
        #pragma omp critical
        {
            if (a.max_err > t.max_err) { t.max_err = a.max_err; t.worst = a.worst; }
            if (a.max_dist > t.max_dist) t.max_dist = a.max_dist;
            t.n += a.n; t.cr += a.cr; t.long_double += a.long_double; t.undecided += a.undecided; t.bad_outside += a.bad_outside;
        }
    }
    if (stride32 == 1)
        printf("acc|%s|f32|every input of %s|", name, domain);
    else
        printf("acc|%s|f32|one input in %u of %s|", name, stride32, domain);
    printf("%llu|%.4f|%a|%ld|%.6f|%llu|%llu|%llu\n", (unsigned long long)t.n, t.max_err,
           (double)t.worst, t.max_dist, (double)t.cr / (double)t.n, (unsigned long long)t.long_double,
           (unsigned long long)t.undecided, (unsigned long long)t.bad_outside);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* per_binade random inputs in each binade 2^emin..2^emax (either sign) and, for trig, as many next to
   multiples of pi/2; `outside` lists inputs that must give NaN. */
static void sweep64(const char *name, double (*fn)(double), long double (*refl)(long double), long per_binade,
                    int emin, int emax, int trig, int positive, const double *outside, unsigned n_outside,
                    const char *domain)
{
    double max_err = 0, worst = 0;
    uint64_t n = 0, cr = 0, bad_outside = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int e = emin; e < emax; e++) {
            for (long i = 0; i < per_binade; i++) {
                double x;
                if (pass == 0) {
                    x = ldexp(1.0 + (double)(next() >> 11) * 0x1p-53, e);
                } else {
                    /* next to a multiple k of pi/2, k in the binade: the hard cases of the reduction */
                    if (e < 1 || !trig) break;
                    double k = floor(ldexp(1.0 + (double)(next() >> 11) * 0x1p-53, e) / 1.5707963267948966);
                    long double m = (long double)k * 1.5707963267948966192313216916397514L;
                    x = (double)m;
                    int step = (int)(next() % 7) - 3;
                    for (; step > 0; step--) x = nextafter(x, INFINITY);
                    for (; step < 0; step++) x = nextafter(x, -INFINITY);
                }
                if (next() & 1 && !positive) x = -x;
                double y = fn(x);
                long double l = refl((long double)x);
                int le;
                frexpl(fabsl(l), &le);
                long double ulp = ldexpl(1.0L, le - 1 - 52);
                if (ulp < 0x1p-1074L) ulp = 0x1p-1074L; /* a result in the subnormals */
                double err = l == 0 ? 0 : (double)(fabsl((long double)y - l) / ulp);
                if (isinf((double)l) || isinf(l)) err = y == (double)l ? 0 : INFINITY; /* past the range */
                n++;
                cr += y == (double)l;
                if (err > max_err) { max_err = err; worst = x; }
            }
        }
    }
    for (unsigned i = 0; i < n_outside; i++) bad_outside += !isnan(fn(outside[i]));
    printf("acc|%s|f64|%s|%llu|%.4f|%a|-|%.6f|-|-|%llu\n", name, domain,
           (unsigned long long)n, max_err, worst, (double)cr / (double)n, (unsigned long long)bad_outside);
}

/* A random finite float of either sign with exponent in [emin, emax). */
static double random_binary(int emin, int emax, int mant_bits)
{
    double m = 1.0 + (double)(next() >> (64 - mant_bits)) * ldexp(1.0, -mant_bits);
    int e = emin + (int)(next() % (uint64_t)(emax - emin));
    return (next() & 1 ? -1 : 1) * ldexp(m, e);
}

/* atan2's inputs: y random over 2^-60..2^60, x either random over the same
   range or y divided by a factor near one of the reduction's breakpoints
   (7/16, 11/16, 19/16, 39/16), with random signs; then the special pairs. */
static const double breaks[] = {0.4375, 0.6875, 1.1875, 2.4375};

static void sweep2_32(long count)
{
    double max_err = 0;
    float wy = 0, wx = 0;
    uint64_t n = 0, cr = 0, ld = 0, und = 0, bad = 0;
    long max_dist = 0;
    for (long i = 0; i < count; i++) {
        float y = (float)random_binary(-60, 60, 23), x;
        if (i % 2) {
            x = (float)random_binary(-60, 60, 23);
        } else {
            double k = breaks[next() % 4] * (1.0 + ((double)(next() % 2001) - 1000.0) * 0x1p-30);
            x = (float)((next() & 1 ? -1 : 1) * fabs((double)y) / k);
        }
        float got = aether_f32_atan2(y, x);
        double d = atan2((double)y, (double)x);
        float c;
        if (!decided64(d, &c)) {
            int how;
            c = decided_ld(atan2l((long double)y, (long double)x), &how);
            if (how == 1) ld++; else und++;
        }
        n++;
        cr += bits_of(got) == bits_of(c);
        long dist = ulp_distance32(got, c);
        if (dist > max_dist) max_dist = dist;
        double err = fabs((double)got - d) / ulp32_of(d);
        if (err > max_err) { max_err = err; wy = y; wx = x; }
    }
    float nan_pairs[][2] = {{NAN, 1}, {1, NAN}, {0, NAN}, {NAN, NAN}, {INFINITY, NAN}};
    for (unsigned i = 0; i < 5; i++) bad += !isnan(aether_f32_atan2(nan_pairs[i][0], nan_pairs[i][1]));
    printf("acc|atan2|f32|%ld random pairs (y over 2^-60..2^60; x random, or y over a factor near a breakpoint)|%llu|%.4f|%a, %a|%ld|%.6f|%llu|%llu|%llu\n",
           count, (unsigned long long)n, max_err, (double)wy, (double)wx, max_dist, (double)cr / (double)n,
           (unsigned long long)ld, (unsigned long long)und, (unsigned long long)bad);
}

static void sweep2_64(long count)
{
    double max_err = 0, wy = 0, wx = 0;
    uint64_t n = 0, cr = 0, bad = 0;
    for (long i = 0; i < count; i++) {
        double y = random_binary(-200, 200, 52), x;
        if (i % 2) {
            x = random_binary(-200, 200, 52);
        } else {
            double k = breaks[next() % 4] * (1.0 + ((double)(next() % 2001) - 1000.0) * 0x1p-60);
            x = (next() & 1 ? -1 : 1) * fabs(y) / k;
        }
        double got = aether_f64_atan2(y, x);
        long double l = atan2l((long double)y, (long double)x);
        int le;
        frexpl(fabsl(l), &le);
        long double ulp = ldexpl(1.0L, le - 1 - 52);
        double err = l == 0 ? 0 : (double)(fabsl((long double)got - l) / ulp);
        n++;
        cr += got == (double)l;
        if (err > max_err) { max_err = err; wy = y; wx = x; }
    }
    double nan_pairs[][2] = {{NAN, 1}, {1, NAN}, {0, NAN}, {NAN, NAN}, {INFINITY, NAN}};
    for (unsigned i = 0; i < 5; i++) bad += !isnan(aether_f64_atan2(nan_pairs[i][0], nan_pairs[i][1]));
    printf("acc|atan2|f64|%ld random pairs (y over 2^-200..2^200; x random, or y over a factor near a breakpoint)|%llu|%.4f|%a, %a|-|%.6f|-|-|%llu\n",
           count, (unsigned long long)n, max_err, wy, wx, (double)cr / (double)n, (unsigned long long)bad);
}

/* pow's inputs, in four kinds by turns: x over every binade (the subnormals too) and y with |y log x| uniform
   up to 110 (f64 750), past overflow and into the subnormals; x the same and y in [-8, 8]; x = 1 + t with t
   over 2^-24..2^-1 (f64 2^-60..2^-1), either sign, and y up to 2^30 (2^60), where log x is small and y large;
   and x negative with y a whole number up to 64. The special pairs: a negative finite x to a non-integer y, and
   NaN with anything but (1, NaN) and (NaN, 0), must give NaN. */
static void pow_inputs(long i, double *x, double *y, int emin, int emax, double reach, int near_bits)
{
    switch (i % 4) {
    case 0: {
        *x = fabs(random_binary(emin, emax, 52));
        double lx = fabs(log(*x));
        *y = ((double)(next() >> 11) * 0x1p-52 - 1.0) * reach / (lx > 1e-300 ? lx : 1.0);
        break;
    }
    case 1:
        *x = fabs(random_binary(emin, emax, 52));
        *y = ((double)(next() >> 11) * 0x1p-52 - 1.0) * 8.0;
        break;
    case 2: {
        *x = 1.0 + random_binary(-near_bits, -1, 52);
        double lx = fabs(log(*x));
        *y = ((double)(next() >> 11) * 0x1p-52 - 1.0) * reach / (lx > 1e-300 ? lx : 1.0);
        break;
    }
    default:
        *x = random_binary(-8, 8, 52) * -1.0;
        *x = *x > 0 ? -*x : *x;
        *y = (double)((long)(next() % 129) - 64);
        break;
    }
}

static void pow_32(long count)
{
    double max_err = 0;
    float wx = 0, wy = 0;
    uint64_t n = 0, cr = 0, ld = 0, und = 0, bad = 0;
    long max_dist = 0;
    for (long i = 0; i < count; i++) {
        double xd0, yd0;
        pow_inputs(i, &xd0, &yd0, -149, 128, 110.0, 24);
        float x = (float)xd0, y = (float)yd0;
        float got = aether_f32_pow(x, y);
        double d = pow((double)x, (double)y);
        float c;
        if (!decided64(d, &c)) {
            int how;
            c = decided_ld(powl((long double)x, (long double)y), &how);
            if (how == 1) {
                ld++;
            } else {
                /* As sweep32's: the report script decides it with mpmath. */
                und++;
                n++;
                printf("und|pow|f32|%a,%a|%a\n", (double)x, (double)y, (double)got);
                continue;
            }
        }
        n++;
        cr += bits_of(got) == bits_of(c);
        long dist = ulp_distance32(got, c);
        if (dist > max_dist) max_dist = dist;
        double err = isinf(c) ? (isinf(got) && (got > 0) == (c > 0) ? 0 : 1e9) : fabs((double)got - d) / ulp32_of(d);
        if (err > max_err) { max_err = err; wx = x; wy = y; }
    }
    float nan_pairs[][2] = {{-2, 0.5f}, {-1e30f, 1e-30f}, {-0x1p-149f, 2.5f}, {NAN, 1}, {2, NAN}, {NAN, NAN}, {-1, NAN}, {0, NAN}};
    for (unsigned i = 0; i < 8; i++) bad += !isnan(aether_f32_pow(nan_pairs[i][0], nan_pairs[i][1]));
    printf("acc|pow|f32|%ld random pairs (x over every binade with y log x up to 110 in magnitude or y in [-8, 8]; x = 1 +- 2^-24..2^-1 with large y; "
           "x < 0 with y whole)|%llu|%.4f|%a, %a|%ld|%.6f|%llu|%llu|%llu\n",
           count, (unsigned long long)n, max_err, (double)wx, (double)wy, max_dist, (double)cr / (double)n,
           (unsigned long long)ld, (unsigned long long)und, (unsigned long long)bad);
}

static void pow_64(long count)
{
    double max_err = 0, wx = 0, wy = 0;
    uint64_t n = 0, cr = 0, bad = 0;
    for (long i = 0; i < count; i++) {
        double x, y;
        pow_inputs(i, &x, &y, -1074, 1024, 750.0, 60);
        double got = aether_f64_pow(x, y);
        long double l = powl((long double)x, (long double)y);
        double c = (double)l;
        double err;
        if (isinf(c)) {
            err = got == c ? 0 : 1e9;
        } else {
            int le = 0;
            frexpl(fabsl(l), &le);
            if (l == 0 || le - 1 < -1022) le = -1021; /* the subnormals share the least normal's grid */
            long double ulp = ldexpl(1.0L, le - 1 - 52);
            err = (double)(fabsl((long double)got - l) / ulp);
        }
        n++;
        cr += got == c;
        if (err > max_err) { max_err = err; wx = x; wy = y; }
    }
    double nan_pairs[][2] = {{-2, 0.5}, {-1e300, 1e-300}, {-0x1p-1074, 2.5}, {NAN, 1}, {2, NAN}, {NAN, NAN}, {-1, NAN}, {0, NAN}};
    for (unsigned i = 0; i < 8; i++) bad += !isnan(aether_f64_pow(nan_pairs[i][0], nan_pairs[i][1]));
    printf("acc|pow|f64|%ld random pairs (x over every binade with y log x up to 750 in magnitude or y in [-8, 8]; x = 1 +- 2^-60..2^-1 with large y; "
           "x < 0 with y whole)|%llu|%.4f|%a, %a|-|%.6f|-|-|%llu\n",
           count, (unsigned long long)n, max_err, wx, wy, (double)cr / (double)n, (unsigned long long)bad);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define N 4096
static float xs[N], ys[N];
static double xd[N], yd[N];
static float xs2[N];
static double xd2[N];
static volatile double sink;

#define TIME32(best, fn) do { double t0 = now(); for (int i = 0; i < N; i++) ys[i] = fn(xs[i]); double t = (now() - t0) / N * 1e9; \
    if (t < best) best = t; double s = 0; for (int i = 0; i < N; i++) s += ys[i]; sink = s; } while (0)
#define TIME64(best, fn) do { double t0 = now(); for (int i = 0; i < N; i++) yd[i] = fn(xd[i]); double t = (now() - t0) / N * 1e9; \
    if (t < best) best = t; double s = 0; for (int i = 0; i < N; i++) s += yd[i]; sink = s; } while (0)

/* The timed inputs as each function takes them, the same for aether and glibc: exp of 0.8 x (in [-80, 80]),
   exp2 of 1.2 x, log and log2 of |x|, asin and acos of x / 100 (in [-1, 1]). */
#define TIMED_INPUT(name, aether_fn, glibc_fn, T, arg)        \
    static T name(T x) { return aether_fn(arg); }             \
    static T glibc_##name(T x) { return glibc_fn(arg); }
TIMED_INPUT(exp_of_scaled_f, aether_f32_exp, expf, float, x * 0.8f)
TIMED_INPUT(exp_of_scaled_d, aether_f64_exp, exp, double, x * 0.8)
TIMED_INPUT(log_abs_f, aether_f32_log, logf, float, fabsf(x))
TIMED_INPUT(log_abs_d, aether_f64_log, log, double, fabs(x))
TIMED_INPUT(exp2_of_scaled_f, aether_f32_exp2, exp2f, float, x * 1.2f)
TIMED_INPUT(exp2_of_scaled_d, aether_f64_exp2, exp2, double, x * 1.2)
TIMED_INPUT(log2_abs_f, aether_f32_log2, log2f, float, fabsf(x))
TIMED_INPUT(log2_abs_d, aether_f64_log2, log2, double, fabs(x))
TIMED_INPUT(asin_of_scaled_f, aether_f32_asin, asinf, float, x * 0.01f)
TIMED_INPUT(asin_of_scaled_d, aether_f64_asin, asin, double, x * 0.01)
TIMED_INPUT(acos_of_scaled_f, aether_f32_acos, acosf, float, x * 0.01f)
TIMED_INPUT(acos_of_scaled_d, aether_f64_acos, acos, double, x * 0.01)
/* pow of |x| / 10 (in [0, 10]) to y / 10 (in [-10, 10]). */
static float pow_scaled_f(float x, float y) { return aether_f32_pow(fabsf(x) * 0.1f, y * 0.1f); }
static float glibc_pow_scaled_f(float x, float y) { return powf(fabsf(x) * 0.1f, y * 0.1f); }
static double pow_scaled_d(double x, double y) { return aether_f64_pow(fabs(x) * 0.1, y * 0.1); }
static double glibc_pow_scaled_d(double x, double y) { return pow(fabs(x) * 0.1, y * 0.1); }

static float sincos_sum_f(float x) { aether_vec2f v = aether_f32_sincos(x); return v.x + v.y; }
static double sincos_sum_d(double x) { aether_vec2d v = aether_f64_sincos(x); return v.x + v.y; }
static float glibc_sincos_sum_f(float x) { float s, c; sincosf(x, &s, &c); return s + c; }
static double glibc_sincos_sum_d(double x) { double s, c; sincos(x, &s, &c); return s + c; }

#define TIME2_32(best, fn) do { double t0 = now(); for (int i = 0; i < N; i++) ys[i] = fn(xs[i], xs2[i]); double t = (now() - t0) / N * 1e9; \
    if (t < best) best = t; double s = 0; for (int i = 0; i < N; i++) s += ys[i]; sink = s; } while (0)
#define TIME2_64(best, fn) do { double t0 = now(); for (int i = 0; i < N; i++) yd[i] = fn(xd[i], xd2[i]); double t = (now() - t0) / N * 1e9; \
    if (t < best) best = t; double s = 0; for (int i = 0; i < N; i++) s += yd[i]; sink = s; } while (0)

static void speed(void)
{
    for (int i = 0; i < N; i++) {
        xs[i] = (float)((double)(next() >> 11) * 0x1p-53 * 200.0 - 100.0);
        xd[i] = (double)(next() >> 11) * 0x1p-53 * 200.0 - 100.0;
        xs2[i] = (float)((double)(next() >> 11) * 0x1p-53 * 200.0 - 100.0);
        xd2[i] = (double)(next() >> 11) * 0x1p-53 * 200.0 - 100.0;
    }
    double b[52];
    for (int k = 0; k < 52; k++) b[k] = 1e30;
    for (int round = 0; round < 200; round++) {
        TIME32(b[0], aether_f32_sin); TIME32(b[1], sinf);
        TIME32(b[2], aether_f32_cos); TIME32(b[3], cosf);
        TIME32(b[4], sincos_sum_f); TIME32(b[5], glibc_sincos_sum_f);
        TIME64(b[6], aether_f64_sin); TIME64(b[7], sin);
        TIME64(b[8], aether_f64_cos); TIME64(b[9], cos);
        TIME64(b[10], sincos_sum_d); TIME64(b[11], glibc_sincos_sum_d);
        TIME32(b[12], aether_f32_atan); TIME32(b[13], atanf);
        TIME64(b[14], aether_f64_atan); TIME64(b[15], atan);
        TIME2_32(b[16], aether_f32_atan2); TIME2_32(b[17], atan2f);
        TIME2_64(b[18], aether_f64_atan2); TIME2_64(b[19], atan2);
        TIME32(b[20], exp_of_scaled_f); TIME32(b[21], glibc_exp_of_scaled_f);
        TIME64(b[22], exp_of_scaled_d); TIME64(b[23], glibc_exp_of_scaled_d);
        TIME32(b[24], log_abs_f); TIME32(b[25], glibc_log_abs_f);
        TIME64(b[26], log_abs_d); TIME64(b[27], glibc_log_abs_d);
        TIME32(b[28], exp2_of_scaled_f); TIME32(b[29], glibc_exp2_of_scaled_f);
        TIME64(b[30], exp2_of_scaled_d); TIME64(b[31], glibc_exp2_of_scaled_d);
        TIME32(b[32], log2_abs_f); TIME32(b[33], glibc_log2_abs_f);
        TIME64(b[34], log2_abs_d); TIME64(b[35], glibc_log2_abs_d);
        TIME32(b[36], asin_of_scaled_f); TIME32(b[37], glibc_asin_of_scaled_f);
        TIME64(b[38], asin_of_scaled_d); TIME64(b[39], glibc_asin_of_scaled_d);
        TIME32(b[40], acos_of_scaled_f); TIME32(b[41], glibc_acos_of_scaled_f);
        TIME64(b[42], acos_of_scaled_d); TIME64(b[43], glibc_acos_of_scaled_d);
        TIME32(b[44], aether_f32_tan); TIME32(b[45], tanf);
        TIME64(b[46], aether_f64_tan); TIME64(b[47], tan);
        TIME2_32(b[48], pow_scaled_f); TIME2_32(b[49], glibc_pow_scaled_f);
        TIME2_64(b[50], pow_scaled_d); TIME2_64(b[51], glibc_pow_scaled_d);
    }
    const char *names[] = {"sin f32", "cos f32", "sincos f32", "sin f64", "cos f64", "sincos f64", "atan f32", "atan f64",
                           "atan2 f32", "atan2 f64", "exp f32", "exp f64", "log f32", "log f64", "exp2 f32", "exp2 f64",
                           "log2 f32", "log2 f64", "asin f32", "asin f64", "acos f32", "acos f64", "tan f32", "tan f64", "pow f32", "pow f64"};
    for (int k = 0; k < 26; k++) printf("time|%s|%.2f|%.2f|%.2f\n", names[k], b[2 * k], b[2 * k + 1], b[2 * k] / b[2 * k + 1]);
}

int main(int argc, char **argv)
{
    long per_binade = argc > 1 ? atol(argv[1]) : 100000;
    int only_speed = argc > 2 && strcmp(argv[2], "speed") == 0;
    if (argc > 3) stride32 = (unsigned)atoi(argv[3]);
    if (stride32 < 1) stride32 = 1;
    if (!only_speed) {
        const char *trig32 = "[-8192, 8192]", *trig64 = "random in each binade 2^-30..2^20, and next to multiples of pi/2";
        const double trig_out[] = {2e6, 1e300, INFINITY, -INFINITY, NAN}, atan_out[] = {NAN, -NAN};
        const double exp_out[] = {NAN, -NAN}, log_out[] = {-1e-300, -1.0, -INFINITY, NAN};
        const double asin_out[] = {0x1.0000000000001p0, -0x1.0000000000001p0, -2.0, 1e300, INFINITY, -INFINITY, NAN};
        sweep32("sin", aether_f32_sin, sin, sinl, -8192.0f, 8192.0f, trig32);
        sweep32("cos", aether_f32_cos, cos, cosl, -8192.0f, 8192.0f, trig32);
        sweep32("tan", aether_f32_tan, tan, tanl, -8192.0f, 8192.0f, trig32);
        sweep32("atan", aether_f32_atan, atan, atanl, -INFINITY, INFINITY, "f32 (every pattern but NaN; NaN must give NaN)");
        sweep32("exp", aether_f32_exp, exp, expl, -INFINITY, INFINITY, "f32 (every pattern but NaN; NaN must give NaN)");
        sweep32("log", aether_f32_log, log, logl, 0.0f, INFINITY, "x >= -0 (every such pattern; x < 0 and NaN must give NaN)");
        sweep32("exp2", aether_f32_exp2, exp2, exp2l, -INFINITY, INFINITY, "f32 (every pattern but NaN; NaN must give NaN)");
        sweep32("log2", aether_f32_log2, log2, log2l, 0.0f, INFINITY, "x >= -0 (every such pattern; x < 0 and NaN must give NaN)");
        sweep32("asin", aether_f32_asin, asin, asinl, -1.0f, 1.0f, "[-1, 1] (every such pattern; the rest and NaN must give NaN)");
        sweep32("acos", aether_f32_acos, acos, acosl, -1.0f, 1.0f, "[-1, 1] (every such pattern; the rest and NaN must give NaN)");
        sweep64("sin", aether_f64_sin, sinl, per_binade, -30, 20, 1, 0, trig_out, 5, trig64);
        sweep64("cos", aether_f64_cos, cosl, per_binade, -30, 20, 1, 0, trig_out, 5, trig64);
        sweep64("tan", aether_f64_tan, tanl, per_binade, -30, 20, 1, 0, trig_out, 5, trig64);
        sweep64("atan", aether_f64_atan, atanl, per_binade, -40, 40, 0, 0, atan_out, 2, "random in each binade 2^-40..2^40");
        sweep64("exp", aether_f64_exp, expl, per_binade, -60, 10, 0, 0, exp_out, 2,
                "random in each binade 2^-60..2^10, either sign (past overflow and into the subnormals)");
        sweep64("log", aether_f64_log, logl, per_binade / 20 + 1, -1074, 1024, 0, 1, log_out, 4,
                "random in each binade 2^-1074..2^1024 (every binade, the subnormals too), positive");
        sweep64("exp2", aether_f64_exp2, exp2l, per_binade, -60, 11, 0, 0, exp_out, 2,
                "random in each binade 2^-60..2^11, either sign (past overflow and into the subnormals)");
        sweep64("log2", aether_f64_log2, log2l, per_binade / 20 + 1, -1074, 1024, 0, 1, log_out, 4,
                "random in each binade 2^-1074..2^1024 (every binade, the subnormals too), positive");
        sweep64("asin", aether_f64_asin, asinl, per_binade, -40, 0, 0, 0, asin_out, 7,
                "random in each binade 2^-40..1, either sign");
        sweep64("acos", aether_f64_acos, acosl, per_binade, -40, 0, 0, 0, asin_out, 7,
                "random in each binade 2^-40..1, either sign");
        sweep2_32(per_binade * 100);
        sweep2_64(per_binade * 40);
        pow_32(per_binade * 100);
        pow_64(per_binade * 40);
    }
    if (!(argc > 2 && strcmp(argv[2], "accuracy") == 0)) speed();
    return 0;
}
