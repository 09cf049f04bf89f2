//! What a core carries to check itself where it runs: the contract's
//! fingerprint, and the witness vectors its self-test replays.
//!
//! Witnesses are corpus cases labelled `discriminates <mutant>`: inputs on
//! which a plausible mistake in one rule of the spec gives other bits. A core
//! built so that one of those rules does not hold (a compiler that contracts,
//! reassociates or divides) fails at least one of them.

use crate::corpus::{self, Case};
use crate::model::{Callable, Model};
use crate::mutants::{self, Mutant};

/// A witness kept by the self-test: one corpus case of one callable.
#[derive(Debug, Clone, PartialEq)]
pub struct Witness {
    /// Index into `model.callables()`.
    pub callable: usize,
    pub c_name: String,
    pub mutant: Mutant,
    pub inputs: Vec<u64>,
    pub expected: Vec<u64>,
}

/// Witnesses with more input words than this stay in the corpus only: the
/// self-test runs at every start-up and should take microseconds.
pub const MAX_WITNESS_WORDS: usize = 160;

/// Families per mutant and element type whose witness the self-test keeps.
/// Contraction can strike any function, so `fma` keeps one per family.
fn families_kept(m: Mutant) -> usize {
    if m == Mutant::Fma {
        usize::MAX
    } else {
        2
    }
}

/// The self-test's witnesses, chosen from the corpus cases of each callable
/// (`cases_of` gives them by C name): for every mutant and element type, the
/// first witness of up to `families_kept` distinct families, in spec order.
/// `no-barrier` has no witness: without contraction it changes no bit.
pub fn witnesses(model: &Model, cases_of: &dyn Fn(&str) -> Option<Vec<Case>>) -> Vec<Witness> {
    let callables = model.callables();
    let mut out = Vec::new();
    for m in mutants::ALL {
        let label = format!("discriminates {}:", m.name());
        for t in &model.spec.types {
            let mut families: Vec<&str> = Vec::new();
            for (i, c) in callables.iter().enumerate() {
                if c.elem() != t.name || families.contains(&c.family()) || families.len() >= families_kept(m) {
                    continue;
                }
                let name = c.c_name(model);
                let Some(cases) = cases_of(&name) else { continue };
                let Some(case) = cases.iter().find(|k| k.label.contains(&label) && k.inputs.len() <= MAX_WITNESS_WORDS) else {
                    continue;
                };
                families.push(c.family());
                out.push(Witness { callable: i, c_name: name, mutant: m, inputs: case.inputs.clone(), expected: case.expected.clone() });
            }
        }
    }
    out
}

/// The canonical form of the contract: every callable's C name, signature,
/// comparison slack and lowered tree (or, for a kernel, what its bits depend
/// on), and the element types. Comments, documentation, key order and
/// spacing in the spec do not change it; any change to an operation does.
pub fn canonical_form(model: &Model) -> String {
    let lowered = model.lowered();
    let mut s = format!("{} {}\n", model.spec.name, model.spec.version);
    for t in &model.spec.types {
        s.push_str(&format!("type {} {} {}\n", t.name, t.c_type, t.bits));
    }
    for (i, c) in model.callables().into_iter().enumerate() {
        let tree = match c {
            Callable::Function(_) => mutants::canonical(&lowered[i]),
            Callable::Kernel(k) => corpus::kernel_signature(model, &lowered, k),
        };
        s.push_str(&format!("{} {} {} {} {} = {tree}\n", c.c_name(model), c.family(), c.shape(), c.elem(), c.either_zero()));
    }
    s
}

/// The fingerprint: `<name> <version> <md5 of the canonical form>`.
pub fn contract_id(model: &Model) -> String {
    format!("{} {} {:x}", model.spec.name, model.spec.version, md5::compute(canonical_form(model).as_bytes()))
}
