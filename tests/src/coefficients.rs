//! Single-coefficient mutants: the last bit of one polynomial coefficient
//! flipped everywhere the lowered functions use it, nothing else
//! (`tests/coefficients.rs` checks that the corpus sees each one; the
//! `coefficients` binary searches inputs for those it does not).
//!
//! A coefficient is a literal c of a Horner step `c + x * (...)` that is not
//! zero or a power of two (the sites the all-at-once `coefficient-bit` mutant
//! flips), and the innermost coefficient d of `c + x * d`. It is named by its
//! element type and its bits.

use std::collections::BTreeMap;

use aether_generator::dsl::BinOp;
use aether_generator::model::{Expr, Function, Model};

fn is_coefficient(v: f64) -> bool {
    v != 0.0 && v.abs().log2().fract() != 0.0
}

/// The coefficients of the Horner step at `e`, if it is one.
fn at(e: &Expr) -> Vec<f64> {
    let Expr::Bin(BinOp::Add, c, p) = e else { return Vec::new() };
    let (Expr::Lit(v), Expr::Bin(BinOp::Mul, _, d)) = (&**c, &**p) else { return Vec::new() };
    if !is_coefficient(*v) {
        return Vec::new();
    }
    let mut found = vec![*v];
    if let Expr::Lit(w) = **d {
        if is_coefficient(w) {
            found.push(w);
        }
    }
    found
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
            for v in at(&e) {
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
    let w = value((k.0, k.1 ^ 1));
    let swap = |x: &mut Box<Expr>| {
        if **x == Expr::Lit(v) {
            **x = Expr::Lit(w);
        }
    };
    let mut g = f.clone();
    g.map_exprs(&mut |e| {
        if at(&e).is_empty() {
            return e;
        }
        let Expr::Bin(BinOp::Add, mut c, p) = e else { unreachable!() };
        let Expr::Bin(BinOp::Mul, x, mut d) = *p else { unreachable!() };
        swap(&mut c);
        swap(&mut d);
        Expr::Bin(BinOp::Add, c, Box::new(Expr::Bin(BinOp::Mul, x, d)))
    });
    g
}

/// A coefficient for messages: `f32 0x3D2AAAAA (4.1666664e-2)`.
pub fn describe(k: (u32, u64)) -> String {
    format!("f{} 0x{:0w$X} ({:e})", k.0, k.1, value(k), w = (k.0 / 4) as usize)
}
