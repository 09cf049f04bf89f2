//! The compensated sums of the C core, called directly: two-sum checked in
//! exact integer arithmetic, the symmetry of `pair_combine` that the
//! butterfly relies on, the butterfly against its round-by-round description,
//! batching of the array kernels, what compensation buys, and the non-finite
//! rules (a pair follows IEEE through its high part: once hi is not finite
//! the steps carry no test and the companion is meaningless, possibly NaN,
//! but `pair_value` delivers hi itself).

use std::fmt::{Debug, LowerExp};
use std::ops::{Add, Mul, Neg, Sub};

use aether_generator::rng::{specials, SplitMix64};
use aether_reference::compensated::{self as reference, Pair};
use aether_tests::exact::{self, Exact};
use aether_tests::{corpus, sys};

/// A pair as the tests hold it: (hi, comp).
type P<T> = (T, T);

/// The number of lanes and the butterfly's rounds, as the spec's
/// [rules.reduction] states them.
const LANES: usize = 32;
const ROUNDS: [usize; 5] = [16, 8, 4, 2, 1];

/// An element type with its C functions.
trait Float:
    Copy + PartialEq + PartialOrd + Debug + LowerExp + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Neg<Output = Self>
{
    /// `f32` or `f64`, and the pair prefix of the C names (`pairf`, `paird`).
    const NAME: &'static str;
    const PAIR: &'static str;
    const WIDTH: u32;
    /// Fraction bits (23, 52) and the exponent bias (127, 1023).
    const FRAC: u32;
    const BIAS: i32;
    /// The least exponent of the "big" magnitudes used for cancellation
    /// (2^20..2^30 for f32, 2^50..2^60 for f64).
    const BIG: i32;

    fn from_word(w: u64) -> Self;
    fn word(self) -> u64;
    /// Exact widening to f64.
    fn to_f64(self) -> f64;
    /// `x as Self`, for constants that are exactly representable.
    fn from_f64(x: f64) -> Self;
    fn finite(self) -> bool;
    fn nan(self) -> bool;

    fn c_two_sum_err(a: Self, b: Self, s: Self) -> Self;
    fn c_two_sum(a: Self, b: Self) -> P<Self>;
    fn c_neumaier_add(p: P<Self>, x: Self) -> P<Self>;
    fn c_combine(a: P<Self>, b: P<Self>) -> P<Self>;
    fn c_value(p: P<Self>) -> Self;
    fn c_reduce32(lanes: &[P<Self>; LANES]) -> P<Self>;
    fn c_lanes_sum(lanes: &mut [P<Self>; LANES], first: usize, x: &[Self]);
    fn c_lanes_dot(lanes: &mut [P<Self>; LANES], first: usize, a: &[Self], b: &[Self]);
    fn c_sum_array(x: &[Self]) -> Self;
    fn c_dot_array(a: &[Self], b: &[Self]) -> Self;
    fn c_plane_add(value: &mut [Self], comp: &mut [Self], element: usize, term: Self);
    fn c_plane_resolve(value: &[Self], comp: &[Self]) -> Vec<Self>;
    fn ref_reduce32(lanes: &[P<Self>; LANES]) -> P<Self>;

    /// A second, independent check of two-sum's result on a pair with a
    /// finite sum whose leading exponents differ by `gap`; `None` where it
    /// does not apply.
    fn independent_two_sum(a: Self, b: Self, hi: Self, comp: Self, gap: i32) -> Option<bool>;
}

macro_rules! impl_float {
    (
        $t:ident, $pair:ident, $name:literal, $pname:literal, $width:literal, $frac:literal, $bias:literal, $big:literal,
        $two_sum_err:ident, $two_sum:ident, $neumaier:ident, $combine:ident, $value:ident, $reduce:ident,
        $lanes_sum:ident, $lanes_dot:ident, $sum_array:ident, $dot_array:ident, $plane_add:ident, $plane_resolve:ident,
        $independent:ident
    ) => {
        impl Float for $t {
            const NAME: &'static str = $name;
            const PAIR: &'static str = $pname;
            const WIDTH: u32 = $width;
            const FRAC: u32 = $frac;
            const BIAS: i32 = $bias;
            const BIG: i32 = $big;

            fn from_word(w: u64) -> Self {
                $t::from_bits(w as _)
            }
            fn word(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            #[allow(clippy::unnecessary_cast)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn finite(self) -> bool {
                self.is_finite()
            }
            fn nan(self) -> bool {
                self.is_nan()
            }

            fn c_two_sum_err(a: Self, b: Self, s: Self) -> Self {
                // SAFETY: a C function of three floating-point values, no pointers.
                unsafe { sys::$two_sum_err(a, b, s) }
            }
            fn c_two_sum(a: Self, b: Self) -> P<Self> {
                // SAFETY: a C function of two floating-point values returning a pair by value.
                let r = unsafe { sys::$two_sum(a, b) };
                (r.hi, r.comp)
            }
            fn c_neumaier_add(p: P<Self>, x: Self) -> P<Self> {
                // SAFETY: a C function of a pair and a value, both by value.
                let r = unsafe { sys::$neumaier(sys::$pair { hi: p.0, comp: p.1 }, x) };
                (r.hi, r.comp)
            }
            fn c_combine(a: P<Self>, b: P<Self>) -> P<Self> {
                // SAFETY: a C function of two pairs by value.
                let r = unsafe { sys::$combine(sys::$pair { hi: a.0, comp: a.1 }, sys::$pair { hi: b.0, comp: b.1 }) };
                (r.hi, r.comp)
            }
            fn c_value(p: P<Self>) -> Self {
                // SAFETY: a C function of one pair by value.
                unsafe { sys::$value(sys::$pair { hi: p.0, comp: p.1 }) }
            }
            fn c_reduce32(lanes: &[P<Self>; LANES]) -> P<Self> {
                let raw: [sys::$pair; LANES] = std::array::from_fn(|i| sys::$pair { hi: lanes[i].0, comp: lanes[i].1 });
                // SAFETY: `raw` holds the 32 pairs the function reads.
                let r = unsafe { sys::$reduce(raw.as_ptr()) };
                (r.hi, r.comp)
            }
            fn c_lanes_sum(lanes: &mut [P<Self>; LANES], first: usize, x: &[Self]) {
                let mut raw: [sys::$pair; LANES] = std::array::from_fn(|i| sys::$pair { hi: lanes[i].0, comp: lanes[i].1 });
                // SAFETY: `raw` holds the 32 lanes the function updates and `x` the
                // `x.len()` elements it reads.
                unsafe { sys::$lanes_sum(raw.as_mut_ptr(), first, x.as_ptr(), x.len()) };
                for (l, r) in lanes.iter_mut().zip(&raw) {
                    *l = (r.hi, r.comp);
                }
            }
            fn c_lanes_dot(lanes: &mut [P<Self>; LANES], first: usize, a: &[Self], b: &[Self]) {
                assert_eq!(a.len(), b.len());
                let mut raw: [sys::$pair; LANES] = std::array::from_fn(|i| sys::$pair { hi: lanes[i].0, comp: lanes[i].1 });
                // SAFETY: `raw` holds the 32 lanes the function updates; `a` and `b`
                // both hold the `a.len()` elements it reads.
                unsafe { sys::$lanes_dot(raw.as_mut_ptr(), first, a.as_ptr(), b.as_ptr(), a.len()) };
                for (l, r) in lanes.iter_mut().zip(&raw) {
                    *l = (r.hi, r.comp);
                }
            }
            fn c_sum_array(x: &[Self]) -> Self {
                // SAFETY: `x` holds the `x.len()` elements the function reads.
                unsafe { sys::$sum_array(x.as_ptr(), x.len()) }
            }
            fn c_dot_array(a: &[Self], b: &[Self]) -> Self {
                assert_eq!(a.len(), b.len());
                // SAFETY: `a` and `b` both hold the `a.len()` elements the function reads.
                unsafe { sys::$dot_array(a.as_ptr(), b.as_ptr(), a.len()) }
            }
            fn c_plane_add(value: &mut [Self], comp: &mut [Self], element: usize, term: Self) {
                assert!(element < value.len() && value.len() == comp.len());
                // SAFETY: a scalar plane has one slot per element; `element` is a slot
                // of both `value` and `comp`, the only ones the function touches.
                unsafe { sys::$plane_add(value.as_mut_ptr(), comp.as_mut_ptr(), element, term) };
            }
            fn c_plane_resolve(value: &[Self], comp: &[Self]) -> Vec<Self> {
                assert_eq!(value.len(), comp.len());
                let mut out = vec![Self::from_f64(0.0); value.len()];
                // SAFETY: `out`, `value` and `comp` all hold the `value.len()` slots
                // the function reads or writes.
                unsafe { sys::$plane_resolve(out.as_mut_ptr(), value.as_ptr(), comp.as_ptr(), value.len()) };
                out
            }
            fn ref_reduce32(lanes: &[P<Self>; LANES]) -> P<Self> {
                let r = reference::reduce32(std::array::from_fn(|i| Pair::new(lanes[i].0, lanes[i].1)));
                (r.hi, r.comp)
            }
            fn independent_two_sum(a: Self, b: Self, hi: Self, comp: Self, gap: i32) -> Option<bool> {
                $independent(a, b, hi, comp, gap)
            }
        }
    };
}

/// For f32: when the leading exponents differ by less than 29, a + b spans at
/// most 53 bits, so both sides below are exact in f64 and must be equal.
fn f32_independent(a: f32, b: f32, hi: f32, comp: f32, gap: i32) -> Option<bool> {
    (gap < 29).then(|| f64::from(a) + f64::from(b) == f64::from(hi) + f64::from(comp))
}

/// For f64: Dekker's Fast2Sum (operands ordered by magnitude) gives the same
/// high part and the same residual, up to the sign of a zero residual.
fn f64_independent(a: f64, b: f64, hi: f64, comp: f64, _gap: i32) -> Option<bool> {
    let (s, e) = exact::fast_two_sum_f64(a, b);
    Some(s.to_bits() == hi.to_bits() && (e.to_bits() == comp.to_bits() || (e == 0.0 && comp == 0.0)))
}

impl_float!(
    f32,
    aether_pairf,
    "f32",
    "pairf",
    32,
    23,
    127,
    20,
    aether_f32_two_sum_err,
    aether_f32_two_sum,
    aether_pairf_neumaier_add,
    aether_pairf_combine,
    aether_pairf_value,
    aether_pairf_reduce32,
    aether_f32_lanes_sum,
    aether_f32_lanes_dot,
    aether_f32_sum_array,
    aether_f32_dot_array,
    aether_f32_plane_add,
    aether_f32_plane_resolve,
    f32_independent
);
impl_float!(
    f64,
    aether_paird,
    "f64",
    "paird",
    64,
    52,
    1023,
    50,
    aether_f64_two_sum_err,
    aether_f64_two_sum,
    aether_paird_neumaier_add,
    aether_paird_combine,
    aether_paird_value,
    aether_paird_reduce32,
    aether_f64_lanes_sum,
    aether_f64_lanes_dot,
    aether_f64_sum_array,
    aether_f64_dot_array,
    aether_f64_plane_add,
    aether_f64_plane_resolve,
    f64_independent
);

// ------------------------------------------------------------------ helpers

/// Failures of one test: a count and the first few messages.
#[derive(Default)]
struct Failures {
    count: usize,
    first: Vec<String>,
}

impl Failures {
    /// Records a failure unless `ok`; returns `ok`.
    fn check(&mut self, ok: bool, message: impl FnOnce() -> String) -> bool {
        if !ok {
            self.count += 1;
            if self.first.len() < 12 {
                self.first.push(message());
            }
        }
        ok
    }

    /// Adds another test's failures (for one report over both types).
    fn merge(&mut self, other: Failures) {
        self.count += other.count;
        let room = 12usize.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
    }

    fn assert_none(&self, what: &str) {
        assert!(self.count == 0, "{what}: {} failures, the first:\n{}", self.count, self.first.join("\n"));
    }
}

/// The least normal exponent (-126, -1022).
fn emin<T: Float>() -> i32 {
    1 - T::BIAS
}

/// The exponent of the least subnormal (-149, -1074).
fn emin_sub<T: Float>() -> i32 {
    emin::<T>() - T::FRAC as i32
}

/// The largest finite exponent (127, 1023).
fn emax<T: Float>() -> i32 {
    T::BIAS
}

fn sign_bit<T: Float>() -> u64 {
    1 << (T::WIDTH - 1)
}

fn frac_mask<T: Float>() -> u64 {
    (1 << T::FRAC) - 1
}

/// All bits of the width.
fn word_mask<T: Float>() -> u64 {
    if T::WIDTH == 64 {
        u64::MAX
    } else {
        (1 << T::WIDTH) - 1
    }
}

/// Uniform in `lo..=hi`.
fn between(rng: &mut SplitMix64, lo: i32, hi: i32) -> i32 {
    assert!(lo <= hi);
    lo + rng.below((hi - lo + 1) as u64) as i32
}

fn coin(rng: &mut SplitMix64) -> bool {
    rng.next_u64() & 1 == 1
}

/// A value whose leading bit is 2^e (`emin_sub <= e <= emax`), with random
/// lower bits: normal or subnormal as `e` says.
fn with_exp<T: Float>(rng: &mut SplitMix64, negative: bool, e: i32) -> T {
    assert!((emin_sub::<T>()..=emax::<T>()).contains(&e), "exponent {e} out of range");
    let r = rng.next_u64();
    let magnitude = if e >= emin::<T>() {
        (((e + T::BIAS) as u64) << T::FRAC) | (r & frac_mask::<T>())
    } else {
        let pos = (e - emin_sub::<T>()) as u32;
        (1u64 << pos) | (r & ((1u64 << pos) - 1))
    };
    T::from_word(magnitude | if negative { sign_bit::<T>() } else { 0 })
}

/// A random sign and the same exponent with random lower bits.
fn random_with_exp<T: Float>(rng: &mut SplitMix64, e: i32) -> T {
    let negative = coin(rng);
    with_exp(rng, negative, e)
}

/// The exponent of the leading bit of a finite nonzero value (subnormals
/// included); `None` for zeros.
fn lead_exp<T: Float>(x: T) -> Option<i32> {
    let w = x.word();
    let field = (w & !sign_bit::<T>()) >> T::FRAC;
    let frac = w & frac_mask::<T>();
    if field != 0 {
        Some(field as i32 - T::BIAS)
    } else if frac != 0 {
        Some((63 - frac.leading_zeros()) as i32 + emin_sub::<T>())
    } else {
        None
    }
}

/// A finite value with the exponent field drawn uniformly over the finite
/// ones (field 0: subnormals), random sign and fraction; one in 128 is a zero.
fn uniform_finite<T: Float>(rng: &mut SplitMix64) -> T {
    let sign = if coin(rng) { sign_bit::<T>() } else { 0 };
    if rng.below(128) == 0 {
        return T::from_word(sign);
    }
    let all_ones = word_mask::<T>() >> (T::FRAC + 1);
    let field = rng.below(all_ones); // 0 ..= all_ones - 1: every finite field
    T::from_word(sign | (field << T::FRAC) | (rng.next_u64() & frac_mask::<T>()))
}

/// The next value toward +inf of a finite value (below the largest).
fn next_up<T: Float>(x: T) -> T {
    let w = x.word();
    if w & !sign_bit::<T>() == 0 {
        T::from_word(1)
    } else if w & sign_bit::<T>() == 0 {
        T::from_word(w + 1)
    } else {
        T::from_word(w - 1)
    }
}

/// The next value toward -inf of a finite value (above the most negative).
fn next_down<T: Float>(x: T) -> T {
    -next_up(-x)
}

fn bits_eq<T: Float>(a: P<T>, b: P<T>) -> bool {
    a.0.word() == b.0.word() && a.1.word() == b.1.word()
}

fn show<T: Float>(p: P<T>) -> String {
    format!("({:e} [{:x}], {:e} [{:x}])", p.0, p.0.word(), p.1, p.1.word())
}

/// A term for a cancellation-prone sum: a big value (recorded), the exact
/// negation of an earlier big value, or a small one.
fn cancelling_term<T: Float>(rng: &mut SplitMix64, bigs: &mut Vec<T>) -> T {
    match rng.below(3) {
        0 => {
            let e = between(rng, T::BIG, T::BIG + 10);
            let x = random_with_exp(rng, e);
            bigs.push(x);
            x
        }
        1 if !bigs.is_empty() => {
            let i = rng.below(bigs.len() as u64) as usize;
            -bigs.swap_remove(i)
        }
        _ => {
            let e = between(rng, -10, 10);
            random_with_exp(rng, e)
        }
    }
}

// ------------------------------------------------------ 1. two-sum is exact

const TWO_SUM_PAIRS: usize = 1_000_000;

/// The largest finite value of the type.
fn max_finite<T: Float>() -> T {
    T::from_word((((word_mask::<T>() >> (T::FRAC + 1)) - 1) << T::FRAC) | frac_mask::<T>())
}

/// The kinds of pair drawn for two-sum, by `i % 16`.
const KINDS: [&str; 4] = ["uniform", "far (> 2^60 apart)", "close (exponents within 30)", "edge (one operand within 3 ulps of MAX)"];

fn kind_of(i: usize) -> usize {
    match i % 16 {
        0..=6 => 0,
        7..=10 => 1,
        11..=14 => 2,
        _ => 3,
    }
}

fn two_sum_pairs<T: Float>() -> Failures {
    let (lo, hi_exp) = (emin_sub::<T>(), emax::<T>());
    // Gaps of the "far" quarter: 61..=120 for f32 (the range is 276 wide), 61..=1000 for f64.
    let max_gap = if T::WIDTH == 32 { 120 } else { 1000 };
    let max = max_finite::<T>();
    let mut rng = SplitMix64::for_name(&format!("compensated two_sum {}", T::NAME), 0);
    let mut f = Failures::default();
    let (mut checked, mut nonzero, mut far, mut overflow, mut independent) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let (mut drawn, mut bad_pairs) = ([0usize; 4], [0usize; 4]);
    for i in 0..TWO_SUM_PAIRS {
        let kind = kind_of(i);
        drawn[kind] += 1;
        let (a, b): (T, T) = match kind {
            // Magnitudes more than 2^60 apart: leading exponents g >= 61 apart.
            1 => {
                let g = between(&mut rng, 61, max_gap);
                let ea = between(&mut rng, lo + g, hi_exp);
                (random_with_exp(&mut rng, ea), random_with_exp(&mut rng, ea - g))
            }
            // Close exponents, within +-30: the residual is usually nonzero.
            2 => {
                let ea = between(&mut rng, lo, hi_exp);
                let eb = (ea + between(&mut rng, -30, 30)).clamp(lo, hi_exp);
                (random_with_exp(&mut rng, ea), random_with_exp(&mut rng, eb))
            }
            // Next to the overflow threshold: +-MAX or up to 3 ulps below it,
            // with a value of the other sign (three times in four) from the
            // top 40 binades, so that a + b is finite and often a tie.
            3 => {
                let big = T::from_word(max.word() - rng.below(4));
                let big = if coin(&mut rng) { -big } else { big };
                let e = between(&mut rng, hi_exp - 40, hi_exp);
                let other: T = random_with_exp(&mut rng, e);
                let opposite = rng.below(4) != 0;
                let other = if (other < T::from_f64(0.0)) == (big < T::from_f64(0.0)) && opposite { -other } else { other };
                (big, other)
            }
            _ => (uniform_finite(&mut rng), uniform_finite(&mut rng)),
        };
        let (a, b) = if coin(&mut rng) { (b, a) } else { (a, b) };
        let s = a + b;
        let (hi, comp) = T::c_two_sum(a, b);
        if !s.finite() {
            // Overflow: hi is the IEEE infinity and the pair delivers it; the
            // companion is meaningless (inf - inf inside the residual).
            overflow += 1;
            let value = T::c_value((hi, comp));
            let ok = f.check(hi.word() == s.word() && value.word() == s.word(), || {
                format!(
                    "{} two_sum({a:e}, {b:e}) overflows: want hi {s:e} delivered as {s:e}, got {} delivered as {value:e}",
                    T::NAME,
                    show((hi, comp))
                )
            });
            bad_pairs[kind] += usize::from(!ok);
            continue;
        }
        checked += 1;
        let gap = match (lead_exp(a), lead_exp(b)) {
            (Some(x), Some(y)) => (x - y).abs(),
            _ => 0,
        };
        if gap > 60 {
            far += 1;
        }
        if comp != T::from_f64(0.0) {
            nonzero += 1;
        }
        let mut ok = f.check(hi.word() == s.word(), || format!("{} two_sum({a:e}, {b:e}): hi {:e}, Rust's a + b is {s:e}", T::NAME, hi));
        ok &= f.check(exact::two_sum_is_exact_f64(a.to_f64(), b.to_f64(), hi.to_f64(), comp.to_f64()), || {
            format!("{} two_sum({a:e}, {b:e}) = {} is not exact", T::NAME, show((hi, comp)))
        });
        let err = T::c_two_sum_err(a, b, s);
        ok &= f.check(err.word() == comp.word(), || {
            format!(
                "{} two_sum_err({a:e}, {b:e}, {s:e}) = {err:e} [{:x}] but two_sum's comp is {comp:e} [{:x}]",
                T::NAME,
                err.word(),
                comp.word()
            )
        });
        if let Some(agrees) = T::independent_two_sum(a, b, hi, comp, gap) {
            independent += 1;
            ok &= f.check(agrees, || format!("{} two_sum({a:e}, {b:e}) = {}: the independent check disagrees", T::NAME, show((hi, comp))));
        }
        bad_pairs[kind] += usize::from(!ok);
    }
    let how = if T::WIDTH == 32 { "sums equal in f64 (gap < 29)" } else { "agreeing with Fast2Sum" };
    let kinds: Vec<String> = KINDS.iter().enumerate().map(|(k, name)| format!("{} {name} ({} failing)", drawn[k], bad_pairs[k])).collect();
    println!(
        "two_sum {}: {TWO_SUM_PAIRS} pairs [{}], {checked} with a finite sum checked exactly, {nonzero} with a nonzero residual, \
         {far} with magnitudes more than 2^60 apart, {independent} {how}, {overflow} overflows with hi and the delivered value inf, \
         {} failed checks",
        T::NAME,
        kinds.join(", "),
        f.count
    );
    f.check(nonzero * 5 > TWO_SUM_PAIRS, || format!("{} two_sum: only {nonzero} nonzero residuals", T::NAME));
    f.check(far * 4 >= TWO_SUM_PAIRS, || format!("{} two_sum: only {far} pairs more than 2^60 apart", T::NAME));
    f.check(independent * 4 >= TWO_SUM_PAIRS, || format!("{} two_sum: only {independent} independent checks", T::NAME));
    f
}

#[test]
fn two_sum_is_exact_on_a_million_pairs() {
    let mut f = two_sum_pairs::<f32>();
    f.merge(two_sum_pairs::<f64>());
    f.assert_none("two_sum");
}

// -------------------------------------------------- 2. combine is symmetric

const COMBINE_PAIRS: usize = 1_000_000;

/// A pair two_sum makes of two random values; `e` is the exponent of the first.
fn realistic_pair<T: Float>(rng: &mut SplitMix64, e: i32) -> P<T> {
    let (lo, hi) = (emin_sub::<T>(), emax::<T>());
    let x = random_with_exp(rng, e.clamp(lo, hi));
    let f = (e + between(rng, -30, 30)).clamp(lo, hi);
    let y = random_with_exp(rng, f);
    T::c_two_sum(x, y)
}

/// A pair of raw words: random bit patterns, a quarter of them specials
/// (zeros, infinities, NaNs, subnormals, the largest finite value).
fn raw_pair<T: Float>(rng: &mut SplitMix64, specials: &[(&str, u64)]) -> P<T> {
    let mut word = || {
        if rng.below(4) == 0 {
            specials[rng.below(specials.len() as u64) as usize].1
        } else {
            rng.next_u64() & word_mask::<T>()
        }
    };
    (T::from_word(word()), T::from_word(word()))
}

fn combine_symmetry<T: Float>() -> Failures {
    let specials = specials(T::WIDTH);
    let mut rng = SplitMix64::for_name(&format!("compensated combine {}", T::NAME), 0);
    let mut f = Failures::default();
    let (mut nan_hi, mut inf_hi, mut nonzero_comp, mut payloads) = (0usize, 0usize, 0usize, 0usize);
    let mut asymmetric = [0usize; 2]; // realistic, raw
                                      // Bits equal, or both NaN: the spec's comparison policy (nan = "any-nan").
    let same = |x: T, y: T| x.word() == y.word() || (x.nan() && y.nan());
    for i in 0..COMBINE_PAIRS {
        let (a, b) = if i % 2 == 0 {
            let e = between(&mut rng, emin_sub::<T>(), emax::<T>());
            let d = between(&mut rng, -30, 30);
            (realistic_pair(&mut rng, e), realistic_pair(&mut rng, e + d))
        } else {
            (raw_pair(&mut rng, &specials), raw_pair(&mut rng, &specials))
        };
        let ab = T::c_combine(a, b);
        let ba = T::c_combine(b, a);
        let symmetric = f.check(same(ab.0, ba.0) && same(ab.1, ba.1), || {
            format!("{} combine({}, {}) = {} but the other order gives {}", T::NAME, show(a), show(b), show(ab), show(ba))
        });
        if !symmetric {
            asymmetric[i % 2] += 1;
        } else if !bits_eq(ab, ba) {
            payloads += 1;
        }
        if ab.0.nan() {
            nan_hi += 1;
        } else if !ab.0.finite() {
            inf_hi += 1;
        } else if ab.1 != T::from_f64(0.0) {
            nonzero_comp += 1;
        }
        // A pair whose hi is not finite is delivered as hi itself, whatever
        // its (meaningless) companion.
        if !ab.0.finite() {
            let value = T::c_value(ab);
            f.check(value.word() == ab.0.word(), || {
                format!("{} combine({}, {}) = {} is delivered as {value:e}, not as its hi", T::NAME, show(a), show(b), show(ab))
            });
        }
    }
    println!(
        "combine {}: {COMBINE_PAIRS} pairs of pairs combined both ways ({nan_hi} with a NaN hi, {inf_hi} with an infinite hi, \
         {nonzero_comp} with a finite hi and a nonzero comp; {payloads} differed only in NaN payloads), \
         asymmetric: {} realistic and {} raw, {} failed checks",
        T::NAME,
        asymmetric[0],
        asymmetric[1],
        f.count
    );
    f.check(nonzero_comp * 4 > COMBINE_PAIRS, || format!("{} combine: only {nonzero_comp} nonzero companions", T::NAME));
    f
}

#[test]
fn pair_combine_is_symmetric_bit_for_bit() {
    let mut f = combine_symmetry::<f32>();
    f.merge(combine_symmetry::<f64>());
    f.assert_none("combine");
}

// ----------------------------------- 3. the butterfly, round by round, per lane

const BUTTERFLY_SEEDS: u64 = 24;

fn butterfly<T: Float>() -> Failures {
    let zero = (T::from_f64(0.0), T::from_f64(0.0));
    let mut f = Failures::default();
    let (mut cases, mut nonzero_comp) = (0usize, 0usize);
    for len in 1..=LANES {
        for seed in 0..BUTTERFLY_SEEDS {
            let mut rng = SplitMix64::for_name(&format!("compensated butterfly {} {len}", T::NAME), seed);
            let mut lanes = [zero; LANES];
            let mut bigs = Vec::new();
            for lane in lanes.iter_mut().take(len) {
                for _ in 0..=rng.below(12) {
                    let x = cancelling_term(&mut rng, &mut bigs);
                    *lane = T::c_neumaier_add(*lane, x);
                }
            }
            // The spec's description: every lane of every round combines the
            // previous round's values, its own pair the left operand.
            let mut v = lanes;
            for k in ROUNDS {
                v = std::array::from_fn(|i| T::c_combine(v[i], v[i ^ k]));
            }
            let tree = T::c_reduce32(&lanes);
            for (i, p) in v.iter().enumerate() {
                f.check(bits_eq(*p, tree), || {
                    format!("{} length {len} seed {seed}: lane {i} ends {} but reduce32 gives {}", T::NAME, show(*p), show(tree))
                });
            }
            let r = T::ref_reduce32(&lanes);
            f.check(bits_eq(r, tree), || {
                format!("{} length {len} seed {seed}: the reference reduce32 gives {} but C {}", T::NAME, show(r), show(tree))
            });
            cases += 1;
            if tree.1 != T::from_f64(0.0) {
                nonzero_comp += 1;
            }
        }
    }
    println!(
        "butterfly {}: {cases} (length, seed) cases, all 32 lanes compared with reduce32 and the reference, \
         {nonzero_comp} results with a nonzero comp, {} failures",
        T::NAME,
        f.count
    );
    f.check(nonzero_comp * 2 > cases, || format!("{} butterfly: only {nonzero_comp} nonzero companions", T::NAME));
    f
}

#[test]
fn the_butterfly_equals_its_round_by_round_description_for_every_ragged_length() {
    // The test's copy of the description must be the spec's, not a second
    // statement of it that could drift.
    let model = aether_tests::model();
    let red = model.spec.reduction.as_ref().expect("the spec states [rules.reduction]");
    assert_eq!((red.lanes, red.rounds.as_slice()), (LANES, &ROUNDS[..]), "LANES/ROUNDS differ from spec [rules.reduction]");
    let mut f = butterfly::<f32>();
    f.merge(butterfly::<f64>());
    f.assert_none("butterfly");
}

// -------------------------------------------------------------- 4. batching

const BATCH_ARRAYS: usize = 1500;
const SPLITS: usize = 4;

/// Sorted random cut points splitting `0..n` into 1..=8 consecutive chunks
/// (empty chunks allowed), as (start, end) ranges.
fn chunks(rng: &mut SplitMix64, n: usize) -> Vec<(usize, usize)> {
    let mut cuts: Vec<usize> = (0..rng.below(8)).map(|_| rng.below(n as u64 + 1) as usize).collect();
    cuts.push(0);
    cuts.push(n);
    cuts.sort_unstable();
    cuts.windows(2).map(|w| (w[0], w[1])).collect()
}

fn batching<T: Float>() -> Failures {
    let zero = (T::from_f64(0.0), T::from_f64(0.0));
    let mut rng = SplitMix64::for_name(&format!("compensated batching {}", T::NAME), 0);
    let mut f = Failures::default();
    let (mut sums, mut dots, mut n_chunks, mut empty_chunks, mut elements) = (0usize, 0usize, 0usize, 0usize, 0usize);
    for array in 0..BATCH_ARRAYS {
        let n = rng.below(601) as usize;
        elements += n;
        // Sum: big values that later cancel, and small ones.
        let mut bigs = Vec::new();
        let x: Vec<T> = (0..n).map(|_| cancelling_term(&mut rng, &mut bigs)).collect();
        // Dot: big products (a big times a small power of two, exact) cancelled
        // later by the same a with -b, and small random products.
        let mut big_terms: Vec<(T, T)> = Vec::new();
        let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let (p, q) = match rng.below(3) {
                0 => {
                    let e = between(&mut rng, T::BIG, T::BIG + 10);
                    let p = random_with_exp(&mut rng, e);
                    let q =
                        T::from_f64(f64::from(1u32 << rng.below(4))) * if coin(&mut rng) { T::from_f64(-1.0) } else { T::from_f64(1.0) };
                    big_terms.push((p, q));
                    (p, q)
                }
                1 if !big_terms.is_empty() => {
                    let (p, q) = big_terms.swap_remove(rng.below(big_terms.len() as u64) as usize);
                    (p, -q)
                }
                _ => {
                    let (e1, e2) = (between(&mut rng, -10, 10), between(&mut rng, -10, 10));
                    (random_with_exp(&mut rng, e1), random_with_exp(&mut rng, e2))
                }
            };
            a.push(p);
            b.push(q);
        }
        let whole_sum = T::c_sum_array(&x);
        let whole_dot = T::c_dot_array(&a, &b);
        for split in 0..SPLITS {
            let parts = chunks(&mut rng, n);
            n_chunks += parts.len();
            empty_chunks += parts.iter().filter(|(s, e)| s == e).count();
            let mut lanes = [zero; LANES];
            for &(s, e) in &parts {
                T::c_lanes_sum(&mut lanes, s, &x[s..e]);
            }
            let got = T::c_value(T::c_reduce32(&lanes));
            f.check(got.word() == whole_sum.word(), || {
                format!("{} array {array} (n {n}) split {split} {parts:?}: chunked sum {got:e}, sum_array {whole_sum:e}", T::NAME)
            });
            sums += 1;
            let parts = chunks(&mut rng, n);
            n_chunks += parts.len();
            empty_chunks += parts.iter().filter(|(s, e)| s == e).count();
            let mut lanes = [zero; LANES];
            for &(s, e) in &parts {
                T::c_lanes_dot(&mut lanes, s, &a[s..e], &b[s..e]);
            }
            let got = T::c_value(T::c_reduce32(&lanes));
            f.check(got.word() == whole_dot.word(), || {
                format!("{} array {array} (n {n}) split {split} {parts:?}: chunked dot {got:e}, dot_array {whole_dot:e}", T::NAME)
            });
            dots += 1;
        }
    }
    println!(
        "batching {}: {BATCH_ARRAYS} arrays ({elements} elements), {sums} chunked sums and {dots} chunked dots \
         ({n_chunks} chunks, {empty_chunks} of them empty) compared with sum_array / dot_array, {} failures",
        T::NAME,
        f.count
    );
    f
}

#[test]
fn array_sums_do_not_depend_on_batching() {
    let mut f = batching::<f32>();
    f.merge(batching::<f64>());
    f.assert_none("batching");
}

// ---------------------------------------------- 5. what compensation keeps

/// Whether `r` is the exact sum of `x` correctly rounded: 2 * exact lies
/// between r + prev(r) and r + next(r), all in exact arithmetic.
fn correctly_rounded<T: Float>(x: &[T], r: T) -> bool {
    if !r.finite() {
        return false;
    }
    let mut sum = Exact::zero();
    for &v in x {
        sum.add_f64(v.to_f64());
    }
    let twice = &sum + &sum;
    let r_exact = Exact::from_f64(r.to_f64());
    let low = &r_exact + &Exact::from_f64(next_down(r).to_f64());
    let high = &r_exact + &Exact::from_f64(next_up(r).to_f64());
    low <= twice && twice <= high
}

const HEAVY_ARRAYS: u64 = 20;

fn heavy_cancellation<T: Float>() -> usize {
    let mut f = Failures::default();
    let mut total = 0;
    for seed in 0..HEAVY_ARRAYS {
        let mut rng = SplitMix64::for_name(&format!("compensated heavy {}", T::NAME), seed);
        // 500 big integers in [2^BIG, 2^(BIG + 6)) and their negations, and
        // 1000 small values k / 1024 with |k| <= 1000: the exact sum is the
        // sum of the small ones, a multiple of 2^-10 below 2^10 in magnitude
        // (at most 20 significant bits), so it is representable; every
        // companion stays a modest multiple of 2^-10, so the compensated sum
        // is exact, while the plain running sum wanders far above the small
        // values and drops them.
        let mut x: Vec<T> = Vec::new();
        for _ in 0..500 {
            let e = between(&mut rng, T::BIG, T::BIG + 5);
            let big = (1u64 << e) + (rng.next_u64() & ((1u64 << e) - 1));
            let big = T::from_f64(big as f64) * if coin(&mut rng) { T::from_f64(-1.0) } else { T::from_f64(1.0) };
            x.push(big);
            x.push(-big);
        }
        for _ in 0..1000 {
            let k = between(&mut rng, -1000, 1000);
            x.push(T::from_f64(f64::from(k) / 1024.0));
        }
        // Shuffle (Fisher-Yates) so the big values and their negations land in
        // different lanes and far apart.
        for i in (1..x.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            x.swap(i, j);
        }
        total += x.len();
        let r = T::c_sum_array(&x);
        let plain = x.iter().fold(T::from_f64(0.0), |acc, &v| acc + v);
        if seed == 0 {
            println!("heavy {} array 0 ({} elements): sum_array {r:e}, plain left-to-right sum {plain:e}", T::NAME, x.len());
        }
        f.check(correctly_rounded(&x, r), || format!("{} heavy array {seed}: sum_array {r:e} is not the correctly rounded sum", T::NAME));
        f.check(!correctly_rounded(&x, plain), || {
            format!("{} heavy array {seed}: the plain sum {plain:e} is already correctly rounded; the array shows nothing", T::NAME)
        });
    }
    f.assert_none(&format!("heavy cancellation {}", T::NAME));
    total
}

#[test]
fn compensation_keeps_what_a_plain_sum_drops() {
    use std::hint::black_box;
    let x32 = [1e8f32, 0.5, -1e8];
    let plain32 = (black_box(x32[0]) + black_box(x32[1])) + black_box(x32[2]);
    let c32 = f32::c_sum_array(&x32);
    let two53 = 9_007_199_254_740_992.0f64;
    let x64 = [two53, 1.0, -two53];
    let plain64 = (black_box(x64[0]) + black_box(x64[1])) + black_box(x64[2]);
    let c64 = f64::c_sum_array(&x64);
    println!("f32 sum_array([1e8, 0.5, -1e8]) = {c32:e}, plain {plain32:e}; f64 sum_array([2^53, 1, -2^53]) = {c64:e}, plain {plain64:e}");
    assert_eq!(c32.to_bits(), 0.5f32.to_bits());
    assert_eq!(plain32.to_bits(), 0.0f32.to_bits());
    assert_eq!(c64.to_bits(), 1.0f64.to_bits());
    assert_eq!(plain64.to_bits(), 0.0f64.to_bits());
    let n32 = heavy_cancellation::<f32>();
    let n64 = heavy_cancellation::<f64>();
    println!(
        "heavy cancellation: {HEAVY_ARRAYS} arrays per type ({n32} f32 and {n64} f64 elements): sum_array correctly rounded, \
         the plain left-to-right sum not"
    );
}

// ---------------------------------------------------- 6. non-finite values

/// What a non-finite result must be.
#[derive(Clone, Copy, Debug)]
enum Want {
    PosInf,
    NegInf,
    Nan,
}

fn is<T: Float>(x: T, want: Want) -> bool {
    match want {
        Want::PosInf => x.word() == T::from_f64(f64::INFINITY).word(),
        Want::NegInf => x.word() == T::from_f64(f64::NEG_INFINITY).word(),
        Want::Nan => x.nan(),
    }
}

/// Checks scalar results, and pairs: hi and the value the pair delivers
/// (`pair_value`) must both be the IEEE result; the companion is meaningless
/// once hi is not finite, so it is not checked.
struct NonFinite<'a> {
    f: &'a mut Failures,
    checks: usize,
}

impl NonFinite<'_> {
    fn scalar<T: Float>(&mut self, what: &str, got: T, want: Want) {
        self.checks += 1;
        self.f.check(is(got, want), || format!("{} {what}: want {want:?}, got {got:e} [{:x}]", T::NAME, got.word()));
    }

    fn pair<T: Float>(&mut self, what: &str, got: P<T>, want: Want) {
        self.checks += 1;
        let value = T::c_value(got);
        self.f.check(is(got.0, want) && is(value, want), || {
            format!("{} {what}: want hi {want:?} delivered as {want:?}, got {} delivered as {value:e}", T::NAME, show(got))
        });
    }
}

fn non_finite<T: Float>(c: &mut NonFinite<'_>) {
    let v = T::from_f64;
    let (zero, one, two, quarter) = (v(0.0), v(1.0), v(2.0), v(0.25));
    let (inf, nan) = (v(f64::INFINITY), v(f64::NAN));
    let max = T::from_word((((word_mask::<T>() >> (T::FRAC + 1)) - 1) << T::FRAC) | frac_mask::<T>());
    assert!(max.finite() && !(max + max).finite(), "{} max", T::NAME);
    use Want::{Nan, NegInf, PosInf};

    c.pair("two_sum(+inf, 1)", T::c_two_sum(inf, one), PosInf);
    c.pair("two_sum(1, +inf)", T::c_two_sum(one, inf), PosInf);
    c.pair("two_sum(-inf, 1)", T::c_two_sum(-inf, one), NegInf);
    c.pair("two_sum(+inf, -inf)", T::c_two_sum(inf, -inf), Nan);
    c.pair("two_sum(NaN, 1)", T::c_two_sum(nan, one), Nan);
    c.pair("two_sum(1, NaN)", T::c_two_sum(one, nan), Nan);
    c.pair("two_sum(MAX, MAX)", T::c_two_sum(max, max), PosInf);
    c.pair("two_sum(-MAX, -MAX)", T::c_two_sum(-max, -max), NegInf);

    c.pair("neumaier_add((1, 0.25), +inf)", T::c_neumaier_add((one, quarter), inf), PosInf);
    c.pair("neumaier_add((+inf, 0), 1)", T::c_neumaier_add((inf, zero), one), PosInf);
    c.pair("neumaier_add((1, NaN), +inf)", T::c_neumaier_add((one, nan), inf), PosInf);
    c.pair("neumaier_add((+inf, 0), -inf)", T::c_neumaier_add((inf, zero), -inf), Nan);
    c.pair("neumaier_add((NaN, 0), 1)", T::c_neumaier_add((nan, zero), one), Nan);
    c.pair("neumaier_add((1, 0), NaN)", T::c_neumaier_add((one, zero), nan), Nan);
    c.pair("neumaier_add((MAX, 0), MAX)", T::c_neumaier_add((max, zero), max), PosInf);
    c.pair("neumaier_add((MAX, MAX), MAX)", T::c_neumaier_add((max, max), max), PosInf);

    c.pair("combine((+inf, 0), (1, 0.5))", T::c_combine((inf, zero), (one, v(0.5))), PosInf);
    c.pair("combine((1, 0.5), (+inf, 0))", T::c_combine((one, v(0.5)), (inf, zero)), PosInf);
    c.pair("combine((+inf, 0), (-inf, 0))", T::c_combine((inf, zero), (-inf, zero)), Nan);
    c.pair("combine((NaN, 0), (1, 0))", T::c_combine((nan, zero), (one, zero)), Nan);
    c.pair("combine((1, 0), (NaN, 0))", T::c_combine((one, zero), (nan, zero)), Nan);
    c.pair("combine((MAX, 0), (MAX, 0))", T::c_combine((max, zero), (max, zero)), PosInf);
    c.pair("combine((MAX, MAX), (MAX, 0))", T::c_combine((max, max), (max, zero)), PosInf);

    c.scalar("value((+inf, NaN))", T::c_value((inf, nan)), PosInf);
    c.scalar("value((+inf, 0))", T::c_value((inf, zero)), PosInf);
    c.scalar("value((-inf, 1))", T::c_value((-inf, one)), NegInf);
    c.scalar("value((NaN, 0))", T::c_value((nan, zero)), Nan);
    c.scalar("value((MAX, MAX))", T::c_value((max, max)), PosInf);
    c.scalar("value((+inf, -inf))", T::c_value((inf, -inf)), PosInf);

    c.scalar("sum_array([1, +inf, 2])", T::c_sum_array(&[one, inf, two]), PosInf);
    c.scalar("sum_array([+inf, 1, -inf])", T::c_sum_array(&[inf, one, -inf]), Nan);
    c.scalar("sum_array([1, NaN, 2])", T::c_sum_array(&[one, nan, two]), Nan);
    c.scalar("sum_array([MAX, MAX])", T::c_sum_array(&[max, max]), PosInf);
    c.scalar("sum_array([-MAX, -MAX])", T::c_sum_array(&[-max, -max]), NegInf);
    let mut same_lane = vec![zero; 33];
    same_lane[0] = max;
    same_lane[32] = max;
    c.scalar("sum_array(MAX in lane 0 twice)", T::c_sum_array(&same_lane), PosInf);
    same_lane.resize(64, zero);
    same_lane.push(-max);
    c.scalar("sum_array(MAX, MAX, then -MAX in lane 0)", T::c_sum_array(&same_lane), PosInf);

    c.scalar("dot_array([+inf, 1], [1, 1])", T::c_dot_array(&[inf, one], &[one, one]), PosInf);
    c.scalar("dot_array([+inf, -inf], [1, 1])", T::c_dot_array(&[inf, -inf], &[one, one]), Nan);
    c.scalar("dot_array([NaN, 1], [1, 1])", T::c_dot_array(&[nan, one], &[one, one]), Nan);
    c.scalar("dot_array([MAX, MAX], [1, 1])", T::c_dot_array(&[max, max], &[one, one]), PosInf);
    c.scalar("dot_array([MAX], [2])", T::c_dot_array(&[max], &[two]), PosInf);
    c.scalar("dot_array([+inf], [0])", T::c_dot_array(&[inf], &[zero]), Nan);

    let (mut value, mut comp) = (vec![zero; 3], vec![zero; 3]);
    T::c_plane_add(&mut value, &mut comp, 1, inf);
    c.pair("plane_add(+inf) to element 1", (value[1], comp[1]), PosInf);
    T::c_plane_add(&mut value, &mut comp, 1, -inf);
    c.pair("plane_add(+inf, then -inf) to element 1", (value[1], comp[1]), Nan);
    T::c_plane_add(&mut value, &mut comp, 0, one);
    T::c_plane_add(&mut value, &mut comp, 0, nan);
    c.pair("plane_add(1, then NaN) to element 0", (value[0], comp[0]), Nan);
    T::c_plane_add(&mut value, &mut comp, 2, max);
    T::c_plane_add(&mut value, &mut comp, 2, max);
    c.pair("plane_add(MAX, then MAX) to element 2", (value[2], comp[2]), PosInf);
    let out = T::c_plane_resolve(&value, &comp);
    c.scalar("plane_resolve element 0", out[0], Nan);
    c.scalar("plane_resolve element 1", out[1], Nan);
    c.scalar("plane_resolve element 2", out[2], PosInf);

    let lanes_with = |set: &[(usize, T)]| {
        let mut lanes = [(zero, zero); LANES];
        for &(i, x) in set {
            lanes[i].0 = x;
        }
        lanes
    };
    c.pair("reduce32(+inf in lane 31)", T::c_reduce32(&lanes_with(&[(31, inf)])), PosInf);
    c.pair("reduce32(+inf in lane 0, -inf in lane 16)", T::c_reduce32(&lanes_with(&[(0, inf), (16, -inf)])), Nan);
    c.pair("reduce32(NaN in lane 5)", T::c_reduce32(&lanes_with(&[(5, nan)])), Nan);
    c.pair("reduce32(MAX in lanes 0 and 1)", T::c_reduce32(&lanes_with(&[(0, max), (1, max)])), PosInf);
    c.pair("reduce32(MAX in every lane)", T::c_reduce32(&[(max, zero); LANES]), PosInf);
}

/// The corpus holds the three non-finite probes for each compensated
/// function, with the expected words the rules give.
fn corpus_probes<T: Float>(c: &mut NonFinite<'_>) {
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let names = [
        format!("aether_{}_two_sum", T::NAME),
        format!("aether_{}_neumaier_add", T::PAIR),
        format!("aether_{}_combine", T::PAIR),
        format!("aether_{}_sum_array", T::NAME),
        format!("aether_{}_dot_array", T::NAME),
    ];
    let probes = [("lone +inf", Want::PosInf), ("+inf with -inf is NaN", Want::Nan), ("NaN stays NaN", Want::Nan)];
    for name in &names {
        let Some(parsed) = corpus.get(name) else {
            c.f.check(false, || format!("{name}: not in the corpus"));
            continue;
        };
        for (label, want) in probes {
            let cases: Vec<_> = parsed.cases.iter().filter(|case| case.label.contains(label)).collect();
            c.f.check(!cases.is_empty(), || format!("{name}: no corpus case labelled {label:?}"));
            for case in cases {
                let words: Vec<T> = case.expected.iter().map(|&w| T::from_word(w)).collect();
                match words.as_slice() {
                    [x] => c.scalar(&format!("corpus {name} ({})", case.label), *x, want),
                    [hi, _] => c.scalar(&format!("corpus {name} ({}) hi", case.label), *hi, want),
                    _ => {
                        c.f.check(false, || format!("{name} ({}): {} expected words", case.label, words.len()));
                    }
                }
            }
        }
    }
}

#[test]
fn non_finite_values_follow_ieee_through_hi() {
    let mut f = Failures::default();
    let mut c = NonFinite { f: &mut f, checks: 0 };
    non_finite::<f32>(&mut c);
    non_finite::<f64>(&mut c);
    let direct = c.checks;
    corpus_probes::<f32>(&mut c);
    corpus_probes::<f64>(&mut c);
    let probes = c.checks - direct;
    println!("non-finite: {direct} direct calls checked, {probes} corpus probe cases checked (10 functions), {} failures", f.count);
    f.assert_none("non-finite");
}

// ------------------------------------------ 7. next to the overflow threshold

/// 2^e for a normal exponent e.
fn pow2<T: Float>(e: i32) -> T {
    assert!((emin::<T>()..=emax::<T>()).contains(&e));
    T::from_word(((e + T::BIAS) as u64) << T::FRAC)
}

/// The smallest witness of the overflow corner of Knuth's two-sum: with
/// u = ulp(MAX), a = -1.5 u and b = MAX, a + b = MAX - 1.5 u is a tie that
/// rounds (to even) to s = MAX - u; then s - a = MAX + u/2 exactly, a tie
/// that rounds (to even) to +inf, and the residual becomes inf - inf = NaN
/// although s is finite. In the other order, s - MAX = -u is exact.
fn overflow_corner<T: Float>(f: &mut Failures) -> usize {
    let max = max_finite::<T>();
    let zero = T::from_f64(0.0);
    let a = -(T::from_f64(3.0) * pow2::<T>(emax::<T>() - T::FRAC as i32 - 1));
    let s = a + max;
    assert!(s.finite(), "{} a + MAX must be finite", T::NAME);
    let exact = |x: T, y: T, p: P<T>| exact::two_sum_is_exact_f64(x.to_f64(), y.to_f64(), p.0.to_f64(), p.1.to_f64());
    let same = |x: T, y: T| x.word() == y.word() || (x.nan() && y.nan());
    let mut checks = 0;
    let mut check = |f: &mut Failures, what: &str, ok: bool, got: String| {
        checks += 1;
        println!("  {} {what}: {} ({got})", T::NAME, if ok { "ok" } else { "FAILS" });
        f.check(ok, || format!("{} a = {a:e}, MAX = {max:e}: {what}: got {got}", T::NAME));
    };
    println!("overflow corner {}: a = {a:e} [{:x}], b = MAX = {max:e} [{:x}], a + b = {s:e} (finite)", T::NAME, a.word(), max.word());
    let p = T::c_two_sum(a, max);
    check(f, "two_sum(a, MAX) is exact", exact(a, max, p), show(p));
    let p = T::c_two_sum(max, a);
    check(f, "two_sum(MAX, a) is exact", exact(max, a, p), show(p));
    let e = T::c_two_sum_err(a, max, s);
    check(f, "two_sum_err(a, MAX, a + MAX) is exact", exact(a, max, (s, e)), format!("{e:e}"));
    let p = T::c_neumaier_add((a, zero), max);
    check(f, "neumaier_add((a, 0), MAX) is exact", exact(a, max, p), show(p));
    let (ab, ba) = (T::c_combine((a, zero), (max, zero)), T::c_combine((max, zero), (a, zero)));
    check(
        f,
        "combine((a, 0), (MAX, 0)) == combine((MAX, 0), (a, 0))",
        same(ab.0, ba.0) && same(ab.1, ba.1),
        format!("{} vs {}", show(ab), show(ba)),
    );
    let mut lanes = [(zero, zero); LANES];
    lanes[0].0 = a;
    lanes[1].0 = max;
    let mut v = lanes;
    for k in ROUNDS {
        v = std::array::from_fn(|i| T::c_combine(v[i], v[i ^ k]));
    }
    check(f, "butterfly over (a, MAX) leaves lanes 0 and 1 equal", bits_eq(v[0], v[1]), format!("{} vs {}", show(v[0]), show(v[1])));
    let r = T::c_sum_array(&[a, max]);
    check(f, "sum_array([a, MAX]) is correctly rounded", correctly_rounded(&[a, max], r), format!("{r:e}"));
    let mut same_lane = vec![zero; 33];
    same_lane[0] = a;
    same_lane[32] = max;
    let r = T::c_sum_array(&same_lane);
    check(f, "sum_array([a, 0 x 31, MAX]) (one lane) is correctly rounded", correctly_rounded(&same_lane, r), format!("{r:e}"));
    let one = T::from_f64(1.0);
    let r = T::c_dot_array(&[a, max], &[one, one]);
    check(f, "dot_array([a, MAX], [1, 1]) is correctly rounded", correctly_rounded(&[a, max], r), format!("{r:e}"));
    checks
}

#[test]
fn a_finite_sum_next_to_the_overflow_threshold_keeps_an_exact_residual() {
    let mut f = Failures::default();
    let n = overflow_corner::<f32>(&mut f) + overflow_corner::<f64>(&mut f);
    println!("overflow corner: {n} checks, {} failures", f.count);
    f.assert_none("overflow corner");
}
