//! The predicates (`crate::predicate`) in every core: one walk over their
//! typed steps, spelled by the C family (C, CUDA, OpenCL C) or by WGSL.
//!
//! The C family prints both forms (OpenCL C the golden ones only under
//! `cl_khr_fp64`); WGSL, which has neither binary64 nor a 64-bit integer,
//! prints the integer forms with every i64 in two u32 limbs, through the
//! limb helpers at the top of its file.

use std::fmt::Write;

use crate::dsl::{BinOp, BitOp};
use crate::model::Model;
use crate::predicate::{FTy, Form, IntTy, PBody, PExpr, PTy, Predicate, Predicates};
use crate::spec::ElemType;

/// How a target spells the pieces of a predicate.
trait Spell {
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

fn expr(sp: &dyn Spell, form: Form, e: &PExpr) -> String {
    let go = |x: &PExpr| expr(sp, form, x);
    match e {
        PExpr::Int(t, v) => sp.int(*t, *v),
        PExpr::Float(t, v) => sp.float(*t, *v),
        PExpr::Bool(b) => sp.truth(*b),
        PExpr::Var(n, _) => n.clone(),
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
fn steps(sp: &dyn Spell, form: Form, b: &PBody, indent: &str) -> String {
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
fn doc_comment(p: &Predicate, form: Form) -> String {
    let mut s = format!("/* {} ({} form).\n", p.doc, form.name());
    if let Some(d) = &p.domain_source {
        let _ = writeln!(s, "   Domain: {d}.");
    }
    s.push_str("   The spec's statement:\n");
    for l in p.body(form).source.lines() {
        let _ = writeln!(s, "     {}", l.replace("*/", "* /"));
    }
    s.push_str(" */\n");
    s
}

/// Integer types whose `clz` a body calls, in first-use order.
fn clz_types(preds: &Predicates) -> Vec<IntTy> {
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

// ------------------------------------------------------------------ C family

/// The dialects of the C family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CFamily {
    C,
    Cuda,
    OpenCl,
}

struct CSpell<'a> {
    d: CFamily,
    preds: &'a Predicates,
    f32: &'a ElemType,
    f64: &'a ElemType,
}

impl Spell for CSpell<'_> {
    fn ty(&self, t: PTy) -> String {
        match (self.d, t) {
            (_, PTy::Bool) => "int".into(),
            (_, PTy::Float(FTy::F32)) => "float".into(),
            (_, PTy::Float(FTy::F64)) => "double".into(),
            (CFamily::OpenCl, PTy::Int(t)) => match (t.bits, t.signed) {
                (64, true) => "long".into(),
                (64, false) => "ulong".into(),
                (_, true) => "int".into(),
                (_, false) => "uint".into(),
            },
            (_, PTy::Int(t)) => self.preds.c_type(t).to_string(),
        }
    }

    fn int(&self, t: IntTy, v: i128) -> String {
        let mag = if v.unsigned_abs() > 0xffff { format!("0x{:X}", v.unsigned_abs()) } else { v.unsigned_abs().to_string() };
        let lit = match self.d {
            CFamily::OpenCl => format!(
                "{mag}{}",
                if t.bits == 64 {
                    "L"
                } else if t.signed {
                    ""
                } else {
                    "U"
                }
            ),
            _ => format!("{}INT{}_C({mag})", if t.signed { "" } else { "U" }, t.bits),
        };
        if v < 0 {
            format!("(-{lit})")
        } else {
            lit
        }
    }

    fn float(&self, t: FTy, v: f64) -> String {
        let elem = if t == FTy::F32 { self.f32 } else { self.f64 };
        let lit = super::c::literal(v, elem);
        if self.d != CFamily::C || !lit.contains("0x") {
            return lit;
        }
        // C++11 has no hexadecimal float: the value as the quotient of two
        // exact decimals, an odd integer and a power of two (both exact in
        // the type, so the quotient is exact and folded at compile time).
        let bits = v.abs().to_bits();
        let (mut m, mut e) = ((bits & ((1 << 52) - 1)) | (1 << 52), ((bits >> 52) & 0x7ff) as i32 - 1075);
        while m % 2 == 0 {
            m /= 2;
            e += 1;
        }
        let s = &elem.literal_suffix;
        let sign = if v.is_sign_negative() { "-" } else { "" };
        match e {
            e if e >= 0 => lit,
            e if e > -127 => format!("({sign}{m}.0{s} / {}.0{s})", 1u128 << -e),
            _ => lit,
        }
    }

    fn bin(&self, op: BinOp, t: PTy, a: &str, b: &str) -> String {
        match (self.d, t, op) {
            // On the device, each rounded operation is its round-to-nearest
            // intrinsic, which nvcc never contracts.
            (CFamily::Cuda, PTy::Float(f), BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) => {
                format!("aether_pred_{}_{}({a}, {b})", cuda_verb(op), f.name())
            }
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }

    fn conv(&self, to: PTy, from: PTy, a: &str) -> String {
        match (self.d, to, from) {
            (CFamily::Cuda, PTy::Float(f), PTy::Int(i)) => format!("aether_pred_{}_to_{}({a})", i.name(), f.name()),
            // OpenCL C spells the rounding of an integer's narrowing.
            (CFamily::OpenCl, PTy::Float(t), PTy::Int(_)) => format!("convert_{}_rte({a})", if t == FTy::F32 { "float" } else { "double" }),
            _ => format!("(({}){a})", self.ty(to)),
        }
    }

    fn clz(&self, t: IntTy, a: &str) -> String {
        match self.d {
            CFamily::OpenCl => format!("clz({a})"),
            _ => format!("aether_clz_{}({a})", t.name()),
        }
    }

    fn bind(&self, name: &str, t: PTy, v: &str) -> String {
        format!("const {} {name} = {v};", self.ty(t))
    }
}

fn cuda_verb(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        _ => "div",
    }
}

/// The CUDA core's rounded operations and integer narrowings of the
/// predicates: the `_rn` intrinsics on the device, plain C on the host.
fn cuda_ops() -> String {
    let mut s = String::from("/* Each rounded operation of a golden form: the round-to-nearest intrinsic on the device (never\n   contracted), the plain operator on the host. */\n");
    for (t, l) in [("f32", ("float", "f")), ("f64", ("double", "d"))] {
        for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
            let v = cuda_verb(op);
            let intr = if t == "f32" && op == BinOp::Div { "__fdiv_rn".to_string() } else { format!("__{}{v}_rn", l.1) };
            let _ = writeln!(
                s,
                "static __host__ __device__ inline {ty} aether_pred_{v}_{t}({ty} a, {ty} b) {{\n#if defined(__CUDA_ARCH__)\n    return {intr}(a, b);\n#else\n    return a {} b;\n#endif\n}}",
                op.symbol(),
                ty = l.0
            );
        }
        for (i, c, intr) in [("i64", "int64_t", "ll"), ("i32", "int32_t", "int")] {
            let _ = writeln!(
                s,
                "static __host__ __device__ inline {ty} aether_pred_{i}_to_{t}({c} x) {{\n#if defined(__CUDA_ARCH__)\n    return __{intr}2{}_rn(x);\n#else\n    return ({ty})x;\n#endif\n}}",
                if t == "f32" { "float" } else { "double" },
                ty = l.0
            );
        }
    }
    s.push('\n');
    s
}

/// The predicates' file of a C-family core.
pub fn c_family(model: &Model, d: CFamily, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let elem = |n: &str| model.spec.types.iter().find(|t| t.name == n).expect("f32 and f64 are declared");
    let sp = CSpell { d, preds, f32: elem("f32"), f64: elem("f64") };
    let (guard, qual) = match d {
        CFamily::C => ("AETHER_PREDICATE_H", "static inline"),
        CFamily::Cuda => ("AETHER_PREDICATE_CUH", "static __host__ __device__ inline"),
        CFamily::OpenCl => ("AETHER_PREDICATE_CL", "static inline"),
    };
    let mut s = String::new();
    let _ = writeln!(s, "{banner}");
    let _ = writeln!(s, "#ifndef {guard}\n#define {guard}\n");
    s.push_str(match d {
        CFamily::C | CFamily::Cuda => {
            "/* The spec's predicates: each decision in two forms that return the same answer on every
   input of its domain. aether_<name>_golden is the frozen floating-point expression; it needs
   round-to-nearest and float and double operations rounded in their own type (it refuses
   FLT_EVAL_METHOD != 0) and contains no sum, so contraction cannot change it.
   aether_<name>_integer uses no floating point at all (define AETHER_PREDICATE_NO_FLOAT to leave
   the golden forms out, for a build that must contain no floating-point operation). Every
   function is static inline: include this header where it is used. Results are 1 or 0. */
#include <stdint.h>
#if !defined(AETHER_PREDICATE_NO_FLOAT)
#include <float.h>
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error \"aether_predicate: the golden forms need float and double operations rounded in their own type (FLT_EVAL_METHOD == 0; on 32-bit x86 use -msse2 -mfpmath=sse), or define AETHER_PREDICATE_NO_FLOAT to use the integer forms only\"
#endif
#endif

"
        }
        CFamily::OpenCl => {
            "/* The spec's predicates in OpenCL C: each decision in two forms that return the same answer
   on every input of its domain. The integer forms (aether_<name>_integer) use no floating
   point, so a device without cl_khr_fp64 runs them; the golden forms need binary64 and are
   compiled only under cl_khr_fp64 (and left out when AETHER_NO_FP64 is defined). Integer to
   float conversions are spelled convert_<type>_rte. Results are 1 or 0. */
#if defined(cl_khr_fp64) && !defined(AETHER_NO_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define AETHER_PREDICATE_GOLDEN 1
#endif
#pragma OPENCL FP_CONTRACT OFF

"
        }
    });
    if d == CFamily::Cuda {
        s.push_str("#if !defined(AETHER_PREDICATE_NO_FLOAT)\n");
        s.push_str(&cuda_ops());
        s.push_str("#endif\n\n");
    }
    if d != CFamily::OpenCl {
        for t in clz_types(preds) {
            let ty = sp.ty(PTy::Int(t));
            let u = format!("uint{}_t", t.bits);
            let _ = writeln!(
                s,
                "/* The leading zero bits of x's {b}-bit pattern ({b} for 0), by halving: no builtin, the same on every compiler. */
{qual} {ty} aether_clz_{n}({ty} x) {{
    {u} v = ({u})x;
    {ty} n = 0;
    int w;
    if (v == 0) return {b};
    for (w = {half}; w > 0; w /= 2) {{
        if ((v >> ({b} - w)) == 0) {{
            n += w;
            v <<= w;
        }}
    }}
    return n;
}}
",
                b = t.bits,
                half = t.bits / 2,
                n = t.name()
            );
        }
    }
    for f in &preds.functions {
        let params: Vec<String> = f.params.iter().map(|p| format!("{} {}", sp.ty(p.ty), p.name)).collect();
        let _ = writeln!(s, "/* {} */", f.doc);
        let _ = writeln!(s, "{qual} {} {}({}) {{", sp.ty(f.ret), helper_name(&f.name), params.join(", "));
        s.push_str(&steps(&sp, Form::Integer, &f.body, "    "));
        s.push_str("}\n\n");
    }
    for p in &preds.predicates {
        for form in Form::BOTH {
            let golden_guard = d == CFamily::OpenCl && p.uses_float(preds, form);
            let c_guard = d != CFamily::OpenCl && p.uses_float(preds, form);
            if golden_guard {
                s.push_str("#if defined(AETHER_PREDICATE_GOLDEN)\n");
            }
            if c_guard {
                s.push_str("#if !defined(AETHER_PREDICATE_NO_FLOAT)\n");
            }
            s.push_str(&doc_comment(p, form));
            let params: Vec<String> = p.params.iter().map(|q| format!("{} {}", sp.ty(q.ty), q.name)).collect();
            let _ = writeln!(s, "{qual} int {}({}) {{", predicate_name(&p.name, form), params.join(", "));
            s.push_str(&steps(&sp, form, p.body(form), "    "));
            s.push_str("}\n");
            if golden_guard || c_guard {
                s.push_str("#endif\n");
            }
            s.push('\n');
        }
    }
    s.push_str(&c_selftest(model, &sp, d, qual));
    let _ = writeln!(s, "#endif /* {guard} */");
    s
}

/// `aether_predicate_selftest()`: every witness (`predicate_corpus::witnesses`)
/// on every form the build has; the number of wrong answers (0: all well).
fn c_selftest(model: &Model, sp: &CSpell, d: CFamily, qual: &str) -> String {
    let preds = &model.spec.predicates;
    let i64t = sp.ty(PTy::Int(I64));
    let mut s = String::from(
        "/* The predicates' self-test: named witnesses (each tells a rounding rule of the narrowing or of
   the 53-bit product apart, or sits on a side of the boundary), every form of the build on each.
   Returns the number of wrong answers: 0 when all is well. */\n",
    );
    let mut body = String::new();
    for p in &preds.predicates {
        let w = crate::predicate_corpus::witnesses(&p.name);
        if w.is_empty() {
            continue;
        }
        let n = p.params.len();
        let table = format!("aether_predicate_witness_{}", p.name);
        // OpenCL C keeps constant tables at program scope; C and CUDA in the
        // function (no unused table where the self-test is not called).
        let (space, dest, indent) = if d == CFamily::OpenCl { ("__constant", &mut s, "") } else { ("const", &mut body, "    ") };
        let _ = writeln!(dest, "{indent}{space} {i64t} {table}[{}][{}] = {{", w.len(), n + 1);
        for (a, ans) in &w {
            let words: Vec<String> = a.iter().map(|x| sp.int(I64, i128::from(*x))).collect();
            let _ = writeln!(dest, "{indent}    {{{}, {}}},", words.join(", "), u8::from(*ans));
        }
        let _ = writeln!(dest, "{indent}}};");
        let args: Vec<String> = p.params.iter().enumerate().map(|(k, q)| format!("({}){table}[k][{k}]", sp.ty(q.ty))).collect();
        let _ = writeln!(body, "    for (k = 0; k < {}; k++) {{", w.len());
        for form in Form::BOTH {
            let cond = format!("{}({}) != (int){table}[k][{n}]", predicate_name(&p.name, form), args.join(", "));
            if p.uses_float(preds, form) {
                let guard =
                    if d == CFamily::OpenCl { "#if defined(AETHER_PREDICATE_GOLDEN)" } else { "#if !defined(AETHER_PREDICATE_NO_FLOAT)" };
                let _ = writeln!(body, "{guard}\n        if ({cond}) bad++;\n#endif");
            } else {
                let _ = writeln!(body, "        if ({cond}) bad++;");
            }
        }
        body.push_str("    }\n");
    }
    let _ = writeln!(s, "{qual} int aether_predicate_selftest(void) {{\n    int bad = 0;\n    int k;\n{body}    return bad;\n}}\n");
    s
}

// ---------------------------------------------------------------------- WGSL

struct WSpell;

const I64: IntTy = IntTy { bits: 64, signed: true };

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
    for l in banner.lines() {
        let _ = writeln!(s, "// {}", l.trim_start_matches("/*").trim_end_matches("*/").trim());
    }
    s.push_str(
        "// The spec's predicates, integer forms: no floating point and no 64-bit integer, so they run
// on every WebGPU device; each returns the answer of the frozen floating-point (golden) form on
// every input of its domain (the C core has both forms). Include this file in a module that
// uses it.

",
    );
    s.push_str(WGSL_LIMBS);
    s.push('\n');
    let line_comment =
        |c: String| c.lines().map(|l| format!("// {}\n", l.trim_start_matches("/*").trim_end_matches("*/").trim())).collect::<String>();
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
        s.push_str(&line_comment(doc_comment(p, Form::Integer)));
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

// ---------------------------------------------------------------- flat table

/// The predicates behind one calling convention, for checkers: each form as
/// `int aether_pflat_<name>_<form>(const uint64_t *in)`, every argument the
/// 64-bit two's complement pattern of its value, and a table of them. The
/// source includes `AETHER_PREDICATE_HEADER` (default `aether_predicate.h`),
/// so the CUDA check compiles the same file against the CUDA header.
pub fn c_flat(model: &Model, banner: &str) -> (String, String) {
    let preds = &model.spec.predicates;
    let sp = CSpell { d: CFamily::C, preds, f32: &model.spec.types[0], f64: &model.spec.types[0] };
    let mut h = String::new();
    let _ = writeln!(
        h,
        "{banner}
#ifndef AETHER_PREDICATE_FLAT_H
#define AETHER_PREDICATE_FLAT_H
/* Every form of every predicate of the spec behind one convention: the arguments as 64-bit
   words (each the two's complement pattern of its value), the answer 1 or 0. */
#include <stdint.h>

typedef int (*aether_pflat_fn)(const uint64_t *in);

typedef struct aether_pflat_entry {{
    const char *name;
    unsigned n_in;
    aether_pflat_fn golden;
    aether_pflat_fn integer;
}} aether_pflat_entry;

extern const aether_pflat_entry aether_pflat_table[];
extern const unsigned aether_pflat_count;
/* aether_predicate_selftest(): the number of witnesses some form answers wrongly. */
int aether_pflat_selftest(void);
"
    );
    let mut c = format!(
        "{banner}
/* The predicates' flat thunks (see aether_predicate_flat.h). */
#ifndef AETHER_PREDICATE_HEADER
#define AETHER_PREDICATE_HEADER \"aether_predicate.h\"
#endif
#include AETHER_PREDICATE_HEADER
#include \"aether_predicate_flat.h\"

"
    );
    for p in &preds.predicates {
        for form in Form::BOTH {
            let args: Vec<String> = p.params.iter().enumerate().map(|(k, q)| format!("({})(int64_t)in[{k}]", sp.ty(q.ty))).collect();
            let f = predicate_name(&p.name, form);
            let _ = writeln!(h, "int {}(const uint64_t *in);", f.replace("aether_", "aether_pflat_"));
            let _ = writeln!(
                c,
                "int {}(const uint64_t *in) {{\n    return {f}({});\n}}\n",
                f.replace("aether_", "aether_pflat_"),
                args.join(", ")
            );
        }
    }
    let _ = writeln!(c, "int aether_pflat_selftest(void) {{\n    return aether_predicate_selftest();\n}}\n");
    let _ = writeln!(c, "const aether_pflat_entry aether_pflat_table[] = {{");
    for p in &preds.predicates {
        let g = predicate_name(&p.name, Form::Golden).replace("aether_", "aether_pflat_");
        let i = predicate_name(&p.name, Form::Integer).replace("aether_", "aether_pflat_");
        let _ = writeln!(c, "    {{\"{}\", {}u, {g}, {i}}},", p.name, p.params.len());
    }
    let _ = writeln!(c, "}};\nconst unsigned aether_pflat_count = {}u;", preds.predicates.len());
    h.push_str("\n#endif /* AETHER_PREDICATE_FLAT_H */\n");
    (h, c)
}

/// The OpenCL check program of the predicates: the core's predicate file,
/// then one kernel per form, `aether_pcheck_<name>_<form>(in, out, n)`: work
/// item i reads its arguments as `long` words at `in[i * n_in]` and writes
/// the answer to `out[i]`. The golden kernels exist only where binary64 does.
pub fn opencl_check(model: &Model, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let mut s = c_family(model, CFamily::OpenCl, banner);
    s.push_str("\n/* The check kernels of the predicates (the host: aether-opencl). */\n");
    s.push_str("__kernel void aether_pcheck_selftest(__global int *out) {\n    if (get_global_id(0) == 0) out[0] = aether_predicate_selftest();\n}\n");
    for p in &preds.predicates {
        for form in Form::BOTH {
            let golden = p.uses_float(preds, form);
            if golden {
                s.push_str("#if defined(AETHER_PREDICATE_GOLDEN)\n");
            }
            let n = p.params.len();
            let args: Vec<String> = p
                .params
                .iter()
                .enumerate()
                .map(|(k, q)| match q.ty {
                    PTy::Int(t) if t.bits == 32 => format!("({})a[{k}]", if t.signed { "int" } else { "uint" }),
                    _ => format!("a[{k}]"),
                })
                .collect();
            let _ = writeln!(
                s,
                "__kernel void aether_pcheck_{name}_{f}(__global const long *in, __global int *out, uint n) {{
    const size_t i = get_global_id(0);
    if (i >= n) return;
    __global const long *a = in + i * {n};
    out[i] = {callee}({args});
}}",
                name = p.name,
                f = form.name(),
                callee = predicate_name(&p.name, form),
                args = args.join(", ")
            );
            if golden {
                s.push_str("#endif\n");
            }
        }
    }
    s
}

/// Words of one argument in the WGSL check module: an i64 is two (low,
/// high), anything else one.
pub fn wgsl_words(t: PTy) -> usize {
    match t {
        PTy::Int(t) if t.bits == 64 => 2,
        _ => 1,
    }
}

/// The WGSL check module of the predicates' integer forms, in the binding
/// convention of `wgsl::check_module`: entry `check_predicate_<name>` reads
/// its arguments from `aether_in` (`wgsl_words` words each) and writes 1 or
/// 0 to `aether_out`.
pub fn wgsl_check_module(model: &Model) -> super::wgsl::CheckModule {
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
        entries.push(super::wgsl::CheckEntry {
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
    entries.push(super::wgsl::CheckEntry {
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
    super::wgsl::CheckModule { source: src, entries }
}

/// The CUDA check program of the predicates
/// (`cuda_core/check/aether_predicate_check.cu`): one `__global__` kernel
/// per form (`aether_pcheck_<name>_<form>`, for the PTX check: its
/// floating-point instructions must all be the `_rn` ones), and a host
/// `main` that runs both forms through the CUDA header's host path on every
/// case of the predicates' corpus parts, printing one line and returning 1
/// on a mismatch.
pub fn cuda_check(model: &Model, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let mut s = format!("{banner}\n#include <stdio.h>\n#include \"aether_predicate.cuh\"\n");
    for p in &preds.predicates {
        let _ = writeln!(s, "#include \"predicate_{}.h\"", p.name);
    }
    s.push('\n');
    let sp = CSpell { d: CFamily::Cuda, preds, f32: &model.spec.types[0], f64: &model.spec.types[0] };
    let args = |p: &Predicate, src: &str| -> String {
        p.params.iter().enumerate().map(|(k, q)| format!("({})(int64_t){src}[{k}]", sp.ty(q.ty))).collect::<Vec<_>>().join(", ")
    };
    for p in &preds.predicates {
        for form in Form::BOTH {
            let _ = writeln!(
                s,
                "__global__ void aether_pcheck_{name}_{f}(const unsigned long long *in, int *out, unsigned n) {{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long *a = in + (size_t)i * {n_in}u;
    out[i] = {callee}({args});
}}
",
                name = p.name,
                f = form.name(),
                n_in = p.params.len(),
                callee = predicate_name(&p.name, form),
                args = args(p, "a")
            );
        }
    }
    s.push_str("int main(void) {\n    unsigned cases = 0, bad = 0, k;\n");
    for p in &preds.predicates {
        let table = format!("aether_corpus_predicate_{}", p.name);
        let n = p.params.len();
        let _ = writeln!(
            s,
            "    for (k = 0; k < sizeof {table} / sizeof {table}[0]; k++) {{
        const uint64_t *a = {table}[k];
        const int want = (int)a[{n}];
        cases++;
        if ({g}({args}) != want || {i}({args}) != want) {{
            bad++;
            printf(\"aether_predicate_check: {name} case %u: the host path disagrees with the corpus\\n\", k);
        }}
    }}",
            g = predicate_name(&p.name, Form::Golden),
            i = predicate_name(&p.name, Form::Integer),
            args = args(p, "a"),
            name = p.name
        );
    }
    s.push_str(
        "    printf(\"aether_predicate_check: %u corpus cases, both forms of every predicate on the CUDA header's host path: %u mismatches\\n\", cases, bad);
    k = (unsigned)aether_predicate_selftest();
    printf(\"aether_predicate_check: aether_predicate_selftest() on the host path: %u wrong answers\\n\", k);
    return bad != 0 || k != 0;
}
",
    );
    s
}
