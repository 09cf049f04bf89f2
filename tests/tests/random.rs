//! At least 100,000 random inputs per function, drawn across the whole
//! exponent range with specials, zeros and small integers mixed in: the C core
//! and the reference must agree under the comparison policy.

use aether_generator::kernel;
use aether_generator::model::{Callable, Kernel, KernelKind};
use aether_generator::rng::SplitMix64;
use aether_tests::{functions, hex, model, policy, width};

const PER_FUNCTION: usize = 100_000;
/// Random inputs per kernel: arrays of up to a few hundred elements each.
const PER_KERNEL: usize = 20_000;
/// Random matrices per linear-algebra routine, size and type (single form;
/// a many-lane form gets PER_KERNEL inputs of up to six lanes).
const PER_ROUTINE: usize = 100_000;

#[test]
fn random_inputs_match_the_reference() {
    let model = model();
    let fns = functions();
    let mut failures = Vec::new();
    let mut total = 0usize;
    let lowered = model.lowered();
    let (mut kernel_inputs, mut kernel_words) = (0usize, 0usize);
    for f in model.callables() {
        let name = f.c_name(&model);
        let c = fns.iter().find(|c| c.name == name).unwrap();
        let reference = aether_reference::flat::lookup(f.family(), f.shape(), f.elem()).unwrap();
        let w = width(f.elem());
        // A seed of its own, apart from the corpus's.
        let mut r = SplitMix64::for_name(&format!("random-test {name}"), 0);
        let n = match f.fixed_words() {
            Some((0, _)) => 1,
            Some(_) => PER_FUNCTION,
            None => match f {
                Callable::Kernel(Kernel { kind: KernelKind::Linalg { many: false, .. }, .. }) => PER_ROUTINE,
                _ => PER_KERNEL,
            },
        };
        let mut bad = 0;
        for _ in 0..n {
            let inputs = kernel::random_callable_input(&model, &lowered, f, &mut r);
            if f.fixed_words().is_none() {
                kernel_inputs += 1;
                kernel_words += inputs.len();
            }
            let (want, got) = (reference(&inputs), c.run(&inputs));
            if !policy::matches(&want, &got, w, f.is_float(), f.either_zero()) {
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
    println!(
        "random: {} functions, {total} inputs compared ({kernel_inputs} of them kernel inputs, {kernel_words} words), {} mismatch reports",
        model.callables().len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
