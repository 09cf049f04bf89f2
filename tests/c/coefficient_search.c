/* A native search for inputs that see one coefficient's last bit
 * (scripts/coefficient-search.py builds and runs it; tests/coefficients.rs
 * states the test these inputs serve).
 *
 * The program is built from three translation units: this file, and
 * tests/c/coefficient_core.c compiled twice, once on the shipped core
 * (PREFIX=orig_) and once on a copy whose one coefficient has its last bit
 * flipped in the text (PREFIX=mut_). Each of the two gives the elementary
 * functions through one table of the same shape, so the two cores are
 * called side by side on the same inputs, at the compiled core's speed (the
 * generator's interpreter, which the Rust search uses, is about a thousand
 * times slower: too slow for a coefficient seen once in 2^30 inputs).
 *
 *   coefficient_search FUNCTION TRIES SEED X-RANGES [Y-RANGES]
 *
 * FUNCTION is a C name (aether_f64_sin); TRIES inputs are drawn, each input
 * word uniformly from one of its RANGES ("lo:hi,lo:hi", one picked at
 * random), rounded to the function's type. X-RANGES "all" (f32, one input)
 * takes every one of the 2^32 bit patterns instead, in order. Prints the
 * first input whose two results differ (not both NaN) as "witness x [y]"
 * with round-trip digits, and "none COUNT" (or "none all 2^32") when none
 * did. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coefficient_core.h"

extern const struct coefficient_entry orig_entries[];
extern const struct coefficient_entry mut_entries[];

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

struct ranges {
    int n;
    double lo[64], hi[64];
};

static int parse_ranges(const char *text, struct ranges *r)
{
    char *copy = strdup(text), *save = NULL;
    r->n = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (r->n == 64 || sscanf(tok, "%lf:%lf", &r->lo[r->n], &r->hi[r->n]) != 2 || !(r->lo[r->n] <= r->hi[r->n])) {
            fprintf(stderr, "coefficient_search: bad range '%s' in '%s' (lo:hi,lo:hi,...)\n", tok, text);
            free(copy);
            return 0;
        }
        r->n++;
    }
    free(copy);
    return r->n > 0;
}

static double draw(const struct ranges *r, uint64_t *s, int bits)
{
    int i = (int)(next_u64(s) % (uint64_t)r->n);
    double u = (double)(next_u64(s) >> 11) * 0x1p-53;
    double x = r->lo[i] + (r->hi[i] - r->lo[i]) * u;
    return bits == 32 ? (double)(float)x : x;
}

static int same(double a, double b, int bits)
{
    if (isnan(a) && isnan(b)) return 1;
    if (bits == 32) {
        float fa = (float)a, fb = (float)b;
        return memcmp(&fa, &fb, 4) == 0;
    }
    return memcmp(&a, &b, 8) == 0;
}

/* The shortest decimal that reads back to x in its type. */
static void show(double x, int bits, char *buf, size_t n)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, x);
        if (bits == 32 ? (float)strtod(buf, NULL) == (float)x : strtod(buf, NULL) == x) return;
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: coefficient_search FUNCTION TRIES SEED X-RANGES [Y-RANGES]\n");
        return 2;
    }
    const struct coefficient_entry *o = NULL, *m = NULL;
    for (int i = 0; orig_entries[i].name; i++) {
        if (strcmp(orig_entries[i].name, argv[1]) == 0) {
            o = &orig_entries[i];
            m = &mut_entries[i];
        }
    }
    if (!o) {
        fprintf(stderr, "coefficient_search: no function %s in the table\n", argv[1]);
        return 2;
    }
    uint64_t tries = strtoull(argv[2], NULL, 10), seed = strtoull(argv[3], NULL, 10);
    struct ranges rx, ry;
    int every = strcmp(argv[4], "all") == 0;
    if (every && (o->bits != 32 || o->inputs != 1)) {
        fprintf(stderr, "coefficient_search: \"all\" takes an f32 function of one input\n");
        return 2;
    }
    if (every) tries = (uint64_t)1 << 32;
    else if (!parse_ranges(argv[4], &rx)) return 2;
    if (o->inputs == 2 && (argc < 6 || !parse_ranges(argv[5], &ry))) {
        fprintf(stderr, "coefficient_search: %s takes two inputs: give Y-RANGES\n", o->name);
        return 2;
    }
    uint64_t s = seed * 0x2545F4914F6CDD1Du + 1;
    double in[2] = {0, 0}, a[2], b[2];
    for (uint64_t t = 0; t < tries; t++) {
        if (every) {
            float f;
            uint32_t w = (uint32_t)t;
            memcpy(&f, &w, 4);
            in[0] = f;
        } else {
            in[0] = draw(&rx, &s, o->bits);
        }
        if (o->inputs == 2) in[1] = draw(&ry, &s, o->bits);
        o->call(in, a);
        m->call(in, b);
        for (int k = 0; k < o->outputs; k++) {
            if (!same(a[k], b[k], o->bits)) {
                char x[40], y[40] = "";
                show(in[0], o->bits, x, sizeof x);
                if (o->inputs == 2) show(in[1], o->bits, y, sizeof y);
                printf("witness %s%s%s after %" PRIu64 "\n", x, o->inputs == 2 ? ", " : "", y, t + 1);
                return 0;
            }
        }
    }
    if (every) printf("none all 2^32\n");
    else printf("none %" PRIu64 "\n", tries);
    return 1;
}
