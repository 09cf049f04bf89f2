//! Searches inputs for the single-coefficient mutants the corpus does not
//! see (`tests/coefficients.rs`), and prints each witness as a spec case line
//! for its family.
//!
//!   cargo run --release -p aether-tests --bin coefficients -- [TRIES [HEX...]]
//!
//! With HEX words (a coefficient's bits, `3636DEE9`), only those are searched.
//! AETHER_COEFFICIENT_RANGES="lo:hi,lo:hi,..." draws the inputs (but the
//! random test's quarter) uniformly from those intervals instead, each input
//! from one picked at random, to aim at where a polynomial's argument is
//! largest (exp: x = k ln 2 + r, |r| near 0.35; pow: x near a centre's edge and
//! |y log x| large, e.g. "1e100:1e300,-1:1").
//!
//! For each such coefficient and each one-input function that uses it (then
//! each two-input one: atan2, pow), TRIES inputs (default 2^22) drawn from the
//! random test's generator and from uniform ranges around the polynomials'
//! intervals (|x| below 0.5, 1, 1.6, 4, 100 and 8192; each input drawn alone);
//! both the contract's tree and the mutant's are evaluated by
//! the generator's interpreter, as the generated C evaluates them.

use std::process::ExitCode;

use aether_generator::model::Callable;
use aether_generator::rng::SplitMix64;
use aether_generator::{interp, kernel};
use aether_tests::coefficients::{self, bits_of};
use aether_tests::{corpus, model};

fn main() -> ExitCode {
    let only: Vec<u64> = std::env::args().skip(2).filter_map(|h| u64::from_str_radix(h.trim_start_matches("0x"), 16).ok()).collect();
    let tries: u64 = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 1 << 22,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("usage: coefficients [TRIES [HEX...]]");
            return ExitCode::from(2);
        }
    };
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let lowered = model.lowered();
    let all = coefficients::all(&model, &lowered);
    let same = coefficients::same;
    // Each coefficient is searched on its polynomial's own function (every
    // one is seen there, tests/coefficients.rs), or with POLYNOMIAL=0 on the
    // functions that call it.
    let polynomial = std::env::var("POLYNOMIAL").map_or(true, |v| v != "0");
    let unseen: Vec<((u32, u64), Vec<usize>)> = all
        .iter()
        .filter(|(&k, _)| only.is_empty() || only.contains(&k.1))
        .map(|(&k, u)| (k, u.iter().copied().filter(|&i| coefficients::is_polynomial(&lowered[i]) == polynomial).collect::<Vec<_>>()))
        .filter(|(k, users)| coefficients::seen_by(&model, &corpus, &lowered, *k, users).is_none())
        .collect();
    let ranges = aether_tests::ranges_from_env("AETHER_COEFFICIENT_RANGES");
    // One search per coefficient, on every core.
    let search = |k: (u32, u64), users: &[usize]| -> Option<String> {
        // One-input functions first, then two-input ones (atan2, pow).
        let mut order: Vec<usize> = users.iter().copied().filter(|&i| lowered[i].input_words() <= 2).collect();
        order.sort_by_key(|&i| lowered[i].input_words());
        for i in order {
            let f = &lowered[i];
            let b = bits_of(&model, f);
            let g = coefficients::flipped(f, k);
            let name = model.c_name(f);
            let mut r = SplitMix64::for_name(&format!("coefficients {} {name}", k.1), 0);
            let scales = [0.5, 0.8, 1.0, 1.6, 4.0, 100.0, 8192.0];
            let word = |x: f64| if b == 32 { u64::from((x as f32).to_bits()) } else { x.to_bits() };
            for t in 0..tries {
                let w: Vec<u64> = if t % 4 == 0 {
                    kernel::random_callable_input(&model, &lowered, Callable::Function(f), &mut r)
                } else if !ranges.is_empty() {
                    (0..f.input_words())
                        .map(|_| {
                            let (lo, hi) = ranges[r.below(ranges.len() as u64) as usize];
                            word(lo + (hi - lo) * ((r.next_u64() >> 11) as f64 / (1u64 << 53) as f64))
                        })
                        .collect()
                } else {
                    (0..f.input_words())
                        .map(|_| {
                            let s = scales[r.below(scales.len() as u64) as usize];
                            let u = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                            word(s * (2.0 * u - 1.0))
                        })
                        .collect()
                };
                if !same(&interp::evaluate(f, b, &w), &interp::evaluate(&g, b, &w), b) {
                    let show =
                        |&w: &u64| if b == 32 { format!("{:?}", f32::from_bits(w as u32)) } else { format!("{:?}", f64::from_bits(w)) };
                    let v = w.iter().map(show).collect::<Vec<_>>().join(", ");
                    return Some(format!(
                        "{}: \"the last bit of coefficient 0x{:0n$X} (f{b}) moves {name} here: {v}\",  # after {} tries",
                        f.family,
                        k.1,
                        t + 1,
                        n = (b / 4) as usize
                    ));
                }
            }
        }
        None
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(vec![None; unseen.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((k, users)) = unseen.get(j) else { break };
                let line = search(*k, users).unwrap_or_else(|| {
                    format!("none: {} moves no one- or two-input function in {tries} tries", coefficients::describe(*k))
                });
                results.lock().unwrap()[j] = Some(line);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut missing = 0;
    for line in results.into_iter().flatten() {
        if line.starts_with("none:") {
            missing += 1;
        }
        println!("{line}");
    }
    if missing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
