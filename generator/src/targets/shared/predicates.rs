//! The predicates (`crate::predicate`) in every core: one walk over their
//! typed steps (`expr`, `steps`), which a target spells through `Spell`: the
//! C family in `c_family::predicates` (both forms; OpenCL C the golden ones
//! only under `cl_khr_fp64`), WGSL in its folder (the integer forms, every
//! i64 in two u32 limbs, since it has neither binary64 nor a 64-bit integer),
//! GLSL ES 3.00 in its folder (the same limbs, as a `uvec2`).

use std::fmt::Write;

use crate::dsl::{BinOp, BitOp};
use crate::predicate::{FTy, Form, IntTy, PBody, PExpr, PTy, Predicate, Predicates};

/// How a target spells the pieces of a predicate.
pub trait Spell {
    fn ty(&self, t: PTy) -> String;
    fn int(&self, t: IntTy, v: i128) -> String;
    fn float(&self, t: FTy, v: f64) -> String;
    fn truth(&self, b: bool) -> String {
        (if b { "true" } else { "false" }).to_string()
    }
    fn bin(&self, op: BinOp, t: PTy, a: &str, b: &str) -> String {
        let _ = t;
        format!("({a} {} {b})", op.symbol())
    }
    fn bits(&self, op: BitOp, t: IntTy, a: &str, b: &str) -> String {
        let _ = t;
        format!("({a} {} {b})", op.symbol())
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("({c} ? {a} : {b})")
    }
    fn conv(&self, to: PTy, from: PTy, a: &str) -> String;
    fn clz(&self, t: IntTy, a: &str) -> String;
    fn bind(&self, name: &str, t: PTy, v: &str) -> String;
}

pub fn expr(sp: &dyn Spell, form: Form, e: &PExpr) -> String {
    let go = |x: &PExpr| expr(sp, form, x);
    match e {
        PExpr::Int(t, v) => sp.int(*t, *v),
        PExpr::Float(t, v) => sp.float(*t, *v),
        PExpr::Bool(b) => sp.truth(*b),
        PExpr::Var(n, ..) => n.clone(),
        PExpr::Bin(op, t, a, b) => sp.bin(*op, *t, &go(a), &go(b)),
        PExpr::Bits(op, t, a, b) => sp.bits(*op, *t, &go(a), &go(b)),
        PExpr::Not(a) => format!("(!{})", go(a)),
        PExpr::Select(_, c, a, b) => sp.select(&go(c), &go(a), &go(b)),
        PExpr::Conv { to, from, arg } => sp.conv(*to, *from, &go(arg)),
        PExpr::Clz(t, a) => sp.clz(*t, &go(a)),
        PExpr::Call { name, predicate, args, .. } => {
            let args: Vec<String> = args.iter().map(go).collect();
            let callee = if *predicate { predicate_name(name, form) } else { helper_name(name) };
            format!("{callee}({})", args.join(", "))
        }
    }
}

pub fn helper_name(name: &str) -> String {
    format!("aether_int_{name}")
}

/// The function of one form of a predicate: `aether_angle_flag_integer`.
pub fn predicate_name(name: &str, form: Form) -> String {
    format!("aether_{name}_{}", form.name())
}

/// The commented steps of a body, then its `return`.
pub fn steps(sp: &dyn Spell, form: Form, b: &PBody, indent: &str) -> String {
    let mut s = String::new();
    for st in b.lets() {
        for c in &st.comment {
            let _ = writeln!(s, "{indent}/* {c} */");
        }
        let _ = writeln!(s, "{indent}{}", sp.bind(&st.name, st.value.ty(), &expr(sp, form, &st.value)));
    }
    let _ = writeln!(s, "{indent}return {};", expr(sp, form, b.result()));
    s
}

/// A comment block of a predicate's doc, domain and the form's statement.
pub fn doc_comment(p: &Predicate, form: Form) -> String {
    let mut s = format!("/* {} ({} form).\n", p.doc, form.name());
    if let Some(d) = &p.domain_source {
        let _ = writeln!(s, "   Domain: {d}.");
    }
    s.push_str("   The spec's statement:\n");
    // As written: the body language has no `*/`, and the spec refuses one in a
    // body's `#` comments and in the doc (names::check_text, the rule of every
    // text the cores print).
    for l in p.body(form).source.lines() {
        let _ = writeln!(s, "     {l}");
    }
    s.push_str(" */\n");
    s
}

/// Integer types whose `clz` a body calls, in first-use order.
pub fn clz_types(preds: &Predicates) -> Vec<IntTy> {
    let mut out: Vec<IntTy> = Vec::new();
    let mut see = |b: &PBody| {
        for st in &b.steps {
            st.value.walk(&mut |e| {
                if let PExpr::Clz(t, _) = e {
                    if !out.contains(t) {
                        out.push(*t);
                    }
                }
            });
        }
    };
    preds.functions.iter().for_each(|f| see(&f.body));
    for p in &preds.predicates {
        Form::BOTH.iter().for_each(|f| see(p.body(*f)));
    }
    out
}

/// Words of one argument where an i64 is two u32 limbs (low, high), as in
/// the WGSL and GLSL ES check modules; anything else one.
pub fn limb_words(t: PTy) -> usize {
    match t {
        PTy::Int(t) if t.bits == 64 => 2,
        _ => 1,
    }
}

/// A comment block (`/* .. */`, one or more lines) as `//` line comments,
/// one per line, each ending in a newline.
pub fn line_comments(c: &str) -> String {
    c.lines().map(|l| format!("// {}\n", l.trim_start_matches("/*").trim_end_matches("*/").trim())).collect()
}

/// The 64-bit signed integer type.
pub const I64: IntTy = IntTy { bits: 64, signed: true };
