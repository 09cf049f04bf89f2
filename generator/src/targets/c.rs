//! The plain-C99 core: `c_core/aether_core.h` and `c_core/aether_core.c`.
//! Every name, type, literal and expression is printed here; the templates in
//! `templates/c/` only place the text.

use minijinja::context;
use serde::Serialize;

use super::{render, Output, Target};
use crate::error::Error;
use crate::model::{Builtin, Expr, Function, Kind, Model, Ty};
use crate::spec::{ElemType, ShapeKind};

#[derive(Debug)]
pub struct C;

#[derive(Serialize)]
struct CType {
    name: String,
    doc: String,
    fields: Vec<String>,
}

#[derive(Serialize)]
struct CFunction {
    name: String,
    doc: Vec<String>,
    signature: String,
    body: Vec<String>,
}

const HEADER_TEMPLATE: &str = include_str!("../../../templates/c/aether_core.h.j2");
const SOURCE_TEMPLATE: &str = include_str!("../../../templates/c/aether_core.c.j2");

impl Target for C {
    fn name(&self) -> &'static str {
        "c"
    }

    fn render(&self, model: &Model, banner: &str) -> Result<Vec<Output>, Error> {
        let (h, c) = render_core(model, &model.lowered(), banner)?;
        Ok(vec![Output::new("c_core/aether_core.h", h), Output::new("c_core/aether_core.c", c)])
    }
}

/// The C type name of a shape in an element type: `aether_vec3f`, or `float`.
pub fn type_name(model: &Model, shape: &str, elem: &ElemType) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => elem.c_type.clone(),
        _ => format!("aether_{shape}{}", elem.letter),
    }
}

fn kind_type(model: &Model, k: &Kind, elem: &ElemType) -> String {
    match k {
        Kind::Bool => "int".into(),
        Kind::Shape(s) => type_name(model, &s.name, elem),
    }
}

/// Renders the header and source for the given lowered functions (the
/// model's own, or a mutant's).
pub fn render_core(model: &Model, lowered: &[Function], banner: &str) -> Result<(String, String), Error> {
    let mut types = Vec::new();
    for elem in &model.spec.types {
        for shape in &model.spec.shapes {
            let fields = match &shape.kind {
                ShapeKind::Scalar => continue,
                ShapeKind::Vector(names) => names.iter().map(|n| format!("{} {n}", elem.c_type)).collect(),
                ShapeKind::Matrix { .. } => vec![format!("{} m[{}]", elem.c_type, shape.len())],
            };
            let doc = match &shape.kind {
                ShapeKind::Vector(names) => {
                    format!("{shape} of {}: components in memory order ({})", elem.c_type, names.join(", "), shape = shape.name)
                }
                ShapeKind::Matrix { rows, cols, layout } => format!(
                    "{}x{} matrix of {}, stored {}: element (r, c) at m[{}]",
                    rows,
                    cols,
                    elem.c_type,
                    match layout {
                        crate::spec::Layout::RowMajor => "row-major",
                        crate::spec::Layout::ColumnMajor => "column-major",
                    },
                    match layout {
                        crate::spec::Layout::RowMajor => format!("r*{cols} + c"),
                        crate::spec::Layout::ColumnMajor => format!("c*{rows} + r"),
                    }
                ),
                ShapeKind::Scalar => unreachable!(),
            };
            types.push(CType { name: type_name(model, &shape.name, elem), doc, fields });
        }
    }
    let functions: Vec<CFunction> = lowered.iter().map(|f| function(model, f)).collect();
    let ctx = context! { banner, version => model.spec.version, types, functions };
    let h = render("c/aether_core.h.j2", HEADER_TEMPLATE, &ctx)?;
    let c = render("c/aether_core.c.j2", SOURCE_TEMPLATE, &ctx)?;
    Ok((h, c))
}

fn function(model: &Model, f: &Function) -> CFunction {
    let elem = model.spec.types.iter().find(|t| t.name == f.elem).unwrap();
    let fam = model.spec.family(&f.family).unwrap();
    let name = model.c_name(f);
    let params: Vec<String> = f.params.iter().map(|p| format!("{} {}", kind_type(model, &p.kind, elem), p.name)).collect();
    let ret = kind_type(model, &f.ret, elem);
    let signature = format!("{ret} {name}({})", if params.is_empty() { "void".to_string() } else { params.join(", ") });
    let mut doc = vec![format!("{}", fam.doc)];
    let body = fam.body_for(&f.shape).unwrap();
    doc.push("Spec:".into());
    doc.extend(body.source.lines().map(|l| format!("    {}", l.trim())));
    let p = Printer { f, elem };
    let mut lines = Vec::new();
    for t in &f.temps {
        let ty = if t.ty == Ty::Bool { "int" } else { elem.c_type.as_str() };
        lines.push(format!("const {ty} {} = {};", t.name, p.expr(&t.expr)));
    }
    match &f.ret {
        Kind::Bool => lines.push(format!("return {} ? 1 : 0;", p.expr(&f.outputs[0]))),
        Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar) => lines.push(format!("return {};", p.expr(&f.outputs[0]))),
        Kind::Shape(s) => {
            lines.push(format!("{ret} out;"));
            for (k, o) in f.outputs.iter().enumerate() {
                lines.push(format!("out.{} = {};", component(&s.kind, k), p.expr(o)));
            }
            lines.push("return out;".into());
        }
    }
    CFunction { name, doc, signature, body: lines }
}

fn component(kind: &ShapeKind, k: usize) -> String {
    match kind {
        ShapeKind::Vector(names) => names[k].clone(),
        _ => format!("m[{k}]"),
    }
}

struct Printer<'a> {
    f: &'a Function,
    elem: &'a ElemType,
}

impl Printer<'_> {
    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Lit(v) => literal(*v, self.elem),
            Expr::Truth(b) => i32::from(*b).to_string(),
            Expr::Input { param, comp } => {
                let p = &self.f.params[*param];
                match &p.kind {
                    Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar) => p.name.clone(),
                    Kind::Shape(s) => format!("{}.{}", p.name, component(&s.kind, *comp)),
                    Kind::Bool => unreachable!(),
                }
            }
            Expr::Temp(t) => self.f.temps[*t].name.clone(),
            Expr::Bin(op, a, b) => format!("({} {} {})", self.expr(a), op.symbol(), self.expr(b)),
            Expr::Not(a) => format!("(!{})", self.expr(a)),
            Expr::Select(c, a, b) => format!("({} ? {} : {})", self.expr(c), self.expr(a), self.expr(b)),
            Expr::Call(b, args) => {
                let name = match b {
                    Builtin::IsFinite => "isfinite".to_string(),
                    other => format!("{}{}", other.name(), self.elem.libm_suffix),
                };
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{name}({})", args.join(", "))
            }
            Expr::Fold { .. } | Expr::Hole(_) => unreachable!("the C target prints lowered functions"),
        }
    }
}

/// An exact C literal of the element type: `2.0f`, `-1.0`, or a hexadecimal
/// float for anything that is not a small whole number.
pub fn literal(v: f64, elem: &ElemType) -> String {
    let s = &elem.literal_suffix;
    if v.fract() == 0.0 && v.abs() < 16_777_216.0 {
        let sign = if v.is_sign_negative() { "-" } else { "" };
        return format!("{sign}{:.1}{s}", v.abs());
    }
    let bits = v.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mant = bits & ((1u64 << 52) - 1);
    let mut hex = format!("{mant:013x}");
    while hex.ends_with('0') {
        hex.pop();
    }
    let frac = if hex.is_empty() { String::new() } else { format!(".{hex}") };
    format!("{sign}0x1{frac}p{exp:+}{s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32t() -> ElemType {
        ElemType {
            name: "f32".into(),
            c_type: "float".into(),
            letter: "f".into(),
            literal_suffix: "f".into(),
            libm_suffix: "f".into(),
            bits: 32,
        }
    }

    #[test]
    fn literals_are_exact_and_typed() {
        assert_eq!(literal(2.0, &f32t()), "2.0f");
        assert_eq!(literal(-1.0, &f32t()), "-1.0f");
        assert_eq!(literal(-0.0, &f32t()), "-0.0f");
        assert_eq!(literal(0.5, &f32t()), "0x1p-1f");
        assert_eq!(literal(0.75, &f32t()), "0x1.8p-1f");
        assert_eq!(literal(-16777216.0, &f32t()), "-0x1p+24f");
        assert_eq!(literal(3.0 * 2f64.powi(-130), &f32t()), "0x1.8p-129f");
    }
}
