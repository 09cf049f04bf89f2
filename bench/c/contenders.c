/* The C contenders of the benchmark (bench/src/main.rs): one loop per operation over caller-owned
   arrays, compiled once per compiler (BENCH_CC: gcc or clang) and per kind (BENCH_KIND):
     obj     the shipped core, aether_core.c compiled on its own and called through its header
     inline  the header-only core (AETHER_HEADER_ONLY), inlined into these loops
     cglm    cglm 0.8.8's inline functions (Debian's libcglm-dev), and the plain and Kahan loops
     cglmobj cglm's shipped object (gcc only): the same loops calling Debian's libcglm.so.0
             (glmc_*, one call per item, arguments by pointer), the peer of the core's object
     batch   the batched forms (aether_batch.c compiled on its own): one call for all n items,
             <op>_aos over the core's structs, <op>_soa over component planes ([c * n + i])
     libm    the platform's elementary functions (glibc's libm: sinf, sin, ...), one call per item
     fast    the platform's fast path (gcc only): the same loops under -O3 -ffast-math -fopenmp-simd,
             which glibc's <math.h> lets gcc vectorise into calls of libmvec's SIMD forms
   The elementary functions' loops are also listed, by name, in a table per kind
   (bench_<cc>_<kind>_elementary_table), so main.rs finds them without naming each one.
   Every loop is `void bench_<cc>_<kind>_<op>(const void *a, const void *b, void *out, size_t n)`;
   n counts items (elements for the array sums). The layouts are the callers': aether's
   row-major matrices and (w, x, y, z) quaternions, cglm's column-major matrices and (x, y, z, w)
   versors (bench/src/main.rs converts the inputs before timing and the outputs after). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_CAT3(a, b, c) bench_##a##_##b##_##c
#define BENCH_NAME(cc, kind, op) BENCH_CAT3(cc, kind, op)
#define BENCH(op) void BENCH_NAME(BENCH_CC, BENCH_KIND, op)(const void *a_, const void *b_, void *out_, size_t n)
#define UNUSED_B (void)b_

/* The elementary functions of the benchmark: one input, and two (atan2(y, x), pow(x, y)). */
#define BENCH_ELEMENTARY1(X) X(sin) X(cos) X(tan) X(atan) X(exp) X(exp2) X(log) X(log2) X(asin) X(acos)
#define BENCH_ELEMENTARY2(X) X(atan2) X(pow)

typedef void (*bench_loop)(const void *, const void *, void *, size_t);
struct bench_entry {
    const char *name;
    bench_loop loop;
};
#define BENCH_ENTRY(op) {"f32_" #op, BENCH_NAME(BENCH_CC, BENCH_KIND, f32_##op)}, {"f64_" #op, BENCH_NAME(BENCH_CC, BENCH_KIND, f64_##op)},
#define BENCH_ELEMENTARY_TABLE                                                                \
    const struct bench_entry *BENCH_NAME(BENCH_CC, BENCH_KIND, elementary_table)(size_t *count); \
    const struct bench_entry *BENCH_NAME(BENCH_CC, BENCH_KIND, elementary_table)(size_t *count) \
    {                                                                                         \
        static const struct bench_entry t[] = {BENCH_ELEMENTARY1(BENCH_ENTRY) BENCH_ELEMENTARY2(BENCH_ENTRY)}; \
        *count = sizeof t / sizeof t[0];                                                      \
        return t;                                                                             \
    }

#if defined(BENCH_KIND_AETHER)

#include "aether_core.h"

/* One call per item, as a caller holding arrays of aether's structs writes it. */
#define MAP2(op, ta, tb, tr, call)                                                            \
    BENCH(op)                                                                                 \
    {                                                                                         \
        const ta *a = (const ta *)a_;                                                         \
        const tb *b = (const tb *)b_;                                                         \
        tr *out = (tr *)out_;                                                                 \
        size_t i;                                                                             \
        for (i = 0; i < n; ++i) out[i] = call(a[i], b[i]);                                    \
    }
#define MAP1(op, ta, tr, call)                                                                \
    BENCH(op)                                                                                 \
    {                                                                                         \
        const ta *a = (const ta *)a_;                                                         \
        tr *out = (tr *)out_;                                                                 \
        size_t i;                                                                             \
        UNUSED_B;                                                                             \
        for (i = 0; i < n; ++i) out[i] = call(a[i]);                                          \
    }
#define INV(op, tm, call)                                                                     \
    BENCH(op)                                                                                 \
    {                                                                                         \
        const tm *a = (const tm *)a_;                                                         \
        tm *out = (tm *)out_;                                                                 \
        size_t i;                                                                             \
        UNUSED_B;                                                                             \
        for (i = 0; i < n; ++i) (void)call(a[i], &out[i]);                                    \
    }

MAP2(vec3f_dot, aether_vec3f, aether_vec3f, float, aether_vec3f_dot)
MAP2(vec3f_cross, aether_vec3f, aether_vec3f, aether_vec3f, aether_vec3f_cross)
MAP1(vec3f_normalize, aether_vec3f, aether_vec3f, aether_vec3f_normalize)
MAP2(quatf_mul, aether_quatf, aether_quatf, aether_quatf, aether_quatf_mul)
MAP2(quatf_rotate, aether_quatf, aether_vec3f, aether_vec3f, aether_quatf_rotate)
MAP2(mat4f_mul, aether_mat4f, aether_mat4f, aether_mat4f, aether_mat4f_mul)
MAP2(mat4f_mul_vec, aether_mat4f, aether_vec4f, aether_vec4f, aether_mat4f_mul_vec)
INV(mat3f_inverse, aether_mat3f, aether_mat3f_inverse)
INV(mat4f_inverse, aether_mat4f, aether_mat4f_inverse)
MAP1(mat3f_inverse_adjugate, aether_mat3f, aether_mat3f, aether_mat3f_inverse_adjugate)
MAP1(mat4f_inverse_adjugate, aether_mat4f, aether_mat4f, aether_mat4f_inverse_adjugate)
MAP2(vec3d_dot, aether_vec3d, aether_vec3d, double, aether_vec3d_dot)
MAP2(mat4d_mul, aether_mat4d, aether_mat4d, aether_mat4d, aether_mat4d_mul)
MAP2(mat4d_mul_vec, aether_mat4d, aether_vec4d, aether_vec4d, aether_mat4d_mul_vec)
MAP2(quatd_mul, aether_quatd, aether_quatd, aether_quatd, aether_quatd_mul)

BENCH(mat3f_inverse_lanes)
{
    /* The info array, grown once to the largest n (outside the timed passes after the first). */
    static int *info;
    static size_t cap;
    UNUSED_B;
    if (n > cap) {
        free(info);
        info = (int *)malloc(n * sizeof *info);
        if (!info) abort();
        cap = n;
    }
    aether_mat3f_inverse_lanes((const aether_mat3f *)a_, (aether_mat3f *)out_, info, n);
}
BENCH(f32_sum_array)
{
    UNUSED_B;
    *(float *)out_ = aether_f32_sum_array((const float *)a_, n);
}
BENCH(f32_dot_array)
{
    *(float *)out_ = aether_f32_dot_array((const float *)a_, (const float *)b_, n);
}
BENCH(f64_sum_array)
{
    UNUSED_B;
    *(double *)out_ = aether_f64_sum_array((const double *)a_, n);
}

#define AETHER_ELEMENTARY1(op)                                                                \
    MAP1(f32_##op, float, float, aether_f32_##op)                                             \
    MAP1(f64_##op, double, double, aether_f64_##op)
#define AETHER_ELEMENTARY2(op)                                                                \
    MAP2(f32_##op, float, float, float, aether_f32_##op)                                      \
    MAP2(f64_##op, double, double, double, aether_f64_##op)
BENCH_ELEMENTARY1(AETHER_ELEMENTARY1)
BENCH_ELEMENTARY2(AETHER_ELEMENTARY2)
BENCH_ELEMENTARY_TABLE

#elif defined(BENCH_KIND_LIBM) || defined(BENCH_KIND_FAST)

#include <math.h>

#if defined(BENCH_KIND_FAST)
#define BENCH_SIMD _Pragma("omp simd")
#else
#define BENCH_SIMD
#endif

#define LIBM1(op, t, fn)                                                                      \
    BENCH(op)                                                                                 \
    {                                                                                         \
        const t *a = (const t *)a_;                                                           \
        t *out = (t *)out_;                                                                   \
        size_t i;                                                                             \
        UNUSED_B;                                                                             \
        BENCH_SIMD                                                                            \
        for (i = 0; i < n; ++i) out[i] = fn(a[i]);                                            \
    }
#define LIBM2(op, t, fn)                                                                      \
    BENCH(op)                                                                                 \
    {                                                                                         \
        const t *a = (const t *)a_;                                                           \
        const t *b = (const t *)b_;                                                           \
        t *out = (t *)out_;                                                                   \
        size_t i;                                                                             \
        BENCH_SIMD                                                                            \
        for (i = 0; i < n; ++i) out[i] = fn(a[i], b[i]);                                      \
    }
#define LIBM_ELEMENTARY1(op) LIBM1(f32_##op, float, op##f) LIBM1(f64_##op, double, op)
#define LIBM_ELEMENTARY2(op) LIBM2(f32_##op, float, op##f) LIBM2(f64_##op, double, op)
BENCH_ELEMENTARY1(LIBM_ELEMENTARY1)
BENCH_ELEMENTARY2(LIBM_ELEMENTARY2)
BENCH_ELEMENTARY_TABLE

#elif defined(BENCH_KIND_CGLM)

#include <cglm/cglm.h>
#ifdef BENCH_CGLM_CALL
#include <cglm/call.h>
#endif

#define CG2(op, ta, tb, tr, stmt)                                                             \
    BENCH(op)                                                                                 \
    {                                                                                         \
        ta *a = (ta *)(size_t)a_;                                                             \
        tb *b = (tb *)(size_t)b_;                                                             \
        (void)b;                                                                              \
        tr *out = (tr *)out_;                                                                 \
        size_t i;                                                                             \
        for (i = 0; i < n; ++i) stmt;                                                         \
    }

/* cglm's inline functions, or (cglmobj) the same functions of its shared library. */
#ifdef BENCH_CGLM_CALL
#define CGLM(f) glmc_##f
#else
#define CGLM(f) glm_##f
#endif
CG2(vec3f_dot, vec3, vec3, float, out[i] = CGLM(vec3_dot)(a[i], b[i]))
CG2(vec3f_cross, vec3, vec3, vec3, CGLM(vec3_cross)(a[i], b[i], out[i]))
CG2(vec3f_normalize, vec3, vec3, vec3, CGLM(vec3_normalize_to)(a[i], out[i]))
CG2(quatf_mul, versor, versor, versor, CGLM(quat_mul)(a[i], b[i], out[i]))
CG2(quatf_rotate, versor, vec3, vec3, CGLM(quat_rotatev)(a[i], b[i], out[i]))
/* Column-major: the caller passes (b, a) for aether's row-major a*b (see main.rs). */
CG2(mat4f_mul, mat4, mat4, mat4, CGLM(mat4_mul)(a[i], b[i], out[i]))
CG2(mat4f_mul_vec, mat4, vec4, vec4, CGLM(mat4_mulv)(a[i], b[i], out[i]))
CG2(mat3f_inverse, mat3, mat3, mat3, CGLM(mat3_inv)(a[i], out[i]))
CG2(mat4f_inverse, mat4, mat4, mat4, CGLM(mat4_inv)(a[i], out[i]))

#ifndef BENCH_CGLM_CALL

/* The loops a user would write instead of the compensated sums: plain, and Kahan's. */
BENCH(f32_sum_array_plain)
{
    const float *x = (const float *)a_;
    float s = 0.0f;
    size_t i;
    UNUSED_B;
    for (i = 0; i < n; ++i) s += x[i];
    *(float *)out_ = s;
}
BENCH(f32_sum_array_kahan)
{
    const float *x = (const float *)a_;
    float s = 0.0f, c = 0.0f;
    size_t i;
    UNUSED_B;
    for (i = 0; i < n; ++i) {
        float y = x[i] - c;
        float t = s + y;
        c = (t - s) - y;
        s = t;
    }
    *(float *)out_ = s;
}
BENCH(f32_dot_array_plain)
{
    const float *x = (const float *)a_, *y = (const float *)b_;
    float s = 0.0f;
    size_t i;
    for (i = 0; i < n; ++i) s += x[i] * y[i];
    *(float *)out_ = s;
}
BENCH(f32_dot_array_kahan)
{
    const float *x = (const float *)a_, *y = (const float *)b_;
    float s = 0.0f, c = 0.0f;
    size_t i;
    for (i = 0; i < n; ++i) {
        float v = x[i] * y[i] - c;
        float t = s + v;
        c = (t - s) - v;
        s = t;
    }
    *(float *)out_ = s;
}
BENCH(f64_sum_array_plain)
{
    const double *x = (const double *)a_;
    double s = 0.0;
    size_t i;
    UNUSED_B;
    for (i = 0; i < n; ++i) s += x[i];
    *(double *)out_ = s;
}
BENCH(f64_sum_array_kahan)
{
    const double *x = (const double *)a_;
    double s = 0.0, c = 0.0;
    size_t i;
    UNUSED_B;
    for (i = 0; i < n; ++i) {
        double y = x[i] - c;
        double t = s + y;
        c = (t - s) - y;
        s = t;
    }
    *(double *)out_ = s;
}

#endif /* BENCH_CGLM_CALL */
#elif defined(BENCH_KIND_BATCH)

#include "aether_batch.h"

/* One call for the whole array, in both layouts (main.rs lays the planes out for _soa). */
#define BATCH2(op)                                                                            \
    BENCH(op##_aos) { aether_##op##_aos(a_, b_, out_, n); }                                   \
    BENCH(op##_soa) { aether_##op##_soa(a_, b_, out_, n); }
#define BATCH1(op)                                                                            \
    BENCH(op##_aos)                                                                           \
    {                                                                                         \
        UNUSED_B;                                                                             \
        aether_##op##_aos(a_, out_, n);                                                       \
    }                                                                                         \
    BENCH(op##_soa)                                                                           \
    {                                                                                         \
        UNUSED_B;                                                                             \
        aether_##op##_soa(a_, out_, n);                                                       \
    }

BATCH2(vec3f_dot)
BATCH2(vec3f_cross)
BATCH1(vec3f_normalize)
BATCH2(quatf_mul)
BATCH2(quatf_rotate)
BATCH2(mat4f_mul)
BATCH2(mat4f_mul_vec)
BATCH1(mat3f_inverse_adjugate)
BATCH1(mat4f_inverse_adjugate)
BATCH2(vec3d_dot)
BATCH2(mat4d_mul)
BATCH2(mat4d_mul_vec)
BATCH2(quatd_mul)

#else
#error "bench/c/contenders.c: define BENCH_KIND_AETHER, BENCH_KIND_CGLM, BENCH_KIND_BATCH, BENCH_KIND_LIBM or BENCH_KIND_FAST (bench/build.rs does)"
#endif
