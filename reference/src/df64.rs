//! Double-float ("df64") arithmetic: the contract's `[df64]` and
//! `[df64_ops.*]` sections, written out by hand.
//!
//! A [`Df64`] is the unevaluated sum `hi + lo` of two binary32 numbers. It is
//! normalised when `hi` is `hi + lo` rounded to binary32 (so
//! `|lo| <= ulp(hi) / 2`); its precision is then about 48 bits (`u^2`, with
//! [`U`] `= 2^-24`) and its range is binary32's.
//!
//! Each operation below performs exactly the binary32 operations of its
//! `body` in the contract, in the order written there (left to right,
//! parentheses first), each rounded once to nearest even. Rust neither fuses
//! a product into a sum nor reassociates, so the plain `f32` operators are
//! those operations; no `mul_add` appears anywhere. The function names are
//! the contract's table names.
//!
//! The error-free transforms are [`two_sum`] (Knuth), [`fast_two_sum`]
//! (Dekker), [`split`] (Veltkamp, factor 4097) and [`two_prod`] (Dekker's
//! product without fma). On them stand the operations of Joldes, Muller and
//! Popescu (ACM TOMS 44(2), 2017): [`add`] is AccurateDWPlusDW, [`mul_f32`]
//! DWTimesFP1, [`mul`] DWTimesDW1, [`div`] DWDivDW2; [`sqrt`] is one Newton
//! step on the exact residual `a - s^2`. Their stated relative bounds, in
//! units of `u^2`, are the `BOUND_*` constants.
//!
//! The bounds hold in the contract's domain: every input and intermediate
//! zero or of magnitude in `[2^-100, 2^100]`. Below it a low word goes
//! subnormal; above it the split (`4097 * a`) and the products overflow.

/// A double-float: the unevaluated sum `hi + lo` of two binary32 numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Df64 {
    /// The high word: on a normalised pair, the value rounded to binary32.
    pub hi: f32,
    /// The low word: on a normalised pair, `|lo| <= ulp(hi) / 2`.
    pub lo: f32,
}

impl Df64 {
    /// The pair `(hi, lo)`, taken as given (not normalised).
    pub const fn new(hi: f32, lo: f32) -> Df64 {
        Df64 { hi, lo }
    }

    /// The exact host split: `hi = x as f32` (nearest even), then
    /// `lo = (x - hi as f64) as f32` (the subtraction is exact in binary64),
    /// normalised by the fast two-sum where lo is not zero: within `u^2 |x|`
    /// of `x`.
    pub fn from_f64(x: f64) -> Df64 {
        let hi = x as f32;
        let lo = (x - f64::from(hi)) as f32;
        // A tie of lo's rounding can leave hi + lo rounding to another hi:
        // the fast two-sum normalises the pair (exactly, |hi| >= |lo|). A
        // zero lo needs none (and -0 keeps its sign: (-0, +0)).
        if lo == 0.0 {
            Df64 { hi, lo: 0.0 }
        } else {
            fast_two_sum(hi, lo)
        }
    }

    /// The pair's binary64 value: `hi as f64 + lo as f64`, one binary64
    /// rounding.
    pub fn to_f64(self) -> f64 {
        f64::from(self.hi) + f64::from(self.lo)
    }

    /// The pair packed in one word: the low 32 bits are `hi`'s bits, the high
    /// 32 bits `lo`'s.
    pub fn to_word(self) -> u64 {
        u64::from(self.hi.to_bits()) | (u64::from(self.lo.to_bits()) << 32)
    }

    /// The inverse of [`Df64::to_word`]: `hi` from the low 32 bits, `lo` from
    /// the high 32 bits.
    pub fn from_word(w: u64) -> Df64 {
        Df64 { hi: f32::from_bits(w as u32), lo: f32::from_bits((w >> 32) as u32) }
    }
}

/// The unit roundoff of binary32: `u = 2^-24`.
pub const U: f64 = 1.0 / 16_777_216.0;
/// [`add`]'s stated relative bound, in units of `u^2`.
pub const BOUND_ADD: f64 = 3.0;
/// [`sub`]'s stated relative bound, in units of `u^2`.
pub const BOUND_SUB: f64 = 3.0;
/// [`mul_f32`]'s stated relative bound, in units of `u^2`.
pub const BOUND_MUL_F32: f64 = 1.5;
/// [`mul`]'s stated relative bound, in units of `u^2`.
pub const BOUND_MUL: f64 = 7.0;
/// [`div`]'s stated relative bound, in units of `u^2`.
pub const BOUND_DIV: f64 = 15.0;
/// [`sqrt`]'s stated relative bound, in units of `u^2` (no published bound
/// for this fma-free form: stated by the contract and measured).
pub const BOUND_SQRT: f64 = 4.0;

/// Minus one, the factor of the contract's negation (`x * -1`).
const MINUS_ONE: f32 = -1.0;

// ------------------------------------------------------- error-free transforms

/// Knuth's two-sum: `hi = a + b` rounded, `lo` its exact residual, whatever
/// the magnitudes.
///
/// ```text
/// s = a + b;  bb = s - a;  out = (s, (a - (s - bb)) + (b - bb))
/// ```
pub fn two_sum(a: f32, b: f32) -> Df64 {
    let s = a + b;
    let bb = s - a;
    let back_a = s - bb;
    let err_a = a - back_a;
    let err_b = b - bb;
    Df64::new(s, err_a + err_b)
}

/// Dekker's fast two-sum: exact when `a = 0` or `|a| >= |b|`.
///
/// ```text
/// s = a + b;  out = (s, b - (s - a))
/// ```
pub fn fast_two_sum(a: f32, b: f32) -> Df64 {
    let s = a + b;
    let taken = s - a;
    Df64::new(s, b - taken)
}

/// Veltkamp's split of `a` into a high half and a low half, `hi + lo = a`
/// exactly (while `4097 * a` does not overflow).
///
/// ```text
/// t = 4097 * a;  h = t - (t - a);  out = (h, a - h)
/// ```
pub fn split(a: f32) -> Df64 {
    let t = 4097.0 * a;
    let diff = t - a;
    let h = t - diff;
    Df64::new(h, a - h)
}

/// Dekker's product without fma: `hi = a * b` rounded, `lo` the exact
/// residual (no overflow, no underflow).
///
/// ```text
/// p = a * b;  x = split(a);  y = split(b)
/// out = (p, (((x.hi * y.hi - p) + x.hi * y.lo) + x.lo * y.hi) + x.lo * y.lo)
/// ```
pub fn two_prod(a: f32, b: f32) -> Df64 {
    let p = a * b;
    let x = split(a);
    let y = split(b);
    let hh = x.hi * y.hi;
    let e1 = hh - p;
    let hl = x.hi * y.lo;
    let e2 = e1 + hl;
    let lh = x.lo * y.hi;
    let e3 = e2 + lh;
    let ll = x.lo * y.lo;
    Df64::new(p, e3 + ll)
}

// ------------------------------------------------------------ the operations

/// The loaded-low-word guard: both words re-derived by [`fast_two_sum`]
/// (`out = fast_two_sum(a.hi, a.lo)`); the identity on a normalised pair.
pub fn renorm(a: Df64) -> Df64 {
    fast_two_sum(a.hi, a.lo)
}

/// `-a`, exactly: each word times `-1` (`out = (a.hi * -1, a.lo * -1)`).
pub fn neg(a: Df64) -> Df64 {
    Df64::new(a.hi * MINUS_ONE, a.lo * MINUS_ONE)
}

/// AccurateDWPlusDW: `a + b` within [`BOUND_ADD`] `u^2`, whatever the signs.
///
/// ```text
/// s = two_sum(a.hi, b.hi);  t = two_sum(a.lo, b.lo)
/// c = s.lo + t.hi;          v = fast_two_sum(s.hi, c)
/// w = t.lo + v.lo;          out = fast_two_sum(v.hi, w)
/// ```
pub fn add(a: Df64, b: Df64) -> Df64 {
    let s = two_sum(a.hi, b.hi);
    let t = two_sum(a.lo, b.lo);
    let c = s.lo + t.hi;
    let v = fast_two_sum(s.hi, c);
    let w = t.lo + v.lo;
    fast_two_sum(v.hi, w)
}

/// `a - b` as `add(a, neg(b))`, within [`BOUND_SUB`] `u^2`.
pub fn sub(a: Df64, b: Df64) -> Df64 {
    add(a, neg(b))
}

/// DWTimesFP1: the pair `a` times the binary32 number `b`, within
/// [`BOUND_MUL_F32`] `u^2`.
///
/// ```text
/// c = two_prod(a.hi, b);  cl2 = a.lo * b
/// t = fast_two_sum(c.hi, cl2);  tl2 = t.lo + c.lo
/// out = fast_two_sum(t.hi, tl2)
/// ```
pub fn mul_f32(a: Df64, b: f32) -> Df64 {
    let c = two_prod(a.hi, b);
    let cl2 = a.lo * b;
    let t = fast_two_sum(c.hi, cl2);
    let tl2 = t.lo + c.lo;
    fast_two_sum(t.hi, tl2)
}

/// DWTimesDW1 with Dekker's product: `a * b` within [`BOUND_MUL`] `u^2`.
///
/// ```text
/// c = two_prod(a.hi, b.hi);  tl1 = a.hi * b.lo;  tl2 = a.lo * b.hi
/// cl2 = tl1 + tl2;  cl3 = c.lo + cl2;  out = fast_two_sum(c.hi, cl3)
/// ```
pub fn mul(a: Df64, b: Df64) -> Df64 {
    let c = two_prod(a.hi, b.hi);
    let tl1 = a.hi * b.lo;
    let tl2 = a.lo * b.hi;
    let cl2 = tl1 + tl2;
    let cl3 = c.lo + cl2;
    fast_two_sum(c.hi, cl3)
}

/// DWDivDW2: `a / b` within [`BOUND_DIV`] `u^2` (`b` not zero).
///
/// ```text
/// th = a.hi / b.hi;  r = mul_f32(b, th)
/// ph = a.hi - r.hi;  dl = a.lo - r.lo;  d = ph + dl
/// tl = d / b.hi;     out = fast_two_sum(th, tl)
/// ```
pub fn div(a: Df64, b: Df64) -> Df64 {
    let th = a.hi / b.hi;
    let r = mul_f32(b, th);
    let ph = a.hi - r.hi;
    let dl = a.lo - r.lo;
    let d = ph + dl;
    let tl = d / b.hi;
    fast_two_sum(th, tl)
}

/// The square root: `s = sqrt(a.hi)` corrected by one Newton step on the
/// exact residual `a - s^2`, within [`BOUND_SQRT`] `u^2`; a pair whose `hi`
/// is `±0` gives itself.
///
/// ```text
/// s = sqrt(a.hi);  p = two_prod(s, s)
/// r = ((a.hi - p.hi) - p.lo) + a.lo;  t = r / (s * 2)
/// out = a.hi == 0 ? a : fast_two_sum(s, t)
/// ```
pub fn sqrt(a: Df64) -> Df64 {
    let s = a.hi.sqrt();
    let p = two_prod(s, s);
    let r1 = a.hi - p.hi;
    let r2 = r1 - p.lo;
    let r = r2 + a.lo;
    let t = r / (s * 2.0);
    let corrected = fast_two_sum(s, t);
    if a.hi == 0.0 {
        a
    } else {
        corrected
    }
}

/// `|a|`, exactly: `(fabs(a.hi), a.hi < 0 ? a.lo * -1 : a.lo)`.
///
/// `lo` changes sign only with `hi`: the `-0` pair `(-0, +0)` that
/// [`Df64::from_f64`] gives for `-0.0` becomes `(+0, +0)`, but `(-0, -0)`
/// (the `neg` of `(+0, +0)`) becomes `(+0, -0)`, whose value is `+0`.
pub fn abs(a: Df64) -> Df64 {
    let lo = if a.hi < 0.0 { a.lo * MINUS_ONE } else { a.lo };
    Df64::new(a.hi.abs(), lo)
}

/// `a < b` on normalised pairs: by `hi`, then by `lo`.
pub fn lt(a: Df64, b: Df64) -> bool {
    a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)
}

/// `a > b`: `lt(b, a)`.
pub fn gt(a: Df64, b: Df64) -> bool {
    lt(b, a)
}

/// `a <= b`: `lt(a, b) || eq(a, b)`.
pub fn le(a: Df64, b: Df64) -> bool {
    lt(a, b) || eq(a, b)
}

/// `a >= b`: `le(b, a)`.
pub fn ge(a: Df64, b: Df64) -> bool {
    le(b, a)
}

/// `a == b`: both words equal (`+0` equals `-0`, as binary64's `==`).
pub fn eq(a: Df64, b: Df64) -> bool {
    a.hi == b.hi && a.lo == b.lo
}

/// `a != b`: `!eq(a, b)`.
pub fn ne(a: Df64, b: Df64) -> bool {
    !eq(a, b)
}

/// The lesser pair: `lt(a, b) ? a : b` (`b` when neither is less).
pub fn fmin(a: Df64, b: Df64) -> Df64 {
    if lt(a, b) {
        a
    } else {
        b
    }
}

/// The greater pair: `gt(a, b) ? a : b` (`b` when neither is greater).
pub fn fmax(a: Df64, b: Df64) -> Df64 {
    if gt(a, b) {
        a
    } else {
        b
    }
}

/// Whether `a` is finite: whether its high word is (a normalised finite pair
/// has a finite low word).
pub fn is_finite(a: Df64) -> bool {
    a.hi.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `u^2 = 2^-48`, the unit every error below is measured in.
    const U2: f64 = U * U;

    /// The crate's splitmix64 (`angle`'s), with the draws these tests need.
    struct Rng(crate::angle::SplitMix64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0.next()
        }

        /// Uniform in `[lo, hi]`.
        fn int(&mut self, lo: i32, hi: i32) -> i32 {
            lo + ((u128::from(self.next()) * (hi - lo + 1) as u128) >> 64) as i32
        }

        fn sign(&mut self) -> f64 {
            if self.next() & 1 == 0 {
                1.0
            } else {
                -1.0
            }
        }

        /// A random binary64 of either sign with exponent uniform in
        /// `[emin, emax]` and 52 random fraction bits.
        fn f64_exp(&mut self, emin: i32, emax: i32) -> f64 {
            let e = self.int(emin, emax);
            let frac = self.next() >> 12;
            let bits = ((e + 1023) as u64) << 52 | frac;
            self.sign() * f64::from_bits(bits)
        }

        /// A random binary32 of either sign with exponent uniform in
        /// `[emin, emax]` and 23 random fraction bits.
        fn f32_exp(&mut self, emin: i32, emax: i32) -> f32 {
            let e = self.int(emin, emax);
            let frac = (self.next() >> 41) as u32;
            let x = f32::from_bits(((e + 127) as u32) << 23 | frac);
            if self.next() & 1 == 0 {
                x
            } else {
                -x
            }
        }

        /// A normalised pair whose value `to_f64` is exact, from a random
        /// binary64 with exponent in `[emin, emax]`.
        fn pair(&mut self, emin: i32, emax: i32) -> Df64 {
            loop {
                let p = Df64::from_f64(self.f64_exp(emin, emax));
                if exact(p) && normalised(p) {
                    return p;
                }
            }
        }
    }

    /// Whether `hi + lo` is exact in binary64 (so `to_f64` is the value).
    fn exact(p: Df64) -> bool {
        let (h, l) = (f64::from(p.hi), f64::from(p.lo));
        (h + l) - h == l
    }

    /// Whether `hi` is `hi + lo` rounded to binary32 (for an exact pair).
    fn normalised(p: Df64) -> bool {
        (p.to_f64() as f32).to_bits() == p.hi.to_bits()
    }

    /// The contract's domain for a value: zero or of magnitude in
    /// `[2^-100, 2^100]`.
    fn in_domain(x: f64) -> bool {
        let m = x.abs();
        m == 0.0 || (m >= 2f64.powi(-100) && m <= 2f64.powi(100))
    }

    /// The relative error of the pair `z` against the binary64 value `r`, in
    /// units of `u^2`. `z.hi - r` is exact when `z` is close to `r`.
    fn err_u2(z: Df64, r: f64) -> f64 {
        if r == 0.0 {
            return if z.to_f64() == 0.0 { 0.0 } else { f64::INFINITY };
        }
        ((f64::from(z.hi) - r) + f64::from(z.lo)).abs() / r.abs() / U2
    }

    /// The allowance on a stated bound: `(1 + 1/16)` of it plus `u^2 / 16`
    /// (binary64's rounding of the reference is `2^-53 = u^2 / 32`).
    fn allowed(bound: f64) -> f64 {
        bound * (1.0 + 1.0 / 16.0) + 1.0 / 16.0
    }

    /// The worst error seen and its input.
    struct Worst {
        name: &'static str,
        max: f64,
        at: String,
        count: usize,
    }

    impl Worst {
        fn new(name: &'static str) -> Worst {
            Worst { name, max: 0.0, at: String::new(), count: 0 }
        }

        fn record(&mut self, z: Df64, r: f64, input: impl FnOnce() -> String) {
            self.count += 1;
            let e = err_u2(z, r);
            // NaN counts as the worst.
            if e.is_nan() || e > self.max {
                self.max = if e.is_nan() { f64::INFINITY } else { e };
                self.at = input();
            }
        }

        fn check(&self, bound: f64) {
            eprintln!(
                "df64 {}: worst {:.4} u^2 over {} cases (stated {bound}, allowed {:.4}) at {}",
                self.name,
                self.max,
                self.count,
                allowed(bound),
                self.at
            );
            assert!(self.count > 100_000, "{}: only {} cases", self.name, self.count);
            assert!(self.max <= allowed(bound), "{} exceeds {bound} u^2: {:.4} u^2 at {}", self.name, self.max, self.at);
        }
    }

    fn show(p: Df64) -> String {
        format!("Df64::new({:e}, {:e}) [{:#018x}]", p.hi, p.lo, p.to_word())
    }

    /// The number of significant bits of `x` (0 for zero).
    fn sig_bits(x: f32) -> u32 {
        if x == 0.0 {
            return 0;
        }
        let bits = x.to_bits();
        let frac = bits & 0x007F_FFFF;
        let m = if (bits >> 23) & 0xFF == 0 { frac } else { frac | 0x0080_0000 };
        32 - m.leading_zeros() - m.trailing_zeros()
    }

    const N: usize = 200_000;

    // ---------------------------------------------------- error-free transforms

    #[test]
    fn df64_two_prod_and_split_exact() {
        let mut rng = Rng(crate::angle::SplitMix64(1));
        for _ in 0..100_000 {
            let a = rng.f32_exp(-40, 40);
            let b = rng.f32_exp(-40, 40);
            let p = two_prod(a, b);
            assert_eq!(p.hi.to_bits(), (a * b).to_bits(), "two_prod hi of {a:e} * {b:e}");
            assert_eq!(f64::from(p.hi) + f64::from(p.lo), f64::from(a) * f64::from(b), "two_prod of {a:e} * {b:e}");
            for x in [a, b] {
                let s = split(x);
                assert_eq!(f64::from(s.hi) + f64::from(s.lo), f64::from(x), "split of {x:e}");
                assert_eq!((s.hi + s.lo).to_bits(), x.to_bits(), "split of {x:e}");
                assert!(sig_bits(s.hi) <= 12, "split hi of {x:e}: {} bits", sig_bits(s.hi));
                // The contract says 12 each; the low half in fact fits in 11
                // (its sign carries the twelfth).
                assert!(sig_bits(s.lo) <= 11, "split lo of {x:e}: {} bits", sig_bits(s.lo));
            }
        }
        // Over the whole domain as well, up to the split's overflow limit.
        for _ in 0..100_000 {
            let x = rng.f32_exp(-100, 114);
            let s = split(x);
            assert_eq!(f64::from(s.hi) + f64::from(s.lo), f64::from(x), "split of {x:e}");
            assert!(sig_bits(s.hi) <= 12 && sig_bits(s.lo) <= 11, "split of {x:e}");
        }
    }

    #[test]
    fn df64_two_sum_and_fast_two_sum_exact() {
        let mut rng = Rng(crate::angle::SplitMix64(2));
        let mut tested = [0usize; 2];
        for _ in 0..100_000 {
            let a = rng.f32_exp(-40, 40);
            let ea = rng.int(-29, 29);
            let e = (a.abs().log2().floor() as i32 + ea).clamp(-126, 127);
            let b = rng.f32_exp(e, e);
            let (a64, b64) = (f64::from(a), f64::from(b));
            let sum = a64 + b64;
            // Only where the binary64 sum is itself exact.
            if (sum - a64) != b64 || (sum - b64) != a64 {
                continue;
            }
            tested[0] += 1;
            let s = two_sum(a, b);
            assert_eq!(s.hi.to_bits(), (a + b).to_bits(), "two_sum hi of {a:e} + {b:e}");
            assert_eq!(f64::from(s.hi) + f64::from(s.lo), sum, "two_sum of {a:e} + {b:e}");
            let (big, small) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
            let f = fast_two_sum(big, small);
            assert_eq!(f.hi.to_bits(), (a + b).to_bits(), "fast_two_sum hi of {big:e} + {small:e}");
            assert_eq!(f64::from(f.hi) + f64::from(f.lo), sum, "fast_two_sum of {big:e} + {small:e}");
            if s.lo != 0.0 {
                tested[1] += 1;
            }
        }
        assert!(tested[0] > 90_000 && tested[1] > 50_000, "{tested:?}");
        // fast_two_sum with a = 0 is exact too.
        assert_eq!(fast_two_sum(0.0, 3.5), Df64::new(3.5, 0.0));
    }

    // -------------------------------------------------------------- renorm

    #[test]
    fn df64_renorm_identity_on_normalised_pairs() {
        let mut rng = Rng(crate::angle::SplitMix64(3));
        for _ in 0..N {
            let p = rng.pair(-100, 100);
            assert_eq!(renorm(p).to_word(), p.to_word(), "renorm of {}", show(p));
        }
        // And it does change a pair that is not normalised.
        assert_eq!(renorm(Df64::new(1.0, 1.0)), Df64::new(2.0, 0.0));
        assert_eq!(renorm(Df64::new(1.0, 2f32.powi(-20))), Df64::new(1.0 + 2f32.powi(-20), 0.0));
    }

    /// The host split does not always give a normalised pair: when
    /// `x - hi` rounds up to exactly half an ulp of an odd `hi`, `hi + lo` is
    /// a binary32 tie that rounds to the even neighbour. `renorm` then
    /// changes both words (not the value).
    #[test]
    fn df64_from_f64_normalises_a_tie() {
        let hi = 1.0f64 + 2f64.powi(-23); // odd last bit
        let x = hi + (2f64.powi(-24) - 2f64.powi(-52));
        assert!(x < hi + 2f64.powi(-24), "x lies below the binary32 tie");
        // The plain split leaves a pair whose words round to another hi ...
        let plain = Df64::new(x as f32, (x - f64::from(x as f32)) as f32);
        assert_eq!(plain, Df64::new(1.0 + 2f32.powi(-23), 2f32.powi(-24)));
        assert!(!normalised(plain));
        // ... and the host split normalises it: the same value, and renorm
        // (the loaded-low-word guard) is then the identity on it.
        let p = Df64::from_f64(x);
        assert_eq!(p, Df64::new(1.0 + 2f32.powi(-22), -(2f32.powi(-24))));
        assert!(normalised(p));
        assert_eq!(renorm(p), p);
        assert_eq!(p.to_f64(), plain.to_f64());
        assert!(err_u2(p, x) <= 1.0);
    }

    #[test]
    fn df64_words() {
        let p = Df64::new(1.0, -0.0);
        assert_eq!(p.to_word(), 0x8000_0000_3F80_0000);
        assert_eq!(Df64::from_word(0x8000_0000_3F80_0000).to_word(), p.to_word());
        let mut rng = Rng(crate::angle::SplitMix64(4));
        for _ in 0..1000 {
            let q = rng.pair(-100, 100);
            assert_eq!(Df64::from_word(q.to_word()), q);
            assert_eq!(q.to_word() as u32, q.hi.to_bits());
        }
        assert_eq!(Df64::from_f64(0.1), Df64::new(0.1f32, (0.1f64 - f64::from(0.1f32)) as f32));
    }

    // ------------------------------------------------------ measured errors

    /// Pairs for the sums: independent, nearly cancelling (relative distance
    /// `2^-1 .. 2^-50`), and with opposite equal `hi`, by turns. The second
    /// operand is built so that `a + b` cancels.
    fn sum_operands(rng: &mut Rng, i: usize, emin: i32, emax: i32) -> (Df64, Df64) {
        let a = rng.pair(emin, emax);
        let b = match i % 3 {
            0 => rng.pair(emin, emax),
            1 => loop {
                let d = rng.sign() * 2f64.powi(-rng.int(1, 50)) * (1.0 + rng.f64_exp(-1, -1).abs());
                let b = Df64::from_f64(-a.to_f64() * (1.0 + d));
                if exact(b) && normalised(b) {
                    break b;
                }
            },
            _ => loop {
                let ulp = f64::from(a.hi).abs() * 2f64.powi(-23);
                let l = (rng.f64_exp(-1, -1).abs() - 0.5) * ulp * rng.sign();
                let b = Df64::new(-a.hi, l as f32);
                if exact(b) && normalised(b) {
                    break b;
                }
            },
        };
        (a, b)
    }

    #[test]
    fn df64_add_sub_within_bound() {
        let mut rng = Rng(crate::angle::SplitMix64(5));
        let mut w_add = Worst::new("add");
        let mut w_sub = Worst::new("sub");
        let mut w_add_domain = Worst::new("add (whole domain)");
        for i in 0..N {
            let (a, b) = sum_operands(&mut rng, i, -60, 60);
            let r = a.to_f64() + b.to_f64();
            if in_domain(r) {
                w_add.record(add(a, b), r, || format!("add({}, {})", show(a), show(b)));
            }
            // For sub the cancelling operand is -b.
            let nb = neg(b);
            let r = a.to_f64() - nb.to_f64();
            if in_domain(r) {
                w_sub.record(sub(a, nb), r, || format!("sub({}, {})", show(a), show(nb)));
            }
            let (a, b) = sum_operands(&mut rng, i, -100, 100);
            let r = a.to_f64() + b.to_f64();
            if in_domain(r) {
                w_add_domain.record(add(a, b), r, || format!("add({}, {})", show(a), show(b)));
            }
        }
        w_add.check(BOUND_ADD);
        w_sub.check(BOUND_SUB);
        w_add_domain.check(BOUND_ADD);
        // Exact cancellation gives zero.
        let a = rng.pair(-60, 60);
        assert_eq!(sub(a, a).to_f64(), 0.0);
        assert_eq!(add(a, neg(a)).to_f64(), 0.0);
    }

    #[test]
    fn df64_mul_f32_mul_within_bound() {
        let mut rng = Rng(crate::angle::SplitMix64(6));
        let mut w_mf = Worst::new("mul_f32");
        let mut w_mul = Worst::new("mul");
        let mut w_mul_domain = Worst::new("mul (whole domain)");
        for _ in 0..N {
            let a = rng.pair(-60, 60);
            let b = rng.f32_exp(-60, 60);
            let r = a.to_f64() * f64::from(b);
            if in_domain(r) {
                w_mf.record(mul_f32(a, b), r, || format!("mul_f32({}, {:e})", show(a), b));
            }
            let b = rng.pair(-60, 60);
            let r = a.to_f64() * b.to_f64();
            if in_domain(r) {
                w_mul.record(mul(a, b), r, || format!("mul({}, {})", show(a), show(b)));
            }
            let a = rng.pair(-100, 100);
            let b = rng.pair(-100, 100);
            let r = a.to_f64() * b.to_f64();
            if in_domain(r) {
                w_mul_domain.record(mul(a, b), r, || format!("mul({}, {})", show(a), show(b)));
            }
        }
        w_mf.check(BOUND_MUL_F32);
        w_mul.check(BOUND_MUL);
        w_mul_domain.check(BOUND_MUL);
    }

    #[test]
    fn df64_div_sqrt_within_bound() {
        let mut rng = Rng(crate::angle::SplitMix64(7));
        let mut w_div = Worst::new("div");
        let mut w_sqrt = Worst::new("sqrt");
        let mut w_div_domain = Worst::new("div (whole domain)");
        let mut w_sqrt_domain = Worst::new("sqrt (whole domain)");
        for _ in 0..N {
            let a = rng.pair(-60, 60);
            let b = rng.pair(-60, 60);
            let r = a.to_f64() / b.to_f64();
            if in_domain(r) {
                w_div.record(div(a, b), r, || format!("div({}, {})", show(a), show(b)));
            }
            let a = abs(a);
            w_sqrt.record(sqrt(a), a.to_f64().sqrt(), || format!("sqrt({})", show(a)));
            let a = rng.pair(-100, 100);
            let b = rng.pair(-100, 100);
            let r = a.to_f64() / b.to_f64();
            if in_domain(r) {
                w_div_domain.record(div(a, b), r, || format!("div({}, {})", show(a), show(b)));
            }
            let a = abs(a);
            w_sqrt_domain.record(sqrt(a), a.to_f64().sqrt(), || format!("sqrt({})", show(a)));
        }
        w_div.check(BOUND_DIV);
        w_sqrt.check(BOUND_SQRT);
        w_div_domain.check(BOUND_DIV);
        w_sqrt_domain.check(BOUND_SQRT);
        // ±0 give themselves.
        for z in [Df64::new(0.0, 0.0), Df64::new(-0.0, 0.0), Df64::new(-0.0, -0.0)] {
            assert_eq!(sqrt(z).to_word(), z.to_word());
        }
        assert!(sqrt(Df64::new(-1.0, 0.0)).hi.is_nan());
    }

    // ------------------------------------------------- discriminating probes

    #[test]
    fn df64_probe_cancellation() {
        let (big, half) = (1e8f32, 0.5f32);
        assert_eq!((big + half) - big, 0.0, "plain binary32 loses the half");
        let computed = add(Df64::new(big, 0.0), Df64::new(half, 0.0));
        assert_eq!(computed, Df64::new(big, half));
        for x in [computed, Df64::new(big, half)] {
            let d = sub(x, Df64::new(big, 0.0));
            assert_eq!(d.to_f64(), 0.5, "{d:?}");
            assert_eq!(d, Df64::new(0.5, 0.0));
        }
    }

    #[test]
    fn df64_probe_division() {
        let q = div(Df64::new(1e8, 0.5), Df64::new(1e8, 0.25));
        let r = (1e8 + 0.5) / (1e8 + 0.25);
        assert_eq!((1e8f32 + 0.5) / (1e8f32 + 0.25), 1.0, "plain binary32 gives 1");
        assert!(err_u2(q, r) <= 20.0, "{q:?} against {r}: {} u^2", err_u2(q, r));
        assert_ne!(q.to_f64(), 1.0);
    }

    #[test]
    fn df64_probe_sqrt() {
        let x = Df64::new(1e8, 0.5);
        let r = sqrt(mul(x, x));
        assert_eq!((1e16f32).sqrt(), 1e8, "plain binary32 gives 1e8");
        assert_eq!(1e8f32 * 1e8f32, 1e16f32);
        assert!(err_u2(r, 1e8 + 0.5) <= 8.0, "{r:?}: {} u^2", err_u2(r, 1e8 + 0.5));
        assert!(err_u2(Df64::new(1e8, 0.0), 1e8 + 0.5) > 8.0);
    }

    // ------------------------------------------------------- comparisons etc.

    #[test]
    fn df64_comparisons_agree_with_binary64() {
        let mut rng = Rng(crate::angle::SplitMix64(8));
        let mut equal_hi = 0;
        for i in 0..N {
            let a = rng.pair(-100, 100);
            let b = match i % 4 {
                0 => rng.pair(-100, 100),
                1 => a,
                2 => neg(a),
                _ => loop {
                    let ulp = f64::from(a.hi).abs() * 2f64.powi(-23);
                    let l = (rng.f64_exp(-1, -1).abs() - 0.5) * ulp * rng.sign();
                    let b = Df64::new(a.hi, l as f32);
                    if exact(b) && normalised(b) {
                        break b;
                    }
                },
            };
            if a.hi == b.hi && a.lo != b.lo {
                equal_hi += 1;
            }
            let (x, y) = (a.to_f64(), b.to_f64());
            let ctx = || format!("{} vs {}", show(a), show(b));
            assert_eq!(lt(a, b), x < y, "lt {}", ctx());
            assert_eq!(gt(a, b), x > y, "gt {}", ctx());
            assert_eq!(le(a, b), x <= y, "le {}", ctx());
            assert_eq!(ge(a, b), x >= y, "ge {}", ctx());
            assert_eq!(eq(a, b), x == y, "eq {}", ctx());
            assert_eq!(ne(a, b), x != y, "ne {}", ctx());
            let lesser = if x < y { a } else { b };
            let greater = if x > y { a } else { b };
            assert_eq!(fmin(a, b).to_word(), lesser.to_word(), "fmin {}", ctx());
            assert_eq!(fmax(a, b).to_word(), greater.to_word(), "fmax {}", ctx());
            assert_eq!(abs(a).to_f64(), x.abs(), "abs {}", ctx());
            assert!(!lt(abs(a), Df64::new(0.0, 0.0)));
        }
        assert!(equal_hi > N / 5, "{equal_hi}");
        // Equal hi, the low words decide.
        let (p, q) = (Df64::new(1.0, 2f32.powi(-30)), Df64::new(1.0, -(2f32.powi(-30))));
        assert!(lt(q, p) && gt(p, q) && !lt(p, q) && le(q, p) && !ge(q, p) && ne(p, q));
        assert_eq!(fmin(p, q), q);
        assert_eq!(fmax(p, q), p);
        assert_eq!(fmin(q, p), q);
        assert_eq!(fmax(q, p), p);
        // Zeros: equal; fmin and fmax then give b.
        let (pz, nz) = (Df64::new(0.0, 0.0), Df64::new(-0.0, -0.0));
        assert!(eq(pz, nz) && le(pz, nz) && ge(pz, nz) && !lt(pz, nz) && !ne(pz, nz));
        assert_eq!(fmin(pz, nz).to_word(), nz.to_word());
        assert_eq!(fmax(nz, pz).to_word(), pz.to_word());
    }

    #[test]
    fn df64_abs_and_is_finite() {
        // The host split of -0 is (-0, +0); its abs is +0 in both words.
        let z = Df64::from_f64(-0.0);
        assert_eq!(z.to_word(), 0x0000_0000_8000_0000);
        assert_eq!(abs(z).to_word(), 0);
        // (-0, -0): hi < 0 is false, so lo keeps its sign (value +0).
        assert_eq!(abs(Df64::new(-0.0, -0.0)).to_word(), 0x8000_0000_0000_0000);
        assert_eq!(abs(Df64::new(-0.0, -0.0)).to_f64().to_bits(), 0);
        // A negative pair flips both words; a positive one is untouched.
        let n = Df64::new(-1.0, 2f32.powi(-30));
        assert_eq!(abs(n), Df64::new(1.0, -(2f32.powi(-30))));
        assert_eq!(abs(abs(n)), abs(n));
        assert_eq!(neg(n), Df64::new(1.0, -(2f32.powi(-30))));
        assert_eq!(neg(Df64::new(0.0, 0.0)).to_word(), 0x8000_0000_8000_0000);
        assert!(is_finite(n) && is_finite(Df64::new(f32::MAX, 0.0)));
        assert!(!is_finite(Df64::new(f32::INFINITY, 0.0)) && !is_finite(Df64::new(f32::NAN, 0.0)));
        assert!(!is_finite(Df64::new(f32::NEG_INFINITY, f32::NAN)));
    }

    // -------------------------------------------- why the accurate sum is needed

    /// The sloppy sum: the highs by [`two_sum`], the lows added to its
    /// residual in plain binary32, one [`fast_two_sum`].
    fn sloppy_add(a: Df64, b: Df64) -> Df64 {
        let s = two_sum(a.hi, b.hi);
        let lo = (s.lo + a.lo) + b.lo;
        fast_two_sum(s.hi, lo)
    }

    #[test]
    fn df64_sloppy_add_exceeds_bound_where_add_does_not() {
        // A witness: the highs cancel to 2^-24 exactly, and the lows' sum
        // needs more than 24 bits.
        let a = Df64::new(1.0, 2f32.powi(-25) * (1.0 + 2f32.powi(-23)));
        let b = Df64::new(-(1.0 - 2f32.powi(-24)), 2f32.powi(-27) * (1.0 + 2f32.powi(-23)));
        assert!(exact(a) && exact(b) && normalised(a) && normalised(b));
        let r = a.to_f64() + b.to_f64();
        let sloppy = err_u2(sloppy_add(a, b), r);
        let accurate = err_u2(add(a, b), r);
        eprintln!("df64 witness: sloppy {sloppy:.4e} u^2, add {accurate:.4} u^2");
        assert!(sloppy > 1e6, "{sloppy}");
        assert!(accurate <= allowed(BOUND_ADD), "{accurate}");

        let mut rng = Rng(crate::angle::SplitMix64(9));
        let mut w_sloppy = Worst::new("sloppy add");
        let mut w_add = Worst::new("add (same inputs)");
        let mut sloppy_over = 0;
        for i in 0..N {
            let (a, b) = sum_operands(&mut rng, i, -60, 60);
            let r = a.to_f64() + b.to_f64();
            if !in_domain(r) {
                continue;
            }
            let z = sloppy_add(a, b);
            if err_u2(z, r) > allowed(BOUND_ADD) {
                sloppy_over += 1;
            }
            w_sloppy.record(z, r, || format!("({}, {})", show(a), show(b)));
            w_add.record(add(a, b), r, || format!("({}, {})", show(a), show(b)));
        }
        eprintln!("df64 sloppy add: {sloppy_over} of {} cases over {} u^2", w_sloppy.count, allowed(BOUND_ADD));
        w_add.check(BOUND_ADD);
        assert!(w_sloppy.max > allowed(BOUND_ADD) && sloppy_over > 100, "sloppy worst {} at {}", w_sloppy.max, w_sloppy.at);
        eprintln!("df64 sloppy add: worst {:.4e} u^2 at {}", w_sloppy.max, w_sloppy.at);
    }
}
