//! Predicates: one decision stated twice in the spec.
//!
//! A `[predicates.<name>]` table states a decision over exact integers in two
//! bodies: `golden`, the floating-point expression a frozen implementation
//! evaluates (every narrowing, scaling and operation order as it is), and
//! `integer`, a form in exact integer arithmetic that uses no floating point
//! and must return the same truth value on every input of the predicate's
//! `domain`. A predicate may instead have one `body` that derives arguments
//! and calls another predicate: each of its forms is then the callee's form.
//! `[int_functions.<name>]` are integer helpers the bodies call.
//!
//! The language is the family bodies' (`crate::dsl`) with types: the
//! parameters are typed (`[integer_types]`, `f32`, `f64`, `bool`), each step
//! takes its value's type, and a literal takes the type of the operand beside
//! it. Integers never wrap: an operation whose exact result leaves its type,
//! a shift by a negative amount or by the width or more, or a shift of a
//! negative value, is outside the domain, and [`Predicates::eval`] refuses the
//! input that reaches it. Every step is evaluated (both arms of `?:`, both
//! operands of `&&`), as a target that evaluates eagerly would, so a body must
//! be defined on its whole domain.
//!
//! Conversions: `f32(x)` and `f64(x)` of an integer round to nearest, ties to
//! even (IEEE 754 `convertFromInt`); `f64(x)` of an `f32` is exact; `i64(x)`
//! of an `i32` is exact. `f32_bits(0x...)` and `f64_bits(0x...)` are float
//! constants given as bit patterns. `clz(x)` counts the leading zero bits of
//! an integer's pattern (its width for 0).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use toml::Spanned;

use crate::dsl::{self, Ast, AstKind, BinOp, BitOp, Target};
use crate::error::{LineIndex, SpecError};
use crate::names;
use crate::spans::in_file_order;

// ------------------------------------------------------------------ raw TOML

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawIntType {
    width: Spanned<u32>,
    signed: Spanned<bool>,
    c_type: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawIntFunction {
    doc: Spanned<String>,
    params: Spanned<Vec<Spanned<String>>>,
    returns: Spanned<String>,
    body: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPredicate {
    doc: Spanned<String>,
    params: Spanned<Vec<Spanned<String>>>,
    domain: Option<Spanned<String>>,
    golden: Option<Spanned<String>>,
    integer: Option<Spanned<String>>,
    body: Option<Spanned<String>>,
}

// --------------------------------------------------------------------- types

/// An integer type of `[integer_types]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntTy {
    pub bits: u32,
    pub signed: bool,
}

impl IntTy {
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// The spec's name of the type: `i64`, `u32`.
    pub fn name(self) -> String {
        format!("{}{}", if self.signed { "i" } else { "u" }, self.bits)
    }
}

/// A float type of the predicate language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FTy {
    F32,
    F64,
}

impl FTy {
    pub fn name(self) -> &'static str {
        match self {
            FTy::F32 => "f32",
            FTy::F64 => "f64",
        }
    }
}

/// The type of a value of a predicate body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PTy {
    Int(IntTy),
    Float(FTy),
    Bool,
}

impl fmt::Display for PTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PTy::Int(t) => write!(f, "{}", t.name()),
            PTy::Float(t) => write!(f, "{}", t.name()),
            PTy::Bool => write!(f, "bool"),
        }
    }
}

/// A typed expression. (Its `Debug` is the derived form without a
/// variable's slot: the contract's fingerprint reads it, and a slot is how
/// the generator evaluates, not what the contract states.)
#[derive(Clone, PartialEq)]
pub enum PExpr {
    Int(IntTy, i128),
    /// A float constant, as the f64 value of its bits.
    Float(FTy, f64),
    Bool(bool),
    /// A parameter or an earlier step: its name, type and slot (its place
    /// among the body's parameters, then its steps, in order), so that an
    /// evaluation reads it in constant time.
    Var(String, PTy, usize),
    /// Arithmetic (result of the operand type), comparison or logic (bool);
    /// the type is the operands'.
    Bin(BinOp, PTy, Box<PExpr>, Box<PExpr>),
    Bits(BitOp, IntTy, Box<PExpr>, Box<PExpr>),
    Not(Box<PExpr>),
    Select(PTy, Box<PExpr>, Box<PExpr>, Box<PExpr>),
    Conv {
        to: PTy,
        from: PTy,
        arg: Box<PExpr>,
    },
    Clz(IntTy, Box<PExpr>),
    /// A call of an `[int_functions]` helper (`predicate` false) or of a
    /// predicate, which takes the caller's form.
    Call {
        name: String,
        predicate: bool,
        ret: PTy,
        args: Vec<PExpr>,
    },
}

impl std::fmt::Debug for PExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PExpr::Int(t, v) => f.debug_tuple("Int").field(t).field(v).finish(),
            PExpr::Float(t, v) => f.debug_tuple("Float").field(t).field(v).finish(),
            PExpr::Bool(b) => f.debug_tuple("Bool").field(b).finish(),
            PExpr::Var(n, t, _) => f.debug_tuple("Var").field(n).field(t).finish(),
            PExpr::Bin(o, t, x, y) => f.debug_tuple("Bin").field(o).field(t).field(x).field(y).finish(),
            PExpr::Bits(o, t, x, y) => f.debug_tuple("Bits").field(o).field(t).field(x).field(y).finish(),
            PExpr::Not(x) => f.debug_tuple("Not").field(x).finish(),
            PExpr::Select(t, c, x, y) => f.debug_tuple("Select").field(t).field(c).field(x).field(y).finish(),
            PExpr::Conv { to, from, arg } => f.debug_struct("Conv").field("to", to).field("from", from).field("arg", arg).finish(),
            PExpr::Clz(t, x) => f.debug_tuple("Clz").field(t).field(x).finish(),
            PExpr::Call { name, predicate, ret, args } => {
                f.debug_struct("Call").field("name", name).field("predicate", predicate).field("ret", ret).field("args", args).finish()
            }
        }
    }
}

impl PExpr {
    pub fn ty(&self) -> PTy {
        match self {
            PExpr::Int(t, _) => PTy::Int(*t),
            PExpr::Float(t, _) => PTy::Float(*t),
            PExpr::Bool(_) | PExpr::Not(_) => PTy::Bool,
            PExpr::Var(_, t, _) => *t,
            PExpr::Bin(op, t, ..) => {
                if op.is_comparison() || op.is_logical() {
                    PTy::Bool
                } else {
                    *t
                }
            }
            PExpr::Bits(_, t, ..) | PExpr::Clz(t, _) => PTy::Int(*t),
            PExpr::Select(t, ..) => *t,
            PExpr::Conv { to, .. } => *to,
            PExpr::Call { ret, .. } => *ret,
        }
    }

    /// Every sub-expression, this one first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a PExpr)) {
        f(self);
        match self {
            PExpr::Int(..) | PExpr::Float(..) | PExpr::Bool(_) | PExpr::Var(..) => {}
            PExpr::Bin(_, _, a, b) | PExpr::Bits(_, _, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            PExpr::Not(a) | PExpr::Conv { arg: a, .. } | PExpr::Clz(_, a) => a.walk(f),
            PExpr::Select(_, c, a, b) => {
                c.walk(f);
                a.walk(f);
                b.walk(f);
            }
            PExpr::Call { args, .. } => args.iter().for_each(|a| a.walk(f)),
        }
    }
}

/// One step of a body: `name = value`, the last one `out`.
#[derive(Debug, Clone, PartialEq)]
pub struct PStmt {
    pub name: String,
    pub value: PExpr,
    /// The spec's line of the step (for located errors).
    pub line: usize,
    /// The comment lines written above the step in the spec.
    pub comment: Vec<String>,
}

/// A typed body: its steps, the last of them the result `out`.
#[derive(Debug, Clone, PartialEq)]
pub struct PBody {
    pub steps: Vec<PStmt>,
    /// The body as written (for the contract doc).
    pub source: String,
    /// The spec's line where the body's text starts (for located errors).
    pub line: usize,
    /// Its dotted key (`predicates.angle_flag.integer`, `int_functions.sig24.body`).
    pub key: String,
}

impl PBody {
    pub fn result(&self) -> &PExpr {
        &self.steps.last().expect("a body has a result").value
    }

    /// The intermediate steps (all but `out`).
    pub fn lets(&self) -> &[PStmt] {
        &self.steps[..self.steps.len() - 1]
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: PTy,
}

/// An `[int_functions]` helper.
#[derive(Debug, Clone, PartialEq)]
pub struct IntFunction {
    pub name: String,
    pub doc: String,
    pub params: Vec<Param>,
    pub ret: PTy,
    pub body: PBody,
}

/// Which of a predicate's two statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Golden,
    Integer,
}

impl Form {
    pub const BOTH: [Form; 2] = [Form::Golden, Form::Integer];

    pub fn name(self) -> &'static str {
        match self {
            Form::Golden => "golden",
            Form::Integer => "integer",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Forms {
    Two {
        golden: PBody,
        integer: PBody,
    },
    /// One body calling predicates: each form calls the callees' same form.
    Derived(PBody),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    pub name: String,
    pub doc: String,
    pub params: Vec<Param>,
    /// The inputs on which the forms must agree (true everywhere if absent).
    pub domain: Option<PExpr>,
    pub domain_source: Option<String>,
    /// The spec's line of `domain`.
    pub domain_line: Option<usize>,
    pub forms: Forms,
    pub line: usize,
    /// The comment block above the predicate's table in the spec (its
    /// derivation), without the `#`.
    pub comment: Vec<String>,
    /// The same for each helper, by name.
    pub helper_comments: Vec<(String, Vec<String>)>,
}

impl Predicate {
    pub fn body(&self, form: Form) -> &PBody {
        match (&self.forms, form) {
            (Forms::Two { golden, .. }, Form::Golden) => golden,
            (Forms::Two { integer, .. }, Form::Integer) => integer,
            (Forms::Derived(b), _) => b,
        }
    }

    /// Whether a form of this predicate uses floating point anywhere
    /// (through the predicates it calls too).
    pub fn uses_float(&self, all: &Predicates, form: Form) -> bool {
        body_uses_float(self.body(form), all, form)
    }
}

fn body_uses_float(b: &PBody, all: &Predicates, form: Form) -> bool {
    let mut found = false;
    for s in &b.steps {
        s.value.walk(&mut |e| match e {
            e if matches!(e.ty(), PTy::Float(_)) => found = true,
            PExpr::Conv { from: PTy::Float(_), .. } => found = true,
            PExpr::Call { name, predicate: true, .. } => {
                if let Some(p) = all.predicate(name) {
                    found |= p.uses_float(all, form);
                }
            }
            _ => {}
        });
    }
    found
}

/// The integer types, helpers and predicates of a spec.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Predicates {
    pub int_types: Vec<(String, IntTy, String)>,
    pub functions: Vec<IntFunction>,
    pub predicates: Vec<Predicate>,
}

impl Predicates {
    pub fn predicate(&self, name: &str) -> Option<&Predicate> {
        self.predicates.iter().find(|p| p.name == name)
    }

    pub fn function(&self, name: &str) -> Option<&IntFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The C type of an integer type (`[integer_types.<t>].c_type`).
    pub fn c_type(&self, t: IntTy) -> &str {
        self.int_types.iter().find(|(_, ty, _)| *ty == t).map_or("int64_t", |(_, _, c)| c)
    }
}

// ------------------------------------------------------------------- parsing

pub(crate) struct Raw<'a> {
    pub int_types: &'a BTreeMap<String, Spanned<RawIntType>>,
    pub functions: &'a BTreeMap<String, Spanned<RawIntFunction>>,
    pub predicates: &'a BTreeMap<String, Spanned<RawPredicate>>,
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    lines: LineIndex,
    types: Vec<(String, IntTy, String)>,
    functions: Vec<IntFunction>,
    predicates: Vec<Predicate>,
}

impl Ctx<'_> {
    fn err(&self, offset: usize, key: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError { file: self.file.to_string(), line: self.lines.line(offset), key: key.into(), message: message.into() }
    }

    fn ty(&self, name: &str) -> Option<PTy> {
        match name {
            "f32" => Some(PTy::Float(FTy::F32)),
            "f64" => Some(PTy::Float(FTy::F64)),
            "bool" => Some(PTy::Bool),
            _ => self.types.iter().find(|(n, ..)| n == name).map(|(_, t, _)| PTy::Int(*t)),
        }
    }

    fn params(&self, key: &str, raw: &Spanned<Vec<Spanned<String>>>) -> Result<Vec<Param>, SpecError> {
        let mut out: Vec<Param> = Vec::new();
        for p in raw.get_ref() {
            let at = |m: String| self.err(p.span().start, format!("{key}.params"), m);
            let Some((name, ty)) = p.get_ref().split_once(':') else {
                return Err(at(format!("`{}`: a parameter is written `name: type`", p.get_ref())));
            };
            let (name, ty) = (name.trim(), ty.trim());
            names::check_local(name, "the parameter").map_err(at)?;
            let Some(ty) = self.ty(ty) else {
                return Err(at(format!("unknown type `{ty}` (f32, f64, bool or a key of [integer_types])")));
            };
            if out.iter().any(|q| q.name == name) {
                return Err(at(format!("parameter `{name}` is listed twice")));
            }
            out.push(Param { name: name.to_string(), ty });
        }
        Ok(out)
    }

    /// The first line of a string value's content.
    fn content_line(&self, offset: usize) -> usize {
        crate::spans::first_content_line(&self.lines, self.text, offset)
    }

    /// Checks the `#` lines right above `[<table>.<name>]` (see `comment_above`),
    /// which the contract doc carries, by the rule of every text (names::check_text).
    fn check_comment_above(&self, name: &str, key: &str, table: &str) -> Result<(), SpecError> {
        let lines: Vec<&str> = self.text.lines().collect();
        let header = format!("[{table}.{name}]");
        let Some(at) = lines.iter().position(|l| l.trim() == header) else { return Ok(()) };
        for (k, l) in lines[..at].iter().enumerate().rev().take_while(|(_, l)| l.starts_with('#')) {
            let comment = l.trim_start_matches('#').trim();
            names::check_text(comment).map_err(|m| SpecError {
                file: self.file.to_string(),
                line: k + 1,
                key: key.to_string(),
                message: format!("the comment `{}` above the table: {m}", comment.escape_debug()),
            })?;
        }
        Ok(())
    }

    /// Parses and types a body; `allow_predicates`: a derived body may call
    /// predicates (a helper or a form may call helpers only).
    fn body(&self, key: &str, s: &Spanned<String>, params: &[Param], allow_predicates: bool) -> Result<PBody, SpecError> {
        let first = self.content_line(s.span().start);
        let at = |line: usize, col: usize, m: String| SpecError {
            file: self.file.to_string(),
            line: first + line - 1,
            key: key.to_string(),
            message: format!("column {col}: {m}"),
        };
        // Comments (`# ...` to the end of a line) are the steps' commentary.
        let mut code = String::new();
        let mut comments: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for (i, line) in s.get_ref().lines().enumerate() {
            match line.find('#') {
                Some(k) => {
                    // A comment is printed in every core (names::check_text).
                    let comment = line[k + 1..].trim();
                    names::check_text(comment).map_err(|m| SpecError {
                        file: self.file.to_string(),
                        line: first + i,
                        key: key.to_string(),
                        message: format!("the comment `{}`: {m}", comment.escape_debug()),
                    })?;
                    comments.entry(i + 1).or_default().push(comment.to_string());
                    code.push_str(&line[..k]);
                }
                None => code.push_str(line),
            }
            code.push('\n');
        }
        let stmts = dsl::parse_body(&code).map_err(|e| at(e.line, e.col, e.message))?;
        let mut env: Vec<(String, PTy)> = params.iter().map(|p| (p.name.clone(), p.ty)).collect();
        let mut steps = Vec::new();
        let mut pending: Vec<String> = Vec::new();
        let mut last_line = 0;
        for (k, st) in stmts.iter().enumerate() {
            for (_, c) in comments.range(last_line + 1..=st.line) {
                pending.extend(c.iter().cloned());
            }
            last_line = st.line;
            let name = match &st.target {
                Target::Let(n) => {
                    names::check_local(n, "the step").map_err(|m| at(st.line, 1, m))?;
                    if env.iter().any(|(e, _)| e == n) {
                        return Err(at(st.line, 1, format!("`{n}` is bound twice: every step has its own name")));
                    }
                    n.clone()
                }
                Target::Out if k + 1 == stmts.len() => "out".to_string(),
                Target::Out => return Err(at(st.line, 1, "`out` is the last step".into())),
                _ => return Err(at(st.line, 1, "a predicate's steps are `name = expr` and, last, `out = expr`".into())),
            };
            if k + 1 == stmts.len() && name != "out" {
                return Err(at(st.line, 1, "the last step must be `out = expr`".into()));
            }
            let value = self.typed(&st.value, None, &env, allow_predicates).map_err(|(col, m)| at(st.line, col, m))?;
            env.push((name.clone(), value.ty()));
            steps.push(PStmt { name, value, line: first + st.line - 1, comment: std::mem::take(&mut pending) });
        }
        Ok(PBody { steps, source: s.get_ref().trim().to_string(), line: first, key: key.to_string() })
    }

    /// Types an expression; `want` is the type its context needs, which an
    /// untyped literal takes.
    fn typed(&self, a: &Ast, want: Option<PTy>, env: &[(String, PTy)], preds: bool) -> Result<PExpr, (usize, String)> {
        let e = |m: String| Err((a.col, m));
        let r = match &a.kind {
            AstKind::Number(v) => match want {
                Some(PTy::Int(t)) => {
                    if v.fract() != 0.0 || v.abs() >= 9_007_199_254_740_992.0 {
                        return e(format!("`{v}` is not an exact integer literal (write large constants in hexadecimal)"));
                    }
                    let n = *v as i128;
                    if n < t.min() || n > t.max() {
                        return e(format!("{n} does not fit in {}", t.name()));
                    }
                    PExpr::Int(t, n)
                }
                Some(PTy::Float(t)) => {
                    let exact = match t {
                        FTy::F32 => f64::from(*v as f32) == *v && v.is_finite(),
                        FTy::F64 => v.is_finite(),
                    };
                    if !exact {
                        return e(format!("`{v}` is not exact in {}: give its bits with {}_bits(0x...)", t.name(), t.name()));
                    }
                    PExpr::Float(t, *v)
                }
                Some(PTy::Bool) => return e("a number where a truth value is needed".into()),
                None => return e("the literal's type is not known here: write it beside a typed operand".into()),
            },
            AstKind::Int(v) => match want {
                Some(PTy::Int(t)) => {
                    let n = i128::from(*v);
                    if n > t.max() {
                        return e(format!("0x{v:x} does not fit in {}", t.name()));
                    }
                    PExpr::Int(t, n)
                }
                Some(_) => return e("a hexadecimal literal is an integer (a float's bits are f32_bits(0x...) or f64_bits(0x...))".into()),
                None => return e("the literal's type is not known here: write it beside a typed operand".into()),
            },
            AstKind::Ident(n) if n == "true" || n == "false" => PExpr::Bool(n == "true"),
            AstKind::Ident(n) => match env.iter().rposition(|(m, _)| m == n) {
                Some(k) => PExpr::Var(n.clone(), env[k].1, k),
                None => return e(format!("unknown name `{n}`")),
            },
            AstKind::Index(..) | AstKind::Field(..) => return e("a predicate's values are scalars: no index or field".into()),
            AstKind::Not(x) => {
                let x = self.typed(x, Some(PTy::Bool), env, preds)?;
                if x.ty() != PTy::Bool {
                    return e(format!("`!` needs a truth value, not {}", x.ty()));
                }
                PExpr::Not(Box::new(x))
            }
            AstKind::Select(c, x, y) => {
                let c = self.typed(c, Some(PTy::Bool), env, preds)?;
                if c.ty() != PTy::Bool {
                    return e(format!("the condition of `?:` must be a truth value, not {}", c.ty()));
                }
                let (x, y, t) = self.pair(x, y, want, env, preds)?;
                PExpr::Select(t, Box::new(c), Box::new(x), Box::new(y))
            }
            AstKind::Bin(op, x, y) if op.is_logical() => {
                let x = self.typed(x, Some(PTy::Bool), env, preds)?;
                let y = self.typed(y, Some(PTy::Bool), env, preds)?;
                if x.ty() != PTy::Bool || y.ty() != PTy::Bool {
                    return e(format!("`{}` needs truth values", op.symbol()));
                }
                PExpr::Bin(*op, PTy::Bool, Box::new(x), Box::new(y))
            }
            AstKind::Bin(op, x, y) => {
                let operand_want = if op.is_comparison() { None } else { want };
                let (x, y, t) = self.pair(x, y, operand_want, env, preds)?;
                match (op, t) {
                    (_, PTy::Bool) if !matches!(op, BinOp::Eq | BinOp::Ne) => return e(format!("`{}` of truth values", op.symbol())),
                    (BinOp::Div, PTy::Int(_)) => return e("integer division is not in the language (shift, or state a helper)".into()),
                    _ => {}
                }
                PExpr::Bin(*op, t, Box::new(x), Box::new(y))
            }
            AstKind::Bits(op, x, y) => {
                let (x, y, t) = self.pair(x, y, want, env, preds)?;
                let PTy::Int(t) = t else { return e(format!("`{}` needs integers, not {t}", op.symbol())) };
                PExpr::Bits(*op, t, Box::new(x), Box::new(y))
            }
            AstKind::Call(name, args) => return self.call(a, name, args, env, preds),
        };
        Ok(r)
    }

    /// Types two operands that must share a type: a literal takes the
    /// other's, two literals the context's.
    fn pair(
        &self,
        x: &Ast,
        y: &Ast,
        want: Option<PTy>,
        env: &[(String, PTy)],
        preds: bool,
    ) -> Result<(PExpr, PExpr, PTy), (usize, String)> {
        let col = y.col;
        let lit = |a: &Ast| matches!(a.kind, AstKind::Number(_) | AstKind::Int(_));
        let (x, y) = if lit(x) && !lit(y) {
            let y = self.typed(y, want, env, preds)?;
            (self.typed(x, Some(y.ty()), env, preds)?, y)
        } else {
            let x = self.typed(x, want, env, preds)?;
            let t = x.ty();
            (x, self.typed(y, Some(t), env, preds)?)
        };
        if x.ty() != y.ty() {
            return Err((col, format!("operands of types {} and {}: convert one explicitly", x.ty(), y.ty())));
        }
        let t = x.ty();
        Ok((x, y, t))
    }

    fn call(&self, a: &Ast, name: &str, args: &[Ast], env: &[(String, PTy)], preds: bool) -> Result<PExpr, (usize, String)> {
        let e = |m: String| Err((a.col, m));
        let arity = |n: usize| if args.len() == n { Ok(()) } else { Err((a.col, format!("`{name}` takes {n} argument(s)"))) };
        if let Some(to) = self.ty(name).filter(|t| *t != PTy::Bool) {
            arity(1)?;
            let x = self.typed(&args[0], None, env, preds)?;
            let from = x.ty();
            let ok = match (to, from) {
                (PTy::Float(_), PTy::Int(_)) | (PTy::Float(FTy::F64), PTy::Float(_)) | (PTy::Float(FTy::F32), PTy::Float(_)) => true,
                (PTy::Int(t), PTy::Int(f)) => t.min() <= f.min() && t.max() >= f.max(),
                _ => false,
            };
            if !ok {
                return e(format!("no conversion {from} -> {to} (integer to float rounds to nearest even; an integer widens exactly)"));
            }
            return Ok(PExpr::Conv { to, from, arg: Box::new(x) });
        }
        match name {
            "f32_bits" | "f64_bits" => {
                arity(1)?;
                let AstKind::Int(bits) = args[0].kind else { return e(format!("{name} takes a hexadecimal bit pattern")) };
                return Ok(if name == "f32_bits" {
                    if bits > u64::from(u32::MAX) {
                        return e(format!("0x{bits:x} is wider than 32 bits"));
                    }
                    PExpr::Float(FTy::F32, f64::from(f32::from_bits(bits as u32)))
                } else {
                    PExpr::Float(FTy::F64, f64::from_bits(bits))
                });
            }
            "clz" => {
                arity(1)?;
                let x = self.typed(&args[0], None, env, preds)?;
                let PTy::Int(t) = x.ty() else { return e("clz takes an integer".into()) };
                return Ok(PExpr::Clz(t, Box::new(x)));
            }
            _ => {}
        }
        let (params, ret, predicate) = if let Some(f) = self.functions.iter().find(|f| f.name == name) {
            (&f.params, f.ret, false)
        } else if let Some(p) = self.predicates.iter().find(|p| p.name == name) {
            if !preds {
                return e(format!("a helper cannot call the predicate `{name}`"));
            }
            (&p.params, PTy::Bool, true)
        } else {
            return e(format!("unknown function `{name}` (helpers and predicates are called after the table that states them)"));
        };
        arity(params.len())?;
        let mut out = Vec::new();
        for (x, p) in args.iter().zip(params) {
            let x = self.typed(x, Some(p.ty), env, preds)?;
            if x.ty() != p.ty {
                return Err((a.col, format!("argument `{}` of `{name}` is {}, not {}", p.name, p.ty, x.ty())));
            }
            out.push(x);
        }
        Ok(PExpr::Call { name: name.to_string(), predicate, ret, args: out })
    }
}

fn uses_float_type(b: &PBody) -> bool {
    let mut found = false;
    for s in &b.steps {
        s.value.walk(&mut |e| found |= matches!(e.ty(), PTy::Float(_)) || matches!(e, PExpr::Conv { from: PTy::Float(_), .. }));
    }
    found
}

/// Reads `[integer_types]`, `[int_functions]` and `[predicates]`.
pub(crate) fn parse(file: &str, text: &str, raw: Raw) -> Result<Predicates, SpecError> {
    let mut cx = Ctx { file, text, lines: LineIndex::new(text), types: Vec::new(), functions: Vec::new(), predicates: Vec::new() };
    for (name, t) in in_file_order(raw.int_types) {
        let key = format!("integer_types.{name}");
        let r = t.get_ref();
        let ty = IntTy { bits: *r.width.get_ref(), signed: *r.signed.get_ref() };
        if ![32, 64].contains(&ty.bits) {
            return Err(cx.err(r.width.span().start, format!("{key}.width"), "an integer type is 32 or 64 bits wide"));
        }
        if *name != ty.name() {
            return Err(cx.err(
                t.span().start,
                key,
                format!("a {}-bit {} type is named `{}`", ty.bits, if ty.signed { "signed" } else { "unsigned" }, ty.name()),
            ));
        }
        let want = format!("{}int{}_t", if ty.signed { "" } else { "u" }, ty.bits);
        if *r.c_type.get_ref() != want {
            return Err(cx.err(r.c_type.span().start, format!("{key}.c_type"), format!("the C type of {name} is `{want}` (<stdint.h>)")));
        }
        cx.types.push((name.clone(), ty, want));
    }
    for (name, f) in in_file_order(raw.functions) {
        let key = format!("int_functions.{name}");
        let r = f.get_ref();
        names::check_part(name, "the helper name").map_err(|m| cx.err(f.span().start, key.clone(), m))?;
        names::check_text(r.doc.get_ref().trim()).map_err(|m| cx.err(r.doc.span().start, format!("{key}.doc"), m))?;
        cx.check_comment_above(name, &key, "int_functions")?;
        let params = cx.params(&key, &r.params)?;
        let Some(ret) = cx.ty(r.returns.get_ref()) else {
            return Err(cx.err(r.returns.span().start, format!("{key}.returns"), format!("unknown type `{}`", r.returns.get_ref())));
        };
        let body = cx.body(&format!("{key}.body"), &r.body, &params, false)?;
        if uses_float_type(&body) || params.iter().any(|p| matches!(p.ty, PTy::Float(_))) || matches!(ret, PTy::Float(_)) {
            return Err(cx.err(r.body.span().start, format!("{key}.body"), "a helper is integer arithmetic: no float value"));
        }
        if body.result().ty() != ret {
            return Err(cx.err(
                r.returns.span().start,
                format!("{key}.returns"),
                format!("the body's result is {}, not {ret}", body.result().ty()),
            ));
        }
        cx.functions.push(IntFunction { name: name.clone(), doc: r.doc.get_ref().trim().to_string(), params, ret, body });
    }
    for (name, p) in in_file_order(raw.predicates) {
        let key = format!("predicates.{name}");
        let r = p.get_ref();
        names::check_part(name, "the predicate name").map_err(|m| cx.err(p.span().start, key.clone(), m))?;
        names::check_text(r.doc.get_ref().trim()).map_err(|m| cx.err(r.doc.span().start, format!("{key}.doc"), m))?;
        cx.check_comment_above(name, &key, "predicates")?;
        let params = cx.params(&key, &r.params)?;
        let check_bool = |b: &PBody, k: &str, s: &Spanned<String>| {
            if b.result().ty() == PTy::Bool {
                Ok(())
            } else {
                Err(cx.err(s.span().start, format!("{key}.{k}"), format!("a predicate's `out` is a truth value, not {}", b.result().ty())))
            }
        };
        let forms = match (&r.golden, &r.integer, &r.body) {
            (Some(g), Some(i), None) => {
                let golden = cx.body(&format!("{key}.golden"), g, &params, false)?;
                let integer = cx.body(&format!("{key}.integer"), i, &params, false)?;
                check_bool(&golden, "golden", g)?;
                check_bool(&integer, "integer", i)?;
                if uses_float_type(&integer) {
                    return Err(cx.err(
                        i.span().start,
                        format!("{key}.integer"),
                        "the integer form uses a float value: it must run where there is no floating point",
                    ));
                }
                Forms::Two { golden, integer }
            }
            (None, None, Some(b)) => {
                let body = cx.body(&format!("{key}.body"), b, &params, true)?;
                check_bool(&body, "body", b)?;
                Forms::Derived(body)
            }
            _ => return Err(cx.err(p.span().start, key, "a predicate states `golden` and `integer`, or one `body` that calls predicates")),
        };
        let domain = match &r.domain {
            Some(d) => {
                let ast = dsl::parse_expr(d.get_ref())
                    .map_err(|e| cx.err(d.span().start, format!("{key}.domain"), format!("column {}: {}", e.col, e.message)))?;
                let env: Vec<(String, PTy)> = params.iter().map(|p| (p.name.clone(), p.ty)).collect();
                let x = cx
                    .typed(&ast, Some(PTy::Bool), &env, false)
                    .map_err(|(c, m)| cx.err(d.span().start, format!("{key}.domain"), format!("column {c}: {m}")))?;
                if x.ty() != PTy::Bool {
                    return Err(cx.err(d.span().start, format!("{key}.domain"), "the domain is a truth value"));
                }
                Some(x)
            }
            None => None,
        };
        let line = cx.lines.line(p.span().start);
        let helper_comments = raw.functions.keys().map(|f| (f.clone(), comment_above(text, &format!("[int_functions.{f}]")))).collect();
        cx.predicates.push(Predicate {
            comment: comment_above(text, &format!("[predicates.{name}]")),
            helper_comments,
            name: name.clone(),
            doc: r.doc.get_ref().trim().to_string(),
            params,
            domain,
            domain_source: r.domain.as_ref().map(|d| d.get_ref().trim().to_string()),
            domain_line: r.domain.as_ref().map(|d| cx.content_line(d.span().start)),
            forms,
            line,
        });
    }
    Ok(Predicates { int_types: cx.types, functions: cx.functions, predicates: cx.predicates })
}

/// The `#` lines right above a table header of the spec's text.
fn comment_above(text: &str, header: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines.iter().position(|l| l.trim() == header) else { return Vec::new() };
    let mut out: Vec<String> =
        lines[..at].iter().rev().take_while(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim_end().to_string()).collect();
    out.reverse();
    out.iter().map(|l| l.strip_prefix(' ').unwrap_or(l).to_string()).collect()
}

// -------------------------------------------------------------- interpreter

/// A value of a predicate body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(IntTy, i128),
    F32(f32),
    F64(f64),
    Bool(bool),
}

impl Value {
    fn int(self) -> i128 {
        match self {
            Value::Int(_, v) => v,
            _ => unreachable!("typed: an integer"),
        }
    }

    fn truth(self) -> bool {
        match self {
            Value::Bool(b) => b,
            _ => unreachable!("typed: a truth value"),
        }
    }

    fn float(self) -> f64 {
        match self {
            Value::F32(x) => f64::from(x),
            Value::F64(x) => x,
            _ => unreachable!("typed: a float"),
        }
    }

    /// The value as an error message shows it.
    fn shown(self) -> String {
        match self {
            Value::Int(_, v) => v.to_string(),
            Value::F32(x) => format!("{x:?}"),
            Value::F64(x) => format!("{x:?}"),
            Value::Bool(b) => b.to_string(),
        }
    }
}

/// Steps of predicate and helper bodies evaluated by this process (the
/// generator's cost, counted: `generator/tests/cost.rs` shows it linear in
/// a body's length; every step reads its operands by slot, in constant time).
pub static STEPS_RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// An evaluation that left an operation's domain (an overflow, a bad
/// shift), located at the innermost step where it happened: a helper's step
/// when a helper's arithmetic fails, with the call that led there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// The spec's line of the step (0 until `run` locates it).
    pub line: usize,
    pub key: String,
    pub message: String,
}

impl From<String> for EvalError {
    fn from(message: String) -> Self {
        EvalError { line: 0, key: String::new(), message }
    }
}

impl From<&str> for EvalError {
    fn from(message: &str) -> Self {
        EvalError::from(message.to_string())
    }
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: `{}`: {}", self.line, self.key, self.message)
    }
}

fn in_range(t: IntTy, v: i128, what: &str) -> Result<Value, String> {
    if v < t.min() || v > t.max() {
        Err(format!("{what} = {v} leaves {}", t.name()))
    } else {
        Ok(Value::Int(t, v))
    }
}

impl Predicates {
    /// Evaluates a form of a predicate; an input outside an operation's
    /// domain (an overflow, a bad shift) is an error that names the step.
    pub fn eval(&self, p: &Predicate, form: Form, args: &[Value]) -> Result<bool, EvalError> {
        Ok(self.run(p.body(form), args.to_vec(), form)?.truth())
    }

    /// Whether the arguments are in the predicate's domain.
    pub fn in_domain(&self, p: &Predicate, args: &[Value]) -> Result<bool, EvalError> {
        let Some(d) = &p.domain else { return Ok(true) };
        Ok(self.value(d, args, Form::Integer)?.truth())
    }

    /// The box the domain states, per parameter in order: `[lo, hi]`
    /// within the parameter's type. The domain must be bounds on single
    /// parameters joined by `&&` (`om >= 0 && tm >= 0`, either side the
    /// constant), so that its edges are known; otherwise the error says why.
    pub fn domain_box(&self, p: &Predicate) -> Result<Vec<(i128, i128)>, String> {
        let mut out: Vec<(i128, i128)> = p
            .params
            .iter()
            .map(|q| match q.ty {
                PTy::Int(t) => (t.min(), t.max()),
                _ => (0, -1),
            })
            .collect();
        let Some(d) = &p.domain else { return Ok(out) };
        let mut terms = Vec::new();
        fn conj<'a>(e: &'a PExpr, out: &mut Vec<&'a PExpr>) {
            match e {
                PExpr::Bin(BinOp::And, _, x, y) => {
                    conj(x, out);
                    conj(y, out);
                }
                _ => out.push(e),
            }
        }
        conj(d, &mut terms);
        let constant = |e: &PExpr| -> Option<i128> {
            let mut free = false;
            e.walk(&mut |x| free |= matches!(x, PExpr::Var(..)));
            if free {
                return None;
            }
            match self.value(e, &[], Form::Integer) {
                Ok(Value::Int(_, v)) => Some(v),
                _ => None,
            }
        };
        for t in terms {
            let PExpr::Bin(op, _, x, y) = t else {
                return Err("the domain is bounds on single parameters joined by `&&` (as `om >= 0 && tm >= 0`), so that the generator can check both forms at its edges".into());
            };
            let (var, c, op) = match (&**x, &**y) {
                (PExpr::Var(n, ..), e) => (n, constant(e), *op),
                (e, PExpr::Var(n, ..)) => (
                    n,
                    constant(e),
                    match op {
                        BinOp::Lt => BinOp::Gt,
                        BinOp::Gt => BinOp::Lt,
                        BinOp::Le => BinOp::Ge,
                        BinOp::Ge => BinOp::Le,
                        o => *o,
                    },
                ),
                _ => (&String::new(), None, *op),
            };
            let (Some(k), Some(c)) = (p.params.iter().position(|q| &q.name == var), c) else {
                return Err("the domain is bounds on single parameters joined by `&&` (a parameter compared with a constant, as `om >= 0`), so that the generator can check both forms at its edges".into());
            };
            let b = &mut out[k];
            match op {
                BinOp::Ge => b.0 = b.0.max(c),
                BinOp::Gt => b.0 = b.0.max(c + 1),
                BinOp::Le => b.1 = b.1.min(c),
                BinOp::Lt => b.1 = b.1.min(c - 1),
                BinOp::Eq => *b = (b.0.max(c), b.1.min(c)),
                _ => return Err(format!("`{}` in the domain: a bound is `>=`, `>`, `<=`, `<` or `==` a constant", op.symbol())),
            }
        }
        Ok(out)
    }

    /// Runs a body on its arguments: `env` holds the parameters' values, and
    /// each step's value is pushed in order (the slots of `PExpr::Var`).
    fn run(&self, b: &PBody, mut env: Vec<Value>, form: Form) -> Result<Value, EvalError> {
        env.reserve(b.steps.len());
        STEPS_RUN.fetch_add(b.steps.len() as u64, std::sync::atomic::Ordering::Relaxed);
        for s in &b.steps {
            let v = self.value(&s.value, &env, form).map_err(|e| {
                if e.line != 0 {
                    // Located in a callee: say which step called it.
                    EvalError { message: format!("{} (called by `{}`'s step `{}`)", e.message, b.key, s.name), ..e }
                } else {
                    EvalError { line: s.line, key: b.key.clone(), message: format!("step `{}`: {}", s.name, e.message) }
                }
            })?;
            env.push(v);
        }
        Ok(*env.last().expect("a body has a result"))
    }

    fn value(&self, e: &PExpr, env: &[Value], form: Form) -> Result<Value, EvalError> {
        let go = |x: &PExpr| self.value(x, env, form);
        Ok(match e {
            PExpr::Int(t, v) => Value::Int(*t, *v),
            PExpr::Float(FTy::F32, v) => Value::F32(*v as f32),
            PExpr::Float(FTy::F64, v) => Value::F64(*v),
            PExpr::Bool(b) => Value::Bool(*b),
            PExpr::Var(_, _, k) => env[*k],
            PExpr::Not(x) => Value::Bool(!go(x)?.truth()),
            PExpr::Select(_, c, x, y) => {
                let (c, x, y) = (go(c)?, go(x)?, go(y)?);
                if c.truth() {
                    x
                } else {
                    y
                }
            }
            PExpr::Bin(op, t, x, y) => {
                let (a, b) = (go(x)?, go(y)?);
                match t {
                    PTy::Bool => match op {
                        BinOp::And => Value::Bool(a.truth() && b.truth()),
                        BinOp::Or => Value::Bool(a.truth() || b.truth()),
                        BinOp::Eq => Value::Bool(a.truth() == b.truth()),
                        BinOp::Ne => Value::Bool(a.truth() != b.truth()),
                        _ => unreachable!("typed"),
                    },
                    PTy::Int(t) => {
                        let (a, b) = (a.int(), b.int());
                        match op {
                            BinOp::Add => in_range(*t, a + b, &format!("{a} + {b}"))?,
                            BinOp::Sub => in_range(*t, a - b, &format!("{a} - {b}"))?,
                            BinOp::Mul => in_range(*t, a.checked_mul(b).ok_or("a product past 127 bits")?, &format!("{a} * {b}"))?,
                            _ => Value::Bool(compare(*op, a.cmp(&b))),
                        }
                    }
                    PTy::Float(ft) => {
                        let r = match (a, b) {
                            (Value::F32(a), Value::F32(b)) => float_op(*op, a, b).map(Value::F32),
                            (Value::F64(a), Value::F64(b)) => float_op(*op, a, b).map(Value::F64),
                            _ => unreachable!("typed: {}", ft.name()),
                        };
                        match r {
                            Some(v) => v,
                            None => Value::Bool(match a.float().partial_cmp(&b.float()) {
                                Some(o) => compare(*op, o),
                                None => *op == BinOp::Ne,
                            }),
                        }
                    }
                }
            }
            PExpr::Bits(op, t, x, y) => {
                let (a, b) = (go(x)?.int(), go(y)?.int());
                match op {
                    BitOp::And => Value::Int(*t, a & b),
                    BitOp::Or => Value::Int(*t, a | b),
                    BitOp::Shl | BitOp::Shr => {
                        if a < 0 {
                            return Err(format!("{a} {} {b}: a shift of a negative value", op.symbol()).into());
                        }
                        if b < 0 || b >= i128::from(t.bits) {
                            return Err(format!("{a} {} {b}: a shift by {b} of a {}-bit value", op.symbol(), t.bits).into());
                        }
                        if *op == BitOp::Shl {
                            in_range(*t, a << b, &format!("{a} << {b}"))?
                        } else {
                            Value::Int(*t, a >> b)
                        }
                    }
                }
            }
            PExpr::Clz(t, x) => {
                let v = go(x)?.int();
                let pattern = (v as u128) & ((1u128 << t.bits) - 1);
                let lz = if pattern == 0 { t.bits } else { t.bits - (128 - pattern.leading_zeros()) };
                Value::Int(*t, i128::from(lz))
            }
            PExpr::Conv { to, arg, .. } => {
                let v = go(arg)?;
                match (to, v) {
                    (PTy::Float(FTy::F32), Value::Int(_, n)) => Value::F32(n as f32),
                    (PTy::Float(FTy::F64), Value::Int(_, n)) => Value::F64(n as f64),
                    (PTy::Float(FTy::F32), v) => Value::F32(v.float() as f32),
                    (PTy::Float(FTy::F64), v) => Value::F64(v.float()),
                    (PTy::Int(t), Value::Int(_, n)) => in_range(*t, n, "the conversion")?,
                    _ => unreachable!("typed conversion"),
                }
            }
            PExpr::Call { name, predicate, args, .. } => {
                let vals = args.iter().map(go).collect::<Result<Vec<_>, _>>()?;
                if *predicate {
                    let p = self.predicate(name).expect("typed: a predicate");
                    Value::Bool(self.eval(p, form, &vals)?)
                } else {
                    let f = self.function(name).expect("typed: a helper");
                    let shown: Vec<String> = f.params.iter().zip(&vals).map(|(q, v)| format!("{} = {}", q.name, v.shown())).collect();
                    self.run(&f.body, vals, form)
                        .map_err(|e| EvalError { message: format!("{} (in `{name}` on {})", e.message, shown.join(", ")), ..e })?
                }
            }
        })
    }
}

fn compare(op: BinOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Lt => o == Less,
        BinOp::Gt => o == Greater,
        BinOp::Le => o != Greater,
        BinOp::Ge => o != Less,
        BinOp::Eq => o == Equal,
        BinOp::Ne => o != Equal,
        _ => unreachable!("typed: a comparison"),
    }
}

/// A rounded operation of a float type, evaluated in that type (`None`: a
/// comparison).
fn float_op<T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T> + std::ops::Div<Output = T>>(
    op: BinOp,
    a: T,
    b: T,
) -> Option<T> {
    Some(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => a / b,
        _ => return None,
    })
}
