/* The table tests/c/coefficient_core.c gives for one copy of the core
 * (tests/c/coefficient_search.c calls two copies side by side). */
#ifndef COEFFICIENT_CORE_H
#define COEFFICIENT_CORE_H

struct coefficient_entry {
    const char *name;
    int bits, inputs, outputs;
    /* Inputs and outputs as doubles (an f32 value converts exactly). */
    void (*call)(const double *in, double *out);
};

#endif
