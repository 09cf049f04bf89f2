//! The one walk over a lowered function's trees. Every target prints the
//! model's expressions and function bodies through `expr` and `body`, and
//! supplies only its spelling (operators, calls, literals, types,
//! declarations): the order of operations is the tree's, written nowhere
//! else. The C family spells through `shared::c_family::Dialect`, WGSL
//! through `targets::wgsl::Wgsl`.

use crate::dsl::BinOp;
use crate::model::{Builtin, Expr, Function, Kind, Model, Ty};
use crate::spec::{ElemType, ShapeKind};

/// How a target spells the pieces of a lowered function.
pub trait Spelling {
    /// An exact literal of the element type.
    fn lit(&self, v: f64, elem: &ElemType) -> String;
    /// A truth constant.
    fn truth(&self, b: bool) -> String;
    /// `a op b`: a rounded operation of the element type, or a comparison or
    /// logical operation (which round nothing).
    fn bin(&self, op: BinOp, a: &str, b: &str, elem: &ElemType) -> String;
    /// Logical negation of a truth value.
    fn not(&self, a: &str) -> String {
        format!("(!{a})")
    }
    /// `c ? a : b` (the expressions have no side effects, so a target may
    /// evaluate both).
    fn select(&self, c: &str, a: &str, b: &str) -> String;
    /// The correctly rounded square root.
    fn sqrt(&self, x: &str, elem: &ElemType) -> String;
    /// A builtin other than sqrt.
    fn call(&self, b: Builtin, args: &[String], elem: &ElemType) -> String;
    /// Component `k` (memory order) of a value of a vector or matrix shape
    /// named `var`.
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String;
    /// The type of a parameter or result.
    fn kind_type(&self, model: &Model, kind: &Kind, elem: &ElemType) -> String;
    /// A named intermediate bound once.
    fn bind(&self, name: &str, ty: Ty, elem: &ElemType, value: &str) -> String;
    /// Returns a truth value in the target's result type for truths.
    fn return_truth(&self, v: &str) -> String;
    /// Declares the result [`OUT`] of a vector or matrix type.
    fn declare_out(&self, ty: &str) -> String;
    /// The statements that return a result of the vector or matrix type
    /// `ty` built whole from its components' expressions (memory order),
    /// where the target has such an expression; by default none, and the
    /// result is declared and written component by component.
    fn construct(&self, _ty: &str, _kind: &ShapeKind, _values: &[String]) -> Option<Vec<String>> {
        None
    }
    /// Operand `e` of the binary operation `op`, printed as `printed`: a
    /// target may wrap it (df64's loaded-low-word rule); by default as it is.
    fn operand(&self, _op: BinOp, _f: &Function, _e: &Expr, printed: String) -> String {
        printed
    }
}

/// The result of a body, `aether_out`: the spec's names never start with
/// `aether` (`names::check_part`), so no parameter or step meets it, and a
/// parameter may be named `out` (a body's `out = ...` still defines the
/// result). Every other name the printers introduce where a spec's name is in
/// scope is `aether_...` too.
pub const OUT: &str = "aether_out";

/// An expression of `f` in a spelling.
pub fn expr(sp: &dyn Spelling, f: &Function, elem: &ElemType, e: &Expr) -> String {
    let go = |x: &Expr| expr(sp, f, elem, x);
    match e {
        Expr::Lit(v) => sp.lit(*v, elem),
        Expr::Truth(b) => sp.truth(*b),
        Expr::Input { param, comp } => {
            let p = &f.params[*param];
            match &p.kind {
                Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar) => p.name.clone(),
                Kind::Shape(s) => sp.component(&p.name, &s.kind, *comp),
                Kind::Bool => unreachable!("no parameter is a truth value"),
            }
        }
        Expr::Temp(t) => f.temps[*t].name.clone(),
        Expr::Bin(op, a, b) => sp.bin(*op, &sp.operand(*op, f, a, go(a)), &sp.operand(*op, f, b, go(b)), elem),
        Expr::Not(a) => sp.not(&go(a)),
        Expr::Select(c, a, b) => sp.select(&go(c), &go(a), &go(b)),
        Expr::Call(Builtin::Sqrt, args) => sp.sqrt(&go(&args[0]), elem),
        Expr::Call(b, args) => {
            let args: Vec<String> = args.iter().map(go).collect();
            sp.call(*b, &args, elem)
        }
        Expr::Fold { .. } | Expr::Hole(_) => unreachable!("targets print lowered functions"),
    }
}

/// The statements of a lowered function's body: its intermediates in order,
/// then the result.
pub fn body(sp: &dyn Spelling, model: &Model, f: &Function, elem: &ElemType) -> Vec<String> {
    let mut lines = Vec::new();
    for t in &f.temps {
        lines.push(sp.bind(&t.name, t.ty, elem, &expr(sp, f, elem, &t.expr)));
    }
    match &f.ret {
        Kind::Bool => lines.push(sp.return_truth(&expr(sp, f, elem, &f.outputs[0]))),
        Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar) => lines.push(format!("return {};", expr(sp, f, elem, &f.outputs[0]))),
        Kind::Shape(s) => {
            let ty = sp.kind_type(model, &f.ret, elem);
            let values: Vec<String> = f.outputs.iter().map(|o| expr(sp, f, elem, o)).collect();
            if let Some(whole) = sp.construct(&ty, &s.kind, &values) {
                lines.extend(whole);
                return lines;
            }
            lines.push(sp.declare_out(&ty));
            for (k, v) in values.iter().enumerate() {
                lines.push(format!("{} = {v};", sp.component(OUT, &s.kind, k)));
            }
            lines.push(format!("return {OUT};"));
        }
    }
    lines
}
