/* An unrelated library compiled and linked with -Ofast. GCC links crtfastmath.o into any
   program or shared library linked with -Ofast/-ffast-math; its constructor sets flush-to-zero
   and denormals-are-zero in MXCSR for the whole process when the program starts or the library
   is loaded. The core is not compiled with -Ofast, and its self-test must still notice. */
float fastmath_lib_scale(const float *x, int n)
{
    float s = 0.0f;
    int i;
    for (i = 0; i < n; ++i) s += x[i] * 0.5f;
    return s;
}
