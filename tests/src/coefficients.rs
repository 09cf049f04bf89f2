//! Single-coefficient mutants: the last bit of one polynomial coefficient
//! flipped everywhere the lowered functions use it, nothing else
//! (`tests/coefficients.rs` checks that the corpus sees each one; the
//! `coefficients` binary searches inputs for those it does not).
//!
//! A coefficient is what `mutants::horner_coefficients` finds (the sites the
//! all-at-once `coefficient-bit` mutant flips), named by its element type and
//! its bits.

use std::collections::BTreeMap;

use aether_generator::corpus::ParsedFunction;
use aether_generator::interp;

use aether_generator::model::{Function, Model};
use aether_generator::mutants;

/// Whether `f` is one of the polynomials on their own (`[families.<name>_poly]`
/// in the spec), whose cases must see each of their coefficients.
pub fn is_polynomial(f: &Function) -> bool {
    f.family.ends_with("_poly")
}

/// The key of a coefficient: its element type's width and its bits.
pub fn key(v: f64, bits: u32) -> (u32, u64) {
    (bits, if bits == 32 { u64::from((v as f32).to_bits()) } else { v.to_bits() })
}

pub fn value((bits, word): (u32, u64)) -> f64 {
    if bits == 32 {
        f64::from(f32::from_bits(word as u32))
    } else {
        f64::from_bits(word)
    }
}

pub fn bits_of(model: &Model, f: &Function) -> u32 {
    model.spec.types.iter().find(|t| t.name == f.elem).unwrap().bits
}

/// Every coefficient of the lowered functions, with the indices of the
/// functions that use it.
pub fn all(model: &Model, lowered: &[Function]) -> BTreeMap<(u32, u64), Vec<usize>> {
    let mut out: BTreeMap<(u32, u64), Vec<usize>> = BTreeMap::new();
    for (i, f) in lowered.iter().enumerate() {
        let b = bits_of(model, f);
        let mut g = f.clone();
        g.map_exprs(&mut |e| {
            for v in mutants::horner_coefficients(&e) {
                let users = out.entry(key(v, b)).or_default();
                if !users.contains(&i) {
                    users.push(i);
                }
            }
            e
        });
    }
    out
}

/// `f` with coefficient `k`'s last bit flipped at every site.
pub fn flipped(f: &Function, k: (u32, u64)) -> Function {
    let v = value(k);
    let w = mutants::last_bit_flipped(v, k.0 == 32);
    let mut g = f.clone();
    g.map_exprs(&mut |e| mutants::coefficients_replaced(e, &|x| (x == v).then_some(w)));
    g
}

/// A coefficient for messages: `f32 0x3D2AAAAA (4.1666664e-2)`.
pub fn describe(k: (u32, u64)) -> String {
    format!("f{} 0x{:0w$X} ({:e})", k.0, k.1, value(k), w = (k.0 / 4) as usize)
}

/// Results equal under the comparison policy for these float functions (any
/// NaN for any NaN).
pub fn same(a: &[u64], b: &[u64], bits: u32) -> bool {
    aether_generator::policy::matches(a, b, bits, true, false)
}

/// The first committed corpus case, of any function in `users`, whose result
/// the mutant of coefficient `k` changes (`name: label`), or `None`. Panics
/// where the interpreter does not give a case's committed result, so that
/// what it decides is what the C core does.
pub fn seen_by(
    model: &Model,
    corpus: &BTreeMap<String, ParsedFunction>,
    lowered: &[Function],
    k: (u32, u64),
    users: &[usize],
) -> Option<String> {
    for &i in users {
        let f = &lowered[i];
        let b = bits_of(model, f);
        let g = flipped(f, k);
        let name = model.c_name(f);
        let cases = &corpus.get(&name).unwrap_or_else(|| panic!("no committed corpus for {name}")).cases;
        for case in cases {
            let want = interp::evaluate(f, b, &case.inputs);
            assert!(same(&want, &case.expected, b), "{name}: the interpreter disagrees with the corpus on `{}`", case.label);
            if !same(&interp::evaluate(&g, b, &case.inputs), &want, b) {
                return Some(format!("{name}: {}", case.label));
            }
        }
    }
    None
}
