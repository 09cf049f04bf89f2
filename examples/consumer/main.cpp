// A C++ consumer of the aether C core: the same output as main.c. aether_core.h has
// extern "C", so aether_core.c can be compiled as C (the usual way) or as C++11 or later.
// Build: g++ -std=c++11 -O2 -c main.cpp && gcc -O2 -c aether_core.c && g++ main.o aether_core.o
//    or: g++ -std=c++11 -O2 main.cpp -x c++ aether_core.c
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "aether_core.h"

namespace {

// A float as its exact value and its IEEE 754 bits.
void show(const char *name, float v)
{
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::printf("%-16s = %-14.9g (0x%08" PRIx32 ")\n", name, static_cast<double>(v), bits);
}

} // namespace

int main()
{
    char msg[AETHER_SELFTEST_MESSAGE_MAX];
    const aether_vec3f a = {0.1f, 0.2f, 0.3f};
    const aether_vec3f b = {0.4f, 0.5f, 0.6f};
    const std::vector<float> xs = {1e8f, 0.5f, -1e8f, 0.25f};

    // Header and object must come from the same contract, and this build must keep it.
    if (std::string(aether_contract_id()) != AETHER_CONTRACT_ID) {
        std::printf("contract mismatch: header %s, object %s\n", AETHER_CONTRACT_ID, aether_contract_id());
        return 1;
    }
    if (AETHER_SELFTEST(msg, sizeof msg) != 0) {
        std::printf("%s\n", msg);
        return 1;
    }
    std::printf("%s\n", msg);

    show("dot(a, b)", aether_vec3f_dot(a, b));
    // A function's address has the type its declaration shows.
    float (*const dot)(aether_vec3f, aether_vec3f) = aether_vec3f_dot;
    show("dot, by pointer", dot(a, b));
    const aether_vec3f c = aether_vec3f_cross(a, b);
    show("cross(a, b).x", c.x);
    show("cross(a, b).y", c.y);
    show("cross(a, b).z", c.z);

    // Plain left-to-right summation loses the 0.5 under 1e8; sum_array keeps it.
    float naive = 0.0f;
    for (float x : xs) naive += x;
    show("plain sum", naive);
    show("sum_array", aether_f32_sum_array(xs.data(), xs.size()));
    return 0;
}
