//! Finds a corpus probe for a mutant that survives: builds the C core of one
//! mutant rule, runs it beside the linked core (the contract's) on random
//! inputs of one function, and prints the first inputs where their results
//! differ, as the values of a case line for `spec/aether.toml`.
//!
//! ```text
//! cargo run --release -p aether-tests --bin probe -- MUTANT C_NAME [TRIES]
//! cargo run --release -p aether-tests --bin probe -- fma aether_f32_atan2
//! ```
//!
//! The inputs are the random test's (`kernel::random_callable_input`), from a
//! seed of the probe's own; or, with AETHER_PROBE_RANGES="lo:hi,lo:hi,..."
//! (one interval per input word), each word uniform in its own interval, to
//! aim where a rounding is fragile (pow: `1.1:1.139,-5000:5000`). Exits 0 with the inputs when the results differ,
//! 1 when TRIES inputs (default 10^7) give the same bits, 2 on a usage error.
//! The mutants test (`tests/tests/mutants.rs`) names the survivors.

use std::process::ExitCode;

use aether_generator::{kernel, mutants, output, rng::SplitMix64, targets};
use aether_tests::{compile_core, functions, hex, model, mutant_flags, policy, thunk, width, witnesses, CC};

/// One input word as the corpus writes a value: the shortest decimal that
/// reads back to the same float of the element type.
fn value(word: u64, elem: &str) -> String {
    let v = if elem == "f32" { format!("{:?}", f32::from_bits(word as u32)) } else { format!("{:?}", f64::from_bits(word)) };
    if v == "NaN" {
        "nan".into()
    } else {
        v
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mname), Some(fname)) = (args.first(), args.get(1)) else {
        eprintln!("usage: probe MUTANT C_NAME [TRIES]");
        return ExitCode::from(2);
    };
    let tries: u64 = match args.get(2).map(|s| s.parse()) {
        None => 10_000_000,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("probe: TRIES must be a count");
            return ExitCode::from(2);
        }
    };
    let Some(m) = mutants::Mutant::from_name(mname) else {
        let names: Vec<_> = mutants::ALL.iter().map(|m| m.name()).collect();
        eprintln!("probe: no mutant `{mname}` (one of {})", names.join(", "));
        return ExitCode::from(2);
    };
    let model = model();
    let lowered = model.lowered();
    let Some(f) = model.callables().into_iter().find(|f| f.c_name(&model) == *fname) else {
        eprintln!("probe: no function `{fname}`");
        return ExitCode::from(2);
    };
    let (mutant_model, mutated) = m.build(&model).expect("the mutant builds");
    let (h, c) = targets::c::render_core(&mutant_model, &mutated, &output::banner(&model), &witnesses(&model)).expect("the mutant renders");
    let dir = std::env::temp_dir().join(format!("aether-probe-{}", std::process::id()));
    let lib = compile_core(&dir, &h, &c, CC, &mutant_flags());
    let fns = functions();
    let linked = fns.iter().find(|c| c.name == *fname).expect("the linked core has the function");
    let mutant = thunk(&lib, fname);
    let w = width(f.elem());
    let mut r = SplitMix64::for_name(&format!("probe {mname} {fname}"), 0);
    let ranges = aether_tests::ranges_from_env("AETHER_PROBE_RANGES");
    for i in 0..tries {
        let inputs = if ranges.is_empty() {
            kernel::random_callable_input(&model, &lowered, f, &mut r)
        } else {
            ranges
                .iter()
                .map(|&(lo, hi)| {
                    let x = lo + (hi - lo) * ((r.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
                    if f.elem() == "f32" {
                        u64::from((x as f32).to_bits())
                    } else {
                        x.to_bits()
                    }
                })
                .collect()
        };
        let (want, got) = (linked.run(&inputs), (linked.call)(mutant, &inputs));
        if !policy::matches(&want, &got, w, f.is_float(), f.either_zero()) {
            let values: Vec<_> = inputs.iter().map(|&x| value(x, f.elem())).collect();
            println!("probe: {mname} moves {fname} after {} inputs", i + 1);
            println!("probe: inputs {} contract {} mutant {}", hex(&inputs, w), hex(&want, w), hex(&got, w));
            println!("{}", values.join(", "));
            let _ = std::fs::remove_dir_all(&dir);
            return ExitCode::SUCCESS;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("probe: {mname} gives {fname}'s bits on {tries} inputs");
    ExitCode::from(1)
}
