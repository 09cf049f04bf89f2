/* Cost of the C core's contraction guards: time per call of a few functions, in the build a
   consumer gets (guards on) and in a build without guards or pragmas where -ffp-contract=off on
   the command line keeps the bits instead (-DAETHER_UNSAFE_ALLOW_CONTRACTION). Both builds give
   the same bits; scripts/bench-guards.sh builds both, runs them in turn and prints the ratios.

   usage: guards REPS [unchecked]   prints "name ns-per-call" lines; the self-test must pass
   unless `unchecked` is given (gcc 12 forms vfmaddsub in quat_mul even under -ffp-contract=off,
   so the unguarded build can fail it; its timings still count). */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "aether_core.h"

#define N 1024
#define LONG 4096

static volatile float sink_f;
static volatile double sink_d;

static unsigned long long state = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static aether_vec3f v3[N], w3[N];
static aether_quatf q[N];
static aether_mat4f m4[N];
static aether_mat3f lu3[N];
static int piv3[N][3];
static aether_mat3d s3[N];
static aether_vec4d v4[N], w4[N];
static float xs[LONG];
static double ys[LONG], zs[LONG];

#define TIME(name, calls, body)                                                   \
    do {                                                                          \
        double t0 = now();                                                        \
        for (r = 0; r < reps; ++r) {                                              \
            body;                                                                 \
        }                                                                         \
        printf("%-26s %10.2f\n", name, (now() - t0) * 1e9 / ((double)reps * (calls))); \
    } while (0)

int main(int argc, char **argv)
{
    const long reps = argc > 1 ? atol(argv[1]) : 200;
    long r;
    int i, k;
    char msg[512];
    if (AETHER_SELFTEST(msg, sizeof msg) != 0 && !(argc > 2 && strcmp(argv[2], "unchecked") == 0)) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    for (i = 0; i < N; ++i) {
        v3[i].x = (float)uniform(); v3[i].y = (float)uniform(); v3[i].z = (float)uniform();
        w3[i].x = (float)uniform(); w3[i].y = (float)uniform(); w3[i].z = (float)uniform();
        q[i].w = (float)uniform(); q[i].x = (float)uniform(); q[i].y = (float)uniform(); q[i].z = (float)uniform();
        v4[i].x = uniform(); v4[i].y = uniform(); v4[i].z = uniform(); v4[i].w = uniform();
        w4[i].x = uniform(); w4[i].y = uniform(); w4[i].z = uniform(); w4[i].w = uniform();
        for (k = 0; k < 16; ++k) m4[i].m[k] = (float)uniform();
        for (k = 0; k < 9; ++k) lu3[i].m[k] = (float)uniform();
        for (k = 0; k < 3; ++k) lu3[i].m[k * 4] += 4.0f;
        aether_mat3f_lu(&lu3[i], piv3[i]);
        for (k = 0; k < 9; ++k) s3[i].m[k] = uniform();
    }
    for (i = 0; i < LONG; ++i) {
        xs[i] = (float)uniform();
        ys[i] = uniform();
        zs[i] = uniform();
    }
    TIME("vec3f_dot", N, for (i = 0; i < N; ++i) sink_f = aether_vec3f_dot(v3[i], w3[i]));
    TIME("vec4d_dot", N, for (i = 0; i < N; ++i) sink_d = aether_vec4d_dot(v4[i], w4[i]));
    TIME("vec3f_lerp", N, for (i = 0; i < N; ++i) sink_f = aether_vec3f_lerp(v3[i], w3[i], 0.25f).y);
    TIME("vec3f_cross", N, for (i = 0; i < N; ++i) sink_f = aether_vec3f_cross(v3[i], w3[i]).z);
    TIME("vec3f_normalize", N, for (i = 0; i < N; ++i) sink_f = aether_vec3f_normalize(v3[i]).x);
    TIME("quatf_mul", N, for (i = 0; i < N; ++i) sink_f = aether_quatf_mul(q[i], q[(i + 1) % N]).w);
    TIME("quatf_rotate", N, for (i = 0; i < N; ++i) sink_f = aether_quatf_rotate(q[i], v3[i]).x);
    TIME("mat4f_mul", N, for (i = 0; i < N; ++i) sink_f = aether_mat4f_mul(m4[i], m4[(i + 1) % N]).m[5]);
    TIME("mat3f_lu_solve", N, for (i = 0; i < N; ++i) sink_f = aether_mat3f_lu_solve(&lu3[i], piv3[i], v3[i]).y);
    TIME("mat3d_eigh", N / 16, for (i = 0; i < N / 16; ++i) { aether_vec3d w; aether_mat3d v; aether_mat3d_eigh(s3[i], &w, &v); sink_d = w.x; });
    TIME("f32_sum_array (per elem)", LONG, sink_f = aether_f32_sum_array(xs, LONG));
    TIME("f64_dot_array (per elem)", LONG, sink_d = aether_f64_dot_array(ys, zs, LONG));
    return 0;
}
