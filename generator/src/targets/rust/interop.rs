//! `rust_core/src/interop.rs`: conversions between the core's structs and
//! glam's and mint's types, each behind its cargo feature, for the shapes
//! whose names and components those crates have (vec2..vec4 with x, y, z, w;
//! quat with w, x, y, z; square matrices). A conversion only moves values:
//! glam's matrices are column-major and its quaternion (x, y, z, w), so a
//! row-major matrix is transposed on the way (an exact permutation) and a
//! quaternion's components are renamed, never recomputed.

use crate::model::Model;
use crate::spec::{ElemType, Layout, ShapeKind};
use crate::targets::rust::{scalar, type_name};

/// glam's and mint's type for a shape in an element type, with how its
/// components map: `Vector(glam, mint, names)` or `Quat` or `Matrix(n)`.
enum Peer {
    Vector { glam: String, mint: String, names: Vec<String> },
    Quat { glam: String, names: Vec<String> },
    Matrix { glam: String, n: usize, layout: Layout },
}

fn peer(shape: &crate::spec::Shape, t: &ElemType) -> Option<Peer> {
    let d = if t.bits == 64 { "D" } else { "" };
    let xyzw = ["x", "y", "z", "w"];
    match &shape.kind {
        ShapeKind::Vector(names) if shape.name == format!("vec{}", names.len()) && names.iter().zip(xyzw).all(|(a, b)| a == b) => {
            let n = names.len();
            Some(Peer::Vector { glam: format!("glam::{d}Vec{n}"), mint: format!("mint::Vector{n}"), names: names.clone() })
        }
        ShapeKind::Vector(names) if shape.name == "quat" && names.len() == 4 && names.iter().all(|c| xyzw.contains(&c.as_str())) => {
            Some(Peer::Quat { glam: format!("glam::{d}Quat"), names: names.clone() })
        }
        ShapeKind::Matrix { rows, cols, layout } if rows == cols && shape.name == format!("mat{rows}") && (2..=4).contains(rows) => {
            Some(Peer::Matrix { glam: format!("glam::{d}Mat{rows}"), n: *rows, layout: *layout })
        }
        _ => None,
    }
}

fn conversion(out: &mut Vec<String>, feature: &str, from: &str, to: &str, arg: &str, body: String) {
    out.push(format!("#[cfg(feature = \"{feature}\")]"));
    out.push(format!("impl From<{from}> for {to} {{"));
    out.push("    #[inline]".into());
    out.push(format!("    fn from({arg}: {from}) -> {to} {{"));
    out.push(format!("        {body}"));
    out.push("    }".into());
    out.push("}".into());
    out.push(String::new());
}

/// The source of `rust_core/src/interop.rs`.
pub fn source(model: &Model, banner: &str) -> String {
    let mut out: Vec<String> = banner.lines().map(String::from).collect();
    out.push(String::new());
    out.push("// Conversions from and to glam's and mint's types (features `glam` and `mint`; included by lib.rs).".into());
    out.push(String::new());
    out.push("use crate::*;".into());
    out.push(String::new());
    for t in &model.spec.types {
        let s = scalar(t);
        for shape in &model.spec.shapes {
            let Some(p) = peer(shape, t) else { continue };
            let ours = type_name(model, &shape.name, t);
            match p {
                Peer::Vector { glam, mint, names } => {
                    let args = |v: &str| names.iter().map(|c| format!("{v}.{c}")).collect::<Vec<_>>().join(", ");
                    conversion(&mut out, "glam", &ours, &glam, "v", format!("{glam}::new({})", args("v")));
                    conversion(&mut out, "glam", &glam, &ours, "g", format!("{ours}::new({})", args("g")));
                    let fields = names.iter().map(|c| format!("{c}: v.{c}")).collect::<Vec<_>>().join(", ");
                    conversion(&mut out, "mint", &ours, &format!("{mint}<{s}>"), "v", format!("{mint} {{ {fields} }}"));
                    conversion(&mut out, "mint", &format!("{mint}<{s}>"), &ours, "g", format!("{ours}::new({})", args("g")));
                }
                Peer::Quat { glam, names } => {
                    let ours_args = |v: &str| names.iter().map(|c| format!("{v}.{c}")).collect::<Vec<_>>().join(", ");
                    conversion(&mut out, "glam", &ours, &glam, "q", format!("{glam}::from_xyzw(q.x, q.y, q.z, q.w)"));
                    conversion(&mut out, "glam", &glam, &ours, "g", format!("{ours}::new({})", ours_args("g")));
                    let to_mint = "mint::Quaternion { v: mint::Vector3 { x: q.x, y: q.y, z: q.z }, s: q.w }".to_string();
                    conversion(&mut out, "mint", &ours, &format!("mint::Quaternion<{s}>"), "q", to_mint);
                    let from_mint = names.iter().map(|c| if c == "w" { "g.s".to_string() } else { format!("g.v.{c}") }).collect::<Vec<_>>();
                    conversion(
                        &mut out,
                        "mint",
                        &format!("mint::Quaternion<{s}>"),
                        &ours,
                        "g",
                        format!("{ours}::new({})", from_mint.join(", ")),
                    );
                }
                Peer::Matrix { glam, n, layout } => {
                    // glam's from_cols_array reads columns: our row-major array is the transpose.
                    let (to_g, from_g) = match layout {
                        Layout::RowMajor => (
                            format!("{glam}::from_cols_array(&m.m).transpose()"),
                            format!("{ours}::from_array(g.transpose().to_cols_array())"),
                        ),
                        Layout::ColumnMajor => (format!("{glam}::from_cols_array(&m.m)"), format!("{ours}::from_array(g.to_cols_array())")),
                    };
                    conversion(&mut out, "glam", &ours, &glam, "m", to_g);
                    conversion(&mut out, "glam", &glam, &ours, "g", from_g);
                    // mint's RowMatrix: rows x, y, z, w; element (r, c) of ours at the layout's index.
                    let at = |r: usize, c: usize| match layout {
                        Layout::RowMajor => r * n + c,
                        Layout::ColumnMajor => c * n + r,
                    };
                    let comp = ["x", "y", "z", "w"];
                    let rows: Vec<String> = (0..n)
                        .map(|r| {
                            let cs: Vec<String> = (0..n).map(|c| format!("{}: m.m[{}]", comp[c], at(r, c))).collect();
                            format!("{}: mint::Vector{n} {{ {} }}", comp[r], cs.join(", "))
                        })
                        .collect();
                    conversion(
                        &mut out,
                        "mint",
                        &ours,
                        &format!("mint::RowMatrix{n}<{s}>"),
                        "m",
                        format!("mint::RowMatrix{n} {{ {} }}", rows.join(", ")),
                    );
                    let mut elems = vec![String::new(); n * n];
                    for r in 0..n {
                        for c in 0..n {
                            elems[at(r, c)] = format!("g.{}.{}", comp[r], comp[c]);
                        }
                    }
                    conversion(
                        &mut out,
                        "mint",
                        &format!("mint::RowMatrix{n}<{s}>"),
                        &ours,
                        "g",
                        format!("{ours}::from_array([{}])", elems.join(", ")),
                    );
                }
            }
        }
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}
