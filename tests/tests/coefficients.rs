//! One mutant per polynomial coefficient (`aether_tests::coefficients`): the
//! last bit of that one coefficient flipped, everywhere the spec's bodies use
//! it (its polynomial's own function, `[families.<name>_poly]`, and every
//! function that calls it), and nothing else. Each must change the result of
//! at least one committed corpus case of its polynomial's function,
//! evaluated as the generated C evaluates it (the generator's interpreter,
//! one IEEE operation per node; this test first checks that it gives the
//! corpus's bits on every case it reads). The all-at-once `coefficient-bit`
//! mutant of `tests/mutants.rs` is killed as soon as one coefficient is seen;
//! this test needs every one.
//!
//! Why the polynomial's own function: a last-bit change of coefficient i of a
//! polynomial in u moves the result by about 2^-p |c_i| u^i relative to it,
//! so an input must put that across a rounding boundary. Inside the
//! functions, u is small: 106 of the 125 coefficients are seen there too (the
//! functions' own witness cases, found by 10^4 to 10^9 inputs aimed where u
//! is largest), but the high-order terms of the f64 polynomials move a
//! function's result on about one input in 2^30 to 2^47 (sin's innermost,
//! -7.6e-13 u^6 r u with u <= 0.62: about 2^-45 of an ulp), and f32 exp2's
//! innermost moves none of exp2's 2^32 inputs. On the polynomial alone any
//! argument is allowed, and where the coefficient's term is among the
//! largest most inputs see it. `cargo run --release -p aether-tests --bin
//! coefficients` searches for such inputs and prints them as case lines
//! (with POLYNOMIAL=0, on the functions instead).
//!
//! The one coefficient of no polynomial (scale_pow2's 0.75, a Horner step
//! that approximates nothing) must be seen by a function's cases.

use std::collections::{BTreeMap, BTreeSet};

use aether_tests::coefficients;
use aether_tests::{corpus, model};

#[test]
fn every_coefficient_alone_is_seen_by_the_corpus() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let lowered = model.lowered();
    let all = coefficients::all(&model, &lowered);
    assert!(all.len() > 110, "only {} coefficients found: the site pattern no longer matches the bodies", all.len());
    let mut failures = Vec::new();
    let (mut by_polynomial, mut by_function) = (0, 0);
    for (&k, users) in &all {
        let names: Vec<String> = users.iter().map(|&i| model.c_name(&lowered[i])).collect();
        let (polynomial, functions): (Vec<usize>, Vec<usize>) = users.iter().partition(|&&i| coefficients::is_polynomial(&lowered[i]));
        let seen = |u: &[usize]| coefficients::seen_by(&model, &corpus, &lowered, k, u).is_some();
        let (p, f) = (seen(&polynomial), seen(&functions));
        by_polynomial += usize::from(p);
        by_function += usize::from(f);
        if !p && !polynomial.is_empty() {
            failures.push(format!(
                "{}: its polynomial's own cases ({}) do not see it",
                coefficients::describe(k),
                model.c_name(&lowered[polynomial[0]])
            ));
        } else if !p && !f {
            failures.push(format!("{}, used by {}: no corpus case sees it", coefficients::describe(k), names.join(", ")));
        }
    }
    println!(
        "coefficients: {} single-coefficient mutants, {} killed by the corpus: {by_polynomial} by their polynomial's own cases, \
         {by_function} (also) by a function's",
        all.len(),
        all.len() - failures.len()
    );
    assert!(failures.is_empty(), "{} coefficient(s):\n{}", failures.len(), failures.join("\n"));
}

/// The coefficients of the spec, as (width, bits), from a spec's text.
fn spec_coefficients(text: &str) -> BTreeSet<(u32, u64)> {
    let spec = aether_generator::spec::parse_bytes("spec/aether.toml", text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let model = aether_generator::model(&spec).unwrap_or_else(|e| panic!("{e}"));
    coefficients::all(&model, &model.lowered()).into_keys().collect()
}

fn spec_text() -> String {
    std::fs::read_to_string(aether_generator::default_root().join(aether_generator::SPEC_PATH)).unwrap()
}

/// The corpus shows that the cores agree with the spec; this shows that the
/// spec agrees with the hand-written reference's tables, so a wrong bit
/// stated in both places at once is the only way past. Every coefficient
/// the spec states is one of the reference's polynomial tables, and every
/// one of those (but the powers of two, which no mutant flips) is stated by
/// the spec. The control: the spec with the last bit of exp's innermost f64
/// coefficient flipped differs from the reference in exactly that one.
#[test]
fn the_spec_states_the_references_coefficients_bit_for_bit() {
    let text = spec_text();
    let spec = spec_coefficients(&text);
    let power_of_two = |(b, w): &(u32, u64)| {
        let v = coefficients::value((*b, *w)).abs();
        v == 2f64.powi(v.log2().round() as i32)
    };
    let reference: BTreeSet<(u32, u64)> = aether_reference::elementary::polynomial_coefficients()
        .into_iter()
        .flat_map(|(_, b, ws)| ws.into_iter().map(move |w| (b, w)))
        .filter(|k| !power_of_two(k))
        .collect();
    // Horner's shape, but no approximation: scale_pow2's 2^d for d in
    // {-1, 0, 1} as 1 + d (0.75 + 0.25 d), exact there (the corpus sees it).
    let selector = [(32, 0x3F40_0000), (64, 0x3FE8_0000_0000_0000)];
    let differ = |a: &BTreeSet<(u32, u64)>, b: &BTreeSet<(u32, u64)>| {
        a.difference(b).filter(|k| !selector.contains(k)).map(|k| coefficients::describe(*k)).collect::<Vec<_>>()
    };
    assert!(selector.iter().all(|k| spec.contains(k)), "scale_pow2's 0.75 is no longer a Horner step: drop it here");
    assert!(spec.len() > 110, "only {} coefficients in the spec", spec.len());
    assert_eq!(differ(&spec, &reference), Vec::<String>::new(), "stated by the spec, in no table of the reference");
    assert_eq!(differ(&reference, &spec), Vec::<String>::new(), "in a table of the reference, not stated by the spec");

    let (good, bad) = ("0x3E21F75A3CAADFF5", "0x3E21F75A3CAADFF4");
    assert_eq!(text.matches(good).count(), 1, "exp's innermost f64 coefficient is stated once");
    let mutant = spec_coefficients(&text.replace(good, bad));
    assert_eq!(differ(&mutant, &reference), vec![coefficients::describe((64, 0x3E21_F75A_3CAA_DFF4))], "the control");
    assert_eq!(differ(&reference, &mutant), vec![coefficients::describe((64, 0x3E21_F75A_3CAA_DFF5))], "the control");
}

/// The generated cores, with the element widths each has.
const CORES: &[(&str, &[u32])] = &[
    ("c_core/aether_core.c", &[32, 64]),
    ("cuda_core/aether_core.cuh", &[32, 64]),
    ("opencl_core/aether_core.cl", &[32, 64]),
    ("wgsl_core/aether_core.wgsl", &[32]),
];

/// The body of the definition of `name` in a core's text: from the line at
/// column 0 that names it and opens a body (not a declaration, a call or a
/// comment) to the next line that is `}`.
fn body<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let call = format!("{name}(");
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let Some(i) = line.find(&call) else { continue };
        let named = i == 0 || !line[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let definition = !line.starts_with(char::is_whitespace) && !line.starts_with("//") && !line.starts_with("/*");
        if named && definition && !line.trim_end().ends_with(';') {
            let rest = &text[start..];
            let end = rest.find("\n}\n")?;
            return Some(&rest[..end + 2]);
        }
    }
    None
}

/// Every floating-point literal of a printed body, with the sign attached to
/// it, parsed back: the decimals the printers write (exact expansions, which
/// Rust's parser rounds correctly, so exactly) and hexadecimal floats.
fn literals(body: &str) -> Vec<f64> {
    let b = body.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && word(b[i - 1])) {
            i += 1;
            continue;
        }
        let negative = i > 0 && b[i - 1] == b'-';
        let start = i;
        let v = if b[i..].starts_with(b"0x") {
            // 0x<lead>.<hex digits>p<+-exponent>
            i += 2;
            let mut m: u64 = 0;
            let mut digits = 0i32;
            let mut frac = false;
            while i < b.len() && (b[i].is_ascii_hexdigit() || b[i] == b'.') {
                if b[i] == b'.' {
                    frac = true;
                } else {
                    m = m * 16 + u64::from((b[i] as char).to_digit(16).unwrap());
                    digits += i32::from(frac);
                }
                i += 1;
            }
            if i >= b.len() || b[i] != b'p' {
                continue; // a hexadecimal integer (a bit pattern), no float
            }
            i += 1;
            let e0 = i;
            i += usize::from(b[i] == b'+' || b[i] == b'-');
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let e: i32 = body[e0..i].parse().unwrap();
            // m has at most 53 bits: exact; the scaling by a power of two too.
            m as f64 * 2f64.powi(e - 4 * digits)
        } else {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                i += 1;
                i += usize::from(b[i] == b'+' || b[i] == b'-');
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if !body[start..i].contains(['.', 'e', 'E']) {
                continue; // an integer (an index, a count)
            }
            body[start..i].parse::<f64>().unwrap()
        };
        out.push(if negative { -v } else { v });
    }
    out
}

/// The coefficients of `name`'s body in a core's text that no literal there
/// gives exactly.
fn missing(text: &str, name: &str, want: &[(u32, u64)]) -> Result<Vec<(u32, u64)>, String> {
    let body = body(text, name).ok_or_else(|| format!("{name}: no definition found"))?;
    let printed: BTreeSet<u64> = literals(body).into_iter().map(f64::to_bits).collect();
    Ok(want.iter().copied().filter(|k| !printed.contains(&coefficients::value(*k).to_bits())).collect())
}

/// The corpus sees every coefficient through its polynomial's own function,
/// but each function that calls the polynomial is printed with it inlined,
/// where a high-order coefficient printed to too few digits would change
/// bits that function's cases almost never see. So every generated core (C,
/// CUDA, OpenCL C, and WGSL for f32) must print every coefficient of every
/// function that uses it as a literal that parses back to its exact bits, in
/// that function's own body. The control: the C core's text with exp's
/// innermost f64 coefficient printed as its neighbour is found.
#[test]
fn every_core_prints_every_coefficient_exactly() {
    let model = model();
    let lowered = model.lowered();
    let all = coefficients::all(&model, &lowered);
    let root = aether_generator::default_root();
    let mut by_function: BTreeMap<usize, Vec<(u32, u64)>> = BTreeMap::new();
    for (k, users) in &all {
        for &u in users {
            by_function.entry(u).or_default().push(*k);
        }
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for (path, widths) in CORES {
        let text = std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        for (&i, want) in &by_function {
            let f = &lowered[i];
            if !widths.contains(&coefficients::bits_of(&model, f)) {
                continue;
            }
            let name = model.c_name(f);
            match missing(&text, &name, want) {
                Ok(m) if m.is_empty() => checked += want.len(),
                Ok(m) => failures
                    .push(format!("{path}: {name}: {}", m.iter().map(|k| coefficients::describe(*k)).collect::<Vec<_>>().join(", "))),
                Err(e) => failures.push(format!("{path}: {e}")),
            }
        }
    }
    println!("coefficients: {checked} printed coefficients parsed back exactly in 4 cores");
    assert!(failures.is_empty(), "{} function(s) whose printed literals miss a coefficient:\n{}", failures.len(), failures.join("\n"));

    let c = std::fs::read_to_string(root.join("c_core/aether_core.c")).unwrap();
    let (good, bad) = (f64::from_bits(0x3E21_F75A_3CAA_DFF5), f64::from_bits(0x3E21_F75A_3CAA_DFF4));
    let t64 = model.spec.types.iter().find(|t| t.bits == 64).unwrap();
    let (good, bad) =
        (aether_generator::targets::shared::c_family::literal(good, t64), aether_generator::targets::shared::c_family::literal(bad, t64));
    assert!(c.contains(&good), "the control: {good} is printed in the C core");
    let want = [(64, 0x3E21_F75A_3CAA_DFF5)];
    assert_eq!(missing(&c, "aether_f64_exp", &want).unwrap(), Vec::<(u32, u64)>::new());
    assert_eq!(missing(&c.replace(&good, &bad), "aether_f64_exp", &want).unwrap(), want.to_vec(), "the control");
}
