//! The angle test of integer ADM (libvmaf `integer_adm.c`, `decouple()`): are
//! two band vectors within one degree of each other? This module holds the
//! one spelling every backend must reproduce, an integer-only evaluation that
//! gives the same answer without any floating point, three wrong spellings
//! kept as negative controls, and seeded input generators for sweeps.
//!
//! # The golden predicate
//!
//! The inputs are exact 64-bit integers: a dot product `dp` and two squared
//! magnitudes `om`, `tm`. Upstream narrows each of them to binary32 (round to
//! nearest, ties to even), widens the result to binary64, scales it by 1/4096
//! in binary64, and compares
//!
//! ```text
//! d >= 0  &&  d * d >= (c * o) * t        d = f32(dp)/4096, o = f32(om)/4096, t = f32(tm)/4096
//! ```
//!
//! where `c` is [`COS_1DEG_SQ`], the binary64 value of `cos(1 deg)^2` narrowed
//! to binary32, and the right-hand side is evaluated left to right. That
//! narrowing is what the golden data freezes: it is not the exact angle test,
//! and [`golden`] spells it verbatim.
//!
//! # The same predicate in integers
//!
//! Every quantity above is a scaled integer. A narrowed operand is `m * 2^e`
//! with a significand `m <= 2^24` and `e >= 0`; `c = MC * 2^-24` with
//! [`MC`] `= 16772106`. So
//!
//! * the left-hand side is `mp^2 * 2^(2 ep - 24)`, exact in binary64 (`mp^2`
//!   has at most 48 bits);
//! * `c * o` is `MC * mo * 2^(eo - 36)`, also exact (48 bits);
//! * the last product rounds once: the right-hand side is
//!   `round53(MC * mo * mt) * 2^(eo + et - 48)`, where `round53` keeps 53
//!   significant bits, ties to even.
//!
//! [`exact`] computes `mp`, `mo`, `mt` by its own rounding of the integers,
//! forms `MC * mo * mt` in `u128` (at most 72 bits), rounds it to 53 bits, and
//! compares the two sides as integers with aligned exponents.
//!
//! # Domain
//!
//! `dp` in `[-(2^63 - 1), 2^63 - 1]`, `om` and `tm` in `[0, 2^63 - 1]` (checked
//! by `debug_assert!`). These are the values [`from_bands`] produces from band
//! values in `[-(2^31 - 1), 2^31 - 1]`. In this domain every binary64 quantity
//! of the golden expression is zero or lies between `2^-25` (the smallest
//! right-hand side, `c * 2^-24`; the smallest operand over 4096 is `2^-12`)
//! and `2^102` (the square of `2^63 / 4096`),
//! far from both overflow and the subnormal range, so each division by 4096
//! is exact and the one rounding that happens is the one `round53` models.
//!
//! # Generators
//!
//! [`near_parallel_int16`], [`full_int32`], [`near_tie`], [`random_int64`] and
//! [`exhaustive_reduced`] produce `(dp, om, tm)` triples for sweeps,
//! deterministically from a seed (a splitmix64 stream internal to this
//! module; the host passes the inputs to devices, so no other language needs
//! to reproduce the stream).

/// `cos(1 deg)^2` as upstream spells it: the binary64 product
/// `cos(pi/180) * cos(pi/180)` narrowed to binary32, bits `0x3F7F_EC0A`.
///
/// Its value is exactly `MC * 2^-24`, about `6.8e-9` above the real
/// `cos(1 deg)^2 = 0.99969541350954...`.
pub const COS_1DEG_SQ: f32 = f32::from_bits(0x3F7F_EC0A);

/// The significand of [`COS_1DEG_SQ`] as an integer: `COS_1DEG_SQ = MC * 2^-24`.
/// `MC = 2^24 - 5110 = 2 * 3 * 13 * 23 * 9349`.
pub const MC: i64 = 16_772_106;

/// The largest magnitude of an operand (`2^63 - 1`).
const MAX: i64 = i64::MAX;

/// Where [`golden`] and the other spellings are defined, per operand
/// `(dp, om, tm)`: `[lo, hi]` (the generator checks a spec's stated domain
/// against it).
pub const DOMAIN: [(i64, i64); 3] = [(-MAX, MAX), (0, MAX), (0, MAX)];

/// Where [`from_bands`] is defined: each band value in `[lo, hi]`.
pub const BAND_DOMAIN: (i32, i32) = (-i32::MAX, i32::MAX);

fn check_domain(dp: i64, om: i64, tm: i64) {
    debug_assert!(dp >= DOMAIN[0].0, "dp = {dp} is outside [-(2^63-1), 2^63-1]");
    debug_assert!(om >= DOMAIN[1].0 && tm >= DOMAIN[2].0, "om = {om}, tm = {tm}: squared magnitudes must be >= 0");
}

/// The golden angle predicate, verbatim: each operand narrowed to binary32
/// (round to nearest even), widened to binary64 and divided by 4096; then
/// `d >= 0 && d * d >= (c * o) * t` in binary64, left to right.
///
/// Rust converts `i64 as f32` with round to nearest even and never fuses or
/// reassociates, so this is the C expression of `integer_adm.c`.
pub fn golden(dp: i64, om: i64, tm: i64) -> bool {
    check_domain(dp, om, tm);
    let c = f64::from(COS_1DEG_SQ);
    let d = f64::from(dp as f32) / 4096.0;
    let o = f64::from(om as f32) / 4096.0;
    let t = f64::from(tm as f32) / 4096.0;
    d >= 0.0 && d * d >= c * o * t
}

/// A rounding rule for the integer evaluation. Only [`Rounding::NearestEven`]
/// is the predicate's; the others are mutants for the tests, to show that the
/// witnesses and sweeps tell the rules apart.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Round to nearest, ties to even (IEEE's default; the predicate's rule).
    NearestEven,
    /// Drop the discarded bits (round toward zero).
    Truncate,
    /// Round to nearest, ties away from zero.
    NearestAway,
    /// Round to nearest even, but a round-up that carries into a new bit
    /// keeps the exponent (the value halves): the classic missed renormalisation.
    CarryDropped,
    /// No rounding at all: every bit is kept. For the 53-bit rounding only
    /// (kept operands could overflow the `u128` product).
    Keep,
}

/// `x` rounded to `width` significant bits by `mode`, as `(m, s)` with the
/// value `m * 2^s` and `m < 2^width` (a carry is renormalised), except that
/// [`Rounding::Keep`] returns `(x, 0)`. `x < 2^127`.
fn round_bits(x: u128, width: u32, mode: Rounding) -> (u128, u32) {
    let len = 128 - x.leading_zeros();
    if len <= width || mode == Rounding::Keep {
        return (x, 0);
    }
    let s = len - width;
    let m = x >> s;
    let rest = x & ((1u128 << s) - 1);
    let half = 1u128 << (s - 1);
    let up = match mode {
        Rounding::Truncate | Rounding::Keep => false,
        Rounding::NearestAway => rest >= half,
        Rounding::NearestEven | Rounding::CarryDropped => rest > half || (rest == half && m & 1 == 1),
    };
    if !up {
        return (m, s);
    }
    let m = m + 1;
    if m >> width == 0 {
        (m, s)
    } else if mode == Rounding::CarryDropped {
        (m >> 1, s)
    } else {
        (m >> 1, s + 1)
    }
}

/// The integer evaluation of the predicate with the binary32 narrowing
/// rounded by `narrow` and the 53-bit rounding of the right-hand side by
/// `wide`. [`exact`] is this with both [`Rounding::NearestEven`].
#[doc(hidden)]
pub fn exact_with(dp: i64, om: i64, tm: i64, narrow: Rounding, wide: Rounding) -> bool {
    check_domain(dp, om, tm);
    debug_assert!(narrow != Rounding::Keep, "Keep is for the 53-bit rounding only");
    if dp < 0 {
        return false;
    }
    if om == 0 || tm == 0 {
        // The right-hand side is +0, the left-hand side is >= 0.
        return true;
    }
    if dp == 0 {
        // Left-hand side 0, right-hand side > 0 (a nonzero integer narrows to
        // a nonzero binary32).
        return false;
    }
    let (mp, ep) = round_bits(dp as u128, 24, narrow);
    let (mo, eo) = round_bits(om as u128, 24, narrow);
    let (mt, et) = round_bits(tm as u128, 24, narrow);
    // lhs * 2^48 = mp^2 * 2^(2 ep + 24); rhs * 2^48 = round53(MC mo mt) * 2^(eo + et).
    let l = mp * mp;
    let a = 2 * ep + 24;
    let (r, s) = round_bits(MC as u128 * mo * mt, 53, wide);
    let b = eo + et + s;
    // Both sides are nonzero: compare the positions of their leading bits,
    // then, when those agree, the aligned significands (the shifted one then
    // has as many bits as the other, at most 53, so nothing overflows).
    let top_l = 128 - l.leading_zeros() + a;
    let top_r = 128 - r.leading_zeros() + b;
    if top_l != top_r {
        return top_l > top_r;
    }
    if a >= b {
        l << (a - b) >= r
    } else {
        l >= r << (b - a)
    }
}

/// The golden predicate evaluated with integers only, no floating point:
/// its own round-to-nearest-even narrowing of the three operands to 24-bit
/// significands, the exact product `MC * mo * mt` in `u128` rounded to 53
/// bits (ties to even), and an integer comparison with the exponents aligned
/// (see the [module documentation](self)). Equal to [`golden`] on the whole
/// domain by that derivation, and checked against it by the tests' sweeps.
/// Domain: `dp` in `[-(2^63 - 1), 2^63 - 1]`, `om`, `tm` in `[0, 2^63 - 1]`.
///
/// `dp < 0` is false; `om == 0` or `tm == 0` makes the right-hand side 0, so
/// the answer is `dp >= 0`; `dp == 0` with both magnitudes nonzero is false.
pub fn exact(dp: i64, om: i64, tm: i64) -> bool {
    exact_with(dp, om, tm, Rounding::NearestEven, Rounding::NearestEven)
}

/// The operands of the predicate from the four band values:
/// `(dp, om, tm) = (oh*th + ov*tv, oh^2 + ov^2, th^2 + tv^2)`, exact in `i64`.
///
/// Domain: every band value in `[-(2^31 - 1), 2^31 - 1]`. Then each product
/// is at most `(2^31 - 1)^2 = 2^62 - 2^32 + 1` in magnitude and each sum of
/// two at most `2^63 - 2^33 + 2`, below `2^63 - 1`: nothing overflows and the
/// results lie in the predicate's domain.
pub fn from_bands(oh: i32, ov: i32, th: i32, tv: i32) -> (i64, i64, i64) {
    debug_assert!([oh, ov, th, tv].iter().all(|&b| b >= BAND_DOMAIN.0), "band value -2^31 is outside the domain");
    let (oh, ov, th, tv) = (i64::from(oh), i64::from(ov), i64::from(th), i64::from(tv));
    (oh * th + ov * tv, oh * oh + ov * ov, th * th + tv * tv)
}

/// Wrong spelling (a negative control): no narrowing to binary32; the
/// operands go straight to binary64 (`i64 as f64` rounds to 53 bits, exact
/// below `2^53`) and the comparison is the golden one otherwise.
pub fn wrong_exact_f64(dp: i64, om: i64, tm: i64) -> bool {
    let c = f64::from(COS_1DEG_SQ);
    let d = dp as f64 / 4096.0;
    dp >= 0 && d * d >= c * (om as f64 / 4096.0) * (tm as f64 / 4096.0)
}

/// Wrong spelling (a negative control): the whole comparison in binary32,
/// every operation rounded to binary32.
pub fn wrong_all_f32(dp: i64, om: i64, tm: i64) -> bool {
    let d = dp as f32 / 4096.0;
    dp >= 0 && d * d >= COS_1DEG_SQ * (om as f32 / 4096.0) * (tm as f32 / 4096.0)
}

/// Wrong spelling (a negative control): the exact integer products `dp^2`
/// and `om * tm` narrowed to binary32 (`i128 as f32` rounds to nearest even)
/// and compared there.
pub fn wrong_products_f32(dp: i64, om: i64, tm: i64) -> bool {
    let lhs = (i128::from(dp) * i128::from(dp)) as f32;
    let rhs = (i128::from(om) * i128::from(tm)) as f32;
    dp >= 0 && lhs >= COS_1DEG_SQ * rhs
}

// ------------------------------------------------------------------ generators

/// splitmix64 (Steele, Lea and Flood): a 64-bit counter stepped by the golden
/// gamma and mixed; good enough to spread sweep inputs, not for anything else.
#[derive(Debug)]
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n > 0`), by the multiply-high reduction (its
    /// bias, below `n / 2^64`, is irrelevant here).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[lo, hi]`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    /// Uniform in `[0, 1)`, 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform value with `len` bits (`0` for `len == 0`, else the top bit
    /// `len - 1` set), `len <= 63`.
    fn with_len(&mut self, len: u32) -> i64 {
        match len {
            0 => 0,
            _ => ((1u64 << (len - 1)) | (self.next() & ((1u64 << (len - 1)) - 1))) as i64,
        }
    }
}

/// A band vector `v` close to `s * R(theta) * u`: `theta` uniform in
/// `[0.9, 1.1]` degrees with a random sign, `s` uniform in `[0.5, 2]`, `u`
/// uniform with components in `[-bound/max(s, 1), bound/max(s, 1)]`, `v`
/// rounded to integers, jittered by `-1, 0` or `1` per component and clamped
/// to `[-bound, bound]`.
fn near_parallel(rng: &mut SplitMix64, bound: i64) -> (i64, i64, i64) {
    let s = 0.5 + 1.5 * rng.unit();
    let b = (bound as f64 / s.max(1.0)) as i64;
    let (oh, ov) = (rng.range(-b, b), rng.range(-b, b));
    let deg = 0.9 + 0.2 * rng.unit();
    let theta = if rng.next() & 1 == 0 { deg } else { -deg }.to_radians();
    let (sin, cos) = theta.sin_cos();
    let (x, y) = (oh as f64, ov as f64);
    let mut band = |w: f64| ((s * w).round() as i64 + rng.range(-1, 1)).clamp(-bound, bound) as i32;
    let th = band(x * cos - y * sin);
    let tv = band(x * sin + y * cos);
    from_bands(oh as i32, ov as i32, th, tv)
}

/// `n` triples from int16 band vectors one degree apart, give or take a
/// tenth (see the module's private `near_parallel`: `u` random with
/// components in `[-32767, 32767]`, `v` a rotated, scaled and jittered `u`).
/// Most cases have `dp^2 / (om * tm)` within about `1e-4` of `cos(1 deg)^2`,
/// which puts the magnitudes (up to `2^31`) past the 24 bits binary32 keeps
/// and the comparison on its boundary.
pub fn near_parallel_int16(seed: u64, n: usize) -> Vec<(i64, i64, i64)> {
    let mut rng = SplitMix64(seed);
    (0..n).map(|_| near_parallel(&mut rng, i64::from(i16::MAX))).collect()
}

/// `n` triples from int32 band vectors: three in four are the near-parallel
/// construction of [`near_parallel_int16`] with the component bound drawn as
/// `2^k - 1`, `k` uniform in `8..=31` (so magnitudes up to `2^31 - 1` and
/// operands up to about `2^63`), and one in four has four uniform band values in
/// `[-(2^31 - 1), 2^31 - 1]`.
pub fn full_int32(seed: u64, n: usize) -> Vec<(i64, i64, i64)> {
    let mut rng = SplitMix64(seed);
    let max = i64::from(i32::MAX);
    (0..n)
        .map(|_| {
            if rng.below(4) == 0 {
                let mut b = || rng.range(-max, max) as i32;
                from_bands(b(), b(), b(), b())
            } else {
                let k = 8 + rng.below(24) as u32;
                near_parallel(&mut rng, (1i64 << k) - 1)
            }
        })
        .collect()
}

/// `n` triples with random bit lengths: for each operand a length uniform in
/// `0..=63`, then a uniform value of that length (the top bit set; length 0
/// is the value 0), and a random sign for `dp`. Covers every binade of the
/// domain equally, which uniform 64-bit draws would not.
pub fn random_int64(seed: u64, n: usize) -> Vec<(i64, i64, i64)> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let len = rng.below(64) as u32;
            let dp = rng.with_len(len);
            let dp = if rng.next() & 1 == 0 { dp } else { -dp };
            let om = rng.below(64) as u32;
            let om = rng.with_len(om);
            let tm = rng.below(64) as u32;
            (dp, om, rng.with_len(tm))
        })
        .collect()
}

/// The values of one operand in [`exhaustive_reduced`], ascending: `0`, and
/// for every bit length `k` in `1..=63`
///
/// * the smallest, `2^(k-1)`, and the largest, `2^k - 1` (for `k > 24` it
///   rounds up to `2^k`: the narrowing's carry);
/// * a mid value, `2^(k-1)` plus the low `k - 1` bits of `0x5555...`;
/// * for `k >= 25`, the two ties next to the smallest:
///   `2^(k-1) + 2^(k-25)` (half an ulp above a significand of `2^23`, even:
///   rounds down) and `2^(k-1) + 3 * 2^(k-25)` (between `2^23 + 1`, odd, and
///   `2^23 + 2`: rounds up).
///
/// Duplicates (small `k`) appear once: 265 values in all.
pub fn reduced_values() -> Vec<i64> {
    let mut v = vec![0i64];
    for k in 1..=63u32 {
        let low = 1i64 << (k - 1);
        let mut row = vec![low, low | (0x5555_5555_5555_5555 & (low - 1)), low + (low - 1)];
        if k >= 25 {
            row.push(low + (1 << (k - 25)));
            row.push(low + (3 << (k - 25)));
        }
        row.sort_unstable();
        row.dedup();
        v.extend(row);
    }
    v
}

/// The negative values of `dp` in [`exhaustive_reduced`]: `-1`, `-2^24 - 1`,
/// `-2^40` and `-(2^63 - 1)`.
const NEGATIVE_DP: [i64; 4] = [-1, -(1 << 24) - 1, -(1 << 40), -MAX];

/// A reduced domain covering every combination of the three operands' bit
/// lengths (so every exponent combination of the narrowed operands): all
/// triples `(dp, om, tm)` with `dp` in [`reduced_values`] or one of four
/// negative values (`-1`, `-2^24 - 1`, `-2^40`, `-(2^63 - 1)`), and `om`, `tm`
/// in [`reduced_values`]: `269 * 265 * 265 = 18,890,525` triples, generated
/// lazily, `dp` outermost.
pub fn exhaustive_reduced() -> impl Iterator<Item = (i64, i64, i64)> {
    let v = reduced_values();
    let dps: Vec<i64> = v.iter().copied().chain(NEGATIVE_DP).collect();
    dps.into_iter().flat_map(move |dp| {
        let v = v.clone();
        v.clone().into_iter().flat_map(move |om| v.clone().into_iter().map(move |tm| (dp, om, tm)))
    })
}

/// The primes below `2^16`, by a sieve.
fn small_primes() -> Vec<u64> {
    const N: usize = 1 << 16;
    let mut composite = vec![false; N];
    let mut primes = Vec::new();
    for p in 2..N {
        if !composite[p] {
            primes.push(p as u64);
            for q in (p * p..N).step_by(p) {
                composite[q] = true;
            }
        }
    }
    primes
}

/// The divisors of `n` (`n <= 2^48`) if every prime factor of `n` is at most
/// `2^24`, found by trial division by `primes` (those below `2^16`); `None`
/// when the cofactor left over is above `2^24` (a larger prime, or a product
/// of two primes above `2^16`, which this does not try to split).
fn divisors(mut n: u64, primes: &[u64]) -> Option<Vec<u64>> {
    let mut divs = vec![1u64];
    let mut push = |p: u64, k: u32| {
        let len = divs.len();
        let mut pk = 1;
        for _ in 0..k {
            pk *= p;
            for i in 0..len {
                divs.push(divs[i] * pk);
            }
        }
    };
    for &p in primes {
        if p * p > n {
            break;
        }
        let mut k = 0;
        while n.is_multiple_of(p) {
            n /= p;
            k += 1;
        }
        if k > 0 {
            push(p, k);
        }
    }
    if n > 1 << 24 {
        return None;
    }
    if n > 1 {
        push(n, 1);
    }
    Some(divs)
}

/// `x` moved by a random amount within its binary32 rounding interval, so
/// that it still narrows to the same value; one draw in eight tries an exact
/// tie (half an ulp away, kept only when round-to-nearest-even goes back to
/// `x`). `x` itself when it has no room (fewer than 25 bits) or the draw
/// would narrow elsewhere (at a power of two the interval below is half as
/// wide).
fn perturb(rng: &mut SplitMix64, x: u64) -> u64 {
    let len = 64 - x.leading_zeros();
    if len <= 24 {
        return x;
    }
    let half = 1i64 << (len - 25);
    let r = if rng.below(8) == 0 {
        if rng.next() & 1 == 0 {
            half
        } else {
            -half
        }
    } else {
        rng.range(1 - half, half - 1)
    };
    let y = (x as i64 + r) as u64;
    let value = |z: u64| {
        let (m, e) = round_bits(u128::from(z), 24, Rounding::NearestEven);
        m << e
    };
    if value(y) == value(x) {
        y
    } else {
        x
    }
}

/// One try at a near tie: `None` when the drawn left-hand side has no
/// right-hand side within one ulp of it (most tries).
fn near_tie_try(rng: &mut SplitMix64, primes: &[u64]) -> Option<(i64, i64, i64)> {
    // The left-hand side's significand mp, and y = mp^2 2^k in [2^71, 2^72).
    let mp = (1u64 << 23) + 1 + rng.below((1 << 23) - 1);
    let sq = u128::from(mp) * u128::from(mp);
    let k = if sq >> 47 != 0 { 24 } else { 25 };
    let ulp = 1i128 << 19;
    let target = ((sq << k) as i128 + (rng.range(-1, 1) as i128) * ulp) as u128;
    // The one product MC * n that can round to target, and its 53-bit rounding.
    let mc = MC as u128;
    let n = (target + mc / 2) / mc;
    let (r, s) = round_bits(mc * n, 53, Rounding::NearestEven);
    if r << s != target || n > 1 << 48 {
        return None;
    }
    // n = mo * mt with both significands at most 2^24.
    let n = n as u64;
    let lo = n.div_ceil(1 << 24);
    let split: Vec<u64> = divisors(n, primes)?.into_iter().filter(|&d| d >= lo && d <= 1 << 24).collect();
    if split.is_empty() {
        return None;
    }
    let mo = split[rng.below(split.len() as u64) as usize];
    let mt = n / mo;
    // Exponents: mp^2 2^(2 ep + 24) against target 2^(eo + et) = mp^2 2^(k + eo + et).
    let ep = rng.range(1, 38) as u32;
    let sum = 2 * ep + 24 - k;
    let eo = rng.range(i64::from(sum.saturating_sub(38)), i64::from(sum.min(38))) as u32;
    let et = sum - eo;
    let dp = perturb(rng, mp << ep);
    let om = perturb(rng, mo << eo);
    let tm = perturb(rng, mt << et);
    Some((dp as i64, om as i64, tm as i64))
}

/// `n` triples on the razor's edge of the golden comparison: the left-hand
/// side `(f32(dp)/4096)^2` equal to, one binary64 ulp below or one ulp above
/// the right-hand side (one of the three drawn uniformly per case).
///
/// Construction: draw a significand `mp` in `(2^23, 2^24)` and a target
/// `y = mp^2 * 2^k + delta * 2^19` in `[2^71, 2^72)` (`k` 24 or 25, `delta`
/// in `{-1, 0, 1}`, `2^19` the binary64 ulp there); take the one `n` whose
/// `MC * n` can round to `y`, keep it when it does and `n` splits into two
/// significands `mo * mt <= 2^24` each (trial division); then draw exponents
/// with `eo + et = 2 ep + 24 - k` and move each operand at random inside its
/// binary32 rounding interval (ties included). Most tries fail (a case costs
/// about 0.4 ms of one core here); every returned triple has, by construction,
/// `|lhs - rhs| <= 1` ulp of the right-hand side, which the tests recount
/// with [`golden`]'s own arithmetic.
pub fn near_tie(seed: u64, n: usize) -> Vec<(i64, i64, i64)> {
    let primes = small_primes();
    let mut rng = SplitMix64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        if let Some(t) = near_tie_try(&mut rng, &primes) {
            out.push(t);
        }
    }
    out
}

// ------------------------------------------------------------------ witnesses

/// Named inputs `(dp, om, tm, answer)`, each with the answer of [`golden`]
/// (and of [`exact`]; the tests check both), chosen so that each one tells one
/// thing apart. By index:
///
/// * **Signs and zeros.** 0: `dp < 0` is false even against a zero right-hand
///   side; 1: `dp < 0` at the edge of the domain (antiparallel vectors);
///   2: all zero, true; 3, 4: `dp = 0` with `om = 0` or `tm = 0`, true (the
///   right-hand side is 0); 5: `dp = 0` against a positive right-hand side
///   (orthogonal vectors), false; 6: `dp = 2^63 - 1` with `tm = 0`, true;
///   7: [`from_bands`] of four band values `2^31 - 1`, parallel at the top of
///   the domain (all three operands narrow to `2^63`), true.
/// * **The boundary, with operands exact in binary32.** 8: `lhs == rhs`
///   exactly (`dp^2 / (om tm) = MC / 2^24`), true; 9: `dp` one less, false;
///   10: the ratio just below the real `cos(1 deg)^2`, false; 11: between the
///   real `cos(1 deg)^2` and `c`, so the vectors are less than a degree apart
///   but the answer is false (`c` is `cos(1 deg)^2` rounded up); 12: just
///   above `c`, true.
/// * **The binary32 narrowing.** 13: `dp = 2^25 - 1` narrows up to `2^25`
///   (the carry): true, false if truncated or if the carry is dropped;
///   14: `dp` half an ulp below an even significand, so the tie rounds up:
///   true, false if truncated (and the exact angle test is false here: the
///   ratio is `6.5e-8` below `cos(1 deg)^2`); 15: `dp` half an ulp above an
///   even significand, so the tie rounds down: false, true with ties away
///   (the exact angle test is true: `8e-8` above); 16: `om` rounds up (no
///   tie): false, true if truncated; 17: `om` half an ulp above an odd
///   significand, so the tie rounds up to even: false, true if truncated;
///   18: `om` half an ulp below an odd significand, so the tie rounds down to
///   even: true, false with ties away.
/// * **The 53-bit rounding of `MC * mo * mt`.** 19: `lhs` one binary64 ulp
///   below `rhs`, which `MC * mo * mt` reaches by rounding up (not a tie):
///   false, true if truncated; 20: `lhs == rhs` only after `MC * mo * mt`
///   rounds down: true, false against the unrounded product; 21: `lhs` one
///   ulp above `rhs`: true.
///
/// No witness can show the 53-bit rounding's tie rule or its carry: both are
/// unreachable in the domain (the tests prove it by enumeration). A carry
/// needs `MC * mo * mt` in `[2^m - 2^(m-54), 2^m)` for some `m` in `54..=72`,
/// and no multiple of `MC` lies in any of those intervals. A tie decides the
/// answer only when `lhs` equals the candidate below, `mp^2 * 2^j` (even), so
/// `MC * mo * mt` would have the odd part `mp^2 * 2^t + 1` (54 bits), a
/// multiple of `MC / 2 = 8386053` that no odd `mp < 2^24` gives.
pub const WITNESSES: &[(i64, i64, i64, bool)] = &[
    (-1, 0, 0, false),
    (-MAX, MAX, MAX, false),
    (0, 0, 0, true),
    (0, 0, 7, true),
    (0, 5, 0, true),
    (0, 3, 5, false),
    (MAX, MAX, 0, true),
    (9_223_372_028_264_841_218, 9_223_372_028_264_841_218, 9_223_372_028_264_841_218, true),
    (8_386_053, 8_386_053, 8_388_608, true),
    (8_386_052, 8_386_053, 8_388_608, false),
    (16_773_327, 16_775_883, 16_775_883, false),
    (16_773_328, 16_775_883, 16_775_883, false),
    (16_773_329, 16_775_883, 16_775_883, true),
    (33_554_431, 33_554_432, 33_564_652, true),
    (14_608_768_696_320, 12_363_710_332_928, 17_266_755_239_936, true),
    (14_361_217_728_512, 12_440_057_151_488, 16_584_119_681_024, false),
    (14_361_217_204_224, 12_440_056_889_344, 16_584_119_681_024, false),
    (14_199_677_779_968, 12_134_181_765_120, 16_621_828_571_136, false),
    (14_361_217_204_224, 12_440_056_627_200, 16_584_119_681_024, true),
    (14_361_217_204_224, 12_440_057_151_488, 16_584_119_681_024, false),
    (14_608_769_220_608, 12_363_710_332_928, 17_266_755_239_936, true),
    (14_199_677_779_968, 12_134_181_240_832, 16_621_828_571_136, true),
];
