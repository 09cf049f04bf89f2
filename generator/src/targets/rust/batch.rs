//! `rust_core/src/batch.rs`: every function of the core over slices of
//! items, in the C core's two batch layouts (`c_core/aether_batch.h`): array
//! of structures (`_aos`: item `i` of each slice is the core's struct,
//! `a[i]`) and structure of arrays (`_soa`: component `c` of item `i` at
//! `[c * aether_n + i]`, the layout of the CUDA and OpenCL batches). Each
//! item is the function applied to that item alone, so it has the bits the
//! function gives it; a batch only moves values. Lengths are checked before
//! anything is written.

use crate::model::{Function, Kind, Model};
use crate::spec::{ElemType, ShapeKind};
use crate::targets::rust::{scalar, RustSp};
use crate::targets::shared::print::Spelling;

fn elem<'a>(model: &'a Model, name: &str) -> &'a ElemType {
    model.spec.types.iter().find(|t| t.name == name).unwrap()
}

/// How component `k` of a value of `kind` is read (`.x`, `.m[k]`, or the
/// value itself), in memory order.
pub fn component(model: &Model, kind: &Kind, k: usize) -> String {
    match kind {
        Kind::Bool => String::new(),
        Kind::Shape(s) => match &model.spec.shape(&s.name).unwrap().kind {
            ShapeKind::Scalar => String::new(),
            ShapeKind::Vector(names) => format!(".{}", names[k]),
            ShapeKind::Matrix { .. } => format!(".m[{k}]"),
        },
    }
}

/// A value of `kind` from its components (expressions, in memory order).
pub fn construct(model: &Model, kind: &Kind, t: &ElemType, parts: &[String]) -> String {
    let Kind::Shape(s) = kind else { return parts[0].clone() };
    let ty = RustSp.kind_type(model, kind, t);
    match &model.spec.shape(&s.name).unwrap().kind {
        ShapeKind::Scalar => parts[0].clone(),
        ShapeKind::Vector(names) => {
            format!("{ty} {{ {} }}", names.iter().zip(parts).map(|(n, p)| format!("{n}: {p}")).collect::<Vec<_>>().join(", "))
        }
        ShapeKind::Matrix { .. } => format!("{ty} {{ m: [{}] }}", parts.join(", ")),
    }
}

/// The element type of a structure-of-arrays slice of `kind`.
pub fn soa_elem(kind: &Kind, t: &ElemType) -> &'static str {
    match kind {
        Kind::Bool => "bool",
        Kind::Shape(_) => scalar(t),
    }
}

/// The two batched forms of one function.
fn function(model: &Model, f: &Function) -> Vec<String> {
    let t = elem(model, &f.elem);
    let sp = RustSp;
    let name = model.c_name(f);
    let ret = sp.kind_type(model, &f.ret, t);
    let args = |item: &dyn Fn(usize) -> String| f.params.iter().enumerate().map(|(j, _)| item(j)).collect::<Vec<_>>().join(", ");
    let call_aos = format!("{name}({})", args(&|j| f.params[j].name.clone()));
    let mut out = Vec::new();

    // Array of structures.
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: &[{}]", p.name, sp.kind_type(model, &p.kind, t)))
        .chain([format!("aether_out: &mut [{ret}]")])
        .collect();
    out.push(format!(
        "/// [`{name}`] over slices, array of structures: `aether_out[i] = {name}({})` for every `i`, each item with the bits the function gives it alone.",
        args(&|j| format!("{}[i]", f.params[j].name))
    ));
    out.push("///".into());
    out.push("/// Every slice has as many items as `aether_out`; otherwise the [`LengthError`] names the first that has not, and nothing is written.".into());
    out.push("#[inline]".into());
    out.push(format!("pub fn {name}_aos({}) -> Result<(), LengthError> {{", params.join(", ")));
    if f.params.is_empty() {
        out.push("    for aether_o in aether_out.iter_mut() {".into());
    } else {
        out.push("    let aether_n = aether_out.len();".into());
        for p in &f.params {
            out.push(format!("    aether_fit(\"{0}\", {0}.len(), 1, aether_n)?;", p.name));
        }
        // The items come from zipped iterators, not indexing: indexed by the output's position,
        // each input kept a bounds check in the loop (the mat4 transpose's took 1.24 times the
        // per-item loop's time).
        let pattern = f.params.iter().fold("aether_o".to_string(), |acc, p| format!("({acc}, &{})", p.name));
        let zipped: String = f.params.iter().map(|p| format!(".zip({})", p.name)).collect();
        out.push(format!("    for {pattern} in aether_out.iter_mut(){zipped} {{"));
    }
    out.push(format!("        *aether_o = {call_aos};"));
    out.push("    }".into());
    out.push("    Ok(())".into());
    out.push("}".into());
    out.push(String::new());

    // Structure of arrays.
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: &[{}]", p.name, soa_elem(&p.kind, t)))
        .chain([format!("aether_out: &mut [{}]", soa_elem(&f.ret, t)), "aether_n: usize".into()])
        .collect();
    out.push(format!(
        "/// [`{name}`] over slices, structure of arrays: component `c` of item `i` at `[c * aether_n + i]` of each slice (a matrix's component `r * cols + c` is element (r, c)), `aether_out`'s item `i` the result of the inputs' item `i`, with its bits."
    ));
    out.push("///".into());
    out.push("/// Each slice has exactly its components times `aether_n` elements; otherwise the [`LengthError`] names the first that has not, and nothing is written.".into());
    out.push("#[inline]".into());
    out.push(format!("pub fn {name}_soa({}) -> Result<(), LengthError> {{", params.join(", ")));
    for p in &f.params {
        out.push(format!("    aether_fit(\"{0}\", {0}.len(), {1}, aether_n)?;", p.name, p.kind.words()));
    }
    out.push(format!("    aether_fit(\"aether_out\", aether_out.len(), {}, aether_n)?;", f.ret.words()));
    // Each slice cut into its components' parts of exactly aether_n elements (after the checks
    // above, so no cut can fail), written out: the loop below then indexes within bounds the
    // compiler knows, and vectorises across items.
    let part = |x: &str, c: usize| match c {
        0 => format!("&{x}[..aether_n]"),
        1 => format!("&{x}[aether_n..][..aether_n]"),
        _ => format!("&{x}[{c} * aether_n..][..aether_n]"),
    };
    for p in &f.params {
        let k = p.kind.words();
        let parts: Vec<String> = (0..k).map(|c| part(&p.name, c)).collect();
        out.push(format!("    let {}: [&[{}]; {k}] = [{}];", p.name, soa_elem(&p.kind, t), parts.join(", ")));
    }
    let k = f.ret.words();
    out.push("    let aether_rest = aether_out;".into());
    for c in 0..k - 1 {
        out.push(format!("    let (aether_o{c}, aether_rest) = aether_rest.split_at_mut(aether_n);"));
    }
    out.push(format!("    let aether_o{} = &mut aether_rest[..aether_n];", k - 1));
    out.push(format!(
        "    let aether_out: [&mut [{}]; {k}] = [{}];",
        soa_elem(&f.ret, t),
        (0..k).map(|c| format!("aether_o{c}")).collect::<Vec<_>>().join(", ")
    ));
    out.push("    for aether_i in 0..aether_n {".into());
    let vals: Vec<String> = f
        .params
        .iter()
        .map(|p| construct(model, &p.kind, t, &(0..p.kind.words()).map(|c| format!("{}[{c}][aether_i]", p.name)).collect::<Vec<_>>()))
        .collect();
    let callee = if crate::targets::rust::has_lanes(model, f) { crate::targets::rust::portable_name(&name) } else { name.clone() };
    out.push(format!("        let aether_r = {callee}({});", vals.join(", ")));
    for c in 0..k {
        out.push(format!("        aether_out[{c}][aether_i] = aether_r{};", component(model, &f.ret, c)));
    }
    out.push("    }".into());
    out.push("    Ok(())".into());
    out.push("}".into());
    out.push(String::new());
    out
}

/// The source of `rust_core/src/batch.rs`.
pub fn source(model: &Model, lowered: &[Function], banner_rs: &str) -> String {
    let mut out: Vec<String> = banner_rs.lines().map(String::from).collect();
    out.extend(
        [
            "",
            "// Every function of the core over slices of items: `_aos` (slices of the core's",
            "// structs) and `_soa` (component c of item i at [c * n + i], the C, CUDA and",
            "// OpenCL cores' batch layout). Each item is the function applied to it alone.",
            "",
            "use crate::*;",
            "",
            "/// `len` is `per` times `n`, or the error naming `what` (the length it needed, or",
            "/// `usize::MAX` where that overflows).",
            "#[inline(always)]",
            "fn aether_fit(what: &'static str, len: usize, per: usize, n: usize) -> Result<(), LengthError> {",
            "    match per.checked_mul(n) {",
            "        Some(e) if e == len => Ok(()),",
            "        e => Err(LengthError::new(what, len, e.unwrap_or(usize::MAX))),",
            "    }",
            "}",
            "",
        ]
        .map(String::from),
    );
    for f in lowered {
        out.extend(function(model, f));
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}
