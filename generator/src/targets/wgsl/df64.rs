//! df64 in WGSL: `wgsl_core/aether_df64.wgsl`, every f64 function of the
//! spec that `[df64]` runs, each rounded binary64 operation of its tree the
//! df64 operation `[df64].ops` names, printed by the one walk of `print`
//! with the spelling `Df64`; and its check module.
//!
//! The operations of `[df64_ops]` are printed from their typed steps
//! (`crate::df64`), every rounded binary32 operation passed through the
//! guard. The loaded-low-word rule is placed here, once: `Df64::operand`
//! wraps an operand of a cancelling operation that is a load
//! (`df64::is_load`) in the renorm operation; nothing else is wrapped.

use crate::df64::{self, Df64Spec};
use crate::model::{Function, Kind, Model};
use crate::spec::ShapeKind;
use crate::targets::shared::c_family as c;
use crate::targets::shared::check::{CheckEntry, CheckModule, Guard};
use crate::targets::shared::df64::{self as shared, f32_of, Reader, Syntax};
use crate::targets::shared::print::Spelling;

pub use crate::targets::shared::df64::{call_args, op_name, split};

/// The WGSL type of a df64 value.
pub const DF: &str = "aether_df64";

/// WGSL's spelling of the df64 layer.
#[derive(Debug, Clone, Copy)]
pub struct Wgsl<'a> {
    /// The spec's binary32 type (its literals' spelling).
    pub f32: &'a crate::spec::ElemType,
}

impl Syntax for Wgsl<'_> {
    fn df(&self) -> &'static str {
        DF
    }
    fn f32_ty(&self) -> &'static str {
        "f32"
    }
    fn lit(&self, v: f32) -> String {
        c::literal(f64::from(v), self.f32)
    }
    fn pair(&self, hi: &str, lo: &str) -> String {
        format!("{DF}({hi}, {lo})")
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("select({b}, {a}, {c})")
    }
    fn fabs_bits(&self, x: &str) -> String {
        format!("bitcast<f32>(bitcast<u32>({x}) & 0x7fffffffu)")
    }
    fn fn_head(&self, name: &str, params: &[(String, String)], ret: &str) -> String {
        let ps: Vec<String> = params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        format!("fn {name}({}) -> {ret}", ps.join(", "))
    }
    fn bind(&self, name: &str, ty: &str, value: &str) -> String {
        format!("let {name}: {ty} = {value};")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("var {}: {ty};", crate::targets::shared::print::OUT)
    }
    fn structure(&self, name: &str, fields: &[(String, String, Option<usize>)]) -> Vec<String> {
        let mut out = vec![format!("struct {name} {{")];
        for (n, t, len) in fields {
            match len {
                Some(k) => out.push(format!("    {n}: array<{t}, {k}>,")),
                None => out.push(format!("    {n}: {t},")),
            }
        }
        out.push("}".into());
        out
    }
}

/// The spelling of an f64 function's tree in WGSL's df64.
pub fn spelling<'a>(spec: &'a Df64Spec, syntax: &'a Wgsl<'a>) -> shared::Df64<'a> {
    shared::Df64 { spec, syntax }
}

/// The WGSL type of a shape in df64: the C core's f64 struct name, or the
/// pair.
pub fn type_name(model: &Model, shape: &str) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => DF.into(),
        _ => format!("aether_{shape}d"),
    }
}

const PRELUDE: &str = "\
// A df64 value is the unevaluated sum hi + lo of two f32 (x = hi, y = lo),
// normalised: hi = f32(hi + lo). An f64 is split on the host: hi = f32(x),
// lo = f32(x - hi). Every rounded f32 operation of an operation below passes
// aether_df64_guard: its bits ORed with a zero the compiler cannot see. Call
// aether_df64_set_opaque_zero(z) with a zero read from a uniform or storage
// buffer at the start of an entry point; without it the guard is a plain OR
// with 0, which a compiler may fold, and the error-free transforms' residuals
// may be lost (measured on lavapipe: df64 then has f32's precision).
//
// The loaded-low-word rule: every operand of a cancelling operation (sub,
// add, div) that is a load (a parameter, a component of one, or a name bound
// to either) passes aether_df64_renorm first, which re-derives both words
// (the identity on a normalised pair).
";

/// The source of `wgsl_core/aether_df64.wgsl` (with `guard`: the controls').
pub fn core_source(model: &Model, lowered: &[Function], banner: &str, guard: Guard) -> String {
    let Some(spec) = df64::of(model) else { return String::new() };
    let Some(t) = f32_of(model) else { return String::new() };
    let syn = Wgsl { f32: t };
    let mut out: Vec<String> = banner.lines().map(String::from).collect();
    out.push(String::new());
    out.push(format!("// The f64 functions of the spec in df64 ([df64]: {}).", spec.doc));
    out.extend(PRELUDE.lines().map(String::from));
    out.push(shared::domain_line(spec));
    out.push(String::new());
    out.push(format!("alias {DF} = vec2<f32>;"));
    out.push(String::new());
    out.push("var<private> aether_df64_zero: u32;".into());
    out.push("var<private> aether_df64_one: f32 = 1.0;".into());
    out.push("fn aether_df64_set_opaque_zero(z: u32) {".into());
    out.push("    aether_df64_zero = z;".into());
    out.push("}".into());
    out.push("fn aether_df64_set_opaque_one(one: f32) {".into());
    out.push("    aether_df64_one = one;".into());
    out.push("}".into());
    out.extend(crate::targets::wgsl::guard_helper("aether_df64_guard", "aether_df64_zero", "aether_df64_one", guard));
    out.push("fn aether_df64_isfinite_f32(x: f32) -> bool {".into());
    out.push("    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;".into());
    out.push("}".into());
    out.extend(shared::ops_source(&syn, spec));
    out.extend(shared::structs(model, &syn));
    out.extend(shared::functions(model, lowered, &syn));
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// The check module: the df64 core, the bindings of the WGSL check module
/// (`targets::wgsl`), and one entry per function. Every f64 word of the C
/// layout is two u32 words here (hi, lo), so an entry's `n_in` is twice the
/// function's f64 words; a pair result is two words, a truth one.
pub fn check_module(model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
    let (Some(spec), Some(t)) = (df64::of(model), f32_of(model)) else { return CheckModule { source: String::new(), entries: Vec::new() } };
    let mut src = vec![
        core_source(model, lowered, "// aether df64 check module", guard),
        "@group(0) @binding(0) var<storage, read> aether_in: array<u32>;".into(),
        "@group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;".into(),
        "@group(0) @binding(2) var<uniform> aether_params: vec4<u32>;".into(),
        String::new(),
        "fn aether_df64_in(k: u32) -> aether_df64 {".into(),
        "    return aether_df64(bitcast<f32>(aether_in[k]), bitcast<f32>(aether_in[k + 1u]));".into(),
        "}".into(),
        "fn aether_df64_check_guard() {".into(),
        "    aether_df64_set_opaque_zero(aether_params.y);".into(),
        "    aether_df64_set_opaque_one(bitcast<f32>(aether_params.z));".into(),
        "}".into(),
    ];
    let syn = Wgsl { f32: t };
    let sp = spelling(spec, &syn);
    let mut entries = Vec::new();
    for f in spec.functions(lowered) {
        let name = model.c_name(f);
        let entry = format!("check_df64_{}", name.trim_start_matches("aether_"));
        let n_in = 2 * f.input_words();
        let n_out = if f.returns_bool() { 1 } else { 2 * f.output_words() };
        src.extend(crate::targets::wgsl::function_entry_head(&entry, "aether_df64_check_guard();", n_in, n_out));
        let mut w = 0usize;
        for p in &f.params {
            let Kind::Shape(s) = &p.kind else { unreachable!("no truth parameters") };
            let words: Vec<String> = (0..s.len()).map(|k| format!("aether_df64_in(aether_base + {}u)", 2 * (w + k))).collect();
            let value = match &s.kind {
                ShapeKind::Scalar => words[0].clone(),
                ShapeKind::Vector(_) => format!("{}({})", type_name(model, &s.name), words.join(", ")),
                ShapeKind::Matrix { .. } => format!("{}(array<{DF}, {}>({}))", type_name(model, &s.name), s.len(), words.join(", ")),
            };
            src.push(format!("    let {} = {value};", p.name));
            w += s.len();
        }
        let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
        src.push(format!("    let aether_result = {name}({});", args.join(", ")));
        let words: Vec<String> = match &f.ret {
            Kind::Bool => vec!["select(0u, 1u, aether_result)".into()],
            Kind::Shape(s) => (0..s.len())
                .flat_map(|k| {
                    let v = if matches!(s.kind, ShapeKind::Scalar) {
                        "aether_result".to_string()
                    } else {
                        sp.component("aether_result", &s.kind, k)
                    };
                    [format!("bitcast<u32>({v}.x)"), format!("bitcast<u32>({v}.y)")]
                })
                .collect(),
        };
        for (k, w) in words.iter().enumerate() {
            src.push(format!("    aether_out[aether_obase + {k}u] = {w};"));
        }
        src.push("}".into());
        entries.push(CheckEntry::of_function(entry, name, f, n_in, n_out));
    }
    let mut s = src.join("\n");
    s.push('\n');
    CheckModule { source: s, entries }
}

// ------------------------------------------------------------ the audit

pub use crate::df64::Audit;

/// How the audit reads WGSL: `fn name(p: T, ...) -> R {`, `let n: T = v;`,
/// `select(b, a, c)`.
pub const READER: Reader = Reader {
    head: |l| {
        let head = l.strip_prefix("fn ")?;
        let open = head.find('(')?;
        Some((head[..open].to_string(), head[open..].to_string()))
    },
    param: |p| p.split(':').next().unwrap_or("").trim().to_string(),
    binding: |b| {
        let (lhs, rhs) = b.strip_prefix("let ")?.split_once(" = ")?;
        Some((lhs.split(':').next()?.trim().to_string(), rhs.to_string()))
    },
    choice: |e| {
        if !e.starts_with("select(") {
            return None;
        }
        let (args, end) = call_args(e, "select".len());
        (end == e.len() && args.len() == 3).then(|| (args[0].to_string(), args[1].to_string()))
    },
};

/// The identity in place of the renorm operation (the runner's control
/// without the loaded-low-word guard), or None when its text changed.
pub fn without_renorm_op(model: &Model, source: &str) -> Option<String> {
    let (spec, t) = (df64::of(model)?, f32_of(model)?);
    shared::without_renorm_op(&Wgsl { f32: t }, source, spec)
}

/// The audit of a WGSL df64 source (`shared::audit`).
pub fn audit(source: &str, spec: &Df64Spec) -> Audit {
    shared::audit(&READER, source, spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        crate::load(&crate::default_root()).expect("the spec loads")
    }

    /// The generated df64 core: every load that is an operand of a
    /// cancelling call is wrapped, and nothing else is.
    #[test]
    fn every_loaded_operand_of_a_cancelling_operation_is_renormed_and_nothing_else() {
        let m = model();
        let spec = df64::of(&m).unwrap();
        let src = core_source(&m, &m.lowered(), "// test", Guard::Bits);
        let a = audit(&src, spec);
        assert!(a.unwrapped_loads.is_empty(), "loads not renormed: {:?}", a.unwrapped_loads);
        assert!(a.needless.is_empty(), "renorms that are not needed: {:?}", a.needless);
        // Not vacuous: the walk sees the functions and both kinds of operand,
        // the lanes the lowering synthesises included (a determinant's
        // products are computed; a difference's lanes are loads).
        assert_eq!(a.functions, spec.functions(&m.lowered()).len());
        assert!(a.wrapped > 50 && a.computed > 200, "{a:?}");
        // The committed file is this source.
        let committed = std::fs::read_to_string(crate::default_root().join("wgsl_core/aether_df64.wgsl")).unwrap();
        assert_eq!(audit(&committed, spec), Audit { ..a });
        eprintln!(
            "df64 audit: {} functions, {} cancelling calls, {} loaded operands renormed, {} computed operands left alone",
            a.functions, a.cancelling, a.wrapped, a.computed
        );
    }

    /// The audit's negative controls: a renorm dropped, a renorm added to a
    /// computed operand, a blanket renorm of every operand: each is caught.
    #[test]
    fn the_audit_catches_a_missing_a_needless_and_a_blanket_renorm() {
        let m = model();
        let spec = df64::of(&m).unwrap();
        let src = core_source(&m, &m.lowered(), "// test", Guard::Bits);
        let renorm = op_name(&spec.ops[spec.renorm]);
        // One site unwrapped (the first difference of a vec3's lanes).
        let dropped =
            src.replacen(&format!("aether_df64_sub({renorm}(a.x), {renorm}(b.x))"), "aether_df64_sub(a.x, aether_df64_renorm(b.x))", 1);
        assert_ne!(dropped, src, "the control's text is in the source");
        let a = audit(&dropped, spec);
        assert_eq!(a.unwrapped_loads.len(), 1, "{:?}", a.unwrapped_loads);
        // A computed operand wrapped (the first product a difference takes).
        let at = src.find("aether_df64_sub(aether_df64_mul(").expect("a difference of products");
        let open = at + "aether_df64_sub".len();
        let (args, _) = call_args(&src, open);
        let first = args[0].to_string();
        let extra = format!("{}{renorm}({first}){}", &src[..open + 1], &src[open + 1 + first.len()..]);
        let a = audit(&extra, spec);
        assert_eq!(a.needless.len(), 1, "a renorm of a computed product passes the audit: {:?}", a.needless);
        // A blanket renorm: every operand of a multiplication too.
        let blanket = src.replace("aether_df64_mul(a.x, a.x)", &format!("aether_df64_mul({renorm}(a.x), {renorm}(a.x))"));
        assert_ne!(blanket, src);
        let a = audit(&blanket, spec);
        assert!(!a.needless.is_empty(), "a blanket renorm passes the audit");
        // The printer's rule itself: without Df64::operand's wrapping, the
        // audit finds every loaded operand unwrapped.
        let bare = shared::without_renorm(&src, spec);
        let real = audit(&src, spec);
        let a = audit(&bare, spec);
        assert_eq!(a.unwrapped_loads.len(), real.wrapped);
    }
}
