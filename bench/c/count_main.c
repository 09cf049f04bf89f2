/* The driver of the aarch64 instruction counts (scripts/bench-aarch64.sh): runs one loop of
   bench/c/contenders.c, chosen by name, PASSES times over N items, and nothing else that depends
   on PASSES. Under qemu-user with one instruction per translation block and every executed block
   logged, the script counts the guest instructions of a run with PASSES = 1 and of one with
   PASSES = 3; the difference over 2 N is the instructions per item of the loop alone (the
   set-up, the loader and the exit cancel out).
     usage: count_main KIND/OP PASSES N   (count_main --list: every KIND/OP)
   The inputs are the same numbers for every contender (values in [0.5, 1.5), so no inverse meets
   a singular matrix and no normalize a zero vector): the counts of branching code (the inverses'
   pivoting, normalize's select) are those of ordinary inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*bench_loop)(const void *, const void *, void *, size_t);

/* The contenders' loops, as contenders.c names them: bench_<cc>_<kind>_<op>. */
#define COUNT_OPS(X)                                                                          \
    X(vec3f_dot) X(vec3f_cross) X(vec3f_normalize) X(quatf_mul) X(quatf_rotate) X(mat4f_mul)   \
    X(mat4f_mul_vec) X(mat3f_inverse) X(mat4f_inverse)
#define COUNT_AETHER_OPS(X) X(mat3f_inverse_adjugate) X(mat4f_inverse_adjugate) X(vec3d_dot) X(mat4d_mul) X(mat4d_mul_vec) X(quatd_mul)

#define DECLARE(kind, op) void bench_##kind##_##op(const void *, const void *, void *, size_t);
#define DECLARE_OBJ(op) DECLARE(cc_obj, op)
#define DECLARE_INLINE(op) DECLARE(cc_inline, op)
#define DECLARE_CGLM(op) DECLARE(cc_cglm, op)
COUNT_OPS(DECLARE_OBJ)
COUNT_OPS(DECLARE_INLINE)
COUNT_OPS(DECLARE_CGLM)
COUNT_AETHER_OPS(DECLARE_OBJ)
COUNT_AETHER_OPS(DECLARE_INLINE)

struct entry {
    const char *name;
    bench_loop loop;
};
#define ENTRY(kind, op) {#kind "/" #op, bench_##kind##_##op},
#define ENTRY_OBJ(op) ENTRY(cc_obj, op)
#define ENTRY_INLINE(op) ENTRY(cc_inline, op)
#define ENTRY_CGLM(op) ENTRY(cc_cglm, op)
static const struct entry entries[] = {
    COUNT_OPS(ENTRY_OBJ) COUNT_OPS(ENTRY_INLINE) COUNT_OPS(ENTRY_CGLM)
    COUNT_AETHER_OPS(ENTRY_OBJ) COUNT_AETHER_OPS(ENTRY_INLINE)
};

int main(int argc, char **argv)
{
    size_t i, n, passes, words;
    double *a, *b, *out;
    const struct entry *e = NULL;
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        /* Every loop, one KIND/OP a line: the script counts what this table holds. */
        for (i = 0; i < sizeof entries / sizeof entries[0]; ++i) printf("%s\n", entries[i].name);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: count_main KIND/OP PASSES N, or count_main --list\n");
        return 2;
    }
    for (i = 0; i < sizeof entries / sizeof entries[0]; ++i)
        if (strcmp(entries[i].name, argv[1]) == 0) e = &entries[i];
    if (!e) {
        fprintf(stderr, "count_main: no loop %s\n", argv[1]);
        return 2;
    }
    passes = strtoul(argv[2], NULL, 10);
    n = strtoul(argv[3], NULL, 10);
    /* 16 binary64 words per item holds any operand of any loop (a mat4d). */
    words = 16 * n;
    a = malloc(words * sizeof *a);
    b = malloc(words * sizeof *b);
    out = malloc(words * sizeof *out);
    if (!a || !b || !out) return 2;
    {
        /* binary64 values for the binary64 loops (vec3d, mat4d, quatd), binary32 for the others. */
        const int f64 = strstr(e->name, "d_") != NULL;
        float *af = (float *)a, *bf = (float *)b;
        unsigned s = 12345u;
        for (i = 0; i < words; ++i) {
            const double x = 0.5 + (double)((s = s * 1103515245u + 12345u) >> 8) / 16777216.0;
            if (f64) {
                a[i] = x;
                b[i] = 2.0 - x;
            } else {
                af[i] = (float)x;
                bf[i] = (float)(2.0 - x);
            }
        }
    }
    for (i = 0; i < passes; ++i) e->loop(a, b, out, n);
    /* Keep the results live. */
    printf("%s %g\n", e->name, out[0] + out[n - 1]);
    return 0;
}
