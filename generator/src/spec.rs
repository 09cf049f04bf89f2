//! Reading and validating the spec: serde types with spans, then a checked,
//! plain `Spec` that the model is built from.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;

use crate::dsl::{self, Ast, Stmt};
use crate::error::{LineIndex, SpecError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    contract: RawContract,
    types: BTreeMap<String, Spanned<RawType>>,
    shapes: BTreeMap<String, Spanned<RawShape>>,
    rules: RawRules,
    combiners: BTreeMap<String, Spanned<RawCombiner>>,
    policy: Spanned<RawPolicy>,
    families: BTreeMap<String, Spanned<RawFamily>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContract {
    name: Spanned<String>,
    version: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawType {
    c_type: Spanned<String>,
    letter: Spanned<String>,
    literal_suffix: String,
    libm_suffix: String,
    bits: Spanned<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShape {
    kind: Spanned<String>,
    components: Option<Spanned<Vec<Spanned<String>>>>,
    rows: Option<Spanned<usize>>,
    cols: Option<Spanned<usize>>,
    layout: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    fold: Spanned<RawFold>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFold {
    nesting: Spanned<String>,
    seed: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCombiner {
    expr: Spanned<String>,
    identity: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    nan: Spanned<String>,
    either_zero: Spanned<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFamily {
    op: Option<Spanned<String>>,
    doc: Spanned<String>,
    shapes: Spanned<Vec<Spanned<String>>>,
    params: Spanned<Vec<Spanned<String>>>,
    returns: Spanned<String>,
    body: Option<Spanned<String>>,
    bodies: Option<BTreeMap<String, Spanned<String>>>,
}

/// An IEEE binary element type and how C spells it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElemType {
    pub name: String,
    pub c_type: String,
    pub letter: String,
    pub literal_suffix: String,
    pub libm_suffix: String,
    pub bits: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    RowMajor,
    ColumnMajor,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ShapeKind {
    Scalar,
    /// Named components in memory order.
    Vector(Vec<String>),
    Matrix {
        rows: usize,
        cols: usize,
        layout: Layout,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub name: String,
    pub kind: ShapeKind,
}

impl Shape {
    /// Number of stored components.
    pub fn len(&self) -> usize {
        match &self.kind {
            ShapeKind::Scalar => 1,
            ShapeKind::Vector(c) => c.len(),
            ShapeKind::Matrix { rows, cols, .. } => rows * cols,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Memory index of matrix element (r, c).
    pub fn matrix_index(&self, r: usize, c: usize) -> Option<usize> {
        match self.kind {
            ShapeKind::Matrix { rows, cols, layout } if r < rows && c < cols => Some(match layout {
                Layout::RowMajor => r * cols + c,
                Layout::ColumnMajor => c * rows + r,
            }),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// `t[N-1] (+) (... (+) t[0])`: accumulate upward from t[0] (the contract).
    Right,
    /// Accumulate downward from t[N-1]: the mirror order (a mutant).
    Left,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    None,
    /// Start from the combiner's identity (a mutant).
    Identity,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FoldRule {
    pub nesting: Nesting,
    pub seed: Seed,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Combiner {
    pub name: String,
    pub source: String,
    pub expr: Ast,
    pub identity: f64,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Families whose +0 and -0 results match each other.
    pub either_zero: Vec<String>,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamKind {
    /// The family's own shape.
    SelfShape,
    Scalar,
    Bool,
    /// The vector with one entry per matrix column (a matrix's right operand).
    VecCols,
    /// The vector with one entry per matrix row (a matrix-vector result).
    VecRows,
    Named(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// The shape this body is for, or `None` for every shape.
    pub shape: Option<String>,
    pub stmts: Vec<Stmt>,
    /// The body as written in the spec.
    pub source: String,
    /// Spec line of the body's first line, and its key.
    pub line: usize,
    pub key: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    pub name: String,
    pub op: String,
    pub doc: String,
    pub shapes: Vec<String>,
    pub params: Vec<(String, ParamKind)>,
    pub returns: ParamKind,
    pub bodies: Vec<Body>,
    pub line: usize,
}

impl Family {
    pub fn body_for(&self, shape: &str) -> Option<&Body> {
        self.bodies.iter().find(|b| b.shape.as_deref() == Some(shape)).or_else(|| self.bodies.iter().find(|b| b.shape.is_none()))
    }
}

/// The validated spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub file: String,
    /// The spec's text, so a consumer can fingerprint it.
    pub source: String,
    pub name: String,
    pub version: String,
    pub types: Vec<ElemType>,
    pub shapes: Vec<Shape>,
    pub fold: FoldRule,
    pub combiners: Vec<Combiner>,
    pub policy: Policy,
    pub families: Vec<Family>,
}

impl Spec {
    pub fn shape(&self, name: &str) -> Option<&Shape> {
        self.shapes.iter().find(|s| s.name == name)
    }

    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }

    pub fn combiner(&self, name: &str) -> Option<&Combiner> {
        self.combiners.iter().find(|c| c.name == name)
    }
}

struct Loc<'a> {
    file: &'a str,
    lines: LineIndex,
}

impl Loc<'_> {
    fn err(&self, offset: usize, key: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError { file: self.file.to_string(), line: self.lines.line(offset), key: key.into(), message: message.into() }
    }
}

/// The dotted key of the table whose header precedes `offset`, for errors that
/// serde reports with a span but no key.
fn enclosing_key(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let before = &text[..end];
    for line in before.lines().rev() {
        let t = line.trim();
        if t.starts_with('[') && t.ends_with(']') {
            return t.trim_matches(|c| c == '[' || c == ']').to_string();
        }
    }
    String::from("(top level)")
}

/// Which key a serde message is about, when it names one.
fn key_in_message(msg: &str) -> Option<String> {
    let start = msg.find('`')? + 1;
    let end = start + msg[start..].find('`')?;
    Some(msg[start..end].to_string())
}

/// Parses and validates a spec text. `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Spec, SpecError> {
    let loc = Loc { file, lines: LineIndex::new(text) };
    let raw: RawSpec = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let message = e.message().trim().replace('\n', "; ");
        let table = enclosing_key(text, offset);
        let key = match key_in_message(&message) {
            Some(k) if message.starts_with("unknown field") || message.starts_with("missing field") => {
                if table == "(top level)" {
                    k
                } else {
                    format!("{table}.{k}")
                }
            }
            _ => table,
        };
        loc.err(offset, key, message)
    })?;
    let spec = Spec {
        file: file.to_string(),
        source: text.to_string(),
        name: raw.contract.name.get_ref().clone(),
        version: raw.contract.version.get_ref().clone(),
        types: types(&loc, &raw)?,
        shapes: shapes(&loc, &raw)?,
        fold: fold(&loc, &raw)?,
        combiners: combiners(&loc, &raw)?,
        policy: Policy { either_zero: Vec::new(), line: 0 },
        families: Vec::new(),
    };
    let families = families(&loc, &raw, text, &spec)?;
    let policy = policy(&loc, &raw, &families)?;
    Ok(Spec { families, policy, ..spec })
}

/// Table entries in the order they appear in the file.
fn in_file_order<T>(map: &BTreeMap<String, Spanned<T>>) -> Vec<(&String, &Spanned<T>)> {
    let mut v: Vec<_> = map.iter().collect();
    v.sort_by_key(|(_, s)| s.span().start);
    v
}

fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn types(loc: &Loc, raw: &RawSpec) -> Result<Vec<ElemType>, SpecError> {
    let mut out = Vec::new();
    for (name, t) in in_file_order(&raw.types) {
        let key = format!("types.{name}");
        let t_ref = t.get_ref();
        let bits = *t_ref.bits.get_ref();
        if bits != 32 && bits != 64 {
            return Err(loc.err(
                t_ref.bits.span().start,
                format!("{key}.bits"),
                format!("unknown element type width {bits}: only IEEE binary32 (32) and binary64 (64) exist here"),
            ));
        }
        let c_type = t_ref.c_type.get_ref();
        let expected = if bits == 32 { "float" } else { "double" };
        if c_type != expected {
            return Err(loc.err(
                t_ref.c_type.span().start,
                format!("{key}.c_type"),
                format!("a {bits}-bit element type is C `{expected}`, not `{c_type}`"),
            ));
        }
        if !is_c_identifier(t_ref.letter.get_ref()) {
            return Err(loc.err(t_ref.letter.span().start, format!("{key}.letter"), "the letter must be a C identifier"));
        }
        out.push(ElemType {
            name: name.clone(),
            c_type: c_type.clone(),
            letter: t_ref.letter.get_ref().clone(),
            literal_suffix: t_ref.literal_suffix.clone(),
            libm_suffix: t_ref.libm_suffix.clone(),
            bits,
        });
    }
    if out.is_empty() {
        return Err(loc.err(0, "types", "the spec declares no element type"));
    }
    Ok(out)
}

fn shapes(loc: &Loc, raw: &RawSpec) -> Result<Vec<Shape>, SpecError> {
    let mut out = Vec::new();
    for (name, s) in in_file_order(&raw.shapes) {
        let key = format!("shapes.{name}");
        let r = s.get_ref();
        let need = |field: &str, present: bool| -> Result<(), SpecError> {
            if present {
                Ok(())
            } else {
                Err(loc.err(s.span().start, format!("{key}.{field}"), format!("missing field `{field}` for a {} shape", r.kind.get_ref())))
            }
        };
        let refuse = |field: &str, present: bool| -> Result<(), SpecError> {
            if present {
                Err(loc.err(s.span().start, format!("{key}.{field}"), format!("a {} shape has no `{field}`", r.kind.get_ref())))
            } else {
                Ok(())
            }
        };
        let kind = match r.kind.get_ref().as_str() {
            "scalar" => {
                refuse("components", r.components.is_some())?;
                refuse("rows", r.rows.is_some())?;
                ShapeKind::Scalar
            }
            "vector" => {
                need("components", r.components.is_some())?;
                refuse("rows", r.rows.is_some())?;
                let comps = r.components.as_ref().unwrap();
                let mut names = Vec::new();
                for c in comps.get_ref() {
                    if !is_c_identifier(c.get_ref()) || names.contains(c.get_ref()) {
                        return Err(loc.err(
                            c.span().start,
                            format!("{key}.components"),
                            format!("component `{}` is not a fresh C identifier", c.get_ref()),
                        ));
                    }
                    names.push(c.get_ref().clone());
                }
                if names.is_empty() {
                    return Err(loc.err(comps.span().start, format!("{key}.components"), "a vector needs at least one component"));
                }
                ShapeKind::Vector(names)
            }
            "matrix" => {
                need("rows", r.rows.is_some())?;
                need("cols", r.cols.is_some())?;
                need("layout", r.layout.is_some())?;
                refuse("components", r.components.is_some())?;
                let layout = r.layout.as_ref().unwrap();
                let layout_v = match layout.get_ref().as_str() {
                    "row-major" => Layout::RowMajor,
                    "column-major" => Layout::ColumnMajor,
                    other => {
                        return Err(loc.err(
                            layout.span().start,
                            format!("{key}.layout"),
                            format!("unknown layout `{other}` (expected `row-major` or `column-major`)"),
                        ));
                    }
                };
                let rows = *r.rows.as_ref().unwrap().get_ref();
                let cols = *r.cols.as_ref().unwrap().get_ref();
                if rows == 0 || cols == 0 {
                    return Err(loc.err(s.span().start, key.clone(), "a matrix needs at least one row and one column"));
                }
                ShapeKind::Matrix { rows, cols, layout: layout_v }
            }
            other => {
                return Err(loc.err(
                    r.kind.span().start,
                    format!("{key}.kind"),
                    format!("unknown shape kind `{other}` (expected `scalar`, `vector` or `matrix`)"),
                ));
            }
        };
        out.push(Shape { name: name.clone(), kind });
    }
    Ok(out)
}

fn fold(loc: &Loc, raw: &RawSpec) -> Result<FoldRule, SpecError> {
    let f = raw.rules.fold.get_ref();
    let nesting = match f.nesting.get_ref().as_str() {
        "right" => Nesting::Right,
        "left" => Nesting::Left,
        other => {
            return Err(loc.err(
                f.nesting.span().start,
                "rules.fold.nesting",
                format!("unknown nesting `{other}` (expected `right` or `left`)"),
            ));
        }
    };
    let seed = match f.seed.get_ref().as_str() {
        "none" => Seed::None,
        "identity" => Seed::Identity,
        other => {
            return Err(loc.err(f.seed.span().start, "rules.fold.seed", format!("unknown seed `{other}` (expected `none` or `identity`)")));
        }
    };
    Ok(FoldRule { nesting, seed })
}

fn combiners(loc: &Loc, raw: &RawSpec) -> Result<Vec<Combiner>, SpecError> {
    let mut out = Vec::new();
    for (name, c) in in_file_order(&raw.combiners) {
        let key = format!("combiners.{name}");
        let r = c.get_ref();
        let line = loc.lines.line(r.expr.span().start);
        let expr = dsl::parse_expr(r.expr.get_ref()).map_err(|e| loc.err(r.expr.span().start, format!("{key}.expr"), e.to_string()))?;
        let identity: f64 = r.identity.get_ref().trim().parse().map_err(|_| {
            loc.err(r.identity.span().start, format!("{key}.identity"), format!("`{}` is not a number", r.identity.get_ref()))
        })?;
        out.push(Combiner { name: name.clone(), source: r.expr.get_ref().clone(), expr, identity, line });
    }
    Ok(out)
}

fn parse_kind(s: &str) -> Option<ParamKind> {
    Some(match s {
        "self" => ParamKind::SelfShape,
        "scalar" => ParamKind::Scalar,
        "bool" => ParamKind::Bool,
        "vec_cols" => ParamKind::VecCols,
        "vec_rows" => ParamKind::VecRows,
        other if is_c_identifier(other) => ParamKind::Named(other.to_string()),
        _ => return None,
    })
}

/// First line of a string value's content: a `"""` string skips the newline
/// that follows its opening quotes.
fn content_line(loc: &Loc, text: &str, offset: usize) -> usize {
    let line = loc.lines.line(offset);
    let rest = &text[offset.min(text.len())..];
    if rest.starts_with("\"\"\"\n") || rest.starts_with("'''\n") {
        line + 1
    } else {
        line
    }
}

fn body(loc: &Loc, text: &str, key: String, shape: Option<String>, s: &Spanned<String>) -> Result<Body, SpecError> {
    let first = content_line(loc, text, s.span().start);
    let stmts = dsl::parse_body(s.get_ref()).map_err(|e| SpecError {
        file: loc.file.to_string(),
        line: first + e.line - 1,
        key: key.clone(),
        message: format!("column {}: {}", e.col, e.message),
    })?;
    Ok(Body { shape, stmts, source: s.get_ref().trim().to_string(), line: first, key })
}

fn families(loc: &Loc, raw: &RawSpec, text: &str, spec: &Spec) -> Result<Vec<Family>, SpecError> {
    let mut out: Vec<Family> = Vec::new();
    for (name, f) in in_file_order(&raw.families) {
        let key = format!("families.{name}");
        let r = f.get_ref();
        if !is_c_identifier(name) {
            return Err(loc.err(f.span().start, key, "a family name must be a C identifier"));
        }
        let op = r.op.as_ref().map_or(name.clone(), |o| o.get_ref().clone());
        if !is_c_identifier(&op) {
            return Err(loc.err(r.op.as_ref().unwrap().span().start, format!("{key}.op"), format!("`{op}` is not a C identifier")));
        }
        let mut shapes = Vec::new();
        for s in r.shapes.get_ref() {
            if spec.shape(s.get_ref()).is_none() {
                return Err(loc.err(s.span().start, format!("{key}.shapes"), format!("unknown shape `{}`", s.get_ref())));
            }
            if shapes.contains(s.get_ref()) {
                return Err(loc.err(s.span().start, format!("{key}.shapes"), format!("shape `{}` is listed twice", s.get_ref())));
            }
            shapes.push(s.get_ref().clone());
        }
        if shapes.is_empty() {
            return Err(loc.err(r.shapes.span().start, format!("{key}.shapes"), "a family needs at least one shape"));
        }
        let mut params: Vec<(String, ParamKind)> = Vec::new();
        for p in r.params.get_ref() {
            let bad = || loc.err(p.span().start, format!("{key}.params"), format!("`{}` is not `name: kind`", p.get_ref()));
            let (pname, kind) = p.get_ref().split_once(':').ok_or_else(bad)?;
            let (pname, kind) = (pname.trim(), kind.trim());
            if !is_c_identifier(pname) || pname == "out" || params.iter().any(|(n, _)| n == pname) {
                return Err(loc.err(
                    p.span().start,
                    format!("{key}.params"),
                    format!("parameter name `{pname}` is not a fresh C identifier (and not `out`)"),
                ));
            }
            let k = parse_kind(kind).ok_or_else(bad)?;
            if let ParamKind::Named(n) = &k {
                if spec.shape(n).is_none() {
                    return Err(loc.err(p.span().start, format!("{key}.params"), format!("unknown shape `{n}`")));
                }
            }
            if k == ParamKind::Bool {
                return Err(loc.err(p.span().start, format!("{key}.params"), "a parameter cannot be `bool`"));
            }
            params.push((pname.to_string(), k));
        }
        let returns = parse_kind(r.returns.get_ref()).ok_or_else(|| {
            loc.err(r.returns.span().start, format!("{key}.returns"), format!("unknown result kind `{}`", r.returns.get_ref()))
        })?;
        if let ParamKind::Named(n) = &returns {
            if spec.shape(n).is_none() {
                return Err(loc.err(r.returns.span().start, format!("{key}.returns"), format!("unknown shape `{n}`")));
            }
        }
        let mut bodies = Vec::new();
        if let Some(b) = &r.body {
            bodies.push(body(loc, text, format!("{key}.body"), None, b)?);
        }
        if let Some(bs) = &r.bodies {
            for (shape, b) in in_file_order(bs) {
                if !shapes.contains(shape) {
                    return Err(loc.err(
                        b.span().start,
                        format!("{key}.bodies.{shape}"),
                        format!("`{shape}` is not one of the family's shapes"),
                    ));
                }
                bodies.push(body(loc, text, format!("{key}.bodies.{shape}"), Some(shape.clone()), b)?);
            }
        }
        for s in &shapes {
            if !bodies.iter().any(|b| b.shape.is_none() || b.shape.as_deref() == Some(s)) {
                return Err(loc.err(f.span().start, format!("{key}.body"), format!("missing field `body` (no body for shape `{s}`)")));
            }
        }
        if let Some(other) = out.iter().find(|o| o.op == op && o.shapes.iter().any(|s| shapes.contains(s))) {
            return Err(loc.err(
                f.span().start,
                format!("{key}.op"),
                format!("C name clash: family `{}` already defines `{op}` for a shape of this family", other.name),
            ));
        }
        out.push(Family {
            name: name.clone(),
            op,
            doc: r.doc.get_ref().clone(),
            shapes,
            params,
            returns,
            bodies,
            line: loc.lines.line(f.span().start),
        });
    }
    Ok(out)
}

fn policy(loc: &Loc, raw: &RawSpec, families: &[Family]) -> Result<Policy, SpecError> {
    let p = raw.policy.get_ref();
    if p.nan.get_ref() != "any-nan" {
        return Err(loc.err(p.nan.span().start, "policy.nan", format!("unknown NaN policy `{}` (expected `any-nan`)", p.nan.get_ref())));
    }
    let mut seen = BTreeSet::new();
    let mut either_zero = Vec::new();
    for f in p.either_zero.get_ref() {
        if !families.iter().any(|fam| &fam.name == f.get_ref()) {
            return Err(loc.err(f.span().start, "policy.either_zero", format!("unknown function family `{}`", f.get_ref())));
        }
        if !seen.insert(f.get_ref().clone()) {
            return Err(loc.err(f.span().start, "policy.either_zero", format!("family `{}` is listed twice", f.get_ref())));
        }
        either_zero.push(f.get_ref().clone());
    }
    Ok(Policy { either_zero, line: loc.lines.line(p.either_zero.span().start) })
}
