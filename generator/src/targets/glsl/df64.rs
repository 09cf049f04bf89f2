//! df64 in GLSL ES 3.00: `glsl_core/aether_df64.glsl`, every f64 function of
//! the spec that `[df64]` runs, printed by the walk WGSL's df64 prints
//! through (`targets::shared::df64`) in GLSL's spelling; and its check module
//! in the draw convention (`runner/src/glsl_draw.rs`).
//!
//! A pair is a `vec2` (x = hi, y = lo). Every rounded binary32 operation of
//! an operation passes `aether_df64_guard`, the f32 core's guard (the bits
//! plus a zero read from a uniform: Mesa's compiler sees through an XOR).
//! The loaded-low-word rule is the shared printer's: a function's parameter
//! is a load whatever it came from in the shader that calls it (a uniform
//! block, a plain uniform, an attribute, a texture fetch), so an operand of
//! a cancelling operation that is a parameter, a component of one or a name
//! bound to either is wrapped in the renorm operation, and nothing else is.

use crate::df64::{self, Audit, Df64Spec};
use crate::model::{Function, Kind, Model};
use crate::spec::ShapeKind;
use crate::targets::shared::check::{CheckEntry, CheckModule, Guard};
use crate::targets::shared::df64::{self as shared, f32_of, Reader, Syntax};
use crate::targets::shared::print::{Spelling, OUT};

/// The GLSL type of a df64 value.
pub const DF: &str = "vec2";

/// GLSL ES 3.00's spelling of the df64 layer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Glsl;

impl Syntax for Glsl {
    fn df(&self) -> &'static str {
        DF
    }
    fn f32_ty(&self) -> &'static str {
        "float"
    }
    fn lit(&self, v: f32) -> String {
        super::literal(f64::from(v))
    }
    fn pair(&self, hi: &str, lo: &str) -> String {
        format!("{DF}({hi}, {lo})")
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("({c} ? {a} : {b})")
    }
    fn fabs_bits(&self, x: &str) -> String {
        format!("uintBitsToFloat(floatBitsToUint({x}) & 0x7fffffffu)")
    }
    fn fn_head(&self, name: &str, params: &[(String, String)], ret: &str) -> String {
        let ps: Vec<String> = params.iter().map(|(n, t)| format!("{t} {n}")).collect();
        format!("{ret} {name}({})", ps.join(", "))
    }
    fn bind(&self, name: &str, ty: &str, value: &str) -> String {
        format!("{ty} {name} = {value};")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("{ty} {OUT};")
    }
    fn structure(&self, name: &str, fields: &[(String, String, Option<usize>)]) -> Vec<String> {
        let mut out = vec![format!("struct {name} {{")];
        for (n, t, len) in fields {
            match len {
                Some(k) => out.push(format!("    {t} {n}[{k}];")),
                None => out.push(format!("    {t} {n};")),
            }
        }
        out.push("};".into());
        out
    }
}

const PRELUDE: &str = "\
// A df64 value is the unevaluated sum hi + lo of two floats, a vec2 (x = hi,
// y = lo), normalised: hi = float(hi + lo). An f64 is split on the host:
// hi = float(x), lo = float(x - hi). Every rounded float operation of an
// operation below passes aether_df64_guard: the opaque zero added to its bits
// (added, not XORed: Mesa's GLSL compiler sees through an XOR). Call
// aether_df64_set_opaque_zero(z) with a zero read from a uniform at the start
// of main; without it the guard adds a literal 0, which a compiler may fold,
// and the error-free transforms' residuals may be lost (df64 then has
// float's precision).
//
// The loaded-low-word rule: every operand of a cancelling operation (sub,
// add, div) that is a load (a parameter, a component of one, or a name bound
// to either: whatever the caller passed, from a uniform block, a plain
// uniform, an attribute or a texture fetch) passes aether_df64_renorm first,
// which re-derives both words (the identity on a normalised pair).
//
// GLSL ES 3.00 has no precise qualifier and no contraction control: a
// compiler that fuses a product into a sum breaks the error-free transforms;
// the guard keeps the product's rounding (the product is guarded before the
// sum reads it).
";

/// The source of `glsl_core/aether_df64.glsl` (with `guard`: the controls').
pub fn core_source(model: &Model, lowered: &[Function], banner: &str, guard: Guard) -> String {
    let (Some(spec), Some(_)) = (df64::of(model), f32_of(model)) else { return String::new() };
    let mut out: Vec<String> = banner.lines().map(String::from).collect();
    out.push(String::new());
    out.push(format!("// The f64 functions of the spec in df64 ([df64]: {}).", spec.doc));
    out.extend(PRELUDE.lines().map(String::from));
    out.push(shared::domain_line(spec));
    out.push(String::new());
    out.push("uint aether_df64_zero = 0u;".into());
    out.push("float aether_df64_one = 1.0;".into());
    out.push("void aether_df64_set_opaque_zero(uint z) {".into());
    out.push("    aether_df64_zero = z;".into());
    out.push("}".into());
    out.push("void aether_df64_set_opaque_one(float one) {".into());
    out.push("    aether_df64_one = one;".into());
    out.push("}".into());
    out.extend(super::guard_helper("aether_df64_guard", "aether_df64_zero", "aether_df64_one", guard));
    out.push("bool aether_df64_isfinite_f32(float x) {".into());
    out.push("    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;".into());
    out.push("}".into());
    out.extend(shared::ops_source(&Glsl, spec));
    out.extend(shared::structs(model, &Glsl));
    out.extend(shared::functions(model, lowered, &Glsl));
    let mut s = super::rename_reserved(&out.join("\n"));
    s.push('\n');
    s
}

/// The check module in the draw convention: the df64 core, the draw's
/// bindings, and one entry per function (`check_df64_<name>`). Every f64
/// word of the C layout is two input words here (hi, lo), so an entry's
/// `n_in` is twice the function's f64 words; a pair result is two words
/// (hi, lo), a truth one.
pub fn check_module(model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
    let (Some(spec), Some(t)) = (df64::of(model), f32_of(model)) else { return CheckModule { source: String::new(), entries: Vec::new() } };
    let core = core_source(model, lowered, "// aether df64 check module", guard);
    let sp = shared::Df64 { spec, syntax: &Glsl };
    // The draw's bindings use `uniform`, `flat` and `out` as GLSL does: they
    // are not renamed; the entries below are.
    let bindings = [
        "",
        "// The draw's guard setters, on df64's opaque zero and one.",
        "void aether_set_opaque_zero(uint z) {",
        "    aether_df64_set_opaque_zero(z);",
        "}",
        "void aether_set_opaque_one(float one) {",
        "    aether_df64_set_opaque_one(one);",
        "}",
        super::DRAW_BINDINGS.trim_end(),
    ]
    .join("\n");
    let mut src = vec![
        String::new(),
        format!("{DF} aether_df64_in(uint k) {{"),
        format!("    return {DF}(uintBitsToFloat(aether_word(k)), uintBitsToFloat(aether_word(k + 1u)));"),
        "}".into(),
    ];
    let mut entries = Vec::new();
    for f in spec.functions(lowered) {
        let name = model.c_name(f);
        let entry = format!("check_df64_{}", name.trim_start_matches("aether_"));
        let n_in = 2 * f.input_words();
        let n_out = if f.returns_bool() { 1 } else { 2 * f.output_words() };
        src.extend(super::entry_head(&entry, n_in));
        let mut w = 0usize;
        for p in &f.params {
            let Kind::Shape(s) = &p.kind else { unreachable!("no truth parameters") };
            let words: Vec<String> = (0..s.len()).map(|k| format!("aether_df64_in(aether_base + {}u)", 2 * (w + k))).collect();
            let ty = sp.kind_type(model, &p.kind, t);
            let value = match &s.kind {
                ShapeKind::Scalar => words[0].clone(),
                ShapeKind::Vector(_) => format!("{ty}({})", words.join(", ")),
                ShapeKind::Matrix { .. } => format!("{ty}({DF}[{}]({}))", s.len(), words.join(", ")),
            };
            src.push(format!("    {ty} {} = {value};", p.name));
            w += s.len();
        }
        let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
        src.push(format!("    {} aether_result = {name}({});", sp.kind_type(model, &f.ret, t), args.join(", ")));
        let words: Vec<String> = match &f.ret {
            Kind::Bool => vec!["(aether_result ? 1u : 0u)".into()],
            Kind::Shape(s) => (0..s.len())
                .flat_map(|k| {
                    let v = if matches!(s.kind, ShapeKind::Scalar) {
                        "aether_result".to_string()
                    } else {
                        sp.component("aether_result", &s.kind, k)
                    };
                    [format!("floatBitsToUint({v}.x)"), format!("floatBitsToUint({v}.y)")]
                })
                .collect(),
        };
        for (k, w) in words.iter().enumerate() {
            src.push(format!("    aether_put({k}u, {w});"));
        }
        src.push("}".into());
        let mut e = CheckEntry::of_function(entry, name, f, n_in, n_out);
        (e.workgroup_size, e.cases_per_workgroup) = (1, 1);
        entries.push(e);
    }
    src.push(String::new());
    let source = [core, bindings, super::rename_reserved(&src.join("\n"))].join("\n");
    CheckModule { source, entries }
}

// ------------------------------------------------------------ the audit

/// The text of a choice `(c ? a : b)`: its two values, when `e` is one.
fn choice(e: &str) -> Option<(String, String)> {
    let b = e.as_bytes();
    if b.first() != Some(&b'(') || b.last() != Some(&b')') {
        return None;
    }
    // The outer parentheses must be one pair.
    let (mut depth, mut q, mut colon) = (0i32, None, None);
    for (k, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth -= 1;
                if depth == 0 && k + 1 != b.len() {
                    return None;
                }
            }
            b'?' if depth == 1 && q.is_none() => q = Some(k),
            b':' if depth == 1 && q.is_some() && colon.is_none() => colon = Some(k),
            _ => {}
        }
    }
    let (q, colon) = (q?, colon?);
    Some((e[q + 1..colon].trim().to_string(), e[colon + 1..b.len() - 1].trim().to_string()))
}

/// How the audit reads GLSL: `R name(T p, ...) {` at the start of a line,
/// `T n = v;`, `(c ? a : b)`.
pub const READER: Reader = Reader {
    head: |l| {
        if l.starts_with([' ', '/', '#', '}']) || !l.ends_with(") {") {
            return None;
        }
        let open = l.find('(')?;
        let words: Vec<&str> = l[..open].split_whitespace().collect();
        match words.as_slice() {
            [_, name] => Some((name.to_string(), l[open..].to_string())),
            _ => None,
        }
    },
    param: |p| p.split_whitespace().last().unwrap_or("").to_string(),
    binding: |b| {
        let (lhs, rhs) = b.split_once(" = ")?;
        match lhs.split_whitespace().collect::<Vec<_>>().as_slice() {
            [ty, name] if *ty != "return" && !ty.contains('.') => Some((name.to_string(), rhs.to_string())),
            _ => None,
        }
    },
    choice,
};

/// The audit of a GLSL df64 source (`shared::audit`).
pub fn audit(source: &str, spec: &Df64Spec) -> Audit {
    shared::audit(&READER, source, spec)
}

/// The identity in place of the renorm operation (the runner's control
/// without the loaded-low-word guard), or None when its text changed.
pub fn without_renorm_op(model: &Model, source: &str) -> Option<String> {
    shared::without_renorm_op(&Glsl, source, df64::of(model)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::shared::df64::call_args;

    fn model() -> Model {
        crate::load(&crate::default_root()).expect("the spec loads")
    }

    #[test]
    fn a_choice_is_read_only_when_it_is_the_whole_text() {
        assert_eq!(choice("(c ? a.x : b[2])"), Some(("a.x".into(), "b[2]".into())));
        assert_eq!(choice("(f(x ? y : z) ? a : (p ? q : r))"), Some(("a".into(), "(p ? q : r)".into())));
        assert_eq!(choice("(a) + (b ? c : d)"), None);
        assert_eq!(choice("a"), None);
    }

    /// The generated GLSL core: every load that is an operand of a
    /// cancelling call is wrapped, and nothing else is; the control without
    /// any renorm is caught at every site, a renorm of a computed operand
    /// too. (`generator/tests/glsl.rs` holds it to WGSL's sites.)
    #[test]
    fn every_loaded_operand_of_a_cancelling_operation_is_renormed_and_nothing_else() {
        let m = model();
        let spec = df64::of(&m).unwrap();
        let src = core_source(&m, &m.lowered(), "// test", Guard::Bits);
        let a = audit(&src, spec);
        assert!(a.unwrapped_loads.is_empty(), "loads not renormed: {:?}", a.unwrapped_loads);
        assert!(a.needless.is_empty(), "renorms that are not needed: {:?}", a.needless);
        assert_eq!(a.functions, spec.functions(&m.lowered()).len());
        assert!(a.wrapped > 50 && a.computed > 200, "{a:?}");
        let committed = std::fs::read_to_string(crate::default_root().join("glsl_core/aether_df64.glsl")).unwrap();
        assert_eq!(audit(&committed, spec), a);
        let bare = audit(&shared::without_renorm(&src, spec), spec);
        assert_eq!(bare.unwrapped_loads.len(), a.wrapped);
        // A renorm of a computed operand is caught.
        let at = src.find("aether_df64_sub(aether_df64_mul(").expect("a difference of products");
        let open = at + "aether_df64_sub".len();
        let (args, _) = call_args(&src, open);
        let first = args[0].to_string();
        let extra = format!("{}aether_df64_renorm({first}){}", &src[..open + 1], &src[open + 1 + first.len()..]);
        assert_eq!(audit(&extra, spec).needless.len(), 1);
        let identity = without_renorm_op(&m, &src).expect("the renorm operation's text is found");
        assert_eq!(identity.matches("aether_df64_renorm(").count(), src.matches("aether_df64_renorm(").count());
        assert!(identity.contains("vec2 aether_df64_renorm(vec2 a) {\n    return a;\n}"), "the identity renorm");
    }
}
