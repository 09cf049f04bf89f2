//! The distance in units in the last place (ULP) between two floats: how many
//! representable values of the type one must step over to go from one to the
//! other. 0 means the same value, 1 the nearest neighbour. The cores that
//! cannot be bit-exact state their bands in this unit, and every checker
//! measures with these functions (the C and CUDA cores have the same ones,
//! `aether_f32_ulp_distance` and `aether_f64_ulp_distance`, for consumers'
//! own tests).
//!
//! # The rules
//!
//! The distance is counted on one ordered line of all the non-NaN values of
//! the type, valid across signs:
//!
//! * **Ordered mapping.** The bits `s | m` (sign `s`, magnitude `m`, the
//!   exponent and fraction read as one unsigned integer) map to the point
//!   `2^(w-1) + m` when the sign is clear and `2^(w-1) - m` when it is set
//!   (`w` the width). The magnitude of a float grows with `m`, so negative
//!   values lie below positive ones and the line is monotone in the value.
//!   The distance is the absolute difference of the two points.
//! * **Signed zeros.** +0 and -0 map to the same point `2^(w-1)`, so their
//!   distance is 0 (the two words differ, the value does not). The smallest
//!   subnormals `-tiny` and `+tiny` are 2 apart: one step to zero, one step
//!   on. Distances through zero count zero once.
//! * **Infinities** lie one step past the largest finite value of their
//!   sign; this follows from the mapping, as the infinity's magnitude is the
//!   next integer after the largest finite one.
//! * **NaN**, by the spec's comparison policy (`[policy] nan = "any-nan"`):
//!   any NaN matches any NaN (any sign, any payload), distance 0; a NaN
//!   against a number (infinities included) is infinitely far, the maximum of
//!   the return type (`u32::MAX`, `u64::MAX`). No two numbers are that far
//!   apart, so the maximum means a NaN mismatch and nothing else.
//!
//! # No overflow
//!
//! The points of the non-NaN values span `2^(w-1) - m_inf ..= 2^(w-1) +
//! m_inf`, with `m_inf` the magnitude of infinity (`0x7f80_0000` for f32,
//! `0x7ff0_0000_0000_0000` for f64). Every point therefore fits the unsigned
//! word of the type without wrapping, and so does every difference: at most
//! `2 * m_inf` (`0xff00_0000` for f32, `0xffe0_0000_0000_0000` for f64, both
//! below the maximum). The arithmetic is unsigned throughout: the same
//! mapping in signed 64-bit integers (`m` and `-m`) would overflow for f64,
//! whose difference between -inf and +inf needs 64 bits.
//!
//! Only the words are read (no float comparison), so the result depends on
//! nothing but the two bit patterns.

const F32_SIGN: u32 = 1 << 31;
const F32_INF: u32 = 0x7f80_0000;
const F64_SIGN: u64 = 1 << 63;
const F64_INF: u64 = 0x7ff0_0000_0000_0000;

/// The point of a non-NaN f32 word on the ordered line.
fn f32_point(bits: u32) -> u32 {
    let m = bits & !F32_SIGN;
    if bits & F32_SIGN != 0 {
        F32_SIGN - m
    } else {
        F32_SIGN + m
    }
}

/// The point of a non-NaN f64 word on the ordered line.
fn f64_point(bits: u64) -> u64 {
    let m = bits & !F64_SIGN;
    if bits & F64_SIGN != 0 {
        F64_SIGN - m
    } else {
        F64_SIGN + m
    }
}

/// The ULP distance between the f32 values of two words (see the module's
/// rules): 0 for the same value (and for +0 against -0, and for any two
/// NaNs), `u32::MAX` for a NaN against a number.
pub fn f32_ulp_distance_bits(a: u32, b: u32) -> u32 {
    let (a_nan, b_nan) = (a & !F32_SIGN > F32_INF, b & !F32_SIGN > F32_INF);
    if a_nan || b_nan {
        return if a_nan && b_nan { 0 } else { u32::MAX };
    }
    f32_point(a).abs_diff(f32_point(b))
}

/// The ULP distance between the f64 values of two words (see the module's
/// rules): 0 for the same value (and for +0 against -0, and for any two
/// NaNs), `u64::MAX` for a NaN against a number.
pub fn f64_ulp_distance_bits(a: u64, b: u64) -> u64 {
    let (a_nan, b_nan) = (a & !F64_SIGN > F64_INF, b & !F64_SIGN > F64_INF);
    if a_nan || b_nan {
        return if a_nan && b_nan { 0 } else { u64::MAX };
    }
    f64_point(a).abs_diff(f64_point(b))
}

/// The ULP distance between two f32 values (see the module's rules), on
/// their bits.
pub fn f32_ulp_distance(a: f32, b: f32) -> u32 {
    f32_ulp_distance_bits(a.to_bits(), b.to_bits())
}

/// The ULP distance between two f64 values (see the module's rules), on
/// their bits.
pub fn f64_ulp_distance(a: f64, b: f64) -> u64 {
    f64_ulp_distance_bits(a.to_bits(), b.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_on_examples() {
        assert_eq!(f32_ulp_distance(1.0, 1.0), 0);
        assert_eq!(f32_ulp_distance(1.0, f32::from_bits(0x3f80_0001)), 1);
        assert_eq!(f32_ulp_distance(0.0, -0.0), 0);
        let tiny = f32::from_bits(1);
        assert_eq!(f32_ulp_distance(-tiny, tiny), 2);
        assert_eq!(f32_ulp_distance(tiny, -tiny), 2);
        assert_eq!(f32_ulp_distance(-0.0, tiny), 1);
        assert_eq!(f32_ulp_distance(f32::MAX, f32::INFINITY), 1);
        assert_eq!(f32_ulp_distance(f32::NEG_INFINITY, f32::INFINITY), 0xff00_0000);
        assert_eq!(f32_ulp_distance(-1.0, 1.0), 2 * 0x3f80_0000);
        assert_eq!(f32_ulp_distance(f32::NAN, -f32::NAN), 0);
        assert_eq!(f32_ulp_distance_bits(0x7f80_0001, 0xffff_ffff), 0);
        assert_eq!(f32_ulp_distance(f32::NAN, 1.0), u32::MAX);
        assert_eq!(f32_ulp_distance(f32::INFINITY, f32::NAN), u32::MAX);

        assert_eq!(f64_ulp_distance(0.0, -0.0), 0);
        assert_eq!(f64_ulp_distance(-f64::from_bits(1), f64::from_bits(1)), 2);
        assert_eq!(f64_ulp_distance(f64::MAX, f64::INFINITY), 1);
        assert_eq!(f64_ulp_distance(f64::NEG_INFINITY, f64::INFINITY), 0xffe0_0000_0000_0000);
        assert_eq!(f64_ulp_distance(-f64::MAX, f64::MAX), 0xffdf_ffff_ffff_fffe);
        assert_eq!(f64_ulp_distance(f64::NAN, f64::NAN), 0);
        assert_eq!(f64_ulp_distance(f64::NAN, f64::NEG_INFINITY), u64::MAX);
    }
}
