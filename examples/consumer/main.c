/* A consumer of the aether C core: it needs only aether_core.h and aether_core.c.
   Build: gcc -O2 main.c aether_core.c -lm   (any C99 compiler, -O0 to -O3, -march=native) */
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include "aether_core.h"

/* A float as its exact value and its IEEE 754 bits. */
static void show(const char *name, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    printf("%-16s = %-14.9g (0x%08" PRIx32 ")\n", name, (double)v, bits);
}

int main(void)
{
    char msg[AETHER_SELFTEST_MESSAGE_MAX];
    const aether_vec3f a = {0.1f, 0.2f, 0.3f};
    const aether_vec3f b = {0.4f, 0.5f, 0.6f};
    const float xs[] = {1e8f, 0.5f, -1e8f, 0.25f};
    const size_t n = sizeof xs / sizeof xs[0];
    aether_vec3f c;
    float (*dot)(aether_vec3f, aether_vec3f);
    float naive = 0.0f;
    size_t i;

    /* Header and object must come from the same contract, and this build must keep it. */
    if (strcmp(aether_contract_id(), AETHER_CONTRACT_ID) != 0) {
        printf("contract mismatch: header %s, object %s\n", AETHER_CONTRACT_ID, aether_contract_id());
        return 1;
    }
    if (AETHER_SELFTEST(msg, sizeof msg) != 0) {
        printf("%s\n", msg);
        return 1;
    }
    printf("%s\n", msg);

    show("dot(a, b)", aether_vec3f_dot(a, b));
    /* A function's address has the type its declaration shows, in the header-only form too. */
    dot = aether_vec3f_dot;
    show("dot, by pointer", dot(a, b));
    c = aether_vec3f_cross(a, b);
    show("cross(a, b).x", c.x);
    show("cross(a, b).y", c.y);
    show("cross(a, b).z", c.z);

    /* Plain left-to-right summation loses the 0.5 under 1e8; sum_array keeps it. */
    for (i = 0; i < n; ++i) naive += xs[i];
    show("plain sum", naive);
    show("sum_array", aether_f32_sum_array(xs, n));
    return 0;
}
