//! At least 100,000 random inputs per function, drawn across the whole
//! exponent range with specials, zeros and small integers mixed in: the C core
//! and the reference must agree under the comparison policy.

use aether_generator::rng::{self, SplitMix64};
use aether_tests::{functions, hex, model, policy, width};

const PER_FUNCTION: usize = 100_000;

#[test]
fn random_inputs_match_the_reference() {
    let model = model();
    let fns = functions();
    let mut failures = Vec::new();
    let mut total = 0usize;
    for f in &model.functions {
        let name = model.c_name(f);
        let c = fns.iter().find(|c| c.name == name).unwrap();
        let reference = aether_reference::flat::lookup(&f.family, &f.shape, &f.elem).unwrap();
        let w = width(&f.elem);
        // A seed of its own, apart from the corpus's.
        let mut r = SplitMix64::for_name(&format!("random-test {name}"), 0);
        let n = if f.input_words() == 0 { 1 } else { PER_FUNCTION };
        let mut bad = 0;
        for _ in 0..n {
            let inputs = rng::input(&mut r, w, f.input_words());
            let (want, got) = (reference(&inputs), c.run(&inputs));
            if !policy::matches(&want, &got, w, !f.returns_bool(), f.either_zero) {
                bad += 1;
                if bad <= 3 {
                    failures.push(format!("{name}: inputs {} reference {} C {}", hex(&inputs, w), hex(&want, w), hex(&got, w)));
                }
            }
        }
        total += n;
        if bad > 3 {
            failures.push(format!("{name}: {bad} mismatches in all"));
        }
    }
    println!("random: {} functions, {total} inputs compared, {} mismatch reports", model.functions.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
