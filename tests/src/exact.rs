//! Exact arithmetic on finite binary floating-point values, independent of
//! any floating-point library, for checking error-free transforms.
//!
//! Every finite `f64` (and so every finite `f32`) is an integer multiple of
//! 2^-1074, the least positive subnormal `f64`. [`Exact`] holds such a value
//! scaled by 2^1074, as a 2176-bit two's complement integer, so it represents
//! every finite `f64` exactly, and sums of up to about 2^77 of them without
//! overflow (which panics rather than wraps). Converting a float only reads
//! its bit pattern and performs integer additions; no floating-point
//! operation is involved.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Neg, Sub};

/// Number of 64-bit limbs: 34 * 64 = 2176 bits. The largest `f64`, scaled by
/// 2^1074, is below 2^2098, which leaves 77 bits of headroom under the sign.
const LIMBS: usize = 34;

/// An exact real number of the form `n * 2^-1074` with `-2^2175 <= n < 2^2175`: enough
/// for any finite `f64` or `f32`, and any sum of a few such values.
///
/// Equality and ordering are those of the real numbers represented, so
/// `+0.0` and `-0.0` convert to the same (zero) value.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Exact {
    /// `n` in two's complement, least significant limb first.
    limbs: [u64; LIMBS],
}

/// Splits a finite `f64` into its sign, an integer significand `m < 2^53`, and
/// the bit offset `k` such that `|x| = m * 2^(k - 1074)`.
fn decompose(x: f64) -> (bool, u64, u32) {
    assert!(x.is_finite(), "Exact: non-finite value {x}");
    let bits = x.to_bits();
    let negative = bits >> 63 != 0;
    let biased = ((bits >> 52) & 0x7ff) as u32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        // Subnormal or zero: fraction * 2^-1074.
        (negative, fraction, 0)
    } else {
        // Normal: (2^52 + fraction) * 2^(biased - 1075) = m * 2^((biased - 1) - 1074).
        (negative, fraction | (1u64 << 52), biased - 1)
    }
}

impl Exact {
    /// Zero.
    pub fn zero() -> Exact {
        Exact { limbs: [0; LIMBS] }
    }

    /// The exact value of a finite `f64`.
    ///
    /// # Panics
    /// If `x` is infinite or NaN.
    pub fn from_f64(x: f64) -> Exact {
        let mut r = Exact::zero();
        r.add_f64(x);
        r
    }

    /// The exact value of a finite `f32` (every `f32` converts to `f64`
    /// exactly).
    ///
    /// # Panics
    /// If `x` is infinite or NaN.
    pub fn from_f32(x: f32) -> Exact {
        Exact::from_f64(f64::from(x))
    }

    /// Adds the exact value of a finite `f64` in place.
    ///
    /// # Panics
    /// If `x` is infinite or NaN, or if the result leaves the representable range.
    pub fn add_f64(&mut self, x: f64) {
        let (negative, m, k) = decompose(x);
        self.add_scaled(negative, m, k);
    }

    /// Subtracts the exact value of a finite `f64` in place.
    ///
    /// # Panics
    /// If `x` is infinite or NaN, or if the result leaves the representable range.
    pub fn sub_f64(&mut self, x: f64) {
        let (negative, m, k) = decompose(x);
        self.add_scaled(!negative, m, k);
    }

    /// Adds the exact value of a finite `f32` in place.
    ///
    /// # Panics
    /// If `x` is infinite or NaN, or if the result leaves the representable range.
    pub fn add_f32(&mut self, x: f32) {
        self.add_f64(f64::from(x));
    }

    /// Subtracts the exact value of a finite `f32` in place.
    ///
    /// # Panics
    /// If `x` is infinite or NaN, or if the result leaves the representable range.
    pub fn sub_f32(&mut self, x: f32) {
        self.sub_f64(f64::from(x));
    }

    /// Whether the value is exactly zero.
    pub fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&l| l == 0)
    }

    /// Whether the value is strictly negative.
    pub fn is_negative(&self) -> bool {
        self.limbs[LIMBS - 1] >> 63 != 0
    }

    /// The sign: -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        if self.is_negative() {
            -1
        } else if self.is_zero() {
            0
        } else {
            1
        }
    }

    /// The absolute value.
    pub fn abs(&self) -> Exact {
        if self.is_negative() {
            -self
        } else {
            self.clone()
        }
    }

    /// Adds `m * 2^k` (scaled units), or subtracts it when `negative`.
    fn add_scaled(&mut self, negative: bool, m: u64, k: u32) {
        if m == 0 {
            return;
        }
        let before = self.is_negative();
        let i = (k / 64) as usize;
        let shift = k % 64;
        let lo = m << shift;
        let hi = if shift == 0 { 0 } else { m >> (64 - shift) };
        // k + 53 <= 2098 < 64 * (LIMBS - 1), so limb i + 1 exists.
        if negative {
            let (v, b0) = self.limbs[i].overflowing_sub(lo);
            self.limbs[i] = v;
            let (v, b1) = self.limbs[i + 1].overflowing_sub(hi);
            let (v, b2) = v.overflowing_sub(u64::from(b0));
            self.limbs[i + 1] = v;
            let mut borrow = b1 | b2;
            let mut j = i + 2;
            while borrow && j < LIMBS {
                let (v, b) = self.limbs[j].overflowing_sub(1);
                self.limbs[j] = v;
                borrow = b;
                j += 1;
            }
            assert!(!before || self.is_negative(), "Exact: overflow below the representable range");
        } else {
            let (v, c0) = self.limbs[i].overflowing_add(lo);
            self.limbs[i] = v;
            let (v, c1) = self.limbs[i + 1].overflowing_add(hi);
            let (v, c2) = v.overflowing_add(u64::from(c0));
            self.limbs[i + 1] = v;
            let mut carry = c1 | c2;
            let mut j = i + 2;
            while carry && j < LIMBS {
                let (v, c) = self.limbs[j].overflowing_add(1);
                self.limbs[j] = v;
                carry = c;
                j += 1;
            }
            assert!(before || !self.is_negative(), "Exact: overflow above the representable range");
        }
    }

    /// `self + other` (`subtract == false`) or `self - other`, checked for overflow.
    fn combine(&self, other: &Exact, subtract: bool) -> Exact {
        let mut out = [0u64; LIMBS];
        let mut carry = subtract; // a - b = a + !b + 1
        for (o, (&x, &y)) in out.iter_mut().zip(self.limbs.iter().zip(other.limbs.iter())) {
            let y = if subtract { !y } else { y };
            let (v, c1) = x.overflowing_add(y);
            let (v, c2) = v.overflowing_add(u64::from(carry));
            *o = v;
            carry = c1 | c2;
        }
        let r = Exact { limbs: out };
        // Two's complement overflow: a + b overflows iff a and b have the same
        // sign and the result has the other; a - b iff a and b have different
        // signs and the result's sign differs from a's.
        let (sa, sb, sr) = (self.is_negative(), other.is_negative(), r.is_negative());
        let overflow = (sa == sb) != subtract && sr != sa;
        assert!(!overflow, "Exact: overflow out of the representable range");
        r
    }
}

impl Default for Exact {
    /// Zero.
    fn default() -> Exact {
        Exact::zero()
    }
}

impl From<f64> for Exact {
    /// See [`Exact::from_f64`].
    fn from(x: f64) -> Exact {
        Exact::from_f64(x)
    }
}

impl From<f32> for Exact {
    /// See [`Exact::from_f32`].
    fn from(x: f32) -> Exact {
        Exact::from_f32(x)
    }
}

impl Ord for Exact {
    fn cmp(&self, other: &Exact) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            // Same sign: two's complement patterns order as unsigned integers.
            _ => self.limbs.iter().rev().cmp(other.limbs.iter().rev()),
        }
    }
}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Exact) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Neg for &Exact {
    type Output = Exact;
    fn neg(self) -> Exact {
        Exact::zero().combine(self, true)
    }
}

impl Neg for Exact {
    type Output = Exact;
    fn neg(self) -> Exact {
        -&self
    }
}

impl Add<&Exact> for &Exact {
    type Output = Exact;
    fn add(self, other: &Exact) -> Exact {
        self.combine(other, false)
    }
}

impl Sub<&Exact> for &Exact {
    type Output = Exact;
    fn sub(self, other: &Exact) -> Exact {
        self.combine(other, true)
    }
}

impl Add for Exact {
    type Output = Exact;
    fn add(self, other: Exact) -> Exact {
        self.combine(&other, false)
    }
}

impl Sub for Exact {
    type Output = Exact;
    fn sub(self, other: Exact) -> Exact {
        self.combine(&other, true)
    }
}

impl Add<&Exact> for Exact {
    type Output = Exact;
    fn add(self, other: &Exact) -> Exact {
        self.combine(other, false)
    }
}

impl Sub<&Exact> for Exact {
    type Output = Exact;
    fn sub(self, other: &Exact) -> Exact {
        self.combine(other, true)
    }
}

impl fmt::Debug for Exact {
    /// Shows the value as a signed hexadecimal integer times 2^-1074.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let magnitude = self.abs();
        let sign = if self.is_negative() { "-" } else { "" };
        let top = magnitude.limbs.iter().rposition(|&l| l != 0);
        write!(f, "Exact({sign}0x")?;
        match top {
            None => write!(f, "0")?,
            Some(t) => {
                write!(f, "{:x}", magnitude.limbs[t])?;
                for l in magnitude.limbs[..t].iter().rev() {
                    write!(f, "{l:016x}")?;
                }
            }
        }
        write!(f, " * 2^-1074)")
    }
}

/// Whether `a + b == s + e` exactly, in real arithmetic: the check that
/// `(s, e)` is an error-free transform of the sum of `a` and `b`.
/// False if any argument is infinite or NaN.
pub fn two_sum_is_exact_f64(a: f64, b: f64, s: f64, e: f64) -> bool {
    if !(a.is_finite() && b.is_finite() && s.is_finite() && e.is_finite()) {
        return false;
    }
    let mut acc = Exact::zero();
    acc.add_f64(a);
    acc.add_f64(b);
    acc.sub_f64(s);
    acc.sub_f64(e);
    acc.is_zero()
}

/// Whether `a + b == s + e` exactly, in real arithmetic, for `f32` values.
/// False if any argument is infinite or NaN.
pub fn two_sum_is_exact_f32(a: f32, b: f32, s: f32, e: f32) -> bool {
    two_sum_is_exact_f64(f64::from(a), f64::from(b), f64::from(s), f64::from(e))
}

/// Dekker's Fast2Sum after ordering the operands by magnitude: returns
/// `(s, e)` with `s = fl(a + b)` and, provided `s` is finite, `e` the exact
/// rounding error, `a + b == s + e`. A method independent of Knuth's TwoSum.
pub fn fast_two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let (a, b) = if a.abs() < b.abs() { (b, a) } else { (a, b) };
    let s = a + b;
    let z = s - a;
    let e = b - z;
    (s, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(x: f64) -> Exact {
        Exact::from_f64(x)
    }

    /// 2^k for -1074 <= k <= 1023, built from bits.
    fn pow2(k: i32) -> f64 {
        assert!((-1074..=1023).contains(&k));
        if k >= -1022 {
            f64::from_bits(((k + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (k + 1074))
        }
    }

    /// A tiny splitmix64 generator.
    struct SplitMix64(u64);

    impl SplitMix64 {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    fn knuth_two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        let e = (a - (s - bb)) + (b - bb);
        (s, e)
    }

    #[test]
    fn limb_placement() {
        // 1.0 = 2^1074 in scaled units: bit 1074 = limb 16, bit 50.
        let one = ex(1.0);
        for (i, &l) in one.limbs.iter().enumerate() {
            assert_eq!(l, if i == 16 { 1 << 50 } else { 0 }, "limb {i}");
        }
        // The least subnormal is 1.
        let tiny = ex(5e-324);
        assert_eq!(tiny.limbs[0], 1);
        assert!(tiny.limbs[1..].iter().all(|&l| l == 0));
        // -1 ulp of zero is all ones.
        assert!(ex(-5e-324).limbs.iter().all(|&l| l == u64::MAX));
        assert_eq!(format!("{:?}", ex(-5e-324)), "Exact(-0x1 * 2^-1074)");
        assert_eq!(format!("{:?}", ex(0.0)), "Exact(0x0 * 2^-1074)");
        assert_eq!(format!("{:?}", ex(pow2(-1010))), "Exact(0x10000000000000000 * 2^-1074)");
    }

    #[test]
    fn basic_values() {
        assert_eq!(ex(0.5) + ex(0.5), ex(1.0));
        assert_eq!(ex(1.0) - ex(0.5), ex(0.5));
        assert_ne!(ex(0.5), ex(1.0));
        assert_eq!(ex(-3.25) + ex(3.0), ex(-0.25));
        assert_eq!(ex(-3.25) + ex(3.25), Exact::zero());
        assert_eq!(-ex(3.25), ex(-3.25));
        assert_eq!(ex(-3.25).abs(), ex(3.25));
        assert_eq!(ex(1.5) + ex(1.75), ex(3.25));
        assert!(ex(-3.25) < ex(-3.0));
        assert!(ex(-3.25) < ex(0.5));
        assert!(ex(0.5) < ex(1.0));
        assert_eq!(ex(-3.25).signum(), -1);
        assert_eq!(ex(0.5).signum(), 1);
        assert_eq!(ex(-0.0).signum(), 0);

        // Subnormal boundary: MIN_POSITIVE = 2^-1022 = 2^52 least subnormals.
        let min_pos = ex(f64::MIN_POSITIVE);
        let largest_sub = ex(f64::from_bits(f64::MIN_POSITIVE.to_bits() - 1));
        assert_eq!(&largest_sub + &ex(5e-324), min_pos);
        assert!(largest_sub < min_pos);
        assert_eq!(ex(f64::MIN_POSITIVE) + ex(-5e-324), largest_sub);
        assert_eq!(ex(5e-324) + ex(5e-324), ex(1e-323));
        assert!(ex(5e-324) > Exact::zero());
        assert!(ex(-5e-324) < Exact::zero());

        // Top of the range.
        let max = ex(f64::MAX);
        let below = ex(f64::from_bits(f64::MAX.to_bits() - 1));
        assert!(max > below);
        assert!(ex(-f64::MAX) < -&below);
        // MAX - (MAX - ulp) = ulp(MAX) = 2^971.
        assert_eq!(&max - &below, ex(pow2(971)));
        // 2 * MAX is representable exactly.
        let two_max = &max + &max;
        assert!(two_max > max);
        assert_eq!(&two_max - &max, max);
        assert_eq!(ex(f64::MAX) + ex(-f64::MAX), Exact::zero());
        // -2 * MAX (and many more) is fine too.
        let mut acc = Exact::zero();
        for _ in 0..1000 {
            acc.sub_f64(f64::MAX);
        }
        for _ in 0..1000 {
            acc.add_f64(f64::MAX);
        }
        assert!(acc.is_zero());
    }

    #[test]
    fn cancellation_is_zero() {
        assert!((ex(1e308) + ex(-1e308)).is_zero());
        assert!(!(ex(1e308) + ex(-1e307)).is_zero());
        let mut acc = Exact::from_f32(1e30);
        acc.sub_f32(1e30);
        assert!(acc.is_zero());
    }

    #[test]
    fn signed_zeros() {
        assert_eq!(ex(0.0), ex(-0.0));
        assert!(ex(-0.0).is_zero());
        assert!(!ex(-0.0).is_negative());
        assert_eq!(ex(0.0).cmp(&ex(-0.0)), Ordering::Equal);
        assert!(two_sum_is_exact_f64(0.0, -0.0, 0.0, -0.0));
        assert!(two_sum_is_exact_f64(-0.0, -0.0, -0.0, 0.0));
        assert!(two_sum_is_exact_f64(-0.0, 0.0, 0.0, 0.0));
        assert!(two_sum_is_exact_f64(1.0, -0.0, 1.0, 0.0));
        assert!(two_sum_is_exact_f32(-0.0, -0.0, 0.0, -0.0));
        assert!(!two_sum_is_exact_f64(0.0, -0.0, 0.0, 5e-324));
    }

    #[test]
    fn two_sum_cases_f64() {
        assert!(two_sum_is_exact_f64(1e16, 1.0, 1e16, 1.0));
        assert!(!two_sum_is_exact_f64(1e16, 1.0, 1e16, 0.0));
        assert!(two_sum_is_exact_f64(1.0, 2.0, 3.0, 0.0));
        assert!(!two_sum_is_exact_f64(1.0, 2.0, 3.0, 5e-324));
        // Operands 2^1000 apart.
        let a = pow2(500);
        let b = pow2(-500);
        assert!(two_sum_is_exact_f64(a, b, a, b));
        assert!(!two_sum_is_exact_f64(a, b, a, 0.0));
        assert!(!two_sum_is_exact_f64(a, b, a, -b));
        assert!(two_sum_is_exact_f64(-a, b, -a, b));
        assert!(two_sum_is_exact_f64(a, -b, -b, a));
        // Extremes: the largest and the least values.
        assert!(two_sum_is_exact_f64(f64::MAX, 5e-324, f64::MAX, 5e-324));
        assert!(two_sum_is_exact_f64(-f64::MAX, -5e-324, -f64::MAX, -5e-324));
        assert!(!two_sum_is_exact_f64(f64::MAX, 5e-324, f64::MAX, 0.0));
        assert!(two_sum_is_exact_f64(f64::MAX, -f64::MAX, 0.0, 0.0));
        // The sum of two MAX overflows; there is no finite (s, e).
        assert!(!two_sum_is_exact_f64(f64::MAX, f64::MAX, f64::INFINITY, 0.0));
        assert!(!two_sum_is_exact_f64(f64::MAX, f64::MAX, f64::MAX, f64::from_bits(f64::MAX.to_bits() - 1)));
        assert!(two_sum_is_exact_f64(f64::MAX, f64::MAX, f64::MAX, f64::MAX));
        // Non-finite arguments are never exact.
        assert!(!two_sum_is_exact_f64(f64::NAN, 0.0, f64::NAN, 0.0));
        assert!(!two_sum_is_exact_f64(f64::INFINITY, 0.0, f64::INFINITY, 0.0));
        // 0.1 + 0.2 rounds up to 0.30000000000000004; the error is -2^-55.
        let (s, e) = fast_two_sum_f64(0.1, 0.2);
        assert_eq!(s, 0.30000000000000004);
        assert_eq!(e, -pow2(-55));
        assert!(two_sum_is_exact_f64(0.1, 0.2, s, e));
        assert!(!two_sum_is_exact_f64(0.1, 0.2, s, 0.0));
        assert!(!two_sum_is_exact_f64(0.1, 0.2, 0.3, 0.0));
    }

    #[test]
    fn two_sum_cases_f32() {
        assert!(two_sum_is_exact_f32(1e8, 0.5, 1e8, 0.5));
        assert!(!two_sum_is_exact_f32(1e8, 0.5, 1e8, 0.0));
        assert!(two_sum_is_exact_f32(f32::MAX, -f32::MAX, 0.0, 0.0));
        let tiny = f32::from_bits(1);
        assert!(two_sum_is_exact_f32(1.0, tiny, 1.0, tiny));
        assert!(!two_sum_is_exact_f32(1.0, tiny, 1.0, 0.0));
        assert!(!two_sum_is_exact_f32(f32::NAN, 0.0, f32::NAN, 0.0));
        assert_eq!(Exact::from_f32(0.1), ex(f64::from(0.1f32)));
        assert_ne!(Exact::from_f32(0.1), ex(0.1));
    }

    #[test]
    fn fast_two_sum_basics() {
        assert_eq!(fast_two_sum_f64(1e16, 1.0), (1e16, 1.0));
        assert_eq!(fast_two_sum_f64(1.0, 1e16), (1e16, 1.0));
        assert_eq!(fast_two_sum_f64(1.0, 2.0), (3.0, 0.0));
        let (s, e) = fast_two_sum_f64(pow2(500), -pow2(-500));
        assert_eq!((s, e), (pow2(500), -pow2(-500)));
    }

    /// 2^2174 (in scaled units), the largest power of two below the range limit.
    fn huge() -> Exact {
        let mut x = ex(pow2(1023)); // 2^2097 scaled
        for _ in 0..77 {
            x = &x + &x;
        }
        x
    }

    #[test]
    fn range_limits() {
        let h = huge();
        assert!(h.limbs[..LIMBS - 1].iter().all(|&l| l == 0));
        assert_eq!(h.limbs[LIMBS - 1], 1 << 62);
        // 2^2175 - 2^2097 is the top of the range reachable with add_f64 below.
        let mut top = &h + &(&h - &ex(pow2(1023)));
        assert!(top > h);
        top.sub_f64(pow2(1023));
        top.add_f64(pow2(1023));
        // -2^2175, the least value, is representable.
        let least = &(-&h) - &h;
        assert!(least.is_negative());
        assert!(least < -&h);
        assert_eq!(&least + &h, -&h);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflow_add_panics() {
        let _ = huge() + huge();
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflow_sub_panics() {
        let _ = -huge() - huge() - ex(5e-324);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflow_add_f64_panics() {
        let h = huge();
        let mut top = &h + &(&h - &ex(pow2(1023)));
        top.add_f64(pow2(1023));
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflow_sub_f64_panics() {
        let h = huge();
        let mut least = &(-&h) - &h;
        least.sub_f64(5e-324);
    }

    #[test]
    #[should_panic(expected = "non-finite")]
    fn from_nan_panics() {
        let _ = ex(f64::NAN);
    }

    #[test]
    #[should_panic(expected = "non-finite")]
    fn from_infinity_panics() {
        let _ = Exact::from_f32(f32::NEG_INFINITY);
    }

    /// The order of `Exact` agrees with the order of `f64` on finite values.
    #[test]
    fn order_matches_f64() {
        let mut rng = SplitMix64(0x1234_5678);
        let mut done = 0;
        while done < 100_000 {
            let a = f64::from_bits(rng.next());
            // Half the time b shares a's exponent region to exercise ties.
            let b =
                if done % 2 == 0 { f64::from_bits(rng.next()) } else { f64::from_bits(a.to_bits() ^ (rng.next() & 0x000f_ffff_ffff_ffff)) };
            if !a.is_finite() || !b.is_finite() {
                continue;
            }
            let (ea, eb) = (ex(a), ex(b));
            assert_eq!(Some(ea.cmp(&eb)), a.partial_cmp(&b), "{a:e} vs {b:e}");
            assert_eq!(ea == eb, a == b);
            // (a + b) - b == a, exactly.
            assert_eq!(&(&ea + &eb) - &eb, ea);
            assert_eq!(-&(&ea - &eb), &eb - &ea);
            done += 1;
        }
    }

    /// Knuth's TwoSum and Dekker's Fast2Sum agree and are exact.
    #[test]
    fn random_two_sums() {
        let mut rng = SplitMix64(0x00c0_ffee);
        let mut done = 0;
        let mut inexact_sums = 0;
        while done < 100_000 {
            let a = f64::from_bits(rng.next());
            // Alternate raw bit patterns with b near a in exponent (random sign and
            // fraction, exponent within +-63 of a's), where cancellation and
            // nonzero errors are common.
            let b = if done % 2 == 0 {
                f64::from_bits(rng.next())
            } else {
                let r = rng.next();
                let exp = (((a.to_bits() >> 52) & 0x7ff) as i64 + ((r >> 58) as i64) - 32).clamp(0, 0x7fe) as u64;
                f64::from_bits((r & 0x800f_ffff_ffff_ffff) | (exp << 52))
            };
            if !a.is_finite() || !b.is_finite() || !(a + b).is_finite() {
                continue;
            }
            let (s, e) = knuth_two_sum(a, b);
            assert!(two_sum_is_exact_f64(a, b, s, e), "TwoSum({a:e}, {b:e}) = ({s:e}, {e:e})");
            let (fs, fe) = fast_two_sum_f64(a, b);
            assert_eq!(fs.to_bits(), s.to_bits(), "s for ({a:e}, {b:e})");
            assert!(fe.to_bits() == e.to_bits() || (fe == 0.0 && e == 0.0), "e for ({a:e}, {b:e}): {fe:e} vs {e:e}");
            assert!(two_sum_is_exact_f64(a, b, fs, fe));
            // A wrong error term is caught.
            if e != 0.0 {
                inexact_sums += 1;
                let wrong = f64::from_bits(e.to_bits() ^ 1);
                assert!(!two_sum_is_exact_f64(a, b, s, wrong));
                assert!(!two_sum_is_exact_f64(a, b, s, 0.0));
            } else {
                assert!(!two_sum_is_exact_f64(a, b, s, 5e-324));
            }
            done += 1;
        }
        // Both kinds of case were exercised.
        assert!(inexact_sums > 10_000 && inexact_sums < 100_000, "{inexact_sums}");
    }
}
