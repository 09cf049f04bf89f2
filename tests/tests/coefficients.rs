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
///
/// They were searched by `python3 scripts/coefficient-search.py` (the C core
/// compiled twice, once with the coefficient's last bit flipped, both called
/// side by side at native speed; the Rust search below goes through the
/// interpreter, about a thousand times slower). For each, every function
/// using it took 2^28, then 2^30 random inputs aimed where its polynomial's
/// argument is largest (the script's AIMS: |r| near pi/4 for sincos, |v| up to
/// 43/64 for tan, |x| near 7/16 for atan and atan2, |r| near ln 2 / 2 for exp
/// and, with any r and a low part, pow; |r| near 1/2 for exp2, m near the ends
/// of log's interval for log and log2, z near 1/4 for asin and acos, x at the
/// edge of pow's centre 1 with |y log x| near 700). Its witnesses see 30 of the
/// 49 coefficients this list held: 28 each by its own case in the spec (found
/// after 4 10^4 to 10^9 inputs), 2 by another's.
/// - f32 0x37804510, exp2's innermost coefficient, used by exp2 alone: no f32
///   input moves exp2; every one of the 2^32 was tried. An equivalent mutant,
///   shown exhaustively. (exp's innermost one, which exp's own 2^32 inputs do
///   not see either, is seen through pow, where exp's steps take any r and a
///   low part.)
/// - f64: the higher-order terms of each polynomial. A last-bit change of c_i
///   moves the result by about 2^-53 |c_i| u^i of it, so about one input in
///   1 / (|c_i| u^i) sees it where u is largest: past about 2^30 for these
///   (sin's last coefficient, -7.6e-13 u^7 r with u <= 0.62: about 2^-45; pow's
///   c2 at most about 2^-28 of an ulp where |y| is largest, 2^32 pairs found
///   none). No random search reaches them; the chance per input is the size
///   of the change, and a change of one ulp of x moves each inner Horner step
///   by as much as the mutant does, so consecutive inputs are no likelier.
///
/// A listed coefficient that the corpus does see fails the test too, so the
/// list shrinks with the corpus.
const UNWITNESSED: &[(u32, u64, &str)] = &[
    (32, 0x37804510, "exp2"),           // 1.5290949e-5, the innermost coefficient: equivalent (all 2^32 inputs)
    (64, 0x3F9D72B2BC8155F8, "asin"),   // 2.8757851367421566e-2
    (64, 0xBF8E6AAA8A0A04CC, "asin"),   // -1.4851887071247204e-2
    (64, 0x3F8E4167464D3DE8, "atan"),   // 1.4773184616983806e-2
    (64, 0x3FCC776195B7CE48, "pow"),    // 2.22393224815834e-1
    (64, 0x3E21F75A3CAADFF5, "exp"),    // 2.0915433598076003e-9
    (64, 0x3E5AF5282AACDB2E, "exp"),    // 2.5106262550879078e-8
    (64, 0x3E927E4DA1E12FB1, "exp"),    // 2.755727183153613e-7
    (64, 0x3EC71DDFFF6573D6, "exp"),    // 2.755725286336732e-6
    (64, 0x3DBC48F769AD2C46, "exp2"),   // 2.572508057683636e-11
    (64, 0x3DFE9D3FE3952179, "exp2"),   // 4.4549605981865186e-10
    (64, 0x3E3E4CF1CD08D4B8, "exp2"),   // 7.054899956372649e-9
    (64, 0x3E7B524FAE627834, "exp2"),   // 1.0178062445845774e-7
    (64, 0x3FC2B6776A1BF0B9, "log"),    // 1.4619343453512615e-1
    (64, 0x3FC39FD25D62AB23, "log"),    // 1.5331487235865734e-1
    (64, 0x3DE61217EC01749D, "sincos"), // 1.605853141458901e-10
    (64, 0xBD6AB17A79237A19, "sincos"), // -7.586685070091267e-13
    (64, 0xBDA907D7AEBD5E3D, "sincos"), // -1.1382614868556325e-11
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
