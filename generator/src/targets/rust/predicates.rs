//! The integer predicates in the Rust core (`rust_core/src/predicate.rs`):
//! both forms of every predicate of the spec, printed by the shared walk of
//! `shared::predicates` with Rust's spelling, their helpers, and the
//! self-test over the named witnesses.
//!
//! Rust's facts: `as` from an integer to a float rounds to nearest, ties to
//! even (the narrowing the golden forms need); unsigned arithmetic is spelled
//! wrapping (C's unsigned arithmetic is modulo 2^n; Rust's plain operators
//! would panic in a debug build), signed arithmetic plain (the spec's
//! evaluator refuses a signed overflow, as C leaves it undefined);
//! `leading_zeros` is defined at 0.

use std::fmt::Write;

use crate::dsl::BinOp;
use crate::model::Model;
use crate::predicate::{FTy, Form, IntTy, PTy, Predicates};
use crate::spec::ElemType;
use crate::targets::shared::predicates::{helper_name, predicate_name, steps, Spell, I64};

#[derive(Debug)]
pub struct RustSpell<'a> {
    pub f32: &'a ElemType,
    pub f64: &'a ElemType,
}

impl Spell for RustSpell<'_> {
    fn ty(&self, t: PTy) -> String {
        match t {
            PTy::Bool => "bool".into(),
            PTy::Float(FTy::F32) => "f32".into(),
            PTy::Float(FTy::F64) => "f64".into(),
            PTy::Int(t) => t.name(),
        }
    }
    fn int(&self, t: IntTy, v: i128) -> String {
        let ty = t.name();
        if t.signed && v == t.min() {
            return format!("{ty}::MIN");
        }
        if v < 0 {
            format!("(-{}_{ty})", v.unsigned_abs())
        } else {
            format!("{v}_{ty}")
        }
    }
    fn float(&self, t: FTy, v: f64) -> String {
        crate::targets::rust::literal(v, if t == FTy::F32 { self.f32 } else { self.f64 })
    }
    fn bin(&self, op: BinOp, t: PTy, a: &str, b: &str) -> String {
        match (t, op) {
            (PTy::Int(IntTy { signed: false, .. }), BinOp::Add) => format!("{a}.wrapping_add({b})"),
            (PTy::Int(IntTy { signed: false, .. }), BinOp::Sub) => format!("{a}.wrapping_sub({b})"),
            (PTy::Int(IntTy { signed: false, .. }), BinOp::Mul) => format!("{a}.wrapping_mul({b})"),
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("(if {c} {{ {a} }} else {{ {b} }})")
    }
    fn conv(&self, to: PTy, from: PTy, a: &str) -> String {
        match (to, from) {
            (PTy::Bool, _) => format!("({a} != 0)"),
            (PTy::Int(i), PTy::Bool) => format!("{}::from({a})", i.name()),
            _ => format!("({a} as {})", self.ty(to)),
        }
    }
    fn clz(&self, t: IntTy, a: &str) -> String {
        format!("({a}.leading_zeros() as {})", t.name())
    }
    fn bind(&self, name: &str, t: PTy, v: &str) -> String {
        format!("let {name}: {} = {v};", self.ty(t))
    }
}

fn spell(model: &Model) -> RustSpell<'_> {
    let elem = |bits: u32| model.spec.types.iter().find(|t| t.bits == bits).expect("f32 and f64 are declared");
    RustSpell { f32: elem(32), f64: elem(64) }
}

/// A rustdoc comment of a predicate's doc and its spec statement.
fn doc(p: &crate::predicate::Predicate, form: Form) -> String {
    let mut s = String::new();
    let esc = |t: &str| t.replace('[', "\\[").replace(']', "\\]");
    let _ = writeln!(s, "/// {} ({} form).", esc(&p.doc), form.name());
    if let Some(d) = &p.domain_source {
        let _ = writeln!(s, "///\n/// Domain: `{d}`.");
    }
    s.push_str("///\n/// The spec's statement:\n/// ```text\n");
    for l in p.body(form).source.lines() {
        let _ = writeln!(s, "/// {}", l.trim_end());
    }
    s.push_str("/// ```\n");
    s
}

/// `rust_core/src/predicate.rs`.
pub fn source(model: &Model, banner: &str) -> String {
    let preds: &Predicates = &model.spec.predicates;
    let sp = spell(model);
    let mut s = format!("{banner}\n\n// The spec's predicates (included by lib.rs): each decision in two forms that answer the same on\n// every input of its domain; the integer form uses no floating point.\n\n");
    for f in &preds.functions {
        let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, sp.ty(p.ty))).collect();
        let _ = writeln!(s, "/// {}", f.doc.replace('[', "\\[").replace(']', "\\]"));
        let _ = writeln!(s, "#[inline]\npub fn {}({}) -> {} {{", helper_name(&f.name), params.join(", "), sp.ty(f.ret));
        s.push_str(&steps(&sp, Form::Integer, &f.body, "    "));
        s.push_str("}\n\n");
    }
    for p in &preds.predicates {
        for form in Form::BOTH {
            s.push_str(&doc(p, form));
            let params: Vec<String> = p.params.iter().map(|q| format!("{}: {}", q.name, sp.ty(q.ty))).collect();
            let _ = writeln!(s, "#[inline]\npub fn {}({}) -> bool {{", predicate_name(&p.name, form), params.join(", "));
            s.push_str(&steps(&sp, form, p.body(form), "    "));
            s.push_str("}\n\n");
        }
    }
    s.push_str(&selftest(model, &sp));
    s
}

/// `aether_predicate_selftest()`: every witness on both forms; the number
/// of wrong answers.
fn selftest(model: &Model, sp: &RustSpell) -> String {
    let preds = &model.spec.predicates;
    let mut s = String::from(
        "/// The predicates' self-test: the named witnesses (each tells a rounding rule of the narrowing\n/// or of the 53-bit product apart, or sits on a side of the boundary), both forms on each.\n/// Returns the number of wrong answers: 0 when all is well.\npub fn aether_predicate_selftest() -> u32 {\n    let mut bad: u32 = 0;\n",
    );
    for p in &preds.predicates {
        let w = crate::predicate_corpus::witnesses(&p.name);
        if w.is_empty() {
            continue;
        }
        let n = p.params.len();
        let _ = writeln!(s, "    let witnesses: [([i64; {n}], bool); {}] = [", w.len());
        for (a, ans) in &w {
            let words: Vec<String> = a.iter().map(|x| sp.int(I64, i128::from(*x))).collect();
            let _ = writeln!(s, "        ([{}], {ans}),", words.join(", "));
        }
        s.push_str("    ];\n    for (a, want) in witnesses {\n");
        let args: Vec<String> = p.params.iter().enumerate().map(|(k, q)| format!("a[{k}] as {}", sp.ty(q.ty))).collect();
        for form in Form::BOTH {
            let _ = writeln!(s, "        bad += u32::from({}({}) != want);", predicate_name(&p.name, form), args.join(", "));
        }
        s.push_str("    }\n");
    }
    s.push_str("    bad\n}\n");
    s
}

/// The predicates' entries of `rust_core/check/flat.rs`: each form over
/// 64-bit words (two's complement patterns of the arguments).
pub fn flat(model: &Model) -> Vec<String> {
    let preds = &model.spec.predicates;
    let sp = spell(model);
    let mut out = Vec::new();
    let mut rows = Vec::new();
    for p in &preds.predicates {
        let mut names = Vec::new();
        for form in Form::BOTH {
            let thunk = format!("pflat_{}_{}", p.name, form.name());
            let args: Vec<String> = p.params.iter().enumerate().map(|(k, q)| format!("w[{k}] as i64 as {}", sp.ty(q.ty))).collect();
            out.push(format!("fn {thunk}(w: &[u64]) -> bool {{"));
            out.push(format!("    {}({})", predicate_name(&p.name, form), args.join(", ")));
            out.push("}".into());
            out.push(String::new());
            names.push(thunk);
        }
        rows.push(format!("    (\"{}\", {}, {}, {}),", p.name, p.params.len(), names[0], names[1]));
    }
    out.push("/// Every predicate: (name, arguments, golden form, integer form).".into());
    out.push("pub const PREDICATES: &[(&str, usize, fn(&[u64]) -> bool, fn(&[u64]) -> bool)] = &[".into());
    out.extend(rows);
    out.push("];".into());
    out
}
