//! The integer predicates in the C family: one header per dialect (C, CUDA
//! and OpenCL C differ in their qualifiers, their integer types, CUDA's
//! correctly rounded intrinsics and OpenCL's conversions), its self-test, and
//! the flat table the C and CUDA checks call.

use std::fmt::Write;

use crate::dsl::BinOp;
use crate::model::Model;
use crate::predicate::{FTy, Form, IntTy, PTy, Predicates};
use crate::spec::ElemType;
use crate::targets::shared::predicates::{clz_types, doc_comment, helper_name, predicate_name, steps, Spell, I64};

// ------------------------------------------------------------------ C family

/// How a C-family target prints the predicates: each fact is one way its
/// language or device differs. The C, CUDA and OpenCL C targets each state
/// theirs (`PREDICATES` in their folder).
#[derive(Debug, Clone, Copy)]
pub struct PredicateDialect {
    /// The file's include guard.
    pub guard: &'static str,
    /// Storage and qualifiers of each function.
    pub qual: &'static str,
    /// The comment and preprocessor lines that open the file, after the guard.
    pub preamble: &'static str,
    /// Lines after the preamble: the target's own helpers (CUDA's rounded
    /// operations), under the guard of the golden forms.
    pub helpers: Option<fn() -> String>,
    /// Integer types as the language's built-in names (`long`, `uint`, and
    /// `L`/`U` literals: OpenCL C) rather than `<stdint.h>`'s (`INT64_C`).
    pub builtin_ints: bool,
    /// Hexadecimal float literals; without them (the C header, which C++11
    /// includes) a value is the exact quotient of two decimals.
    pub hex_floats: bool,
    /// Each rounded operation of a golden form as `aether_pred_<op>_<type>`,
    /// the target's round-to-nearest helper (CUDA's intrinsics, which nvcc
    /// never contracts), and each integer narrowing as
    /// `aether_pred_<int>_to_<float>`.
    pub rounded_calls: bool,
    /// Integer-to-float narrowing spelled `convert_<type>_rte` (OpenCL C).
    pub convert_rte: bool,
    /// The language's `clz` built-in, where the core would print a halving
    /// helper of its own.
    pub builtin_clz: bool,
    /// The condition a golden form is printed under.
    pub golden_if: &'static str,
    /// Constant tables at program scope in `__constant` memory (OpenCL C has
    /// no function-scope statics), rather than `const` in the function.
    pub program_scope_tables: bool,
}

#[derive(Debug)]
pub struct CSpell<'a> {
    pub d: PredicateDialect,
    pub preds: &'a Predicates,
    pub f32: &'a ElemType,
    pub f64: &'a ElemType,
}

impl Spell for CSpell<'_> {
    fn ty(&self, t: PTy) -> String {
        match (self.d.builtin_ints, t) {
            (_, PTy::Bool) => "int".into(),
            (_, PTy::Float(FTy::F32)) => "float".into(),
            (_, PTy::Float(FTy::F64)) => "double".into(),
            (true, PTy::Int(t)) => match (t.bits, t.signed) {
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
        let lit = match self.d.builtin_ints {
            true => format!(
                "{mag}{}",
                if t.bits == 64 {
                    "L"
                } else if t.signed {
                    ""
                } else {
                    "U"
                }
            ),
            false => format!("{}INT{}_C({mag})", if t.signed { "" } else { "U" }, t.bits),
        };
        if v < 0 {
            format!("(-{lit})")
        } else {
            lit
        }
    }

    fn float(&self, t: FTy, v: f64) -> String {
        let elem = if t == FTy::F32 { self.f32 } else { self.f64 };
        let lit = crate::targets::shared::c_family::literal(v, elem);
        if self.d.hex_floats || !lit.contains("0x") {
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
        match (self.d.rounded_calls, t, op) {
            // Each rounded operation is the target's round-to-nearest helper.
            (true, PTy::Float(f), BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) => {
                format!("aether_pred_{}_{}({a}, {b})", rounded_verb(op), f.name())
            }
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }

    fn conv(&self, to: PTy, from: PTy, a: &str) -> String {
        match (self.d.rounded_calls, self.d.convert_rte, to, from) {
            (true, _, PTy::Float(f), PTy::Int(i)) => format!("aether_pred_{}_to_{}({a})", i.name(), f.name()),
            // OpenCL C spells the rounding of an integer's narrowing.
            (_, true, PTy::Float(t), PTy::Int(_)) => format!("convert_{}_rte({a})", if t == FTy::F32 { "float" } else { "double" }),
            _ => format!("(({}){a})", self.ty(to)),
        }
    }

    fn clz(&self, t: IntTy, a: &str) -> String {
        if self.d.builtin_clz {
            format!("clz({a})")
        } else {
            format!("aether_clz_{}({a})", t.name())
        }
    }

    fn bind(&self, name: &str, t: PTy, v: &str) -> String {
        format!("const {} {name} = {v};", self.ty(t))
    }
}

/// The verb of a rounded operation's helper (`aether_pred_add_f32`).
pub fn rounded_verb(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        _ => "div",
    }
}

/// The preamble of the C and CUDA predicate headers: `<stdint.h>`, and the
/// golden forms' refusal of excess precision.
pub const STDINT_PREAMBLE: &str = "/* The spec's predicates: each decision in two forms that return the same answer on every
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

";

/// The predicates' file of a C-family core.
pub fn c_family(model: &Model, d: PredicateDialect, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let elem = |n: &str| model.spec.types.iter().find(|t| t.name == n).expect("f32 and f64 are declared");
    let sp = CSpell { d, preds, f32: elem("f32"), f64: elem("f64") };
    let (guard, qual) = (d.guard, d.qual);
    let mut s = String::new();
    let _ = writeln!(s, "{banner}");
    let _ = writeln!(s, "#ifndef {guard}\n#define {guard}\n");
    s.push_str(d.preamble);
    if let Some(helpers) = d.helpers {
        s.push_str("#if !defined(AETHER_PREDICATE_NO_FLOAT)\n");
        s.push_str(&helpers());
        s.push_str("#endif\n\n");
    }
    if !d.builtin_clz {
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
            let golden_guard = p.uses_float(preds, form);
            if golden_guard {
                let _ = writeln!(s, "{}", d.golden_if);
            }
            s.push_str(&doc_comment(p, form));
            let params: Vec<String> = p.params.iter().map(|q| format!("{} {}", sp.ty(q.ty), q.name)).collect();
            let _ = writeln!(s, "{qual} int {}({}) {{", predicate_name(&p.name, form), params.join(", "));
            s.push_str(&steps(&sp, form, p.body(form), "    "));
            s.push_str("}\n");
            if golden_guard {
                s.push_str("#endif\n");
            }
            s.push('\n');
        }
    }
    s.push_str(&c_selftest(model, &sp, qual));
    let _ = writeln!(s, "#endif /* {guard} */");
    s
}

/// `aether_predicate_selftest()`: every witness (`predicate_corpus::witnesses`)
/// on every form the build has; the number of wrong answers (0: all well).
fn c_selftest(model: &Model, sp: &CSpell, qual: &str) -> String {
    let d = sp.d;
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
        let (space, dest, indent) = if d.program_scope_tables { ("__constant", &mut s, "") } else { ("const", &mut body, "    ") };
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
                let _ = writeln!(body, "{}\n        if ({cond}) bad++;\n#endif", d.golden_if);
            } else {
                let _ = writeln!(body, "        if ({cond}) bad++;");
            }
        }
        body.push_str("    }\n");
    }
    let _ = writeln!(s, "{qual} int aether_predicate_selftest(void) {{\n    int bad = 0;\n    int k;\n{body}    return bad;\n}}\n");
    s
}

// ---------------------------------------------------------------- flat table

/// The predicates behind one calling convention, for checkers: each form as
/// `int aether_pflat_<name>_<form>(const uint64_t *in)`, every argument the
/// 64-bit two's complement pattern of its value, and a table of them. The
/// source includes `AETHER_PREDICATE_HEADER` (default `aether_predicate.h`),
/// so the CUDA check compiles the same file against the CUDA header.
pub fn c_flat(model: &Model, d: PredicateDialect, banner: &str) -> (String, String) {
    let preds = &model.spec.predicates;
    let sp = CSpell { d, preds, f32: &model.spec.types[0], f64: &model.spec.types[0] };
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
