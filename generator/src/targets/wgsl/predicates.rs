//! The integer predicates in WGSL: the integer forms, every i64 in two u32
//! limbs (WGSL has neither binary64 nor a 64-bit integer), with the limb
//! helpers at the top of the file, their self-test, and the check module the
//! runner dispatches.

use std::fmt::Write;

use crate::dsl::{BinOp, BitOp};
use crate::model::Model;
use crate::predicate::{FTy, Form, IntTy, PTy};
use crate::targets::shared::predicates::{doc_comment, helper_name, limb_words, line_comments, predicate_name, steps, Spell, I64};

// ---------------------------------------------------------------------- WGSL

struct WSpell;

impl Spell for WSpell {
    fn ty(&self, t: PTy) -> String {
        match t {
            PTy::Bool => "bool".into(),
            PTy::Int(t) if t.bits == 64 => "vec2<u32>".into(),
            PTy::Int(t) => t.name(),
            PTy::Float(f) => unreachable!("the WGSL core prints integer forms only, not {}", f.name()),
        }
    }

    fn int(&self, t: IntTy, v: i128) -> String {
        if t.bits == 64 {
            let w = v as i64 as u64;
            format!("vec2<u32>(0x{:x}u, 0x{:x}u)", w as u32, (w >> 32) as u32)
        } else if t.signed {
            format!("{v}i")
        } else {
            format!("{v}u")
        }
    }

    fn float(&self, t: FTy, _: f64) -> String {
        unreachable!("the WGSL core prints integer forms only, not {}", t.name())
    }

    fn bin(&self, op: BinOp, t: PTy, a: &str, b: &str) -> String {
        match t {
            PTy::Int(t) if t.bits == 64 => match op {
                BinOp::Eq => format!("all({a} == {b})"),
                BinOp::Ne => format!("any({a} != {b})"),
                BinOp::Add => format!("aether_i64_add({a}, {b})"),
                BinOp::Sub => format!("aether_i64_sub({a}, {b})"),
                BinOp::Mul => format!("aether_i64_mul({a}, {b})"),
                BinOp::Lt => format!("aether_i64_lt({a}, {b})"),
                BinOp::Gt => format!("aether_i64_lt({b}, {a})"),
                BinOp::Le => format!("(!aether_i64_lt({b}, {a}))"),
                BinOp::Ge => format!("(!aether_i64_lt({a}, {b}))"),
                _ => unreachable!("typed: no {} of integers", op.symbol()),
            },
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }

    fn bits(&self, op: BitOp, t: IntTy, a: &str, b: &str) -> String {
        match (t.bits, op) {
            (64, BitOp::Shl) => format!("aether_i64_shl({a}, {b})"),
            (64, BitOp::Shr) => format!("aether_i64_shr({a}, {b})"),
            (32, BitOp::Shl | BitOp::Shr) => format!("({a} {} u32({b}))", op.symbol()),
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }

    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("select({b}, {a}, {c})")
    }

    fn conv(&self, to: PTy, from: PTy, a: &str) -> String {
        match (to, from) {
            (PTy::Int(t), PTy::Int(f)) if t == I64 && f.bits == 32 && f.signed => format!("aether_i64_from_i32({a})"),
            (PTy::Int(t), PTy::Int(f)) if t == I64 && f.bits == 32 => format!("vec2<u32>({a}, 0u)"),
            (PTy::Int(t), PTy::Int(f)) if t == f => a.to_string(),
            _ => unreachable!("no WGSL conversion {from} -> {to} in an integer form"),
        }
    }

    fn clz(&self, t: IntTy, a: &str) -> String {
        if t.bits == 64 {
            format!("aether_i64_clz({a})")
        } else {
            format!("{}(countLeadingZeros({a}))", t.name())
        }
    }

    fn bind(&self, name: &str, t: PTy, v: &str) -> String {
        format!("let {name}: {} = {v};", self.ty(t))
    }
}

/// The limb arithmetic of i64 in WGSL: (low, high) u32 words, two's
/// complement; products from 16-bit pieces, carries explicit. Shift amounts
/// are 0..63 (the spec's domain), taken from the low word.
const WGSL_LIMBS: &str = "// i64 as vec2<u32>(low, high), two's complement. WGSL has no 64-bit integer: every
// operation is written out on the limbs.
fn aether_i64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn aether_i64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

// The full 64-bit product of two u32, from four 16 x 16-bit products.
fn aether_u32_mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// The low 64 bits of the product (the exact product inside the domain).
fn aether_i64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = aether_u32_mul_wide(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

fn aether_i64_shl(a: vec2<u32>, s: vec2<u32>) -> vec2<u32> {
    let n = s.x;
    if (n == 0u) {
        return a;
    }
    if (n >= 32u) {
        return vec2<u32>(0u, a.x << (n - 32u));
    }
    return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

// Arithmetic shift right (the spec shifts non-negative values only).
fn aether_i64_shr(a: vec2<u32>, s: vec2<u32>) -> vec2<u32> {
    let n = s.x;
    let hi = bitcast<i32>(a.y);
    if (n == 0u) {
        return a;
    }
    if (n >= 32u) {
        return vec2<u32>(bitcast<u32>(hi >> (n - 32u)), bitcast<u32>(hi >> 31u));
    }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), bitcast<u32>(hi >> n));
}

fn aether_i64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    return ah < bh || (ah == bh && a.x < b.x);
}

fn aether_i64_clz(a: vec2<u32>) -> vec2<u32> {
    if (a.y != 0u) {
        return vec2<u32>(countLeadingZeros(a.y), 0u);
    }
    return vec2<u32>(32u + countLeadingZeros(a.x), 0u);
}

fn aether_i64_from_i32(x: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0i));
}
";

/// The predicates' integer forms in WGSL (`wgsl_core/aether_predicate.wgsl`).
pub fn wgsl(model: &Model, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let sp = WSpell;
    let mut s = String::new();
    s.push_str(&line_comments(banner));
    s.push_str(
        "// The spec's predicates, integer forms: no floating point and no 64-bit integer, so they run
// on every WebGPU device; each returns the answer of the frozen floating-point (golden) form on
// every input of its domain (the C core has both forms). Include this file in a module that
// uses it.

",
    );
    s.push_str(WGSL_LIMBS);
    s.push('\n');
    for f in &preds.functions {
        let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, sp.ty(p.ty))).collect();
        let _ = writeln!(s, "// {}", f.doc);
        let _ = writeln!(s, "fn {}({}) -> {} {{", helper_name(&f.name), params.join(", "), sp.ty(f.ret));
        s.push_str(&steps(&sp, Form::Integer, &f.body, "    ").replace("/* ", "// ").replace(" */", ""));
        s.push_str("}\n\n");
    }
    for p in &preds.predicates {
        if p.uses_float(preds, Form::Integer) {
            continue;
        }
        s.push_str(&line_comments(&doc_comment(p, Form::Integer)));
        let params: Vec<String> = p.params.iter().map(|q| format!("{}: {}", q.name, sp.ty(q.ty))).collect();
        let _ = writeln!(s, "fn {}({}) -> bool {{", predicate_name(&p.name, Form::Integer), params.join(", "));
        s.push_str(&steps(&sp, Form::Integer, p.body(Form::Integer), "    ").replace("/* ", "// ").replace(" */", ""));
        s.push_str("}\n\n");
    }
    s.push_str(&wgsl_selftest(model));
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

/// The WGSL self-test: every witness on every integer form; the number of
/// wrong answers.
fn wgsl_selftest(model: &Model) -> String {
    let preds = &model.spec.predicates;
    let sp = WSpell;
    let mut s = String::from("// The predicates' self-test: every witness on the integer forms; the number of wrong answers.\n");
    let mut body = String::new();
    for p in preds.predicates.iter().filter(|p| !p.uses_float(preds, Form::Integer)) {
        let w = crate::predicate_corpus::witnesses(&p.name);
        if w.is_empty() {
            continue;
        }
        let n = p.params.len();
        let _ = writeln!(s, "const aether_predicate_witness_{}: array<array<vec2<u32>, {}>, {}> = array(", p.name, n + 1, w.len());
        for (a, ans) in &w {
            let words: Vec<String> = a.iter().chain(std::iter::once(&i64::from(*ans))).map(|x| sp.int(I64, i128::from(*x))).collect();
            let _ = writeln!(s, "    array({}),", words.join(", "));
        }
        s.push_str(");\n");
        let args: Vec<String> = (0..n).map(|k| format!("w[{k}]")).collect();
        let _ = writeln!(
            body,
            "    var table_{name} = aether_predicate_witness_{name};\n    for (var k = 0u; k < {len}u; k++) {{\n        let w = table_{name}[k];\n        if ({f}({args}) != (w[{n}].x == 1u)) {{ bad++; }}\n    }}",
            len = w.len(),
            name = p.name,
            f = predicate_name(&p.name, Form::Integer),
            args = args.join(", ")
        );
    }
    let _ = writeln!(s, "fn aether_predicate_selftest() -> u32 {{\n    var bad = 0u;\n{body}    return bad;\n}}\n");
    s
}

/// Words of one argument in the WGSL check module: an i64 is two (low,
/// high), anything else one.
pub fn wgsl_words(t: PTy) -> usize {
    limb_words(t)
}

/// The WGSL check module of the predicates' integer forms, in the binding
/// convention of `wgsl::check_module`: entry `check_predicate_<name>` reads
/// its arguments from `aether_in` (`wgsl_words` words each) and writes 1 or
/// 0 to `aether_out`.
pub fn wgsl_check_module(model: &Model) -> crate::targets::shared::check::CheckModule {
    let preds = &model.spec.predicates;
    let mut src = String::from(
        "@group(0) @binding(0) var<storage, read> aether_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;
@group(0) @binding(2) var<uniform> aether_params: vec4<u32>;

",
    );
    src.push_str(&wgsl(model, "/* the predicates' check module */"));
    let mut entries = Vec::new();
    for p in preds.predicates.iter().filter(|p| !p.uses_float(preds, Form::Integer)) {
        let n_in: usize = p.params.iter().map(|q| wgsl_words(q.ty)).sum();
        let entry = format!("check_predicate_{}", p.name);
        let _ = writeln!(src, "\n@compute @workgroup_size(64)\nfn {entry}(@builtin(global_invocation_id) aether_gid: vec3<u32>) {{");
        src.push_str("    let aether_i = aether_params.w + aether_gid.x;\n    if (aether_i >= aether_params.x) { return; }\n");
        let _ = writeln!(src, "    let aether_base = aether_i * {n_in}u;");
        let mut at = 0;
        for q in &p.params {
            let v = match q.ty {
                PTy::Int(t) if t.bits == 64 => format!("vec2<u32>(aether_in[aether_base + {at}u], aether_in[aether_base + {}u])", at + 1),
                PTy::Int(t) if t.signed => format!("bitcast<i32>(aether_in[aether_base + {at}u])"),
                _ => format!("aether_in[aether_base + {at}u]"),
            };
            let _ = writeln!(src, "    let {} = {v};", q.name);
            at += wgsl_words(q.ty);
        }
        let args: Vec<&str> = p.params.iter().map(|q| q.name.as_str()).collect();
        let _ = writeln!(
            src,
            "    aether_out[aether_i] = select(0u, 1u, {}({}));\n}}",
            predicate_name(&p.name, Form::Integer),
            args.join(", ")
        );
        entries.push(crate::targets::shared::check::CheckEntry {
            entry,
            c_name: format!("aether_predicate_{}", p.name),
            family: p.name.clone(),
            shape: "predicate".into(),
            elem: "i64".into(),
            n_in,
            n_out: 1,
            workgroup_size: 64,
            cases_per_workgroup: 64,
            random: false,
            max_random: None,
        });
    }
    src.push_str(
        "\n@compute @workgroup_size(64)\nfn check_predicate_selftest(@builtin(global_invocation_id) aether_gid: vec3<u32>) {\n    if (aether_gid.x == 0u) { aether_out[0] = aether_predicate_selftest(); }\n}\n",
    );
    entries.push(crate::targets::shared::check::CheckEntry {
        entry: "check_predicate_selftest".into(),
        c_name: "aether_predicate_selftest".into(),
        family: "selftest".into(),
        shape: "predicate".into(),
        elem: "i64".into(),
        n_in: 0,
        n_out: 1,
        workgroup_size: 64,
        cases_per_workgroup: 64,
        random: false,
        max_random: None,
    });
    crate::targets::shared::check::CheckModule { source: src, entries }
}
