//! The ULP distance (`aether_reference::ulp`, the C core's
//! `aether_f32_ulp_distance` / `aether_f64_ulp_distance`) against methods that
//! never use the ordered mapping: a walk with `next_up` steps that counts
//! them (f32, around zero and at the infinities), and a count of the
//! representable values per binade on the exact value (f32 and f64, any
//! pair). A negative control shows that the same-sign formula on the raw
//! words, with or without a guard for ±0, is wrong exactly where the
//! ordered mapping matters.

use std::collections::HashMap;

use aether_generator::rng::SplitMix64;
use aether_reference::ulp::{f32_ulp_distance, f32_ulp_distance_bits, f64_ulp_distance, f64_ulp_distance_bits};
use aether_tests::sys;

fn c32(a: u32, b: u32) -> u32 {
    // SAFETY: a plain function of two floats.
    unsafe { sys::aether_f32_ulp_distance(f32::from_bits(a), f32::from_bits(b)) }
}

fn c64(a: u64, b: u64) -> u64 {
    // SAFETY: a plain function of two doubles.
    unsafe { sys::aether_f64_ulp_distance(f64::from_bits(a), f64::from_bits(b)) }
}

/// The format of an element type, for counting on values.
struct Format {
    /// Fraction bits.
    p: i32,
    /// The exponent of the least normal binade.
    emin: i32,
    /// The least normal value, 2^emin.
    least_normal: f64,
    /// The least subnormal value, 2^(emin - p): the spacing below 2^emin.
    quantum: f64,
    /// The largest finite value.
    max: f64,
}

const F32: Format =
    Format { p: 23, emin: -126, least_normal: f32::MIN_POSITIVE as f64, quantum: f32::from_bits(1) as f64, max: f32::MAX as f64 };
const F64: Format = Format { p: 52, emin: -1022, least_normal: f64::MIN_POSITIVE, quantum: f64::from_bits(1), max: f64::MAX };

/// How many representable values of the format lie in (0, x], for x >= 0
/// not NaN, counted binade by binade on the value: the subnormals are the
/// multiples k * 2^(emin - p) below 2^emin (2^p - 1 of them after zero),
/// every normal binade [2^e, 2^(e+1)) holds 2^p values, and infinity is one
/// past the largest finite value. Every scaling below is by a power of two
/// on a value of the format, so exact in f64.
fn count_from_zero(x: f64, f: &Format) -> i128 {
    assert!(x >= 0.0);
    if x == f64::INFINITY {
        return count_from_zero(f.max, f) + 1;
    }
    let binade = 1i128 << f.p;
    if x < f.least_normal {
        let k = x / f.quantum;
        assert_eq!(k.fract(), 0.0);
        return k as i128;
    }
    // 2^e <= x < 2^(e+1), found by halving and doubling (exact).
    let (mut y, mut e) = (x, 0i32);
    let big = 4294967296.0;
    while y >= big {
        y /= big;
        e += 32;
    }
    while y < 1.0 / big {
        y *= big;
        e -= 32;
    }
    while y >= 2.0 {
        y /= 2.0;
        e += 1;
    }
    while y < 1.0 {
        y *= 2.0;
        e -= 1;
    }
    // y = 1 + j / 2^p: j steps into the binade.
    let j = (y - 1.0) * binade as f64;
    assert_eq!(j.fract(), 0.0);
    (binade - 1) + i128::from(e - f.emin) * binade + j as i128 + 1
}

/// The distance by counting: zero is one point, and a pair on opposite
/// sides is the count from zero to each.
fn counted(a: f64, b: f64, f: &Format) -> i128 {
    let at = |x: f64| if x.is_sign_negative() { -count_from_zero(-x, f) } else { count_from_zero(x, f) };
    (at(a) - at(b)).abs()
}

/// The values from `from` up to and including `to`, each with its number of
/// `next_up` steps from `from`. `next_up(-tiny)` is -0 and `next_up(-0)` is
/// +tiny: the walk passes zero once, so +0, which it never visits, is given
/// the step of -0 (one point).
fn walk(from: f32, to: f32) -> HashMap<u32, u32> {
    let mut steps = HashMap::new();
    let (mut x, mut n) = (from, 0u32);
    loop {
        steps.insert(x.to_bits(), n);
        if x.to_bits() == (-0.0f32).to_bits() {
            steps.insert(0, n);
        }
        if x == to && x.to_bits() == to.to_bits() {
            return steps;
        }
        x = x.next_up();
        n += 1;
    }
}

/// The steps of one pair by walking it out: from the smaller to the larger
/// value, one `next_up` at a time.
fn walk_pair(a: f32, b: f32) -> u32 {
    let (mut x, hi) = if a <= b { (a, b) } else { (b, a) };
    let mut n = 0;
    while x < hi {
        x = x.next_up();
        n += 1;
    }
    n
}

/// The naive distance of same-sign words, |bits(a) - bits(b)|.
fn naive32(a: u32, b: u32) -> u32 {
    a.abs_diff(b)
}

/// The naive distance with the ±0 guard of the background material: 0 when
/// both are zeros, else the same-sign formula.
fn guarded32(a: u32, b: u32) -> u32 {
    if a & 0x7fff_ffff == 0 && b & 0x7fff_ffff == 0 {
        0
    } else {
        naive32(a, b)
    }
}

const PATTERNS: u32 = 1 << 12;

/// Every ordered pair of the 2^12 patterns nearest zero on each side (±0 and
/// the least subnormals): reference, C core, walk and binade count agree, and
/// the naive formula fails on every pair across signs.
#[test]
fn every_pair_around_zero() {
    let near: Vec<u32> = (0..PATTERNS).chain((0..PATTERNS).map(|m| 0x8000_0000 | m)).collect();
    let lowest = f32::from_bits(0x8000_0000 | (PATTERNS - 1));
    let highest = f32::from_bits(PATTERNS - 1);
    let steps = walk(lowest, highest);
    assert_eq!(steps.len(), near.len(), "every pattern is on the walk");
    assert_eq!(steps[&0], steps[&0x8000_0000]);
    let (mut pairs, mut cross, mut naive_wrong, mut guard_wrong) = (0u64, 0u64, 0u64, 0u64);
    for &a in &near {
        for &b in &near {
            let want = steps[&a].abs_diff(steps[&b]);
            let got = f32_ulp_distance_bits(a, b);
            assert_eq!(got, want, "reference {a:#010x} {b:#010x}: {got} steps, the walk {want}");
            assert_eq!(c32(a, b), want, "C core {a:#010x} {b:#010x}");
            pairs += 1;
            let same_sign = (a ^ b) >> 31 == 0;
            if same_sign {
                assert_eq!(naive32(a, b), want, "the naive formula holds within one sign");
            } else {
                cross += 1;
                naive_wrong += u64::from(naive32(a, b) != want);
                guard_wrong += u64::from(guarded32(a, b) != want);
            }
        }
    }
    // The binade count on a sample (it is slower: a loop per value).
    for &a in near.iter().step_by(37) {
        for &b in near.iter().step_by(41) {
            let want = counted(f64::from(f32::from_bits(a)), f64::from(f32::from_bits(b)), &F32);
            assert_eq!(i128::from(f32_ulp_distance_bits(a, b)), want, "{a:#010x} {b:#010x}");
        }
    }
    // The walk of the whole table agrees with walking each pair out.
    let mut rng = SplitMix64::new(0x0175);
    for _ in 0..2000 {
        let (a, b) = (near[rng.below(near.len() as u64) as usize], near[rng.below(near.len() as u64) as usize]);
        assert_eq!(walk_pair(f32::from_bits(a), f32::from_bits(b)), f32_ulp_distance_bits(a, b), "{a:#010x} {b:#010x}");
    }
    // Negative control: the same-sign formula is wrong on every pair across
    // signs (including +0 against -0); the ±0 guard mends only that pair.
    assert_eq!(naive_wrong, cross, "the naive formula fails on every pair across signs");
    assert_eq!(guard_wrong, cross - 2, "the ±0 guard mends +0/-0 and -0/+0 only");
    assert_eq!(naive32(0, 0x8000_0000), 0x8000_0000);
    assert_eq!(f32_ulp_distance(0.0, -0.0), 0);
    let tiny = f32::from_bits(1);
    assert_eq!(guarded32(tiny.to_bits(), (-tiny).to_bits()), 0x8000_0000, "the guard leaves -tiny to +tiny half the line away");
    assert_eq!(f32_ulp_distance(tiny, -tiny), 2);
    println!(
        "ulp: {pairs} f32 pairs around zero: reference = C core = walk; the same-sign formula wrong on all {cross} pairs across \
         signs, with the ±0 guard on {guard_wrong}"
    );
}

/// The top 2^10 finite patterns of each sign and both infinities: within a
/// sign against the walk, across signs against the binade count.
#[test]
fn every_pair_at_the_infinities() {
    const TOP: u32 = 1 << 10;
    let inf = f32::INFINITY.to_bits();
    let positive: Vec<u32> = (inf - TOP..=inf).collect();
    let negative: Vec<u32> = positive.iter().map(|b| b | 0x8000_0000).collect();
    let up = walk(f32::from_bits(inf - TOP), f32::INFINITY);
    let down = walk(f32::NEG_INFINITY, f32::from_bits((inf - TOP) | 0x8000_0000));
    assert_eq!(up.len(), positive.len());
    assert_eq!(down.len(), negative.len());
    assert_eq!(up[&inf] - up[&f32::MAX.to_bits()], 1, "infinity is one step past the largest finite value");
    let mut pairs = 0u64;
    for side in [(&positive, &up), (&negative, &down)] {
        let (values, steps) = side;
        for &a in values.iter() {
            for &b in values.iter() {
                let want = steps[&a].abs_diff(steps[&b]);
                assert_eq!(f32_ulp_distance_bits(a, b), want, "reference {a:#010x} {b:#010x}");
                assert_eq!(c32(a, b), want, "C core {a:#010x} {b:#010x}");
                pairs += 1;
            }
        }
    }
    let mut naive_wrong = 0u64;
    for &a in &negative {
        for &b in &positive {
            let want = counted(f64::from(f32::from_bits(a)), f64::from(f32::from_bits(b)), &F32);
            for (x, y) in [(a, b), (b, a)] {
                assert_eq!(i128::from(f32_ulp_distance_bits(x, y)), want, "reference {x:#010x} {y:#010x}");
                assert_eq!(i128::from(c32(x, y)), want, "C core {x:#010x} {y:#010x}");
                naive_wrong += u64::from(i128::from(naive32(x, y)) != want);
                pairs += 1;
            }
        }
    }
    assert_eq!(f32_ulp_distance(f32::NEG_INFINITY, f32::INFINITY), 0xff00_0000);
    assert_eq!(naive_wrong, 2 * positive.len() as u64 * negative.len() as u64, "the naive formula fails across signs");
    println!("ulp: {pairs} f32 pairs at the infinities: reference = C core = walk / binade count");
}

/// NaNs of both signs, quiet and signalling, with payloads.
fn nans32() -> Vec<u32> {
    let mut v = vec![0x7f80_0001, 0x7fbf_ffff, 0x7fc0_0000, 0x7fc0_0001, 0x7fff_ffff, 0x7fd5_5555];
    v.extend(v.clone().iter().map(|b| b | 0x8000_0000));
    v
}

fn nans64() -> Vec<u64> {
    let mut v = vec![0x7ff0_0000_0000_0001, 0x7ff7_ffff_ffff_ffff, 0x7ff8_0000_0000_0000, 0x7ff8_0000_0000_0001, 0x7fff_ffff_ffff_ffff];
    v.extend(v.clone().iter().map(|b| b | 0x8000_0000_0000_0000));
    v
}

/// Any NaN against any NaN is 0; a NaN against any number, infinities
/// included, is the type's maximum, which no pair of numbers reaches.
#[test]
fn nan_follows_the_policy() {
    let numbers32: Vec<u32> = [0.0f32, -0.0, 1.0, -1.0, f32::MIN_POSITIVE, f32::MAX, f32::INFINITY, f32::NEG_INFINITY]
        .iter()
        .map(|x| x.to_bits())
        .chain([1, 0x8000_0001, 0x7f7f_ffff, 0xff7f_ffff])
        .collect();
    for &n in &nans32() {
        for &m in &nans32() {
            assert_eq!(f32_ulp_distance_bits(n, m), 0);
            assert_eq!(c32(n, m), 0, "C core {n:#010x} {m:#010x}");
        }
        for &x in &numbers32 {
            for (a, b) in [(n, x), (x, n)] {
                assert_eq!(f32_ulp_distance_bits(a, b), u32::MAX);
                assert_eq!(c32(a, b), u32::MAX, "C core {a:#010x} {b:#010x}");
            }
        }
    }
    let numbers64: Vec<u64> = [0.0f64, -0.0, 1.0, -1.0, f64::MIN_POSITIVE, f64::MAX, f64::INFINITY, f64::NEG_INFINITY]
        .iter()
        .map(|x| x.to_bits())
        .chain([1, 0x8000_0000_0000_0001])
        .collect();
    for &n in &nans64() {
        for &m in &nans64() {
            assert_eq!(f64_ulp_distance_bits(n, m), 0);
            assert_eq!(c64(n, m), 0, "C core {n:#018x} {m:#018x}");
        }
        for &x in &numbers64 {
            for (a, b) in [(n, x), (x, n)] {
                assert_eq!(f64_ulp_distance_bits(a, b), u64::MAX);
                assert_eq!(c64(a, b), u64::MAX, "C core {a:#018x} {b:#018x}");
            }
        }
    }
    assert!(f32_ulp_distance(f32::NEG_INFINITY, f32::INFINITY) < u32::MAX);
    assert!(f64_ulp_distance(f64::NEG_INFINITY, f64::INFINITY) < u64::MAX);
}

/// A random non-NaN f64 word: any bits, near zero, near the top, or near 1.
fn word64(rng: &mut SplitMix64) -> u64 {
    let sign = rng.next_u64() & 0x8000_0000_0000_0000;
    let m = match rng.below(4) {
        0 => rng.next_u64() & 0x7fff_ffff_ffff_ffff,
        1 => rng.below(1 << 20),
        2 => 0x7ff0_0000_0000_0000 - rng.below(1 << 20),
        _ => 0x3ff0_0000_0000_0000 + rng.below(1 << 20) - (1 << 19),
    };
    let m = if m > 0x7ff0_0000_0000_0000 { m & 0x000f_ffff_ffff_ffff } else { m };
    sign | m
}

/// 10^6 random f64 pairs (and 10^6 f32 pairs) against the binade count on
/// the exact values, the C core with them.
#[test]
fn random_pairs_against_the_binade_count() {
    let mut rng = SplitMix64::new(0x5eed_0175);
    let (mut cross, mut signed_wrong) = (0u64, 0u64);
    for _ in 0..1_000_000 {
        let a = word64(&mut rng);
        // Half the pairs independent, half a few steps apart in one sign.
        let b = if rng.below(2) == 0 {
            word64(&mut rng)
        } else {
            let m = a & 0x7fff_ffff_ffff_ffff;
            let k = rng.below(64);
            let m = if rng.below(2) == 0 { (m + k).min(0x7ff0_0000_0000_0000) } else { m.saturating_sub(k) };
            (a & 0x8000_0000_0000_0000) | m
        };
        let want = counted(f64::from_bits(a), f64::from_bits(b), &F64);
        let got = f64_ulp_distance_bits(a, b);
        assert_eq!(i128::from(got), want, "reference {a:#018x} {b:#018x}");
        assert_eq!(c64(a, b), got, "C core {a:#018x} {b:#018x}");
        if (a ^ b) >> 63 == 1 {
            cross += 1;
            // The signed reading of the words (the f64 helpers of the
            // background material), wrapping where it overflows.
            let signed = (a as i64).wrapping_sub(b as i64).unsigned_abs();
            signed_wrong += u64::from(i128::from(signed) != want);
        }
    }
    assert!(cross > 100_000);
    // It agrees across signs only when one magnitude word is 2^62 (the
    // value ±2), and no such pair is drawn.
    assert_eq!(signed_wrong, cross, "the signed same-sign formula fails across signs");
    assert_eq!(f64_ulp_distance(-1.0, 1.0), 2 * 0x3ff0_0000_0000_0000);
    assert_eq!((-1.0f64).to_bits().wrapping_sub(1.0f64.to_bits()), 0x8000_0000_0000_0000, "naive: half the line");

    let mut rng = SplitMix64::new(0x5eed_0032);
    for _ in 0..1_000_000 {
        let pick = |rng: &mut SplitMix64| {
            let w = aether_generator::rng::word(rng, 32, aether_generator::rng::Mode::Mixed) as u32;
            if w & 0x7fff_ffff > 0x7f80_0000 {
                w & 0x807f_ffff
            } else {
                w
            }
        };
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        let want = counted(f64::from(f32::from_bits(a)), f64::from(f32::from_bits(b)), &F32);
        assert_eq!(i128::from(f32_ulp_distance_bits(a, b)), want, "reference {a:#010x} {b:#010x}");
        assert_eq!(c32(a, b), f32_ulp_distance_bits(a, b), "C core {a:#010x} {b:#010x}");
    }
    println!("ulp: 10^6 f64 and 10^6 f32 random pairs: reference = C core = binade count; {cross} f64 pairs across signs");
}

/// The extremes: the largest distances fit, with no wrap.
#[test]
fn largest_distances() {
    let max64 = f64::MAX.to_bits();
    assert_eq!(i128::from(f64_ulp_distance(-f64::MAX, f64::MAX)), counted(-f64::MAX, f64::MAX, &F64));
    assert_eq!(c64((-f64::MAX).to_bits(), max64), 2 * max64);
    assert_eq!(c64(f64::NEG_INFINITY.to_bits(), f64::INFINITY.to_bits()), 0xffe0_0000_0000_0000);
    assert_eq!(i128::from(f64_ulp_distance(f64::NEG_INFINITY, f64::INFINITY)), counted(f64::NEG_INFINITY, f64::INFINITY, &F64));
    assert_eq!(c32(f32::NEG_INFINITY.to_bits(), f32::INFINITY.to_bits()), 0xff00_0000);
    assert_eq!(f64_ulp_distance(-f64::from_bits(1), f64::from_bits(1)), 2);
    assert_eq!(c64(0, 0x8000_0000_0000_0000), 0);
}
