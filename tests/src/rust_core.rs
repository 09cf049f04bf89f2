//! The Rust core's check, shared by the in-process test (`tests/rust_core.rs`,
//! the core linked into the test) and the runner check
//! (`src/bin/rust_core_check.rs`, the core built for another target or
//! profile and driven through `aether-rust-check` on a pipe): which inputs
//! each callable gets, and how a result is judged against the reference.

use aether_generator::kernel;
use aether_generator::model::{Callable, Function, Kernel, KernelKind, Model};
use aether_generator::rng::SplitMix64;

use crate::{hex, policy, width};

/// Random inputs per function of fixed words (the issue asks for 10^5).
pub const PER_FUNCTION: usize = 100_000;
/// Random inputs per kernel over arrays (arrays of up to a few hundred
/// elements each, as in `tests/random.rs`).
pub const PER_KERNEL: usize = 20_000;

/// How many random inputs `c` gets when a fixed-word function gets
/// `per_function` (a kernel a fifth of that, a function of no input one).
pub fn random_count(c: Callable, per_function: usize) -> usize {
    match c.fixed_words() {
        Some((0, _)) => 1,
        Some(_) => per_function,
        None => match c {
            Callable::Kernel(Kernel { kind: KernelKind::Linalg { many: false, .. }, .. }) => per_function,
            _ => per_function.div_ceil(5),
        },
    }
}

/// The inputs of one callable: every corpus case, then `n` random inputs
/// from a seed of the Rust core's own.
pub fn inputs(model: &Model, lowered: &[Function], corpus: &crate::Corpus, c: Callable, n: usize) -> Vec<Vec<u64>> {
    let name = c.c_name(model);
    let mut all: Vec<Vec<u64>> = corpus.get(&name).map(|f| f.cases.iter().map(|k| k.inputs.clone()).collect()).unwrap_or_default();
    let mut r = SplitMix64::for_name(&format!("rust-core {name}"), 0);
    for _ in 0..n {
        all.push(kernel::random_callable_input(model, lowered, c, &mut r));
    }
    all
}

/// The tally of one callable on one build of the core.
#[derive(Debug, Default)]
pub struct Tally {
    pub cases: usize,
    pub mismatches: usize,
    /// The first few mismatches, described.
    pub first: Vec<String>,
}

impl Tally {
    /// Judges one result (`None`: the core refused the words) against the
    /// reference's.
    pub fn judge(&mut self, model: &Model, c: Callable, inputs: &[u64], want: &[u64], got: Option<&[u64]>) {
        self.cases += 1;
        let w = width(c.elem());
        let ok = got.is_some_and(|g| policy::matches(want, g, w, c.is_float(), c.either_zero()));
        if !ok {
            self.mismatches += 1;
            if self.first.len() < 3 {
                let got = got.map_or("refused".to_string(), |g| hex(g, w));
                self.first.push(format!("{}: inputs {} reference {} Rust core {got}", c.c_name(model), hex(inputs, w), hex(want, w)));
            }
        }
    }
}
