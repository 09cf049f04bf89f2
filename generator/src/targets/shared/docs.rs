//! The documentation every core prints from the spec: a shape's layout and
//! a function's family doc with its spec body.

use crate::model::{Function, Model};
use crate::spec::ShapeKind;

/// What a vector or matrix shape's struct holds, with the element type
/// spelled `scalar`: the components in memory order, or the matrix layout.
pub fn shape_doc(shape: &crate::spec::Shape, scalar: &str) -> String {
    match &shape.kind {
        ShapeKind::Vector(names) => format!("{} of {scalar}: components in memory order ({})", shape.name, names.join(", ")),
        ShapeKind::Matrix { rows, cols, layout } => {
            let (name, at) = match layout {
                crate::spec::Layout::RowMajor => ("row-major", format!("r*{cols} + c")),
                crate::spec::Layout::ColumnMajor => ("column-major", format!("c*{rows} + r")),
            };
            format!("{rows}x{cols} matrix of {scalar}, stored {name}: element (r, c) at m[{at}]")
        }
        ShapeKind::Scalar => format!("a {scalar}"),
    }
}

/// A function's doc: its family's doc, then `Spec:` and the body it was
/// built from, as written (each line trimmed and indented).
pub fn function_doc(model: &Model, f: &Function) -> Vec<String> {
    let fam = model.spec.family(&f.family).unwrap();
    let mut doc = vec![fam.doc.clone()];
    let body = fam.body_for(&f.shape, &f.elem).unwrap();
    doc.push("Spec:".into());
    doc.extend(body.source.lines().map(|l| format!("    {}", l.trim())));
    doc
}
