//! The statement level of the one walk: a small tree of declarations,
//! assignments, counted loops, choices, calls and returns over fixed arrays,
//! which the schedules that are not single expressions (the per-lane linear
//! algebra of `crate::linalg`) are built into once, and which every target
//! prints through its spelling. The expressions inside a statement are
//! already spelled (`print::Spelling` for the rounded operations, literals
//! and calls; `Statements` for element access, array arguments and choices),
//! so the builder states each operation and its order once and a target
//! supplies only how its statements look.
//!
//! Layout is part of the tree where the C family's text has it (a body on
//! the loop's line, `Inline` braces on one line), so that the C, CUDA and
//! OpenCL cores keep their bytes; a target whose bodies need braces
//! (`braces`) gets them around every loop and `if` body.

use crate::model::Model;
use crate::spec::ElemType;
use crate::targets::shared::print::Spelling;

/// The base type of a declared variable.
#[derive(Debug, Clone, PartialEq)]
pub enum VarTy {
    /// The element type (`float`, `f32`).
    Elem,
    /// A whole number (C `int`, WGSL `i32`): indices, pivots, counts.
    Int,
    /// The struct of a shape of the spec, by shape name.
    Shape(String),
    /// An array length or index of any size (C `size_t`, WGSL `u32`).
    Size,
}

/// One declared variable: a name, an array length, an initial value.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub name: String,
    /// The length, as a constant expression of the target (`3 * 3`).
    pub len: Option<String>,
    pub init: Option<String>,
}

impl Var {
    pub fn new(name: &str) -> Var {
        Var { name: name.into(), len: None, init: None }
    }
    pub fn init(name: &str, v: impl Into<String>) -> Var {
        Var { name: name.into(), len: None, init: Some(v.into()) }
    }
    pub fn array(name: &str, len: impl ToString) -> Var {
        Var { name: name.into(), len: Some(len.to_string()), init: None }
    }
}

/// Where an array lives.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// A local array of the function.
    Local,
    /// A parameter that is an array (a pointer in C, a `ptr<function,
    /// array<..>>` in WGSL).
    Param,
    /// The `m` array of a matrix struct: a value (`ptr` false) or a pointer
    /// parameter. A target without pointers to members views it through a
    /// local copy (`Stmt::View`, `Stmt::Unview`).
    Field { ptr: bool },
}

/// An array the statements index or pass on.
#[derive(Debug, Clone, PartialEq)]
pub struct Arr {
    pub name: String,
    pub place: Place,
}

impl Arr {
    pub fn local(name: &str) -> Arr {
        Arr { name: name.into(), place: Place::Local }
    }
    pub fn param(name: &str) -> Arr {
        Arr { name: name.into(), place: Place::Param }
    }
    pub fn field(name: &str, ptr: bool) -> Arr {
        Arr { name: name.into(), place: Place::Field { ptr } }
    }
}

/// How a counted loop runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Loop {
    /// From `from` up by one while the condition holds.
    Up(String),
    /// From `from - 1` down to 0.
    Down,
}

/// One statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// Variables of one base type (`konst`: bound once).
    Decl {
        konst: bool,
        ty: VarTy,
        vars: Vec<Var>,
    },
    /// `lvalue = value;`
    Set(String, String),
    /// Adds one to a whole number.
    Incr(String),
    For {
        var: String,
        from: String,
        lp: Loop,
        body: Box<Stmt>,
    },
    If {
        cond: String,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    /// A braced block over several lines.
    Block(Vec<Stmt>),
    /// A braced block on one line.
    Inline(Vec<Stmt>),
    /// Statements on one line, without braces.
    Line(Vec<Stmt>),
    /// `return value;`, after the `Unview`s of `unviews` (a value that may
    /// write a viewed field is computed before they run).
    Return {
        value: Option<String>,
        unviews: Vec<String>,
    },
    Continue,
    /// A call whose result is not used.
    Call(String),
    /// Begins the view of the field `m` of the struct named (a value, or a
    /// pointer when `ptr`): nothing where members have pointers.
    View {
        of: String,
        ptr: bool,
    },
    /// Writes a pointer struct's view back: nothing where members have
    /// pointers.
    Unview(String),
    /// `name` points at `target` (a value of type `ty`), read and written
    /// as `*name`.
    Alias {
        name: String,
        ty: VarTy,
        target: String,
    },
}

impl Stmt {
    pub fn set(l: impl Into<String>, v: impl Into<String>) -> Stmt {
        Stmt::Set(l.into(), v.into())
    }
    pub fn decl(ty: VarTy, vars: Vec<Var>) -> Stmt {
        Stmt::Decl { konst: false, ty, vars }
    }
    pub fn konst(ty: VarTy, vars: Vec<Var>) -> Stmt {
        Stmt::Decl { konst: true, ty, vars }
    }
    pub fn up(var: &str, from: impl Into<String>, cond: impl Into<String>, body: Stmt) -> Stmt {
        Stmt::For { var: var.into(), from: from.into(), lp: Loop::Up(cond.into()), body: Box::new(body) }
    }
    pub fn down(var: &str, from: impl Into<String>, body: Stmt) -> Stmt {
        Stmt::For { var: var.into(), from: from.into(), lp: Loop::Down, body: Box::new(body) }
    }
    pub fn when(cond: impl Into<String>, then: Stmt) -> Stmt {
        Stmt::If { cond: cond.into(), then: Box::new(then), els: None }
    }
    pub fn when_else(cond: impl Into<String>, then: Stmt, els: Stmt) -> Stmt {
        Stmt::If { cond: cond.into(), then: Box::new(then), els: Some(Box::new(els)) }
    }
    pub fn ret(v: impl Into<String>) -> Stmt {
        Stmt::Return { value: Some(v.into()), unviews: Vec::new() }
    }
}

/// A parameter of a printed function.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamTy {
    /// An array of `len` values of a base type (read only when `konst`).
    Array { ty: VarTy, len: usize, konst: bool },
    /// A struct of a shape by value.
    Value(String),
    /// A struct of a shape through a pointer (read only when `konst`).
    Ptr { shape: String, konst: bool },
    /// The element type by value.
    Elem,
}

/// How a target spells statements, beside the expressions of `Spelling`.
pub trait Statements: Spelling {
    /// The name of a base type.
    fn base_type(&self, model: &Model, ty: &VarTy, elem: &ElemType) -> String;
    /// A declaration, on one line.
    fn decl(&self, model: &Model, elem: &ElemType, konst: bool, ty: &VarTy, vars: &[Var]) -> String;
    /// The head of a counted loop (without its body).
    fn for_head(&self, var: &str, from: &str, lp: &Loop) -> String;
    /// A counted loop around its body's lines (braced where `braces`): the
    /// head on the body's first line by default. A language without C's
    /// three-clause `for` (Rust) prints its own loop, which must run the
    /// body for the same values, leave a `continue` going to the next value
    /// and give `var` the value at which `Loop::Up`'s condition failed.
    fn counted(&self, var: &str, from: &str, lp: &Loop, body: Vec<String>) -> Vec<String> {
        let mut out = vec![format!("{} {}", self.for_head(var, from, lp), body[0])];
        out.extend(body[1..].iter().cloned());
        out
    }
    /// An unsigned whole-number literal (`32u` in C and WGSL).
    fn uint(&self, n: usize) -> String {
        format!("{n}u")
    }
    /// Whether every loop and `if` body is braced.
    fn braces(&self) -> bool;
    /// Element `idx` of an array.
    fn at(&self, a: &Arr, idx: &str) -> String;
    /// An array passed on to a function that indexes it.
    fn arg(&self, a: &Arr) -> String;
    /// `c ? a : b` on a whole-number condition, unparenthesised in C.
    fn choose(&self, c: &str, a: &str, b: &str) -> String;
    /// Adds one to a whole number.
    fn incr(&self, v: &str) -> String;
    /// The statements of a view and an unview (none where members have
    /// pointers).
    fn view(&self, of: &str, ptr: bool) -> Vec<String>;
    fn unview(&self, of: &str) -> Vec<String>;
    /// The value behind pointer `name`, read or assigned whole (`*a` in C
    /// and WGSL).
    fn deref(&self, name: &str) -> String;
    /// The value behind pointer `name` as the base of a member access
    /// (`(*w)` in C and WGSL, whose `.` binds tighter than `*`).
    fn deref_base(&self, name: &str) -> String;
    /// A pointer `name` to `target`, of type `ty`.
    fn alias(&self, model: &Model, elem: &ElemType, name: &str, ty: &VarTy, target: &str) -> String;
    /// A function's head: `ret` None for none; `helper` marks a file-local
    /// helper.
    fn fn_head(
        &self,
        model: &Model,
        elem: &ElemType,
        helper: bool,
        ret: Option<&VarTy>,
        name: &str,
        params: &[(String, ParamTy)],
    ) -> String;
}

/// The statement in a line, or several when it spans them.
pub fn lines(sp: &dyn Statements, model: &Model, elem: &ElemType, s: &Stmt) -> Vec<String> {
    let go = |s: &Stmt| lines(sp, model, elem, s);
    match s {
        Stmt::Decl { konst, ty, vars } => vec![sp.decl(model, elem, *konst, ty, vars)],
        Stmt::Set(l, v) => vec![format!("{l} = {v};")],
        Stmt::Incr(v) => vec![sp.incr(v)],
        Stmt::For { var, from, lp, body } => sp.counted(var, from, lp, body_lines(sp, model, elem, body)),
        Stmt::If { cond, then, els: None } => head_then(sp, model, elem, format!("if ({cond})"), then),
        Stmt::If { cond, then, els: Some(els) } => {
            let t = body_lines(sp, model, elem, then);
            let e = body_lines(sp, model, elem, els);
            let mut out = vec![format!("if ({cond}) {}", t[0])];
            out.extend(t[1..t.len() - 1].iter().cloned());
            out.push(format!("{} else {}", t[t.len() - 1], e[0]));
            out.extend(e[1..].iter().cloned());
            out
        }
        Stmt::Block(b) => {
            let mut out = vec!["{".to_string()];
            out.extend(b.iter().flat_map(go).map(|l| format!("    {l}")));
            out.push("}".into());
            out
        }
        Stmt::Inline(b) => vec![format!("{{ {} }}", b.iter().flat_map(go).collect::<Vec<_>>().join(" "))],
        Stmt::Line(b) => vec![b.iter().flat_map(go).collect::<Vec<_>>().join(" ")],
        Stmt::Return { value: None, unviews } => {
            let mut out: Vec<String> = unviews.iter().flat_map(|u| sp.unview(u)).collect();
            out.push("return;".into());
            out
        }
        Stmt::Return { value: Some(v), unviews } => {
            let after: Vec<String> = unviews.iter().flat_map(|u| sp.unview(u)).collect();
            if after.is_empty() {
                vec![format!("return {v};")]
            } else {
                let mut out = vec![format!("let aether_ret = {v};")];
                out.extend(after);
                out.push("return aether_ret;".into());
                out
            }
        }
        Stmt::Continue => vec!["continue;".into()],
        Stmt::Call(c) => vec![format!("{c};")],
        Stmt::View { of, ptr } => sp.view(of, *ptr),
        Stmt::Unview(of) => sp.unview(of),
        Stmt::Alias { name, ty, target } => vec![sp.alias(model, elem, name, ty, target)],
    }
}

/// The lines of a loop's or an `if`'s body: braced where the target needs it.
fn body_lines(sp: &dyn Statements, model: &Model, elem: &ElemType, s: &Stmt) -> Vec<String> {
    let l = lines(sp, model, elem, s);
    if !sp.braces() || matches!(s, Stmt::Block(_) | Stmt::Inline(_)) {
        return l;
    }
    if l.len() == 1 {
        return vec![format!("{{ {} }}", l[0])];
    }
    let mut out = vec!["{".to_string()];
    out.extend(l.into_iter().map(|x| format!("    {x}")));
    out.push("}".into());
    out
}

fn head_then(sp: &dyn Statements, model: &Model, elem: &ElemType, head: String, body: &Stmt) -> Vec<String> {
    let b = body_lines(sp, model, elem, body);
    let mut out = vec![format!("{head} {}", b[0])];
    out.extend(b[1..].iter().cloned());
    out
}

/// The lines of a statement list.
pub fn block(sp: &dyn Statements, model: &Model, elem: &ElemType, body: &[Stmt]) -> Vec<String> {
    body.iter().flat_map(|s| lines(sp, model, elem, s)).collect()
}

/// A function built as statements.
#[derive(Debug, Clone, PartialEq)]
pub struct Func {
    pub name: String,
    pub helper: bool,
    pub ret: Option<VarTy>,
    pub params: Vec<(String, ParamTy)>,
    pub body: Vec<Stmt>,
}

impl Func {
    pub fn head(&self, sp: &dyn Statements, model: &Model, elem: &ElemType) -> String {
        sp.fn_head(model, elem, self.helper, self.ret.as_ref(), &self.name, &self.params)
    }

    /// The head, the braced body indented by four, and an empty line.
    pub fn text(&self, sp: &dyn Statements, model: &Model, elem: &ElemType) -> Vec<String> {
        let mut out = vec![self.head(sp, model, elem), "{".to_string()];
        out.extend(block(sp, model, elem, &self.body).into_iter().map(|l| format!("    {l}")));
        out.push("}".into());
        out.push(String::new());
        out
    }
}
