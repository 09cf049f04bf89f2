//! df64 in a shader language: what every target that prints the df64 layer
//! (`Target::prints_df64`: WGSL, GLSL ES) shares. The operations of
//! `[df64_ops]` printed from their typed steps (`crate::df64`), every rounded
//! binary32 operation passed through the target's guard; the spelling of an
//! f64 function's tree in df64 (`Df64`), through the one walk of `print`,
//! with the loaded-low-word rule placed once (`Spelling::operand`: an operand
//! of a cancelling operation that is a load, `df64::is_load`, is wrapped in
//! the renorm operation; nothing else is); the structs; and the audit that
//! walks a printed core and proves every such site wrapped and no other.
//!
//! A target says only how its language spells things (`Syntax`): the pair's
//! type and constructor, a binding, a function's head, a choice, a struct.

use crate::df64::{self, Audit, DExpr, DTy, Df64Spec, Op};
use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function, Kind, Model, Ty};
use crate::spec::{ElemType, ShapeKind};
use crate::targets::shared::print::{self, Spelling};

/// How a shader language spells the pieces of the df64 layer.
pub trait Syntax: std::fmt::Debug {
    /// The type of a pair (`aether_df64`, `vec2`).
    fn df(&self) -> &'static str;
    /// The type of one binary32 word.
    fn f32_ty(&self) -> &'static str;
    /// An exact literal of a binary32 value.
    fn lit(&self, v: f32) -> String;
    /// The pair of two binary32 expressions.
    fn pair(&self, hi: &str, lo: &str) -> String;
    /// `c ? a : b`.
    fn select(&self, c: &str, a: &str, b: &str) -> String;
    /// |x| of a binary32 expression, on its bits.
    fn fabs_bits(&self, x: &str) -> String;
    /// The head of a function (without its `{`).
    fn fn_head(&self, name: &str, params: &[(String, String)], ret: &str) -> String;
    /// An immutable binding.
    fn bind(&self, name: &str, ty: &str, value: &str) -> String;
    /// The declaration of the result `print::OUT` of type `ty`.
    fn declare_out(&self, ty: &str) -> String;
    /// A struct's text, fields (name, type, array length) in order.
    fn structure(&self, name: &str, fields: &[(String, String, Option<usize>)]) -> Vec<String>;

    /// The type of a step's value.
    fn ty(&self, t: DTy) -> &'static str {
        match t {
            DTy::F32 => self.f32_ty(),
            DTy::Df => self.df(),
            DTy::Bool => "bool",
        }
    }
}

/// The function name of a df64 operation.
pub fn op_name(op: &Op) -> String {
    format!("aether_df64_{}", op.name)
}

/// The host's exact split of a binary64 value (`aether_reference::df64`):
/// hi = f32(x), lo = f32(x - hi), normalised.
pub fn split(x: f64) -> (f32, f32) {
    let p = aether_reference::df64::Df64::from_f64(x);
    (p.hi, p.lo)
}

/// The spec's binary32 element type (df64's words).
pub fn f32_of(model: &Model) -> Option<&ElemType> {
    model.spec.types.iter().find(|t| t.bits == 32)
}

/// One step's expression; `names` are the parameters' and earlier steps'.
fn dexpr(syn: &dyn Syntax, spec: &Df64Spec, e: &DExpr, names: &[String]) -> String {
    let go = |x: &DExpr| dexpr(syn, spec, x, names);
    match e {
        DExpr::Lit(v) => syn.lit(*v),
        DExpr::Var(k) => names[*k].clone(),
        DExpr::Word(x, w) => format!("{}.{}", go(x), if *w == 0 { "x" } else { "y" }),
        DExpr::Pair(h, l) => syn.pair(&go(h), &go(l)),
        DExpr::Bin(op, a, b) if op.is_logical() || op.is_comparison() => format!("({} {} {})", go(a), op.symbol(), go(b)),
        DExpr::Bin(op, a, b) => format!("aether_df64_guard(({} {} {}))", go(a), op.symbol(), go(b)),
        DExpr::Not(a) => format!("(!{})", go(a)),
        DExpr::Select(c, a, b) => syn.select(&go(c), &go(a), &go(b)),
        DExpr::Sqrt(x) => format!("aether_df64_guard(sqrt({}))", go(x)),
        DExpr::Fabs(x) => syn.fabs_bits(&go(x)),
        DExpr::IsFinite(x) => format!("aether_df64_isfinite_f32({})", go(x)),
        DExpr::Call(at, xs) => {
            let args: Vec<String> = xs.iter().map(go).collect();
            format!("{}({})", op_name(&spec.ops[*at]), args.join(", "))
        }
    }
}

/// The functions of every operation of `[df64_ops]`, in the spec's order
/// (an operation calls only earlier ones).
pub fn ops_source(syn: &dyn Syntax, spec: &Df64Spec) -> Vec<String> {
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
        out.extend(op_function(syn, spec, op));
    }
    out
}

/// The function of one operation, from its head to its closing brace.
fn op_function(syn: &dyn Syntax, spec: &Df64Spec, op: &Op) -> Vec<String> {
    let params: Vec<(String, String)> = op.params.iter().map(|(n, t)| (n.clone(), syn.ty(*t).to_string())).collect();
    let mut out = vec![format!("{} {{", syn.fn_head(&op_name(op), &params, syn.ty(op.ret)))];
    let mut names: Vec<String> = op.params.iter().map(|p| p.0.clone()).collect();
    for s in &op.steps {
        out.push(format!("    {}", syn.bind(&s.name, syn.ty(s.ty), &dexpr(syn, spec, &s.expr, &names))));
        names.push(s.name.clone());
    }
    out.push(format!("    return {};", dexpr(syn, spec, &op.out, &names)));
    out.push("}".into());
    out
}

/// `source` with the renorm operation the identity (the runners' control
/// without the loaded-low-word guard): its function as `ops_source` prints
/// it, replaced by one that returns its operand; None when the source does
/// not hold that function.
pub fn without_renorm_op(syn: &dyn Syntax, source: &str, spec: &Df64Spec) -> Option<String> {
    let op = &spec.ops[spec.renorm];
    let from = op_function(syn, spec, op);
    let to = [from[0].clone(), format!("    return {};", op.params[0].0), "}".into()];
    let (from, to) = (from.join("\n"), to.join("\n"));
    source.contains(&from).then(|| source.replacen(&from, &to, 1))
}

/// The spelling of an f64 function's tree in df64.
#[derive(Debug, Clone, Copy)]
pub struct Df64<'a> {
    pub spec: &'a Df64Spec,
    pub syntax: &'a dyn Syntax,
}

impl Df64<'_> {
    fn op(&self, key: &str) -> String {
        op_name(self.spec.op(key))
    }
}

impl Spelling for Df64<'_> {
    fn lit(&self, v: f64, _elem: &ElemType) -> String {
        let (h, l) = split(v);
        self.syntax.pair(&self.syntax.lit(h), &self.syntax.lit(l))
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
        self.syntax.select(c, a, b)
    }
    fn sqrt(&self, x: &str, _elem: &ElemType) -> String {
        format!("{}({x})", self.op("sqrt"))
    }
    fn call(&self, b: Builtin, args: &[String], _elem: &ElemType) -> String {
        let k = df64::builtin_key(b).unwrap_or_else(|| panic!("{} has no df64 form (validated: only excluded families call it)", b.name()));
        format!("{}({})", self.op(k), args.join(", "))
    }
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String {
        format!("{var}.{}", crate::targets::shared::c_family::component(kind, k))
    }
    fn kind_type(&self, model: &Model, kind: &Kind, _elem: &ElemType) -> String {
        match kind {
            Kind::Bool => "bool".into(),
            Kind::Shape(s) => type_name(model, self.syntax, &s.name),
        }
    }
    fn bind(&self, name: &str, ty: Ty, _elem: &ElemType, value: &str) -> String {
        let ty = if ty == Ty::Bool { "bool" } else { self.syntax.df() };
        self.syntax.bind(name, ty, value)
    }
    fn return_truth(&self, v: &str) -> String {
        format!("return {v};")
    }
    fn declare_out(&self, ty: &str) -> String {
        self.syntax.declare_out(ty)
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

/// The type of a shape in df64: the C core's f64 struct name, or the pair.
pub fn type_name(model: &Model, syn: &dyn Syntax, shape: &str) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => syn.df().into(),
        _ => format!("aether_{shape}d"),
    }
}

/// The structs of every vector and matrix shape, pairs in the C core's
/// memory order, each with its doc line.
pub fn structs(model: &Model, syn: &dyn Syntax) -> Vec<String> {
    let mut out = Vec::new();
    for shape in &model.spec.shapes {
        let fields: Vec<(String, String, Option<usize>)> = match &shape.kind {
            ShapeKind::Scalar => continue,
            ShapeKind::Vector(names) => names.iter().map(|n| (n.clone(), syn.df().to_string(), None)).collect(),
            ShapeKind::Matrix { .. } => vec![("m".into(), syn.df().to_string(), Some(shape.len()))],
        };
        out.push(String::new());
        out.push(format!("// {}", crate::targets::shared::docs::shape_doc(shape, "df64").trim()));
        out.extend(syn.structure(&type_name(model, syn, &shape.name), &fields));
    }
    out
}

/// Every f64 function df64 runs, each with its doc line, in `lowered`'s
/// order.
pub fn functions(model: &Model, lowered: &[Function], syn: &dyn Syntax) -> Vec<String> {
    let (Some(spec), Some(t)) = (df64::of(model), f32_of(model)) else { return Vec::new() };
    let sp = Df64 { spec, syntax: syn };
    let mut out = Vec::new();
    for f in spec.functions(lowered) {
        let fam = model.spec.family(&f.family).unwrap();
        let name = model.c_name(f);
        let params: Vec<(String, String)> = f.params.iter().map(|p| (p.name.clone(), sp.kind_type(model, &p.kind, t))).collect();
        out.push(String::new());
        out.push(format!("// {}", fam.doc.replace('\n', " ")));
        out.push(format!("{} {{", syn.fn_head(&name, &params, &sp.kind_type(model, &f.ret, t))));
        for l in print::body(&sp, model, f, t) {
            out.push(format!("    {l}"));
        }
        out.push("}".into());
    }
    out
}

/// The domain line of a core's prelude.
pub fn domain_line(spec: &Df64Spec) -> String {
    format!(
        "// Domain: every input, literal and intermediate zero or of magnitude in [2^{}, 2^{}]; the relative bound of each \
         function is in docs/numerics-contract.md.",
        spec.min_magnitude.log2(),
        spec.max_magnitude.log2()
    )
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

// ------------------------------------------------------------ the audit

/// How the audit reads a printed core: a function's head, a binding, a
/// choice.
#[derive(Debug, Clone, Copy)]
pub struct Reader {
    /// A line that opens a function: its name and the text from the `(` of
    /// its parameters on, or None.
    pub head: fn(&str) -> Option<(String, String)>,
    /// A parameter's name from its declaration text.
    pub param: fn(&str) -> String,
    /// A body line that binds a name: the name and the value's text.
    pub binding: fn(&str) -> Option<(String, String)>,
    /// A choice's two values, when the text is a choice.
    pub choice: fn(&str) -> Option<(String, String)>,
}

/// The arguments of the call whose `(` is at `open` in `s`, split at the top
/// level, and the index after its `)`.
pub fn call_args(s: &str, open: usize) -> (Vec<&str>, usize) {
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
/// on a name bound to a load (`a`, `a.x`, `m.m[3]`), or a choice one of
/// whose values is a load.
fn text_is_load(r: &Reader, e: &str, loads: &[String]) -> bool {
    let e = e.trim();
    if let Some((a, b)) = (r.choice)(e) {
        return text_is_load(r, &a, loads) || text_is_load(r, &b, loads);
    }
    let root: String = e.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let rest = &e[root.len()..];
    let path_ok = rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '[' | ']' | '_'));
    !root.is_empty() && path_ok && loads.contains(&root)
}

/// Walks every function of a df64 source that is not an operation: every
/// operand of a cancelling call must be wrapped in `renorm` exactly when it
/// is a load, and `renorm` must appear nowhere else.
pub fn audit(r: &Reader, source: &str, spec: &Df64Spec) -> Audit {
    let renorm = format!("{}(", op_name(&spec.ops[spec.renorm]));
    let cancel: Vec<String> = ["add", "sub", "div"].iter().map(|k| format!("{}(", op_name(spec.op(k)))).collect();
    let mut a = Audit::default();
    let mut lines = source.lines().peekable();
    while let Some(l) = lines.next() {
        let Some((name, params)) = (r.head)(l) else { continue };
        if name.starts_with("aether_df64_") {
            continue;
        }
        a.functions += 1;
        let (params, _) = call_args(&params, 0);
        let mut loads: Vec<String> = params.iter().map(|p| (r.param)(p)).collect();
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
            if let Some((n, rhs)) = (r.binding)(b) {
                if text_is_load(r, rhs.trim_end_matches(';'), &loads) {
                    loads.push(n);
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
                            Some(inner) if text_is_load(r, inner, &loads) => a.wrapped += 1,
                            Some(inner) => a.needless.push(format!("{name}: renorm of the computed `{inner}`")),
                            None if text_is_load(r, arg, &loads) => a.unwrapped_loads.push(format!("{name}: `{arg}` in `{c}..)`")),
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

/// The audit's negative control that every target runs on its own core:
/// every call of renorm replaced by its operand (the definition kept). The
/// audit of the result must find every site the real core wraps unwrapped.
pub fn without_renorm(src: &str, spec: &Df64Spec) -> String {
    let renorm = op_name(&spec.ops[spec.renorm]);
    let call = format!("{renorm}(");
    let mut bare = src.to_string();
    let mut from = 0;
    while let Some(k) = bare[from..].find(&call) {
        let at = from + k;
        // The definition's head (no call is the first thing on its line).
        let line = &bare[bare[..at].rfind('\n').map_or(0, |p| p + 1)..at];
        let prev = bare[..at].chars().next_back();
        let head = !line.contains('(') && !line.contains('=') && !line.contains("return");
        if prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') || head {
            from = at + call.len();
            continue;
        }
        let open = at + renorm.len();
        let (args, end) = call_args(&bare, open);
        bare = format!("{}{}{}", &bare[..at], args[0], &bare[end..]);
        from = at;
    }
    bare
}
