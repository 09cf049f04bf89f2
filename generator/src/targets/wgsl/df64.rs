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

use crate::df64::{self, DExpr, DTy, Df64Spec, Op};
use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function, Kind, Model, Ty};
use crate::spec::{ElemType, ShapeKind};
use crate::targets::shared::c_family as c;
use crate::targets::shared::check::{CheckEntry, CheckModule, Guard};
use crate::targets::shared::print::{self, Spelling};

/// The WGSL type of a df64 value.
pub const DF: &str = "aether_df64";

/// The function name of a df64 operation.
pub fn op_name(op: &Op) -> String {
    format!("aether_df64_{}", op.name)
}

/// The spec's binary32 element type (df64's words).
fn f32_of(model: &Model) -> Option<&ElemType> {
    model.spec.types.iter().find(|t| t.bits == 32)
}

fn f32_lit(v: f32, t: &ElemType) -> String {
    c::literal(f64::from(v), t)
}

/// The host's exact split of a binary64 value (`aether_reference::df64`):
/// hi = f32(x), lo = f32(x - hi), normalised.
pub fn split(x: f64) -> (f32, f32) {
    let p = aether_reference::df64::Df64::from_f64(x);
    (p.hi, p.lo)
}

fn wty(t: DTy) -> &'static str {
    match t {
        DTy::F32 => "f32",
        DTy::Df => DF,
        DTy::Bool => "bool",
    }
}

/// One step's expression in WGSL; `names` are the parameters' and earlier
/// steps' names.
fn dexpr(spec: &Df64Spec, t: &ElemType, e: &DExpr, names: &[String]) -> String {
    let go = |x: &DExpr| dexpr(spec, t, x, names);
    match e {
        DExpr::Lit(v) => f32_lit(*v, t),
        DExpr::Var(k) => names[*k].clone(),
        DExpr::Word(x, w) => format!("{}.{}", go(x), if *w == 0 { "x" } else { "y" }),
        DExpr::Pair(h, l) => format!("{DF}({}, {})", go(h), go(l)),
        DExpr::Bin(op, a, b) if op.is_logical() || op.is_comparison() => format!("({} {} {})", go(a), op.symbol(), go(b)),
        DExpr::Bin(op, a, b) => format!("aether_df64_guard(({} {} {}))", go(a), op.symbol(), go(b)),
        DExpr::Not(a) => format!("(!{})", go(a)),
        DExpr::Select(c, a, b) => format!("select({}, {}, {})", go(b), go(a), go(c)),
        DExpr::Sqrt(x) => format!("aether_df64_guard(sqrt({}))", go(x)),
        DExpr::Fabs(x) => format!("bitcast<f32>(bitcast<u32>({}) & 0x7fffffffu)", go(x)),
        DExpr::IsFinite(x) => format!("aether_df64_isfinite_f32({})", go(x)),
        DExpr::Call(at, xs) => {
            let args: Vec<String> = xs.iter().map(go).collect();
            format!("{}({})", op_name(&spec.ops[*at]), args.join(", "))
        }
    }
}

/// The WGSL functions of every operation of `[df64_ops]`, in the spec's order.
pub fn ops_source(spec: &Df64Spec, t: &ElemType) -> Vec<String> {
    let mut out = Vec::new();
    for op in &spec.ops {
        out.push(String::new());
        out.push(format!("// {}", op.doc));
        if let Some(b) = op.bound {
            out.push(format!("// Stated bound: {b} u^2 relative (u = 2^-24)."));
        }
        for l in op.source.trim().lines() {
            out.push(format!("//     {}", l.trim()));
        }
        let params: Vec<String> = op.params.iter().map(|(n, t)| format!("{n}: {}", wty(*t))).collect();
        out.push(format!("fn {}({}) -> {} {{", op_name(op), params.join(", "), wty(op.ret)));
        let mut names: Vec<String> = op.params.iter().map(|p| p.0.clone()).collect();
        for s in &op.steps {
            out.push(format!("    let {}: {} = {};", s.name, wty(s.ty), dexpr(spec, t, &s.expr, &names)));
            names.push(s.name.clone());
        }
        out.push(format!("    return {};", dexpr(spec, t, &op.out, &names)));
        out.push("}".into());
    }
    out
}

/// The spelling of an f64 function's tree in df64.
#[derive(Debug, Clone, Copy)]
pub struct Df64<'a> {
    pub spec: &'a Df64Spec,
    /// The spec's binary32 type (its literals' spelling).
    pub f32: &'a ElemType,
}

impl Df64<'_> {
    fn op(&self, key: &str) -> String {
        op_name(self.spec.op(key))
    }
}

impl Spelling for Df64<'_> {
    fn lit(&self, v: f64, _elem: &ElemType) -> String {
        let (h, l) = split(v);
        format!("{DF}({}, {})", f32_lit(h, self.f32), f32_lit(l, self.f32))
    }
    fn truth(&self, b: bool) -> String {
        b.to_string()
    }
    fn bin(&self, op: BinOp, a: &str, b: &str, _elem: &ElemType) -> String {
        match df64::bin_key(op) {
            Some(k) => format!("{}({a}, {b})", self.op(k)),
            None => format!("({a} {} {b})", op.symbol()),
        }
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("select({b}, {a}, {c})")
    }
    fn sqrt(&self, x: &str, _elem: &ElemType) -> String {
        format!("{}({x})", self.op("sqrt"))
    }
    fn call(&self, b: Builtin, args: &[String], _elem: &ElemType) -> String {
        let k = df64::builtin_key(b).unwrap_or_else(|| panic!("{} has no df64 form (validated: only excluded families call it)", b.name()));
        format!("{}({})", self.op(k), args.join(", "))
    }
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String {
        format!("{var}.{}", c::component(kind, k))
    }
    fn kind_type(&self, model: &Model, kind: &Kind, _elem: &ElemType) -> String {
        match kind {
            Kind::Bool => "bool".into(),
            Kind::Shape(s) => type_name(model, &s.name),
        }
    }
    fn bind(&self, name: &str, ty: Ty, _elem: &ElemType, value: &str) -> String {
        let ty = if ty == Ty::Bool { "bool" } else { DF };
        format!("let {name}: {ty} = {value};")
    }
    fn return_truth(&self, v: &str) -> String {
        format!("return {v};")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("var {}: {ty};", crate::targets::shared::print::OUT)
    }
    /// The loaded-low-word rule: a load, as an operand of a cancelling
    /// operation, passes the renorm operation first.
    fn operand(&self, op: BinOp, f: &Function, e: &Expr, printed: String) -> String {
        if df64::cancels(op) && df64::is_load(f, e) {
            format!("{}({printed})", op_name(&self.spec.ops[self.spec.renorm]))
        } else {
            printed
        }
    }
}

/// The WGSL type of a shape in df64: the C core's f64 struct name, or the
/// pair.
pub fn type_name(model: &Model, shape: &str) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => DF.into(),
        _ => format!("aether_{shape}d"),
    }
}

/// Checks that every function df64 runs can be printed: no builtin without a
/// df64 form (the barrier, fma, hypot), and no literal a pair cannot hold
/// (zero, or a magnitude inside `[min_magnitude, max_magnitude]`: outside it
/// the host's split gives infinite or lost words, as log's powers of two up to
/// 2^512 would).
pub fn validate(model: &Model) -> Result<(), crate::error::SpecError> {
    let Some(spec) = df64::of(model) else { return Ok(()) };
    for f in spec.functions(&model.lowered()) {
        let mut bad = None;
        let mut far = None;
        for e in f.exprs() {
            e.visit(&mut |x| match x {
                Expr::Call(b, _) if df64::builtin_key(*b).is_none() => {
                    bad.get_or_insert(*b);
                }
                Expr::Lit(v) if *v != 0.0 && !(spec.min_magnitude..=spec.max_magnitude).contains(&v.abs()) => {
                    far.get_or_insert(*v);
                }
                _ => {}
            });
        }
        if let Some(b) = bad {
            return Err(model.error_at(
                spec.exclude_line,
                "df64.exclude",
                format!("family `{}` calls {}(), which has no df64 form: exclude it", f.family, b.name()),
            ));
        }
        if let Some(v) = far {
            return Err(model.error_at(
                spec.exclude_line,
                "df64.exclude",
                format!(
                    "family `{}` states the literal {v:e}, outside the df64 domain (min_magnitude to max_magnitude): exclude it",
                    f.family
                ),
            ));
        }
    }
    Ok(())
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
    let mut out: Vec<String> = banner.lines().map(String::from).collect();
    out.push(String::new());
    out.push(format!("// The f64 functions of the spec in df64 ([df64]: {}).", spec.doc));
    out.extend(PRELUDE.lines().map(String::from));
    out.push(format!(
        "// Domain: every input, literal and intermediate zero or of magnitude in [2^{}, 2^{}]; the relative bound of each \
         function is in docs/numerics-contract.md.",
        spec.min_magnitude.log2(),
        spec.max_magnitude.log2()
    ));
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
    out.extend(ops_source(spec, t));
    for shape in &model.spec.shapes {
        let fields: Vec<String> = match &shape.kind {
            ShapeKind::Scalar => continue,
            ShapeKind::Vector(names) => names.iter().map(|n| format!("{n}: {DF}")).collect(),
            ShapeKind::Matrix { .. } => vec![format!("m: array<{DF}, {}>", shape.len())],
        };
        out.push(String::new());
        out.push(format!("// {}", crate::targets::shared::docs::shape_doc(shape, "df64").trim()));
        out.push(format!("struct {} {{", type_name(model, &shape.name)));
        for f in fields {
            out.push(format!("    {f},"));
        }
        out.push("}".into());
    }
    let sp = Df64 { spec, f32: t };
    for f in spec.functions(lowered) {
        let fam = model.spec.family(&f.family).unwrap();
        let name = model.c_name(f);
        let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, sp.kind_type(model, &p.kind, t))).collect();
        out.push(String::new());
        out.push(format!("// {}", fam.doc.replace('\n', " ")));
        out.push(format!("fn {name}({}) -> {} {{", params.join(", "), sp.kind_type(model, &f.ret, t)));
        for l in print::body(&sp, model, f, t) {
            out.push(format!("    {l}"));
        }
        out.push("}".into());
    }
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
    let sp = Df64 { spec, f32: t };
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

/// The arguments of the call whose `(` is at `open` in `s`, split at the top
/// level, and the index after its `)`.
fn call_args(s: &str, open: usize) -> (Vec<&str>, usize) {
    let b = s.as_bytes();
    let (mut depth, mut start, mut args) = (0usize, open + 1, Vec::new());
    let mut k = open;
    while k < b.len() {
        match b[k] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    args.push(s[start..k].trim());
                    return (args, k + 1);
                }
            }
            b',' if depth == 1 => {
                args.push(s[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    (args, b.len())
}

/// Whether an expression of the source is a load: a path on a parameter or
/// on a name bound to a load (`a`, `a.x`, `m.m[3]`), or a `select` one of
/// whose values is a load.
fn text_is_load(e: &str, loads: &[String]) -> bool {
    let e = e.trim();
    if e.starts_with("select(") {
        let (args, end) = call_args(e, "select".len());
        return end == e.len() && args.len() == 3 && (text_is_load(args[0], loads) || text_is_load(args[1], loads));
    }
    let root: String = e.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let rest = &e[root.len()..];
    let path_ok = rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '[' | ']' | '_'));
    !root.is_empty() && path_ok && loads.contains(&root)
}

/// Walks every function of a df64 source that is not an operation: every
/// operand of a cancelling call must be wrapped in `renorm` exactly when it
/// is a load, and `renorm` must appear nowhere else.
pub fn audit(source: &str, spec: &Df64Spec) -> Audit {
    let renorm = format!("{}(", op_name(&spec.ops[spec.renorm]));
    let cancel: Vec<String> = ["add", "sub", "div"].iter().map(|k| format!("{}(", op_name(spec.op(k)))).collect();
    let mut a = Audit::default();
    let mut lines = source.lines().peekable();
    while let Some(l) = lines.next() {
        let Some(head) = l.strip_prefix("fn ") else { continue };
        if head.starts_with("aether_df64_") {
            continue;
        }
        a.functions += 1;
        let name: String = head.chars().take_while(|c| *c != '(').collect();
        let open = head.find('(').unwrap();
        let (params, _) = call_args(head, open);
        let mut loads: Vec<String> = params.iter().filter_map(|p| p.split(':').next()).map(|p| p.trim().to_string()).collect();
        let mut body = Vec::new();
        for b in lines.by_ref() {
            if b == "}" {
                break;
            }
            body.push(b.trim().to_string());
        }
        let mut renorms_seen = 0;
        for b in &body {
            renorms_seen += b.matches(&renorm).count();
            if let Some(rest) = b.strip_prefix("let ") {
                if let Some((lhs, rhs)) = rest.split_once(" = ") {
                    let n = lhs.split(':').next().unwrap().trim().to_string();
                    if text_is_load(rhs.trim_end_matches(';'), &loads) {
                        loads.push(n);
                    }
                }
            }
            for c in &cancel {
                let mut from = 0;
                while let Some(at) = b[from..].find(c.as_str()) {
                    let pos = from + at;
                    // Not the tail of a longer name (aether_df64_add inside xaether_df64_add).
                    let ok = pos == 0 || !(b.as_bytes()[pos - 1].is_ascii_alphanumeric() || b.as_bytes()[pos - 1] == b'_');
                    let open = pos + c.len() - 1;
                    from = open + 1;
                    if !ok {
                        continue;
                    }
                    a.cancelling += 1;
                    let (args, _) = call_args(b, open);
                    for arg in args {
                        match arg.strip_prefix(renorm.as_str()).and_then(|x| x.strip_suffix(')')) {
                            Some(inner) if text_is_load(inner, &loads) => a.wrapped += 1,
                            Some(inner) => a.needless.push(format!("{name}: renorm of the computed `{inner}`")),
                            None if text_is_load(arg, &loads) => a.unwrapped_loads.push(format!("{name}: `{arg}` in `{c}..)`")),
                            None => a.computed += 1,
                        }
                    }
                }
            }
        }
        // Every renorm must be an operand of a cancelling call.
        let counted: usize = body
            .iter()
            .map(|b| {
                cancel
                    .iter()
                    .map(|c| {
                        let mut n = 0;
                        let mut from = 0;
                        while let Some(at) = b[from..].find(c.as_str()) {
                            let open = from + at + c.len() - 1;
                            from = open + 1;
                            let (args, _) = call_args(b, open);
                            n += args.iter().filter(|x| x.starts_with(renorm.as_str()) && x.ends_with(')')).count();
                        }
                        n
                    })
                    .sum::<usize>()
            })
            .sum();
        if renorms_seen > counted {
            a.needless.push(format!("{name}: {} renorm calls that are not operands of a cancelling call", renorms_seen - counted));
        }
    }
    a
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
        // Every call of renorm replaced by its operand (the definition kept).
        let call = format!("{renorm}(");
        let mut bare = src.clone();
        let mut from = 0;
        while let Some(k) = bare[from..].find(&call) {
            let at = from + k;
            if bare[..at].ends_with("fn ") {
                from = at + call.len();
                continue;
            }
            let open = at + renorm.len();
            let (args, end) = call_args(&bare, open);
            bare = format!("{}{}{}", &bare[..at], args[0], &bare[end..]);
            from = at;
        }
        let real = audit(&src, spec);
        let a = audit(&bare, spec);
        assert_eq!(a.unwrapped_loads.len(), real.wrapped);
    }
}
