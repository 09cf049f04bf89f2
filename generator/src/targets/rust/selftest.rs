//! `rust_core/src/selftest.rs`: `aether_selftest()`, the start-up check of
//! the environment the core runs in: the rounding mode (which Rust code
//! cannot change, but C code in the same process can), flush-to-zero and
//! denormals-are-zero (the subnormal probes), and the witnesses (corpus
//! cases that tell a contract rule from its mutant), each a call with its
//! input bits written as literals. A kernel's witness stays in the corpus:
//! its words need an allocation, and the crate has none.

use crate::model::{Callable, Kind, Model};
use crate::selftest::Witness;
use crate::spec::ShapeKind;
use crate::targets::rust::{literal_bits, scalar, type_name};

/// The value of a shape from words, as literals of their bits.
fn value(model: &Model, shape: &str, t: &crate::spec::ElemType, words: &[u64]) -> String {
    let s = model.spec.shape(shape).unwrap();
    let lit = |w: u64| literal_bits(w, t);
    match &s.kind {
        ShapeKind::Scalar => lit(words[0]),
        ShapeKind::Vector(names) => format!(
            "{} {{ {} }}",
            type_name(model, shape, t),
            names.iter().zip(words).map(|(c, w)| format!("{c}: {}", lit(*w))).collect::<Vec<_>>().join(", ")
        ),
        ShapeKind::Matrix { .. } => {
            format!("{} {{ m: [{}] }}", type_name(model, shape, t), words.iter().map(|w| lit(*w)).collect::<Vec<_>>().join(", "))
        }
    }
}

/// The words of a result named `r`, as an array expression.
fn result_words(model: &Model, kind: &Kind, t: &crate::spec::ElemType) -> String {
    let w = |v: String| if t.bits == 32 { format!("u64::from({v}.to_bits())") } else { format!("{v}.to_bits()") };
    match kind {
        Kind::Bool => "[u64::from(r)]".into(),
        Kind::Shape(s) => match &model.spec.shape(&s.name).unwrap().kind {
            ShapeKind::Scalar => format!("[{}]", w("r".into())),
            ShapeKind::Vector(names) => format!("[{}]", names.iter().map(|c| w(format!("r.{c}"))).collect::<Vec<_>>().join(", ")),
            ShapeKind::Matrix { .. } => format!("r.m.map(|e| {})", w("e".into())),
        },
    }
}

/// The source of `rust_core/src/selftest.rs`.
pub fn source(model: &Model, banner: &str, witnesses: &[Witness]) -> String {
    let callables = model.callables();
    let mut out: Vec<String> = banner.lines().map(String::from).collect();
    out.push(String::new());
    out.push("// The self-test (included by lib.rs).".into());
    out.push(String::new());
    out.push("use crate::*;".into());
    out.push("use core::hint::black_box;".into());
    out.push(String::new());
    out.push("/// A check of [`aether_selftest`] that failed: what it checks, and the rule of the contract it".into());
    out.push("/// protects (for a witness, the function and the rule its result tells apart).".into());
    out.push("#[derive(Clone, Copy, Debug, PartialEq, Eq)]".into());
    out.push("pub struct SelftestFailure {".into());
    out.push("    /// The check: `rounding`, `flush-to-zero`, `denormals-are-zero`, or the function a witness calls.".into());
    out.push("    pub check: &'static str,".into());
    out.push("    /// What a failure means.".into());
    out.push("    pub rule: &'static str,".into());
    out.push("}".into());
    out.push(String::new());
    out.push("impl core::fmt::Display for SelftestFailure {".into());
    out.push("    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {".into());
    out.push("        write!(f, \"aether self-test: {} failed ({})\", self.check, self.rule)".into());
    out.push("    }".into());
    out.push("}".into());
    out.push(String::new());
    out.push("/// Whether `got` is `want` under the comparison policy: the same bits, any NaN for a NaN, and".into());
    out.push("/// (`either_zero`) either zero for a zero.".into());
    out.push("fn same(got: &[u64], want: &[u64], bits: u32, is_float: bool, either_zero: bool) -> bool {".into());
    out.push("    let (nan, zero) = if bits == 32 { (0x7f80_0000_u64, 0x7fff_ffff_u64) } else { (0x7ff0_0000_0000_0000, 0x7fff_ffff_ffff_ffff) };".into());
    out.push("    got.len() == want.len()".into());
    out.push("        && got.iter().zip(want).all(|(&g, &w)| {".into());
    out.push("            g == w || (is_float && (g & zero) > nan && (w & zero) > nan) || (is_float && either_zero && g & zero == 0 && w & zero == 0)".into());
    out.push("        })".into());
    out.push("}".into());
    out.push(String::new());
    out.push(format!(
        "/// Checks the environment the core runs in, and returns the number of checks (all passed) or the\n/// first that failed: round-to-nearest-even on f32 and f64 (C code in the process may have changed\n/// the mode), no flush-to-zero and no denormals-are-zero (the subnormal probes), and {} witnesses:\n/// corpus cases, each telling a rule of the contract from its mutant, on their functions. Call it\n/// at start-up; it takes microseconds.",
        witnesses.iter().filter(|w| matches!(callables[w.callable], Callable::Function(_))).count()
    ));
    out.push("pub fn aether_selftest() -> Result<usize, SelftestFailure> {".into());
    out.push("    let mut checks = 0;".into());
    out.push("    let fail = |check: &'static str, rule: &'static str| Err(SelftestFailure { check, rule });".into());
    out.push("    // Round to nearest, ties to even: each sum is a tie or near one (black_box keeps rustc from".into());
    out.push("    // folding it at compile time, in the mode of the compiler).".into());
    for t in &model.spec.types {
        let s = scalar(t);
        let p = if t.bits == 32 { 24 } else { 53 };
        out.push("    {".into());
        out.push(format!("        let one = black_box(1.0_{s});"));
        out.push(format!("        let half = black_box({});", crate::targets::rust::literal(2f64.powi(-p), t)));
        out.push(format!("        let three_halves = black_box({});", crate::targets::rust::literal(3.0 * 2f64.powi(-p), t)));
        out.push(format!("        let up = {};", crate::targets::rust::literal(1.0 + 4.0 * 2f64.powi(-p), t)));
        out.push("        if one + half != one || -one - half != -one || one + three_halves != up || -one - three_halves != -up {".into());
        out.push(format!("            return fail(\"rounding\", \"{s} operations must round to nearest, ties to even (restore it with fesetround(FE_TONEAREST) in the C code that changed it)\");"));
        out.push("        }".into());
        out.push("        checks += 1;".into());
        out.push("    }".into());
    }
    for p in crate::selftest::subnormal_probes(model) {
        let t = model.spec.types.iter().find(|t| t.bits == p.bits).unwrap();
        let (check, rule) = if p.operand {
            ("denormals-are-zero", "a subnormal operand must not be read as zero (DAZ is set: clear MXCSR.DAZ)")
        } else {
            ("flush-to-zero", "a subnormal result must not be flushed to zero (FTZ is set: clear MXCSR.FTZ or FPCR.FZ)")
        };
        let bits = if t.bits == 32 { "u64::from" } else { "" };
        out.push(format!(
            "    if {bits}((black_box({}) * black_box({})).to_bits()) != 0x{:x} {{",
            literal_bits(p.a, t),
            literal_bits(p.b, t),
            p.expected
        ));
        out.push(format!("        return fail(\"{check}\", \"{rule}\");"));
        out.push("    }".into());
        out.push("    checks += 1;".into());
    }
    for w in witnesses {
        let Callable::Function(f) = callables[w.callable] else { continue };
        let t = model.spec.types.iter().find(|t| t.name == f.elem).unwrap();
        let mut at = 0;
        let mut args = Vec::new();
        for p in &f.params {
            let Kind::Shape(s) = &p.kind else { unreachable!("no parameter is a truth value") };
            args.push(format!("black_box({})", value(model, &s.name, t, &w.inputs[at..at + p.kind.words()])));
            at += p.kind.words();
        }
        let c = callables[w.callable];
        out.push("    {".into());
        out.push(format!("        let r = {}({});", w.c_name, args.join(", ")));
        let want = w.expected.iter().map(|x| format!("0x{x:x}")).collect::<Vec<_>>().join(", ");
        out.push(format!(
            "        if !same(&{}, &[{want}], {}, {}, {}) {{",
            result_words(model, &f.ret, t),
            t.bits,
            c.is_float(),
            c.either_zero()
        ));
        let rule = format!("{}: {}", w.mutant.name(), w.mutant.description()).replace('"', "'");
        out.push(format!("            return fail(\"{}\", \"its witness gives other bits than the contract: the build breaks the rule it tells from {rule}\");", w.c_name));
        out.push("        }".into());
        out.push("        checks += 1;".into());
        out.push("    }".into());
    }
    out.push("    Ok(checks)".into());
    out.push("}".into());
    let mut s = out.join("\n");
    s.push('\n');
    s
}
