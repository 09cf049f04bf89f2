//! `[df64]` and `[df64_ops]` of the spec, read: what a df64 value is, which
//! f64 operation of a tree is which df64 operation, the bounds and the
//! domain, and each operation's binary32 steps, parsed and typed (the family
//! bodies' language, `crate::dsl`, over three types: `f32`, the pair `df`
//! with fields `hi` and `lo`, and `bool`). `spec` reads them here, below the
//! model; what evaluates the steps and composes their bounds over the model's
//! trees is `crate::df64`, which re-exports these types.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::dsl::{self, Ast, AstKind, BinOp, Target};
use crate::error::{LineIndex, SpecError};
use crate::names;
use crate::spans::in_file_order;

// ------------------------------------------------------------------ raw TOML

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDf64 {
    doc: Spanned<String>,
    targets: Spanned<Vec<Spanned<String>>>,
    exclude: Spanned<Vec<Spanned<String>>>,
    min_magnitude: Spanned<String>,
    max_magnitude: Spanned<String>,
    ops: Spanned<BTreeMap<String, Spanned<String>>>,
    renorm: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawOp {
    doc: Spanned<String>,
    params: Spanned<Vec<Spanned<String>>>,
    returns: Spanned<String>,
    bound: Option<Spanned<f64>>,
    body: Spanned<String>,
}

// --------------------------------------------------------------------- types

/// The type of a value of a df64 operation's steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DTy {
    F32,
    Df,
    Bool,
}

impl DTy {
    pub fn name(self) -> &'static str {
        match self {
            DTy::F32 => "f32",
            DTy::Df => "df",
            DTy::Bool => "bool",
        }
    }
    fn parse(s: &str) -> Option<DTy> {
        Some(match s {
            "f32" => DTy::F32,
            "df" => DTy::Df,
            "bool" => DTy::Bool,
            _ => return None,
        })
    }
}

/// A typed expression of an operation's steps.
#[derive(Debug, Clone, PartialEq)]
pub enum DExpr {
    /// A binary32 constant.
    Lit(f32),
    /// A parameter (slots 0..params) or a step (after them).
    Var(usize),
    /// Word 0 (`hi`) or 1 (`lo`) of a pair.
    Word(Box<DExpr>, usize),
    /// `df(h, l)`.
    Pair(Box<DExpr>, Box<DExpr>),
    /// A rounded binary32 operation (+ - * /), a comparison of binary32
    /// values, or `&&` / `||` of truths.
    Bin(BinOp, Box<DExpr>, Box<DExpr>),
    Not(Box<DExpr>),
    Select(Box<DExpr>, Box<DExpr>, Box<DExpr>),
    /// The correctly rounded binary32 square root.
    Sqrt(Box<DExpr>),
    /// |x| of a binary32 value (exact).
    Fabs(Box<DExpr>),
    /// Whether a binary32 value is finite.
    IsFinite(Box<DExpr>),
    /// Another operation (by index in `Df64Spec::ops`, always an earlier one).
    Call(usize, Vec<DExpr>),
}

/// One step: a name bound once.
#[derive(Debug, Clone, PartialEq)]
pub struct DStep {
    pub name: String,
    pub ty: DTy,
    pub expr: DExpr,
}

/// A df64 operation of `[df64_ops]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub name: String,
    pub doc: String,
    pub params: Vec<(String, DTy)>,
    pub ret: DTy,
    /// The stated relative bound in units of u^2 (u = 2^-24), when the
    /// operation rounds (the exact ones have none).
    pub bound: Option<f64>,
    pub steps: Vec<DStep>,
    pub out: DExpr,
    /// The body's text (for the contract doc).
    pub source: String,
    pub line: usize,
}

/// `[df64]` and its operations.
#[derive(Debug, Clone, PartialEq)]
pub struct Df64Spec {
    pub doc: String,
    pub targets: Vec<String>,
    /// The spec line of each entry of `targets`.
    pub target_lines: Vec<usize>,
    /// The spec line of the `targets` key itself (where a missing entry is reported).
    pub targets_line: usize,
    /// f64 families that do not run in df64.
    pub exclude: Vec<String>,
    pub min_magnitude: f64,
    pub max_magnitude: f64,
    /// What each f64 operation of a tree is: the key (`add`, `fabs`, `lt`,
    /// ...) to the index of its operation.
    pub map: BTreeMap<String, usize>,
    /// The spec line of each key's entry of `ops`.
    pub map_lines: BTreeMap<String, usize>,
    /// The loaded-low-word guard's operation.
    pub renorm: usize,
    /// The spec line of `renorm`.
    pub renorm_line: usize,
    pub ops: Vec<Op>,
    pub line: usize,
    /// The line of the `exclude` key (where a family that cannot run belongs).
    pub exclude_line: usize,
}

/// The keys of `[df64].ops`, each with the signature its operation must have.
pub const OP_KEYS: [(&str, &[DTy], DTy); 15] = [
    ("add", &[DTy::Df, DTy::Df], DTy::Df),
    ("sub", &[DTy::Df, DTy::Df], DTy::Df),
    ("mul", &[DTy::Df, DTy::Df], DTy::Df),
    ("div", &[DTy::Df, DTy::Df], DTy::Df),
    ("sqrt", &[DTy::Df], DTy::Df),
    ("fabs", &[DTy::Df], DTy::Df),
    ("fmin", &[DTy::Df, DTy::Df], DTy::Df),
    ("fmax", &[DTy::Df, DTy::Df], DTy::Df),
    ("isfinite", &[DTy::Df], DTy::Bool),
    ("lt", &[DTy::Df, DTy::Df], DTy::Bool),
    ("gt", &[DTy::Df, DTy::Df], DTy::Bool),
    ("le", &[DTy::Df, DTy::Df], DTy::Bool),
    ("ge", &[DTy::Df, DTy::Df], DTy::Bool),
    ("eq", &[DTy::Df, DTy::Df], DTy::Bool),
    ("ne", &[DTy::Df, DTy::Df], DTy::Bool),
];

// -------------------------------------------------------------------- parse

fn magnitude(s: &str) -> Option<f64> {
    let e: i32 = s.strip_prefix("2^")?.parse().ok()?;
    (-126..=127).contains(&e).then(|| 2f64.powi(e))
}

struct Cx<'a> {
    file: &'a str,
    text: &'a str,
    lines: LineIndex,
}

impl Cx<'_> {
    fn err(&self, offset: usize, key: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError { file: self.file.to_string(), line: self.lines.line(offset), key: key.into(), message: message.into() }
    }
}

/// Parses `[df64]` and `[df64_ops]` (None when the spec has neither).
pub(crate) fn parse(
    file: &str,
    text: &str,
    raw: Option<&Spanned<RawDf64>>,
    raw_ops: &BTreeMap<String, Spanned<RawOp>>,
    families: &[String],
) -> Result<Option<Df64Spec>, SpecError> {
    let cx = Cx { file, text, lines: LineIndex::new(text) };
    let Some(raw) = raw else {
        if let Some((name, op)) = in_file_order(raw_ops).first() {
            return Err(cx.err(op.span().start, format!("df64_ops.{name}"), "df64 operations without a [df64] table"));
        }
        return Ok(None);
    };
    let r = raw.get_ref();
    names::check_text(r.doc.get_ref()).map_err(|m| cx.err(r.doc.span().start, "df64.doc", m))?;
    let mut ops: Vec<Op> = Vec::new();
    for (name, op) in in_file_order(raw_ops) {
        let key = format!("df64_ops.{name}");
        names::check_part(name, "a df64 operation's name").map_err(|m| cx.err(op.span().start, key.clone(), m))?;
        ops.push(parse_op(&cx, &key, name, op.get_ref(), &ops)?);
    }
    let find = |s: &Spanned<String>, k: &str| -> Result<usize, SpecError> {
        ops.iter()
            .position(|o| o.name == *s.get_ref())
            .ok_or_else(|| cx.err(s.span().start, k, format!("`{}` is not an operation of [df64_ops]", s.get_ref())))
    };
    let mut map = BTreeMap::new();
    let mut map_lines = BTreeMap::new();
    for (k, v) in in_file_order(r.ops.get_ref()) {
        let Some((_, params, ret)) = OP_KEYS.iter().find(|(n, ..)| n == k) else {
            let known: Vec<&str> = OP_KEYS.iter().map(|k| k.0).collect();
            return Err(cx.err(
                v.span().start,
                format!("df64.ops.{k}"),
                format!("no f64 operation `{k}` (the keys: {})", known.join(", ")),
            ));
        };
        let at = find(v, &format!("df64.ops.{k}"))?;
        let o = &ops[at];
        let got: Vec<DTy> = o.params.iter().map(|p| p.1).collect();
        if got != *params || o.ret != *ret {
            return Err(cx.err(
                v.span().start,
                format!("df64.ops.{k}"),
                format!(
                    "`{k}` needs an operation ({}) -> {}; `{}` is ({}) -> {}",
                    params.iter().map(|t| t.name()).collect::<Vec<_>>().join(", "),
                    ret.name(),
                    o.name,
                    got.iter().map(|t| t.name()).collect::<Vec<_>>().join(", "),
                    o.ret.name()
                ),
            ));
        }
        // Each key means its own reference operation (`df64::meaning`), so
        // no two keys can share one.
        if let Some((other, _)) = map.iter().find(|(_, a)| **a == at) {
            return Err(cx.err(
                v.span().start,
                format!("df64.ops.{k}"),
                format!("names `{}`, as `{other}` does: each f64 operation has its own df64 operation", o.name),
            ));
        }
        map.insert(k.clone(), at);
        map_lines.insert(k.clone(), cx.lines.line(v.span().start));
    }
    if let Some((k, ..)) = OP_KEYS.iter().find(|(k, ..)| !map.contains_key(*k)) {
        return Err(cx.err(r.ops.span().start, "df64.ops", format!("no operation for the f64 operation `{k}`")));
    }
    let renorm = find(&r.renorm, "df64.renorm")?;
    if ops[renorm].params.iter().map(|p| p.1).collect::<Vec<_>>() != [DTy::Df] || ops[renorm].ret != DTy::Df {
        return Err(cx.err(r.renorm.span().start, "df64.renorm", "the guard takes one pair and returns one"));
    }
    let mut exclude = Vec::new();
    for e in r.exclude.get_ref() {
        listed_once(&cx, e, &exclude, "df64.exclude", "a family")?;
        if !families.contains(e.get_ref()) {
            return Err(cx.err(e.span().start, "df64.exclude", format!("`{}` is not a family", e.get_ref())));
        }
        exclude.push(e.get_ref().clone());
    }
    // Which targets print df64 is theirs to say (`Target::prints_df64`):
    // `aether_generator::model` checks this list against the registry.
    let mut targets = Vec::new();
    let mut target_lines = Vec::new();
    for t in r.targets.get_ref() {
        listed_once(&cx, t, &targets, "df64.targets", "a target")?;
        names::check_part(t.get_ref(), "a df64 target").map_err(|m| cx.err(t.span().start, "df64.targets", m))?;
        targets.push(t.get_ref().clone());
        target_lines.push(cx.lines.line(t.span().start));
    }
    let mag = |s: &Spanned<String>, k: &str| {
        magnitude(s.get_ref())
            .ok_or_else(|| cx.err(s.span().start, k, format!("`{}`: a power of two `2^N`, -126 <= N <= 127", s.get_ref())))
    };
    let min_magnitude = mag(&r.min_magnitude, "df64.min_magnitude")?;
    let max_magnitude = mag(&r.max_magnitude, "df64.max_magnitude")?;
    if min_magnitude >= max_magnitude {
        return Err(cx.err(r.max_magnitude.span().start, "df64.max_magnitude", "not above min_magnitude"));
    }
    Ok(Some(Df64Spec {
        doc: r.doc.get_ref().clone(),
        targets,
        target_lines,
        targets_line: cx.lines.line(r.targets.span().start),
        exclude,
        min_magnitude,
        max_magnitude,
        map,
        map_lines,
        renorm,
        renorm_line: cx.lines.line(r.renorm.span().start),
        ops,
        line: cx.lines.line(raw.span().start),
        exclude_line: cx.lines.line(r.exclude.span().start),
    }))
}

/// An entry of a list of `[df64]`: not empty, and not one listed before.
fn listed_once(cx: &Cx, e: &Spanned<String>, before: &[String], key: &str, what: &str) -> Result<(), SpecError> {
    if e.get_ref().trim().is_empty() {
        return Err(cx.err(e.span().start, key, format!("an empty entry: each entry names {what}")));
    }
    if before.contains(e.get_ref()) {
        return Err(cx.err(e.span().start, key, format!("`{}` is listed twice", e.get_ref())));
    }
    Ok(())
}

fn parse_op(cx: &Cx, key: &str, name: &str, r: &RawOp, earlier: &[Op]) -> Result<Op, SpecError> {
    names::check_text(r.doc.get_ref()).map_err(|m| cx.err(r.doc.span().start, format!("{key}.doc"), m))?;
    let mut params = Vec::new();
    for p in r.params.get_ref() {
        let at = |m: String| cx.err(p.span().start, format!("{key}.params"), m);
        if p.get_ref().trim().is_empty() {
            return Err(at("an empty entry: each entry is `name: type`".into()));
        }
        let (n, t) = p.get_ref().split_once(':').ok_or_else(|| at(format!("`{}`: `name: type`", p.get_ref())))?;
        let (n, t) = (n.trim(), t.trim());
        names::check_part(n, "a parameter name").map_err(&at)?;
        let ty = DTy::parse(t).ok_or_else(|| at(format!("`{t}`: the types are f32, df and bool")))?;
        if params.iter().any(|(q, _)| q == n) {
            return Err(at(format!("parameter `{n}` is listed twice")));
        }
        params.push((n.to_string(), ty));
    }
    let ret = DTy::parse(r.returns.get_ref())
        .ok_or_else(|| cx.err(r.returns.span().start, format!("{key}.returns"), "the types are f32, df and bool"))?;
    if let Some(b) = &r.bound {
        if !(b.get_ref().is_finite() && *b.get_ref() > 0.0) || ret != DTy::Df {
            return Err(cx.err(
                b.span().start,
                format!("{key}.bound"),
                "a bound is a positive number of u^2, on an operation that returns a pair",
            ));
        }
    }
    let first = crate::spans::first_content_line(&cx.lines, cx.text, r.body.span().start);
    let at = |line: usize, col: usize, m: String| SpecError {
        file: cx.file.to_string(),
        line: first + line - 1,
        key: format!("{key}.body"),
        message: format!("column {col}: {m}"),
    };
    let stmts = dsl::parse_body(r.body.get_ref()).map_err(|e| at(e.line, e.col, e.message))?;
    let mut env: Vec<(String, DTy)> = params.clone();
    let mut steps = Vec::new();
    let mut out = None;
    for (k, st) in stmts.iter().enumerate() {
        let last = k + 1 == stmts.len();
        let (e, ty) = typed(&st.value, &env, earlier).map_err(|(col, m)| at(st.line, col, m))?;
        match &st.target {
            Target::Let(n) if !last => {
                if env.iter().any(|(q, _)| q == n) {
                    return Err(at(st.line, 1, format!("`{n}` is bound twice")));
                }
                env.push((n.clone(), ty));
                steps.push(DStep { name: n.clone(), ty, expr: e });
            }
            Target::Out if last => {
                if ty != ret {
                    return Err(at(st.line, 1, format!("the result is {}, the operation returns {}", ty.name(), ret.name())));
                }
                out = Some(e);
            }
            _ => return Err(at(st.line, 1, "steps bind names (`x = ...`); the last step is `out = ...`".into())),
        }
    }
    let out = out.ok_or_else(|| at(1, 1, "no `out = ...` step".into()))?;
    Ok(Op {
        name: name.to_string(),
        doc: r.doc.get_ref().clone(),
        params,
        ret,
        bound: r.bound.as_ref().map(|b| *b.get_ref()),
        steps,
        out,
        source: r.body.get_ref().clone(),
        line: cx.lines.line(r.body.span().start),
    })
}

type TErr = (usize, String);

fn typed(a: &Ast, env: &[(String, DTy)], ops: &[Op]) -> Result<(DExpr, DTy), TErr> {
    let want = |x: &Ast, t: DTy| -> Result<DExpr, TErr> {
        let (e, got) = typed(x, env, ops)?;
        if got != t {
            return Err((x.col, format!("{} where {} is needed", got.name(), t.name())));
        }
        Ok(e)
    };
    Ok(match &a.kind {
        AstKind::Number(v) => {
            let f = *v as f32;
            if f64::from(f) != *v {
                return Err((a.col, format!("{v} is not a binary32 number")));
            }
            (DExpr::Lit(f), DTy::F32)
        }
        AstKind::Ident(n) => {
            let at = env.iter().position(|(q, _)| q == n).ok_or_else(|| (a.col, format!("`{n}` is not a parameter or an earlier step")))?;
            (DExpr::Var(at), env[at].1)
        }
        AstKind::Field(x, w) => {
            let word = match w.as_str() {
                "hi" => 0,
                "lo" => 1,
                _ => return Err((a.col, format!("`.{w}`: a pair's words are hi and lo"))),
            };
            (DExpr::Word(Box::new(want(x, DTy::Df)?), word), DTy::F32)
        }
        AstKind::Bin(op, x, y) if op.is_logical() => {
            (DExpr::Bin(*op, Box::new(want(x, DTy::Bool)?), Box::new(want(y, DTy::Bool)?)), DTy::Bool)
        }
        AstKind::Bin(op, x, y) => {
            let e = DExpr::Bin(*op, Box::new(want(x, DTy::F32)?), Box::new(want(y, DTy::F32)?));
            (e, if op.is_comparison() { DTy::Bool } else { DTy::F32 })
        }
        AstKind::Not(x) => (DExpr::Not(Box::new(want(x, DTy::Bool)?)), DTy::Bool),
        AstKind::Select(c, x, y) => {
            let c = want(c, DTy::Bool)?;
            let (x, t) = typed(x, env, ops)?;
            let y = want(y, t)?;
            (DExpr::Select(Box::new(c), Box::new(x), Box::new(y)), t)
        }
        AstKind::Call(name, args) => {
            let one = |t: DTy| -> Result<DExpr, TErr> {
                if args.len() != 1 {
                    return Err((a.col, format!("`{name}` takes one argument")));
                }
                want(&args[0], t)
            };
            match name.as_str() {
                "df" => {
                    if args.len() != 2 {
                        return Err((a.col, "`df(hi, lo)` takes two arguments".into()));
                    }
                    (DExpr::Pair(Box::new(want(&args[0], DTy::F32)?), Box::new(want(&args[1], DTy::F32)?)), DTy::Df)
                }
                "sqrt" => (DExpr::Sqrt(Box::new(one(DTy::F32)?)), DTy::F32),
                "fabs" => (DExpr::Fabs(Box::new(one(DTy::F32)?)), DTy::F32),
                "isfinite" => (DExpr::IsFinite(Box::new(one(DTy::F32)?)), DTy::Bool),
                _ => {
                    let at = ops.iter().position(|o| o.name == *name).ok_or_else(|| {
                        (a.col, format!("`{name}` is not a builtin (df, sqrt, fabs, isfinite) or an earlier operation of [df64_ops]"))
                    })?;
                    let o = &ops[at];
                    if args.len() != o.params.len() {
                        return Err((a.col, format!("`{name}` takes {} arguments", o.params.len())));
                    }
                    let xs = args.iter().zip(&o.params).map(|(x, p)| want(x, p.1)).collect::<Result<Vec<_>, _>>()?;
                    (DExpr::Call(at, xs), o.ret)
                }
            }
        }
        AstKind::Index(..) | AstKind::Int(_) | AstKind::Bits(..) => {
            return Err((a.col, "not in the df64 language (f32, df and bool values; + - * / sqrt fabs isfinite df())".into()))
        }
    })
}
