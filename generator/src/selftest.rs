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

/// A probe of the subnormal handling where a core runs: `a * b` in the
/// element type of `bits` must give `expected`. With `operand` false, `a` is
/// the smallest normal number and b = 1/2, so a flush of results (FTZ) gives
/// zero; with `operand` true, `a` is the smallest subnormal, so a flush of
/// operands (DAZ) gives zero.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub bits: u32,
    pub operand: bool,
    pub a: u64,
    pub b: u64,
    pub expected: u64,
}

/// The subnormal probes of every element type, computed here in IEEE
/// arithmetic (Rust neither flushes nor contracts).
pub fn subnormal_probes(model: &Model) -> Vec<Probe> {
    let mut out = Vec::new();
    for t in &model.spec.types {
        if t.bits == 32 {
            let (min, sub, big) = (f32::MIN_POSITIVE, f32::from_bits(1), 2f32.powi(f32::MANTISSA_DIGITS as i32));
            let w = |x: f32| u64::from(x.to_bits());
            out.push(Probe { bits: 32, operand: false, a: w(min), b: w(0.5), expected: w(min * 0.5) });
            out.push(Probe { bits: 32, operand: true, a: w(sub), b: w(big), expected: w(sub * big) });
        } else {
            let (min, sub, big) = (f64::MIN_POSITIVE, f64::from_bits(1), 2f64.powi(f64::MANTISSA_DIGITS as i32));
            out.push(Probe { bits: 64, operand: false, a: min.to_bits(), b: 0.5f64.to_bits(), expected: (min * 0.5).to_bits() });
            out.push(Probe { bits: 64, operand: true, a: sub.to_bits(), b: big.to_bits(), expected: (sub * big).to_bits() });
        }
    }
    out
}

/// Witnesses with more input words than this stay in the corpus only: the
/// self-test runs at every start-up and should take microseconds.
pub const MAX_WITNESS_WORDS: usize = 160;

/// Families per mutant and element type whose witness the self-test keeps.
/// Contraction can strike any function, so `fma` keeps one per family.
fn families_kept(m: Mutant) -> usize {
    // Contraction and the sign of a zero (`x * -1` against `0 - x` or, for a
    // difference, `b - a`: what -fno-signed-zeros lets a compiler do) have a
    // witness in every family that has one: a compiler applies them pattern
    // by pattern (clang 14, -fno-signed-zeros: `(a - b) * -1` into `b - a` in
    // inverse_adjugate's cofactors, while `x * -1` alone in neg keeps its bits).
    if matches!(m, Mutant::Fma | Mutant::NegSub | Mutant::NegSwap) {
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
/// on), the element types, the predicates' and integer helpers' typed steps,
/// and df64's operations and settings. Comments, documentation, key order and
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
    // The predicates' and the helpers' typed steps, and df64's operations,
    // map, guard and domain: a change to any of them changes the fingerprint.
    // (Steps without their comments.)
    let steps = |b: &crate::predicate::PBody| -> String { b.steps.iter().map(|st| format!("{} = {:?}; ", st.name, st.value)).collect() };
    let preds = &model.spec.predicates;
    for f in &preds.functions {
        s.push_str(&format!("int_function {} {:?} {:?} = {}\n", f.name, f.params, f.ret, steps(&f.body)));
    }
    for p in &preds.predicates {
        let forms = match &p.forms {
            crate::predicate::Forms::Two { golden, integer } => format!("golden {} integer {}", steps(golden), steps(integer)),
            crate::predicate::Forms::Derived(b) => format!("derived {}", steps(b)),
        };
        s.push_str(&format!("predicate {} {:?} {:?} = {forms}\n", p.name, p.params, p.domain));
    }
    if let Some(d) = &model.spec.df64 {
        s.push_str(&format!(
            "df64 {:?} exclude {:?} domain {:e} {:e} map {:?} renorm {}\n",
            d.targets, d.exclude, d.min_magnitude, d.max_magnitude, d.map, d.renorm
        ));
        for o in &d.ops {
            s.push_str(&format!("df64_op {} {:?} {:?} {:?} = {:?} -> {:?}\n", o.name, o.params, o.ret, o.bound, o.steps, o.out));
        }
    }
    s
}

/// The fingerprint: `<name> <version> <md5 of the canonical form>`.
pub fn contract_id(model: &Model) -> String {
    format!("{} {} {:x}", model.spec.name, model.spec.version, md5::compute(canonical_form(model).as_bytes()))
}
