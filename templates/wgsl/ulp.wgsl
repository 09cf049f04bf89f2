// aether: the distance between two f32 values in units in the last place (ULP), the rules of
// reference/src/ulp.rs and of the C core's aether_f32_ulp_distance. Standalone WGSL (no other
// declaration needed); WGSL has no 64-bit integer, so there is no f64 form.
//
// The distance counts the representable values between a and b on one ordered line valid
// across signs: the word s | m (sign s, magnitude bits m) is the point 2^31 + m when the sign is
// clear and 2^31 - m when it is set. Negative values lie below positive ones; +0 and -0 are one
// point (distance 0: WGSL lets an implementation return either zero), so -tiny and +tiny (the
// smallest subnormals) are 2 apart; an infinity lies one step past the largest finite value of
// its sign. NaN follows the spec's comparison policy (any-nan): any NaN against any NaN is 0, a
// NaN against a number (infinities included) is 0xffffffffu, which no two numbers reach (at
// most 0xff000000u, -inf to +inf). No point and no difference wraps: m is at most 0x7f800000u.
//
// Everything is integer arithmetic on the words. WGSL does not promise that a NaN, an infinity
// or a subnormal survives as an f32 value (a load or an operation may change it), so a checker
// that must see them reads its buffers as u32 and calls aether_f32_ulp_distance_bits.

fn aether_f32_ulp_point(bits: u32) -> u32 {
    let m = bits & 0x7fffffffu;
    if ((bits & 0x80000000u) != 0u) {
        return 0x80000000u - m;
    }
    return 0x80000000u + m;
}

fn aether_f32_ulp_distance_bits(a: u32, b: u32) -> u32 {
    let a_nan = (a & 0x7fffffffu) > 0x7f800000u;
    let b_nan = (b & 0x7fffffffu) > 0x7f800000u;
    if (a_nan || b_nan) {
        return select(0xffffffffu, 0u, a_nan && b_nan);
    }
    let pa = aether_f32_ulp_point(a);
    let pb = aether_f32_ulp_point(b);
    return max(pa, pb) - min(pa, pb);
}

fn aether_f32_ulp_distance(a: f32, b: f32) -> u32 {
    return aether_f32_ulp_distance_bits(bitcast<u32>(a), bitcast<u32>(b));
}
