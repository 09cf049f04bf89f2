/* One copy of the core, header-only, with its elementary functions in a
 * table named PREFIX##entries (orig_entries, mut_entries): compiled once on
 * the shipped core and once on a copy with one coefficient's last bit
 * flipped, by scripts/coefficient-search.py. */
#define AETHER_HEADER_ONLY
#include "aether_core.h"
#include "coefficient_core.h"

#define JOIN2(a, b) a##b
#define JOIN(a, b) JOIN2(a, b)

#define ONE(t, f)                                                                      \
    static void call_##t##_##f(const double *in, double *out) { out[0] = aether_##t##_##f(in[0]); }
#define TWO(t, f)                                                                      \
    static void call_##t##_##f(const double *in, double *out) { out[0] = aether_##t##_##f(in[0], in[1]); }
#define ELEMENTARY(t, T)                                                               \
    ONE(t, sin) ONE(t, cos) ONE(t, tan) ONE(t, atan) ONE(t, exp) ONE(t, exp2)          \
    ONE(t, log) ONE(t, log2) ONE(t, asin) ONE(t, acos) TWO(t, atan2) TWO(t, pow)       \
    static void call_##t##_sincos(const double *in, double *out)                      \
    {                                                                                  \
        T v = aether_##t##_sincos(in[0]);                                              \
        out[0] = v.x;                                                                  \
        out[1] = v.y;                                                                  \
    }
ELEMENTARY(f32, aether_vec2f)
ELEMENTARY(f64, aether_vec2d)

#define ROW(t, b, f, i, o) {"aether_" #t "_" #f, b, i, o, call_##t##_##f},
#define ROWS(t, b)                                                                     \
    ROW(t, b, sin, 1, 1) ROW(t, b, cos, 1, 1) ROW(t, b, sincos, 1, 2) ROW(t, b, tan, 1, 1) \
    ROW(t, b, atan, 1, 1) ROW(t, b, atan2, 2, 1) ROW(t, b, exp, 1, 1) ROW(t, b, exp2, 1, 1) \
    ROW(t, b, log, 1, 1) ROW(t, b, log2, 1, 1) ROW(t, b, pow, 2, 1) ROW(t, b, asin, 1, 1)  \
    ROW(t, b, acos, 1, 1)

const struct coefficient_entry JOIN(PREFIX, entries)[] = {ROWS(f32, 32) ROWS(f64, 64){0, 0, 0, 0, 0}};
