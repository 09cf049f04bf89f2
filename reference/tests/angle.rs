//! The integer ADM angle predicate: the integer-only evaluation against the
//! golden binary32/binary64 expression on every sweep, the wrong spellings'
//! disagreements counted, the named witnesses, and rounding mutants that the
//! sweeps and witnesses must catch.
//!
//! Run with `--nocapture` to see one line per sweep with the counts.

use aether_reference::angle::{
    exact, exact_with, exhaustive_reduced, from_bands, full_int32, golden, near_parallel_int16, near_tie, random_int64, reduced_values,
    wrong_all_f32, wrong_exact_f64, wrong_products_f32, Rounding, COS_1DEG_SQ, MC, WITNESSES,
};
use aether_reference::ulp::f64_ulp_distance;
use std::f64::consts::PI;
use std::time::Instant;

use Rounding::{CarryDropped, Keep, NearestAway, NearestEven, Truncate};

/// The rounding mutants of [`exact`]: `(name, narrowing rule, 53-bit rule)`.
const MUTANTS: [(&str, Rounding, Rounding); 7] = [
    ("narrow-truncate", Truncate, NearestEven),
    ("narrow-away", NearestAway, NearestEven),
    ("narrow-carry-dropped", CarryDropped, NearestEven),
    ("round53-truncate", NearestEven, Truncate),
    ("round53-away", NearestEven, NearestAway),
    ("round53-carry-dropped", NearestEven, CarryDropped),
    ("round53-keep", NearestEven, Keep),
];

/// Disagreements with [`golden`] of the three wrong spellings, in the order
/// `wrong_exact_f64`, `wrong_all_f32`, `wrong_products_f32`, and of the
/// [`MUTANTS`], in their order.
#[derive(Debug, Default)]
struct Counts {
    cases: u64,
    wrong: [u64; 3],
    mutants: [u64; 7],
}

/// Checks `exact == golden` on every case (panicking on the first mismatch)
/// and counts the wrong spellings' disagreements; prints one line.
fn sweep(name: &str, cases: impl IntoIterator<Item = (i64, i64, i64)>) -> Counts {
    let start = Instant::now();
    let mut c = Counts::default();
    for (dp, om, tm) in cases {
        let g = golden(dp, om, tm);
        assert_eq!(exact(dp, om, tm), g, "{name}: exact != golden at ({dp}, {om}, {tm})");
        c.cases += 1;
        for (n, w) in [wrong_exact_f64, wrong_all_f32, wrong_products_f32].iter().enumerate() {
            c.wrong[n] += u64::from(w(dp, om, tm) != g);
        }
        for (n, &(_, narrow, wide)) in MUTANTS.iter().enumerate() {
            c.mutants[n] += u64::from(exact_with(dp, om, tm, narrow, wide) != g);
        }
    }
    println!(
        "{name}: {} cases, exact == golden on all; disagreements with golden: wrong_exact_f64 {}, wrong_all_f32 {}, wrong_products_f32 {} ({:.2} s)",
        c.cases,
        c.wrong[0],
        c.wrong[1],
        c.wrong[2],
        start.elapsed().as_secs_f64()
    );
    let mutants: Vec<String> = MUTANTS.iter().zip(c.mutants).map(|((name, ..), k)| format!("{name} {k}")).collect();
    println!("{name}: rounding mutants' disagreements with golden: {}", mutants.join(", "));
    // The 53-bit rounding's tie rule and carry cannot change an answer in the
    // domain (see `round53_tie_and_carry_are_unreachable`).
    assert_eq!(c.mutants[4], 0, "{name}: round53-away");
    assert_eq!(c.mutants[5], 0, "{name}: round53-carry-dropped");
    c
}

/// The two sides of the golden comparison, as `golden` computes them.
fn sides(dp: i64, om: i64, tm: i64) -> (f64, f64) {
    let c = f64::from(COS_1DEG_SQ);
    let d = f64::from(dp as f32) / 4096.0;
    (d * d, c * (f64::from(om as f32) / 4096.0) * (f64::from(tm as f32) / 4096.0))
}

/// `dp^2 / (om tm) / cos^2(1 deg) - 1`, in binary64 (for statistics only).
fn relative_to_boundary(dp: i64, om: i64, tm: i64) -> f64 {
    let cos2 = (PI / 180.0).cos().powi(2);
    (dp as f64 * dp as f64) / (om as f64 * tm as f64) / cos2 - 1.0
}

#[test]
fn constants() {
    let c = (PI / 180.0).cos() * (PI / 180.0).cos();
    assert_eq!((c as f32).to_bits(), 0x3F7F_EC0A);
    assert_eq!(COS_1DEG_SQ, c as f32);
    assert_eq!(f64::from(COS_1DEG_SQ), MC as f64 / (1u64 << 24) as f64);
    assert_eq!(MC, (1 << 24) - 5110);
    assert_eq!(MC, 2 * 3 * 13 * 23 * 9349);
}

#[test]
fn from_bands_extremes() {
    let m = i32::MAX;
    assert_eq!(from_bands(m, m, m, m), (2 * i64::from(m).pow(2), 2 * i64::from(m).pow(2), 2 * i64::from(m).pow(2)));
    assert_eq!(from_bands(m, -m, -m, m).0, -2 * i64::from(m).pow(2));
    assert_eq!(from_bands(3, 4, -4, 3), (0, 25, 25));
}

#[test]
fn near_parallel_int16_sweep() {
    let n = 3_000_000;
    let cases = near_parallel_int16(1, n);
    let near = cases.iter().filter(|&&(dp, om, tm)| relative_to_boundary(dp, om, tm).abs() <= 1e-5).count();
    let within = cases.iter().filter(|&&(dp, om, tm)| relative_to_boundary(dp, om, tm).abs() <= 1e-4).count();
    println!("near_parallel_int16: {near} of {n} within 1e-5 relative of cos^2(1 deg), {within} within 1e-4");
    assert!(near * 10 >= n, "only {near} of {n} within 1e-5");
    let c = sweep("near_parallel_int16", cases);
    assert!(c.wrong.iter().all(|&w| w > 0), "a wrong spelling agrees with golden everywhere: {c:?}");
}

#[test]
fn full_int32_sweep() {
    sweep("full_int32", full_int32(2, 1_000_000));
}

#[test]
fn random_int64_sweep() {
    sweep("random_int64", random_int64(3, 1_000_000));
}

#[test]
fn exhaustive_reduced_sweep() {
    assert_eq!(reduced_values().len(), 265);
    let c = sweep("exhaustive_reduced", exhaustive_reduced());
    assert_eq!(c.cases, 269 * 265 * 265);
}

#[test]
fn near_tie_sweep() {
    let n = 10_000;
    let start = Instant::now();
    let cases = near_tie(4, n);
    let made = start.elapsed().as_secs_f64();
    let mut dist = [0usize; 4];
    for &(dp, om, tm) in &cases {
        let (l, r) = sides(dp, om, tm);
        let d = f64_ulp_distance(l, r);
        dist[if d == 0 {
            0
        } else if d > 1 {
            3
        } else if l < r {
            1
        } else {
            2
        }] += 1;
    }
    let share = (n - dist[3]) as f64 / n as f64;
    println!(
        "near_tie: {n} cases in {made:.2} s; lhs == rhs {}, one ulp below {}, one ulp above {}, farther {} (share within one ulp {:.4})",
        dist[0], dist[1], dist[2], dist[3], share
    );
    assert!(share >= 0.99);
    let c = sweep("near_tie", cases);
    for (k, name) in [(0, "narrow-truncate"), (1, "narrow-away"), (3, "round53-truncate"), (6, "round53-keep")] {
        assert!(c.mutants[k] > 0, "{name} agrees with golden on every near tie");
    }
}

#[test]
fn witnesses() {
    for &(dp, om, tm, answer) in WITNESSES {
        assert_eq!(golden(dp, om, tm), answer, "golden at ({dp}, {om}, {tm})");
        assert_eq!(exact(dp, om, tm), answer, "exact at ({dp}, {om}, {tm})");
    }
    // Each wrong spelling is caught by a witness.
    for (name, w) in [
        ("wrong_exact_f64", wrong_exact_f64 as fn(i64, i64, i64) -> bool),
        ("wrong_all_f32", wrong_all_f32),
        ("wrong_products_f32", wrong_products_f32),
    ] {
        assert!(WITNESSES.iter().any(|&(dp, om, tm, a)| w(dp, om, tm) != a), "{name} agrees on every witness");
    }
}

#[test]
fn witnesses_catch_the_rounding_mutants() {
    // (index into WITNESSES, narrowing rule, 53-bit rule) that gives the other answer.
    let flips: [(usize, Rounding, Rounding); 9] = [
        (13, Truncate, NearestEven),
        (13, CarryDropped, NearestEven),
        (14, Truncate, NearestEven),
        (15, NearestAway, NearestEven),
        (16, Truncate, NearestEven),
        (17, Truncate, NearestEven),
        (18, NearestAway, NearestEven),
        (19, NearestEven, Truncate),
        (20, NearestEven, Keep),
    ];
    for (i, narrow, wide) in flips {
        let (dp, om, tm, answer) = WITNESSES[i];
        assert_eq!(exact_with(dp, om, tm, narrow, wide), !answer, "witness {i} with {narrow:?}/{wide:?}");
    }
    // The operands of the narrowing witnesses really are ties where claimed:
    // half an ulp (2^(len-25)) from a binary32 value.
    let half = |x: i64| 1i64 << (63 - x.leading_zeros() - 24);
    for (i, x) in [(14, WITNESSES[14].0), (15, WITNESSES[15].0), (17, WITNESSES[17].1), (18, WITNESSES[18].1)] {
        assert_eq!(x % (2 * half(x)), half(x), "witness {i}: {x} is not a tie");
    }
    // Witness 11: closer than one degree, yet false.
    let (dp, om, tm, _) = WITNESSES[11];
    assert!(relative_to_boundary(dp, om, tm) > 1e-9);
}

/// The 53-bit rounding's carry and tie rule never decide an answer in the
/// domain, so no witness can exist for them (see [`WITNESSES`]).
#[test]
fn round53_tie_and_carry_are_unreachable() {
    // Carry: MC * mo * mt (at most MC * 2^48 < 2^72) rounds up to 2^m only
    // from [2^m - 2^(m-54), 2^m), m in 54..=72; no multiple of MC lies there.
    let mc = MC as u128;
    for m in 54..=72u32 {
        let lo = (1u128 << m) - (1u128 << (m - 54));
        let first = lo.div_ceil(mc) * mc;
        assert!(first >= 1u128 << m, "a multiple of MC rounds up to 2^{m}");
    }
    // Tie: a tie changes the answer only when lhs is the even candidate
    // below, mp^2 2^j; then MC * mo * mt = 2^v (mp^2 2^t + 1) with the odd
    // part 54 bits long, a multiple of MC / 2. No odd mp < 2^24 gives one.
    let q = (MC / 2) as u64;
    let mut tried = 0u64;
    for mp in (1u64..1 << 24).step_by(2) {
        let sq = mp * mp;
        let t = 53 - (63 - sq.leading_zeros());
        let odd = (sq << t) + 1;
        assert_ne!(odd % q, 0, "mp = {mp}: a deciding 53-bit tie");
        tried += 1;
    }
    assert_eq!(tried, 1 << 23);
}
