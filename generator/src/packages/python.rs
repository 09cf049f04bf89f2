//! The Python package's generated binding table (`python/aether/_generated/
//! table.py`): the contract's id and version, every shape's layout, and every
//! function of the C core that has batched forms (every lowered function) with
//! its parameters, its result and the exact C prototypes of its `_soa` and
//! `_aos` forms as `c_core/aether_batch.h` declares them
//! ([`crate::targets::c::batch::form`]). The package's hand-written loader
//! (`python/aether/_core.py`) builds its ctypes signatures and numpy checks
//! from this table alone, so no function is bound by hand. The C sources are
//! not copied here: the package's `setup.py` compiles the repository's own
//! `c_core/` files and refuses a build whose header's contract id is not the
//! table's (`CONTRACT_ID`), and the loaded library is checked the same way.
//! The loader executes `table.py` from its source rather than importing it, so
//! no `__pycache__` (an orphan to `--check`) is ever written in this folder; it
//! is package data, not a module, and the folder has no `__init__.py`.

use std::fmt::Write as _;

use crate::error::Error;
use crate::model::{Kind, Model};
use crate::spec::{Layout, ShapeKind};
use crate::targets::c::batch;
use crate::targets::Output;

/// The folder the generator owns in the package.
pub const FOLDER: &str = "python/aether/_generated";

/// A C comment banner as Python comment lines.
fn python_banner(banner: &str) -> String {
    let text = banner.trim().trim_start_matches("/*").trim_end_matches("*/");
    text.lines().map(|l| format!("# {}", l.trim()).trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

fn py_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn py_tuple(items: &[String]) -> String {
    match items.len() {
        0 => "()".into(),
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

pub fn render(model: &Model, banner: &str, _cores: &[Output]) -> Result<Vec<Output>, Error> {
    let mut s = String::new();
    let _ = writeln!(s, "{}", python_banner(banner));
    let _ = writeln!(s, "# The Python package's binding table, written by generator/src/packages/python.rs from the model.");
    let _ = writeln!(s, "\"\"\"The binding table of the aether package (generated; see aether/_core.py).\"\"\"");
    s.push('\n');
    let _ = writeln!(s, "CONTRACT_NAME = {}", py_str(&model.spec.name));
    let _ = writeln!(s, "CONTRACT_VERSION = {}", py_str(&model.spec.version));
    let _ = writeln!(s, "CONTRACT_ID = {}", py_str(&crate::selftest::contract_id(model)));
    s.push('\n');
    let _ = writeln!(s, "# Element types: name -> (C type, struct-name letter, bits).");
    let _ = writeln!(s, "TYPES = {{");
    for t in &model.spec.types {
        let _ = writeln!(s, "    {}: ({}, {}, {}),", py_str(&t.name), py_str(&t.c_type), py_str(&t.letter), t.bits);
    }
    let _ = writeln!(s, "}}");
    s.push('\n');
    let _ = writeln!(s, "# Shapes: name -> (words, numpy item shape in memory order, C field names or None for an array `m`).");
    let _ = writeln!(s, "SHAPES = {{");
    for shape in &model.spec.shapes {
        let (item, fields) = match &shape.kind {
            ShapeKind::Scalar => (Vec::new(), "None".to_string()),
            ShapeKind::Vector(names) => (vec![names.len().to_string()], py_tuple(&names.iter().map(|n| py_str(n)).collect::<Vec<_>>())),
            ShapeKind::Matrix { rows, cols, layout } => {
                let (outer, inner) = match layout {
                    Layout::RowMajor => (*rows, *cols),
                    Layout::ColumnMajor => (*cols, *rows),
                };
                (vec![outer.to_string(), inner.to_string()], "None".to_string())
            }
        };
        let _ = writeln!(s, "    {}: ({}, {}, {}),", py_str(&shape.name), shape.len(), py_tuple(&item), fields);
    }
    let _ = writeln!(s, "}}");
    s.push('\n');
    let _ = writeln!(s, "# Every function with batched forms, in the C core's order:");
    let _ = writeln!(s, "# (name without `aether_`, family, shape, element type, either_zero,");
    let _ = writeln!(s, "#  parameters ((name, shape), ...), result shape (None: a truth value, C int 0 or 1),");
    let _ = writeln!(s, "#  the _soa prototype, the _aos prototype), the prototypes as c_core/aether_batch.h declares them.");
    let _ = writeln!(s, "FUNCTIONS = (");
    for f in model.lowered() {
        let c_name = model.c_name(&f);
        let name = c_name.strip_prefix("aether_").unwrap_or(&c_name).to_string();
        let shape_of = |k: &Kind| match k {
            Kind::Bool => "None".to_string(),
            Kind::Shape(s) => py_str(&s.name),
        };
        let params: Vec<String> = f.params.iter().map(|p| format!("({}, {})", py_str(&p.name), shape_of(&p.kind))).collect();
        let proto = |aos: bool| {
            let form = batch::form(model, &f, aos);
            py_str(&format!("void {}({})", form.name, form.params.join(", ")))
        };
        let _ = writeln!(
            s,
            "    ({}, {}, {}, {}, {}, {}, {}, {}, {}),",
            py_str(&name),
            py_str(&f.family),
            py_str(&f.shape),
            py_str(&f.elem),
            py_bool(f.either_zero),
            py_tuple(&params),
            shape_of(&f.ret),
            proto(false),
            proto(true)
        );
    }
    let _ = writeln!(s, ")");
    Ok(vec![Output::new(format!("{FOLDER}/table.py"), s)])
}
