//! One mutant per polynomial coefficient (`aether_tests::coefficients`): the
//! last bit of that one coefficient flipped, everywhere the spec's bodies use
//! it (its function and every function that inlines it), and nothing else.
//! Each must change the result of at least one committed corpus case of some
//! function, evaluated as the generated C evaluates it (the generator's
//! interpreter, one IEEE operation per node; this test first checks that it
//! gives the corpus's bits on every case it reads). The all-at-once
//! `coefficient-bit` mutant of `tests/mutants.rs` is killed as soon as one
//! coefficient is seen; this test needs every one.
//!
//! A last-bit change of coefficient i of a polynomial in u moves the result
//! by about 2^-p |c_i| u^i relative to it, so the corpus needs an input where
//! that crosses a rounding boundary; `cargo run --release -p aether-tests
//! --bin coefficients` searches for such inputs and prints them as case lines.

use aether_tests::coefficients;
use aether_tests::{corpus, model};

/// Coefficients whose last bit no input was found to move, by width, bits
/// and the family that states them.
/// - f64: `cargo run --release -p aether-tests --bin coefficients -- 4194304`
///   tried 2^22 inputs for each one-input function using each (so 3 * 2^22
///   for sincos's, through sin and cos too) and found none. They are the
///   higher-order terms: a last-bit change of c_i moves the result by about
///   2^-53 |c_i| u^i of it, below about 2^-24 of an ulp across the
///   polynomial's interval from about the fourth coefficient of each
///   polynomial on, so about one input in 2^24 or fewer.
/// - f32: the innermost coefficients of exp and exp2. The change survives the
///   rounding of the innermost Horner step about once in 30 and then moves
///   the result about once in 2^19 even where |r| is largest, so about once
///   in 2^24; 2^25 inputs aimed there (`AETHER_COEFFICIENT_RANGES` set to
///   x = k ln 2 + [0.3, 0.3466] and x = k + [0.45, 0.5], k in [-30, 30],
///   both signs) found none. Every other f32 coefficient is seen.
/// - f64 pow's third and fourth coefficients (of 2 atanh s = 2s + s z P(z),
///   |s| <= 0.0217): a last-bit change moves y log x by about 2^-53 |c_i|
///   |y| s^(2i+3), at most about 2^-28 of an ulp (c2) and 2^-39 (c3) of the
///   result where |y| is largest for its x; 2^22 pairs aimed there
///   (`AETHER_COEFFICIENT_RANGES="1.035:1.0442,-16000:16000"`, x at the edge
///   of the centre 1, |y log x| up to 700) found none, where they found c0
///   after 11 and c1 after 1.3 10^6.
///
/// A listed coefficient that the corpus does see fails the test too, so the
/// list shrinks with the corpus.
const UNWITNESSED: &[(u32, u64, &str)] = &[
    (32, 0x3950951A, "exp"),            // 1.9891970e-4, the innermost coefficient
    (32, 0x37804510, "exp2"),           // 1.5290949e-5, the innermost coefficient
    (64, 0x3F9D72B2BC8155F8, "asin"),   // 2.8757851367421566e-2
    (64, 0xBF8E6AAA8A0A04CC, "asin"),   // -1.4851887071247204e-2
    (64, 0x3F8E4167464D3DE8, "atan"),   // 1.4773184616983806e-2
    (64, 0x3FA7001816FD063F, "atan"),   // 4.492259293193656e-2
    (64, 0xBFA0F62BBA6A2558, "atan"),   // -3.3128134256069586e-2
    (64, 0x3FCC776195B7CE48, "pow"),    // 2.22393224815834e-1
    (64, 0x3E21F75A3CAADFF5, "exp"),    // 2.0915433598076003e-9
    (64, 0x3E5AF5282AACDB2E, "exp"),    // 2.5106262550879078e-8
    (64, 0x3E927E4DA1E12FB1, "exp"),    // 2.755727183153613e-7
    (64, 0x3EC71DDFFF6573D6, "exp"),    // 2.755725286336732e-6
    (64, 0x3EFA01A01A74077A, "exp"),    // 2.480158732699005e-5
    (64, 0x3DBC48F769AD2C46, "exp2"),   // 2.572508057683636e-11
    (64, 0x3DFE9D3FE3952179, "exp2"),   // 4.4549605981865186e-10
    (64, 0x3E3E4CF1CD08D4B8, "exp2"),   // 7.054899956372649e-9
    (64, 0x3E7B524FAE627834, "exp2"),   // 1.0178062445845774e-7
    (64, 0x3FC2B6776A1BF0B9, "log"),    // 1.4619343453512615e-1
    (64, 0x3FC39FD25D62AB23, "log"),    // 1.5331487235865734e-1
    (64, 0x3FC7462BE245EAE3, "log"),    // 1.8182896183483085e-1
    (64, 0x3DE61217EC01749D, "sincos"), // 1.605853141458901e-10
    (64, 0x3E21EEB68B109173, "sincos"), // 2.0876146024689747e-9
    (64, 0xBD6AB17A79237A19, "sincos"), // -7.586685070091267e-13
    (64, 0xBDA907D7AEBD5E3D, "sincos"), // -1.1382614868556325e-11
    (64, 0x3EF85639F6EF242A, "tan"),    // 2.320940205516681e-5
    (64, 0xBEE6B893A850A176, "tan"),    // -1.0834218537495522e-5
];

#[test]
fn every_coefficient_alone_is_seen_by_the_corpus() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let lowered = model.lowered();
    let all = coefficients::all(&model, &lowered);
    assert!(all.len() > 110, "only {} coefficients found: the site pattern no longer matches the bodies", all.len());
    let mut failures: Vec<String> = UNWITNESSED
        .iter()
        .filter(|(b, w, _)| !all.contains_key(&(*b, *w)))
        .map(|(b, w, family)| format!("f{b} 0x{w:X} ({family}) is listed as unwitnessed but is no coefficient of the spec"))
        .collect();
    let mut killed = 0;
    for (&k, users) in &all {
        let seen_by = coefficients::seen_by(&model, &corpus, &lowered, k, users);
        let listed = UNWITNESSED.iter().any(|(b, w, _)| (*b, *w) == k);
        let users: Vec<String> = users.iter().map(|&i| model.c_name(&lowered[i])).collect();
        match (seen_by, listed) {
            (Some(_), false) => killed += 1,
            (None, true) => {}
            (Some(by), true) => {
                failures.push(format!("{} is listed as unwitnessed, but the corpus sees it ({by})", coefficients::describe(k)))
            }
            (None, false) => failures.push(format!("{}, used by {}: no corpus case sees it", coefficients::describe(k), users.join(", "))),
        }
    }
    println!(
        "coefficients: {} single-coefficient mutants, {killed} killed by the corpus, {} listed as unwitnessed",
        all.len(),
        UNWITNESSED.len()
    );
    assert!(failures.is_empty(), "{} coefficient(s):\n{}", failures.len(), failures.join("\n"));
}
