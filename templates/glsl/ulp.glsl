// aether: the distance between two f32 values in units in the last place (ULP), the rules of
// reference/src/ulp.rs and of the C core's aether_f32_ulp_distance, in GLSL ES 3.00 (no other
// declaration needed; GLSL ES has no 64-bit integer, so there is no f64 form).
//
// The distance counts the representable values between a and b on one ordered line valid
// across signs: the word s | m (sign s, magnitude bits m) is the point 2^31 + m when the sign is
// clear and 2^31 - m when it is set. +0 and -0 are one point (GLSL ES lets an implementation
// interchange them); an infinity lies one step past the largest finite value of its sign. NaN
// follows the spec's comparison policy (any-nan): any NaN against any NaN is 0, a NaN against a
// number is 0xffffffffu, which no two numbers reach. All of it is integer arithmetic on the
// words: GLSL ES does not promise that a NaN, an infinity or a subnormal survives as a float
// (uintBitsToFloat of a NaN or infinity pattern is unspecified), so a checker that must see
// them reads its words as uint and calls aether_f32_ulp_distance_bits.

uint aether_f32_ulp_point(uint bits) {
    uint m = bits & 0x7fffffffu;
    if ((bits & 0x80000000u) != 0u) {
        return 0x80000000u - m;
    }
    return 0x80000000u + m;
}

uint aether_f32_ulp_distance_bits(uint a, uint b) {
    bool a_nan = (a & 0x7fffffffu) > 0x7f800000u;
    bool b_nan = (b & 0x7fffffffu) > 0x7f800000u;
    if (a_nan || b_nan) {
        return (a_nan && b_nan) ? 0u : 0xffffffffu;
    }
    uint pa = aether_f32_ulp_point(a);
    uint pb = aether_f32_ulp_point(b);
    return max(pa, pb) - min(pa, pb);
}

uint aether_f32_ulp_distance(float a, float b) {
    return aether_f32_ulp_distance_bits(floatBitsToUint(a), floatBitsToUint(b));
}
