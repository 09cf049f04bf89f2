//! The integer ADM angle predicate: the integer-only evaluation against the
//! golden binary32/binary64 expression on every sweep, the wrong spellings'
//! disagreements counted, the named witnesses, and rounding mutants that the
//! sweeps and witnesses must catch.
//!
//! Run with `--nocapture` to see one line per sweep with the counts.

use aether_reference::angle::{
    exact, exhaustive_reduced, from_bands, full_int32, golden, near_parallel_int16, near_tie, random_int64, reduced_values, wrong_all_f32,
    wrong_exact_f64, wrong_products_f32, COS_1DEG_SQ, MC,
};
use aether_reference::ulp::f64_ulp_distance;
use std::f64::consts::PI;
use std::time::Instant;

/// Disagreements with [`golden`] of the three wrong spellings, in the order
/// `wrong_exact_f64`, `wrong_all_f32`, `wrong_products_f32`.
#[derive(Debug, Default)]
struct Counts {
    cases: u64,
    wrong: [u64; 3],
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
    }
    println!(
        "{name}: {} cases, exact == golden on all; disagreements with golden: wrong_exact_f64 {}, wrong_all_f32 {}, wrong_products_f32 {} ({:.2} s)",
        c.cases,
        c.wrong[0],
        c.wrong[1],
        c.wrong[2],
        start.elapsed().as_secs_f64()
    );
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
    sweep("random_int64", random_int64(3, 2_000_000));
}

#[test]
fn exhaustive_reduced_sweep() {
    assert_eq!(reduced_values().len(), 265);
    let c = sweep("exhaustive_reduced", exhaustive_reduced());
    assert_eq!(c.cases, 269 * 265 * 265);
}

#[test]
fn near_tie_sweep() {
    let n = 4000;
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
    sweep("near_tie", cases);
}
