/* The program of the -Ofast negative control: it calls into fastmath_lib (linked in, or loaded
   as a shared library) and then runs the core's self-test, printing its message and exiting
   with its status. */
#include <stdio.h>

#include "aether_core.h"

float fastmath_lib_scale(const float *x, int n);

int main(void)
{
    char message[4096];
    const float x[2] = { 1.0f, 2.0f };
    const int status = AETHER_SELFTEST(message, sizeof message);
    printf("fastmath_lib_scale: %g\n%s\n", (double)fastmath_lib_scale(x, 2), message);
    return status;
}
