/// The distance between `a` and `b` in units in the last place of binary32:
/// the number of representable values from one to the other (0 for equal
/// values, and for +0 and -0), 0 when both are NaN, `u32::MAX` when only one
/// is. For a consumer's own tests of a target without bit identity.
pub fn aether_f32_ulp_distance(a: f32, b: f32) -> u32 {
    const SIGN: u32 = 0x8000_0000;
    const INF: u32 = 0x7f80_0000;
    let (ua, ub) = (a.to_bits(), b.to_bits());
    let (ma, mb) = (ua & !SIGN, ub & !SIGN);
    if ma > INF || mb > INF {
        return if ma > INF && mb > INF { 0 } else { u32::MAX };
    }
    // Bits to a line where adjacent floats are adjacent integers.
    let pa = if ua & SIGN != 0 { SIGN - ma } else { SIGN + ma };
    let pb = if ub & SIGN != 0 { SIGN - mb } else { SIGN + mb };
    pa.abs_diff(pb)
}

/// The distance between `a` and `b` in units in the last place of binary64
/// (the rules of [`aether_f32_ulp_distance`]).
pub fn aether_f64_ulp_distance(a: f64, b: f64) -> u64 {
    const SIGN: u64 = 0x8000_0000_0000_0000;
    const INF: u64 = 0x7ff0_0000_0000_0000;
    let (ua, ub) = (a.to_bits(), b.to_bits());
    let (ma, mb) = (ua & !SIGN, ub & !SIGN);
    if ma > INF || mb > INF {
        return if ma > INF && mb > INF { 0 } else { u64::MAX };
    }
    let pa = if ua & SIGN != 0 { SIGN - ma } else { SIGN + ma };
    let pb = if ub & SIGN != 0 { SIGN - mb } else { SIGN + mb };
    pa.abs_diff(pb)
}
