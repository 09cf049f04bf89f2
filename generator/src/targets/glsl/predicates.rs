//! The integer predicates in GLSL ES 3.00: the integer forms, every i64 in
//! two u32 limbs as a `uvec2` (GLSL ES 3.00 has 32-bit `int` and `uint`
//! only), with the limb helpers at the top of the file, their self-test, and
//! the check module the runner draws (`runner/src/glsl_draw.rs`). The same
//! limbs as WGSL's `vec2<u32>`; what differs is the spelling, and that GLSL
//! ES 3.00 has neither `uaddCarry`/`umulExtended` nor `findMSB` (3.10 adds
//! them) and leaves an out-of-range `int(uint)` or `uint(int)` undefined:
//! every carry, the leading zeros and the sign are written out on `uint`
//! words, and an i32 crosses to and from its bits through helpers that
//! convert only values that fit.

use std::fmt::Write;

use crate::dsl::{BinOp, BitOp};
use crate::model::Model;
use crate::predicate::{FTy, Form, IntTy, PTy};
use crate::targets::shared::check::{CheckEntry, CheckModule};
use crate::targets::shared::predicates::{doc_comment, helper_name, limb_words, line_comments, predicate_name, steps, Spell, I64};

// ----------------------------------------------------------------- GLSL ES

struct GSpell;

impl Spell for GSpell {
    fn ty(&self, t: PTy) -> String {
        match t {
            PTy::Bool => "bool".into(),
            PTy::Int(t) if t.bits == 64 => "uvec2".into(),
            PTy::Int(t) if t.bits == 32 && t.signed => "int".into(),
            PTy::Int(t) if t.bits == 32 => "uint".into(),
            PTy::Int(t) => unreachable!("GLSL ES has no {}", t.name()),
            PTy::Float(f) => unreachable!("the GLSL ES core prints integer forms only, not {}", f.name()),
        }
    }

    fn int(&self, t: IntTy, v: i128) -> String {
        if t.bits == 64 {
            let w = v as i64 as u64;
            format!("uvec2(0x{:x}u, 0x{:x}u)", w as u32, (w >> 32) as u32)
        } else if t.signed && v == i128::from(i32::MIN) {
            // 2147483648 is no int literal.
            "(-2147483647 - 1)".into()
        } else if t.signed {
            format!("{v}")
        } else {
            format!("{v}u")
        }
    }

    fn float(&self, t: FTy, _: f64) -> String {
        unreachable!("the GLSL ES core prints integer forms only, not {}", t.name())
    }

    fn bin(&self, op: BinOp, t: PTy, a: &str, b: &str) -> String {
        match t {
            // == and != of two vectors are one bool in GLSL (all equal, any
            // different).
            PTy::Int(t) if t.bits == 64 => match op {
                BinOp::Eq | BinOp::Ne => format!("({a} {} {b})", op.symbol()),
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
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }

    fn conv(&self, to: PTy, from: PTy, a: &str) -> String {
        match (to, from) {
            (PTy::Int(t), PTy::Int(f)) if t == I64 && f.bits == 32 && f.signed => format!("aether_i64_from_i32({a})"),
            (PTy::Int(t), PTy::Int(f)) if t == I64 && f.bits == 32 => format!("uvec2({a}, 0u)"),
            (PTy::Int(t), PTy::Int(f)) if t == f => a.to_string(),
            _ => unreachable!("no GLSL ES conversion {from} -> {to} in an integer form"),
        }
    }

    fn clz(&self, t: IntTy, a: &str) -> String {
        match (t.bits, t.signed) {
            (64, _) => format!("aether_i64_clz({a})"),
            (32, true) => format!("int(aether_u32_clz(aether_i32_bits({a})))"),
            _ => format!("aether_u32_clz({a})"),
        }
    }

    fn bind(&self, name: &str, t: PTy, v: &str) -> String {
        format!("{} {name} = {v};", self.ty(t))
    }
}

/// The limb arithmetic of i64 in GLSL ES 3.00: (low, high) uint words, two's
/// complement; products from 16-bit pieces, carries, leading zeros and
/// signs explicit, every step on `uint` (whose arithmetic wraps modulo 2^32,
/// GLSL ES 3.00 section 4.1.3). Shift amounts are 0..63 (the spec's
/// domain), taken from the low word.
const GLSL_LIMBS: &str = "// i64 as uvec2(low, high), two's complement, as WGSL's vec2<u32>. GLSL ES 3.00 has no
// 64-bit integer, and no uaddCarry, umulExtended or findMSB (3.10 adds them): every
// operation is written out on the uint limbs, whose arithmetic wraps modulo 2^32. An
// out-of-range int(uint) or uint(int) is undefined in GLSL ES 3.00, so an i32 crosses to
// and from its bits through aether_i32_bits and aether_i32_of_bits, which convert only
// values that fit.

// The two's complement bits of an int.
uint aether_i32_bits(int x) {
    if (x < 0) {
        return 0xffffffffu - uint(-(x + 1));
    }
    return uint(x);
}

// The int of two's complement bits.
int aether_i32_of_bits(uint w) {
    if (w >= 0x80000000u) {
        return -int(0xffffffffu - w) - 1;
    }
    return int(w);
}

// The leading zero bits of a word (32 for 0).
uint aether_u32_clz(uint x) {
    if (x == 0u) {
        return 32u;
    }
    uint n = 0u;
    if ((x & 0xffff0000u) == 0u) {
        n += 16u;
        x <<= 16u;
    }
    if ((x & 0xff000000u) == 0u) {
        n += 8u;
        x <<= 8u;
    }
    if ((x & 0xf0000000u) == 0u) {
        n += 4u;
        x <<= 4u;
    }
    if ((x & 0xc0000000u) == 0u) {
        n += 2u;
        x <<= 2u;
    }
    if ((x & 0x80000000u) == 0u) {
        n += 1u;
    }
    return n;
}

// The word of x's sign: all ones when bit 31 is set, else 0.
uint aether_u32_sign(uint x) {
    return (x >= 0x80000000u) ? 0xffffffffu : 0u;
}

uvec2 aether_i64_add(uvec2 a, uvec2 b) {
    uint lo = a.x + b.x;
    return uvec2(lo, a.y + b.y + ((lo < a.x) ? 1u : 0u));
}

uvec2 aether_i64_sub(uvec2 a, uvec2 b) {
    return uvec2(a.x - b.x, a.y - b.y - ((a.x < b.x) ? 1u : 0u));
}

// The full 64-bit product of two uint, from four 16 x 16-bit products.
uvec2 aether_u32_mul_wide(uint a, uint b) {
    uint a0 = a & 0xffffu;
    uint a1 = a >> 16u;
    uint b0 = b & 0xffffu;
    uint b1 = b >> 16u;
    uint p00 = a0 * b0;
    uint p01 = a0 * b1;
    uint p10 = a1 * b0;
    uint p11 = a1 * b1;
    uint mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return uvec2((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// The low 64 bits of the product (the exact product inside the domain).
uvec2 aether_i64_mul(uvec2 a, uvec2 b) {
    uvec2 p = aether_u32_mul_wide(a.x, b.x);
    return uvec2(p.x, p.y + a.x * b.y + a.y * b.x);
}

// A shift by 32 or more of a uint is undefined in GLSL: each case keeps its
// amounts in 1..31.
uvec2 aether_i64_shl(uvec2 a, uvec2 s) {
    uint n = s.x;
    if (n == 0u) {
        return a;
    }
    if (n >= 32u) {
        return uvec2(0u, a.x << (n - 32u));
    }
    return uvec2(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

// Arithmetic shift right (the spec shifts non-negative values only), the
// sign's bits shifted in from aether_u32_sign.
uvec2 aether_i64_shr(uvec2 a, uvec2 s) {
    uint n = s.x;
    uint sign = aether_u32_sign(a.y);
    if (n == 0u) {
        return a;
    }
    if (n == 32u) {
        return uvec2(a.y, sign);
    }
    if (n > 32u) {
        return uvec2((a.y >> (n - 32u)) | (sign << (64u - n)), sign);
    }
    return uvec2((a.x >> n) | (a.y << (32u - n)), (a.y >> n) | (sign << (32u - n)));
}

// Signed order: the high words compared with their sign bits flipped (which
// maps two's complement order onto unsigned order), then the low words.
bool aether_i64_lt(uvec2 a, uvec2 b) {
    uint ah = a.y ^ 0x80000000u;
    uint bh = b.y ^ 0x80000000u;
    return ah < bh || (ah == bh && a.x < b.x);
}

uvec2 aether_i64_clz(uvec2 a) {
    if (a.y != 0u) {
        return uvec2(aether_u32_clz(a.y), 0u);
    }
    return uvec2(32u + aether_u32_clz(a.x), 0u);
}

uvec2 aether_i64_from_i32(int x) {
    return uvec2(aether_i32_bits(x), (x < 0) ? 0xffffffffu : 0u);
}
";

/// The predicates' integer forms in GLSL ES 3.00
/// (`glsl_core/aether_predicate.glsl`): standalone text without `#version`.
pub fn glsl(model: &Model, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let sp = GSpell;
    let mut s = line_comments(banner);
    s.push_str(
        "// The spec's predicates, integer forms, in GLSL ES 3.00: no floating point and no 64-bit
// integer, so they run on every WebGL2 and OpenGL ES 3 device; each returns the answer of the
// frozen floating-point (golden) form on every input of its domain (the C core has both
// forms). Paste this file after the #version line and the precisions (highp int) of a shader
// that uses it; it defines nothing the core (aether_core.glsl) defines, so both fit in one
// shader.

",
    );
    s.push_str(GLSL_LIMBS);
    s.push('\n');
    for f in &preds.functions {
        let params: Vec<String> = f.params.iter().map(|p| format!("{} {}", sp.ty(p.ty), p.name)).collect();
        let _ = writeln!(s, "// {}", f.doc);
        let _ = writeln!(s, "{} {}({}) {{", sp.ty(f.ret), helper_name(&f.name), params.join(", "));
        s.push_str(&steps(&sp, Form::Integer, &f.body, "    ").replace("/* ", "// ").replace(" */", ""));
        s.push_str("}\n\n");
    }
    for p in &preds.predicates {
        if p.uses_float(preds, Form::Integer) {
            continue;
        }
        s.push_str(&line_comments(&doc_comment(p, Form::Integer)));
        let params: Vec<String> = p.params.iter().map(|q| format!("{} {}", sp.ty(q.ty), q.name)).collect();
        let _ = writeln!(s, "bool {}({}) {{", predicate_name(&p.name, Form::Integer), params.join(", "));
        s.push_str(&steps(&sp, Form::Integer, p.body(Form::Integer), "    ").replace("/* ", "// ").replace(" */", ""));
        s.push_str("}\n\n");
    }
    s.push_str(&glsl_selftest(model));
    s.truncate(s.trim_end().len());
    s.push('\n');
    // A spec name GLSL reserves (`in`, `out`, ...) is renamed, as in the core.
    super::rename_reserved(&s)
}

/// The GLSL ES self-test: every witness on every integer form; the number of
/// wrong answers. GLSL ES 3.00 has no arrays of arrays, so a predicate's
/// witnesses are one flat `uvec2` array of (arguments, answer) rows; they
/// are read at an index offset by the caller's opaque zero, so that no
/// compiler folds them when it builds the shader.
fn glsl_selftest(model: &Model) -> String {
    let preds = &model.spec.predicates;
    let sp = GSpell;
    let mut s = String::from(
        "// The predicates' self-test: every witness on the integer forms; the number of wrong answers.
// Call it with a zero read from a uniform (or a texture): the witnesses are read at an index
// offset by it, so that no compiler folds them when it builds the shader.
",
    );
    let mut body = String::new();
    for p in preds.predicates.iter().filter(|p| !p.uses_float(preds, Form::Integer)) {
        let w = crate::predicate_corpus::witnesses(&p.name);
        if w.is_empty() {
            continue;
        }
        let n = p.params.len();
        let len = w.len() * (n + 1);
        let _ = writeln!(s, "const uvec2 aether_predicate_witness_{}[{len}] = uvec2[{len}](", p.name);
        let rows: Vec<String> = w
            .iter()
            .map(|(a, ans)| {
                let words: Vec<String> = a.iter().chain(std::iter::once(&i64::from(*ans))).map(|x| sp.int(I64, i128::from(*x))).collect();
                format!("    {}", words.join(", "))
            })
            .collect();
        s.push_str(&rows.join(",\n"));
        s.push_str("\n);\n\n");
        let args: Vec<String> = (0..n).map(|k| format!("aether_predicate_witness_{}[at + {k}u]", p.name)).collect();
        let _ = writeln!(
            body,
            "    for (uint k = 0u; k < {rows}u; k++) {{\n        uint at = k * {stride}u + zero;\n        if ({f}({args}) != (aether_predicate_witness_{name}[at + {n}u].x == 1u)) {{\n            bad++;\n        }}\n    }}",
            rows = w.len(),
            stride = n + 1,
            name = p.name,
            f = predicate_name(&p.name, Form::Integer),
            args = args.join(", ")
        );
    }
    let _ = writeln!(s, "uint aether_predicate_selftest(uint zero) {{\n    uint bad = 0u;\n{body}    return bad;\n}}\n");
    s
}

/// Words of one argument in the GLSL ES check module: an i64 is two (low,
/// high), anything else one (as in WGSL's).
pub fn glsl_words(t: PTy) -> usize {
    limb_words(t)
}

/// What the check module adds between the predicate library and the draw's
/// bindings: the two setters that the bindings' `aether_check_guard` calls
/// (the core defines them; the predicate library does not, so that both fit
/// in one shader). The predicates use no guard: the opaque zero only offsets
/// the self-test's witness index, passed as its argument.
const CHECK_GUARD: &str = "
// The guard's setters, which aether_check_guard() below calls (the core defines them; the
// predicates need no guard but the self-test's opaque zero, passed as its argument).
uint aether_opaque_zero = 0u;

void aether_set_opaque_zero(uint z) {
    aether_opaque_zero = z;
}

void aether_set_opaque_one(float one) {
}
";

/// The GLSL ES check module of the predicates' integer forms, in the draw
/// convention of `runner/src/glsl_draw.rs`: entry `check_predicate_<name>`
/// reads its arguments with `aether_word` (`glsl_words` words each) and
/// stores 1 or 0 with `aether_put`; entry `check_predicate_selftest` stores
/// the self-test's number of wrong answers (no input words).
pub fn glsl_check_module(model: &Model) -> CheckModule {
    let preds = &model.spec.predicates;
    let mut src = glsl(model, "/* the predicates' check module */");
    src.push_str(CHECK_GUARD);
    src.push_str(super::DRAW_BINDINGS);
    // The entries bind the spec's parameter names: renamed as in the core
    // (the bindings above use `out` as GLSL does).
    let entries_at = src.len();
    let mut entries = Vec::new();
    let entry_of = |entry: String, c_name: String, family: String, n_in: usize| CheckEntry {
        entry,
        c_name,
        family,
        shape: "predicate".into(),
        elem: "i64".into(),
        n_in,
        n_out: 1,
        workgroup_size: 1,
        cases_per_workgroup: 1,
        random: false,
        max_random: None,
    };
    for p in preds.predicates.iter().filter(|p| !p.uses_float(preds, Form::Integer)) {
        let n_in: usize = p.params.iter().map(|q| glsl_words(q.ty)).sum();
        let entry = format!("check_predicate_{}", p.name);
        let _ = writeln!(src, "\nvoid {entry}() {{\n    aether_check_guard();\n    uint aether_base = uint(gl_VertexID) * {n_in}u;");
        let mut at = 0;
        for q in &p.params {
            let v = match q.ty {
                PTy::Int(t) if t.bits == 64 => format!("uvec2(aether_word(aether_base + {at}u), aether_word(aether_base + {}u))", at + 1),
                PTy::Int(t) if t.signed => format!("aether_i32_of_bits(aether_word(aether_base + {at}u))"),
                _ => format!("aether_word(aether_base + {at}u)"),
            };
            let _ = writeln!(src, "    {} {} = {v};", GSpell.ty(q.ty), q.name);
            at += glsl_words(q.ty);
        }
        let args: Vec<&str> = p.params.iter().map(|q| q.name.as_str()).collect();
        let _ = writeln!(src, "    aether_put(0u, {}({}) ? 1u : 0u);\n}}", predicate_name(&p.name, Form::Integer), args.join(", "));
        entries.push(entry_of(entry, format!("aether_predicate_{}", p.name), p.name.clone(), n_in));
    }
    src.push_str("\nvoid check_predicate_selftest() {\n    aether_check_guard();\n    aether_put(0u, aether_predicate_selftest(aether_params.y));\n}\n");
    entries.push(entry_of("check_predicate_selftest".into(), "aether_predicate_selftest".into(), "selftest".into(), 0));
    let source = format!("{}{}", &src[..entries_at], super::rename_reserved(&src[entries_at..]));
    CheckModule { source, entries }
}
