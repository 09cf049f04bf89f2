//! `rust_core/check/flat.rs`: the flat calling convention of
//! `aether_reference::flat` (and of the corpus and the C core's thunks) over
//! the Rust core. Every input word is an IEEE bit pattern of the element
//! type (an `f32` in the low 32 bits); pivots, counts and indices are plain
//! unsigned words; results are written in memory order, truth values and
//! `int` results as words. A thunk answers `None` when the words do not fit
//! (a wrong count, an index or pivot out of range), as the C thunks return
//! their BAD value. The file is a module the workspace's tests include with
//! `#[path]` beside a dependency on the crate; it is not part of the crate.

use crate::model::{Callable, Function, Kernel, KernelKind, Kind, Model};
use crate::spec::{ElemType, Routine, ShapeKind};
use crate::targets::rust::batch::{component, construct};
use crate::targets::rust::{scalar, type_name, RustSp};
use crate::targets::shared::print::Spelling;

fn elem<'a>(model: &'a Model, name: &str) -> &'a ElemType {
    model.spec.types.iter().find(|t| t.name == name).unwrap()
}

/// The value of a word of the element type.
fn rd(t: &ElemType, w: &str) -> String {
    if t.bits == 32 {
        format!("f32::from_bits({w} as u32)")
    } else {
        format!("f64::from_bits({w})")
    }
}

/// The word of a value of the element type.
fn wr(t: &ElemType, v: &str) -> String {
    if t.bits == 32 {
        format!("u64::from({v}.to_bits())")
    } else {
        format!("{v}.to_bits()")
    }
}

/// A value of `shape` from words `w[at..]`, in memory order.
fn read(model: &Model, shape: &str, t: &ElemType, w: &str, at: &str) -> String {
    let s = model.spec.shape(shape).unwrap();
    let word = |k: usize| match (at, k) {
        ("0", _) => format!("{w}[{k}]"),
        (_, 0) => format!("{w}[{at}]"),
        _ => format!("{w}[{at} + {k}]"),
    };
    let parts: Vec<String> = (0..s.len()).map(|k| rd(t, &word(k))).collect();
    construct(model, &Kind::Shape(s.clone()), t, &parts)
}

/// Statements that push the components of `v` to `out`, in memory order.
fn write(model: &Model, shape: &str, t: &ElemType, v: &str) -> Vec<String> {
    let s = model.spec.shape(shape).unwrap();
    match &s.kind {
        ShapeKind::Scalar => vec![format!("out.push({});", wr(t, v))],
        ShapeKind::Vector(names) => names.iter().map(|c| format!("out.push({});", wr(t, &format!("{v}.{c}")))).collect(),
        ShapeKind::Matrix { .. } => vec![format!("for e in {v}.m {{"), format!("    out.push({});", wr(t, "e")), "}".into()],
    }
}

fn thunk_name(model: &Model, c: Callable) -> String {
    format!("flat_{}", c.c_name(model).trim_start_matches("aether_"))
}

fn function(model: &Model, f: &Function) -> Vec<String> {
    let t = elem(model, &f.elem);
    let name = model.c_name(f);
    let mut body = vec![format!("if w.len() != {} {{", f.input_words()), "    return None;".into(), "}".into()];
    let mut at = 0;
    let mut args = Vec::new();
    for p in &f.params {
        let Kind::Shape(s) = &p.kind else { unreachable!("no parameter is a truth value") };
        args.push(read(model, &s.name, t, "w", &at.to_string()));
        at += p.kind.words();
    }
    body.push(format!("let r = aether_core::{name}({});", args.join(", ")));
    body.push(format!("let mut out: Vec<u64> = Vec::with_capacity({});", f.output_words()));
    match &f.ret {
        Kind::Bool => body.push("out.push(u64::from(r));".into()),
        Kind::Shape(s) => body.extend(write(model, &s.name, t, "r")),
    }
    body.push("Some(out)".into());
    body
}

fn kernel(model: &Model, k: &Kernel) -> Vec<String> {
    let t = elem(model, &k.elem);
    let s = scalar(t);
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let pair = type_name(model, &red.pair, t);
    let lanes = red.lanes;
    let name = format!("aether_core::{}", model.kernel_c_name(k));
    let read_lanes = vec![
        format!("let mut lanes = [aether_core::{pair}::ZERO; {lanes}];"),
        "for (i, l) in lanes.iter_mut().enumerate() {".into(),
        format!("    *l = {};", read(model, &red.pair, t, "w", "2 * i")),
        "}".into(),
    ];
    let mut body = Vec::new();
    match &k.kind {
        KernelKind::Butterfly => {
            body.push(format!("if w.len() != {} {{", 2 * lanes));
            body.push("    return None;".into());
            body.push("}".into());
            body.extend(read_lanes);
            body.push(format!("let p = {name}(&lanes);"));
            body.push("let mut out: Vec<u64> = Vec::with_capacity(2);".into());
            body.extend(write(model, &red.pair, t, "p"));
            body.push("Some(out)".into());
        }
        KernelKind::Lanes { arrays, .. } => {
            let a = arrays.len();
            let head = 2 * lanes + 1;
            body.push(format!("if w.len() < {head} || (w.len() - {head}) % {a} != 0 {{"));
            body.push("    return None;".into());
            body.push("}".into());
            body.push(format!("let n = (w.len() - {head}) / {a};"));
            body.push(format!("let x: Vec<{s}> = w[{head}..].iter().map(|&u| {}).collect();", rd(t, "u")));
            body.extend(read_lanes);
            let args: Vec<String> = (0..a).map(|j| format!("&x[{j} * n..{} * n]", j + 1)).collect();
            body.push(format!("let first = usize::try_from(w[{}]).ok()?;", 2 * lanes));
            body.push(format!("{name}(&mut lanes, first, {}).ok()?;", args.join(", ")));
            body.push(format!("let mut out: Vec<u64> = Vec::with_capacity({});", 2 * lanes));
            body.push("for p in lanes {".into());
            body.extend(write(model, &red.pair, t, "p").into_iter().map(|l| format!("    {l}")));
            body.push("}".into());
            body.push("Some(out)".into());
        }
        KernelKind::Array { lanes: l } => {
            let lk = model.kernels.iter().find(|x| &x.name == l && x.elem == k.elem).unwrap();
            let KernelKind::Lanes { arrays, .. } = &lk.kind else { unreachable!("checked when the spec was read") };
            let a = arrays.len();
            body.push(format!("if w.len() % {a} != 0 {{"));
            body.push("    return None;".into());
            body.push("}".into());
            body.push(format!("let n = w.len() / {a};"));
            body.push(format!("let x: Vec<{s}> = w.iter().map(|&u| {}).collect();", rd(t, "u")));
            let args: Vec<String> = (0..a).map(|j| format!("&x[{j} * n..{} * n]", j + 1)).collect();
            body.push(format!("let v = {name}({}).ok()?;", args.join(", ")));
            body.push(format!("Some(vec![{}])", wr(t, "v")));
        }
        KernelKind::Plane { width } => {
            let kk = *width;
            body.push(format!("if w.is_empty() || (w.len() - 1) % {} != 0 {{", kk + 1));
            body.push("    return None;".into());
            body.push("}".into());
            body.push(format!("let slots = usize::try_from(w[0]).ok()?.checked_mul({kk})?;"));
            body.push("// The plane starts at +0.".into());
            body.push(format!("let mut value = vec![0.0_{s}; slots];"));
            body.push(format!("let mut comp = vec![0.0_{s}; slots];"));
            body.push(format!("for rec in w[1..].chunks({}) {{", kk + 1));
            body.push("    let element = usize::try_from(rec[0]).ok()?;".into());
            body.push(format!("    let term = {};", read(model, &k.shape, t, "rec", "1")));
            body.push(format!("    {name}(&mut value, &mut comp, element, term).ok()?;"));
            body.push("}".into());
            body.push("let mut out: Vec<u64> = Vec::with_capacity(2 * slots);".into());
            body.push(format!("out.extend(value.iter().map(|v| {}));", wr(t, "v")));
            body.push(format!("out.extend(comp.iter().map(|v| {}));", wr(t, "v")));
            body.push("Some(out)".into());
        }
        KernelKind::Resolve => {
            body.push("if w.len() % 2 != 0 {".into());
            body.push("    return None;".into());
            body.push("}".into());
            body.push("let n = w.len() / 2;".into());
            body.push(format!("let x: Vec<{s}> = w.iter().map(|&u| {}).collect();", rd(t, "u")));
            body.push(format!("let mut y = vec![0.0_{s}; n];"));
            body.push(format!("{name}(&mut y, &x[..n], &x[n..]).ok()?;"));
            body.push(format!("Some(y.iter().map(|v| {}).collect())", wr(t, "v")));
        }
        KernelKind::Linalg { routine, n, many } => return linalg(model, k, *routine, *n, *many),
    }
    body
}

fn linalg(model: &Model, k: &Kernel, routine: Routine, n: usize, many: bool) -> Vec<String> {
    let t = elem(model, &k.elem);
    let s = scalar(t);
    let (mat, vec) = (format!("mat{n}"), format!("vec{n}"));
    let (m, v) = (type_name(model, &mat, t), type_name(model, &vec, t));
    let nn = n * n;
    let (w_in, _) = crate::linalg::words(routine, n);
    let name = format!("aether_core::{}", model.kernel_c_name(k));
    let fits = if many { format!("w.len() % {w_in} != 0") } else { format!("w.len() != {w_in}") };
    let mut body = vec![format!("if {fits} {{"), "    return None;".into(), "}".into()];
    body.push(format!("let count = w.len() / {w_in};"));
    // Per lane: the inputs read from `x` (lane l's words), and the call on
    // them (single) or on the lanes' slices (many).
    let mat_of = |at: &str| read(model, &mat, t, "x", at);
    let vec_of = |at: &str| read(model, &vec, t, "x", at);
    let lanes_in = |vals: &[(&str, String, String)], body: &mut Vec<String>| {
        for (name, ty, _) in vals {
            body.push(format!("let mut {name}: Vec<{ty}> = Vec::with_capacity(count);"));
        }
        body.push(format!("for x in w.chunks({w_in}) {{"));
        for (name, _, value) in vals {
            body.push(format!("    {name}.push({value});"));
        }
        body.push("}".into());
    };
    let ints = |name: &str, per: usize| format!("let mut {name}: Vec<i32> = vec![0; count * {per}];");
    let out = |parts: &[Vec<String>]| {
        let mut b = vec!["let mut out: Vec<u64> = Vec::new();".to_string(), "for l in 0..count {".into()];
        for p in parts {
            b.extend(p.iter().map(|x| format!("    {x}")));
        }
        b.push("}".into());
        b.push("Some(out)".into());
        b
    };
    let info = |v: &str| vec![format!("out.push({v} as i64 as u64);")];
    let call = |many_call: String, single_call: String| if many { many_call } else { single_call };
    match routine {
        Routine::Lu => {
            lanes_in(&[("a", m.clone(), mat_of("0"))], &mut body);
            body.push(ints("ipiv", n));
            body.push(ints("info", 1));
            body.push(call(
                format!("{name}(&mut a, &mut ipiv, &mut info).ok()?;"),
                format!("info[0] = {name}(&mut a[0], (&mut ipiv[..{n}]).try_into().ok()?);"),
            ));
            let mut piv = write(model, &mat, t, "a[l]");
            piv.push(format!("for p in &ipiv[l * {n}..l * {n} + {n}] {{"));
            piv.push("    out.push(*p as i64 as u64);".into());
            piv.push("}".into());
            body.extend(out(&[piv, info("info[l]")]));
        }
        Routine::LuSolve => {
            let (ipiv_at, _) = crate::linalg::pivot_words(routine, n).expect("lu_solve takes pivots");
            lanes_in(&[("a", m.clone(), mat_of("0")), ("b", v.clone(), vec_of(&(nn + n).to_string()))], &mut body);
            body.push(ints("ipiv", n));
            body.push(format!("for (l, x) in w.chunks({w_in}).enumerate() {{"));
            body.push(format!("    for i in 0..{n} {{"));
            body.push("        // A pivot outside i+1..=n would index out of the matrix.".into());
            body.push(format!("        let p = x[{ipiv_at} + i];"));
            body.push(format!("        if p < i as u64 + 1 || p > {n} {{"));
            body.push("            return None;".into());
            body.push("        }".into());
            body.push(format!("        ipiv[l * {n} + i] = p as i32;"));
            body.push("    }".into());
            body.push("}".into());
            body.push(format!("let mut r: Vec<{v}> = vec![aether_core::{v}::ZERO; count];"));
            body.push(call(
                format!("{name}(&a, &ipiv, &b, &mut r).ok()?;"),
                format!("r[0] = {name}(&a[0], (&ipiv[..{n}]).try_into().ok()?, b[0]);"),
            ));
            body.extend(out(&[write(model, &vec, t, "r[l]")]));
        }
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit | Routine::CholeskySolve => {
            lanes_in(&[("a", m.clone(), mat_of("0")), ("b", v.clone(), vec_of(&nn.to_string()))], &mut body);
            body.push(format!("let mut r: Vec<{v}> = vec![aether_core::{v}::ZERO; count];"));
            body.push(call(format!("{name}(&a, &b, &mut r).ok()?;"), format!("r[0] = {name}(a[0], b[0]);")));
            body.extend(out(&[write(model, &vec, t, "r[l]")]));
        }
        Routine::DetLu => {
            lanes_in(&[("a", m.clone(), mat_of("0"))], &mut body);
            body.push(format!("let mut d: Vec<{s}> = vec![0.0; count];"));
            body.push(call(format!("{name}(&a, &mut d).ok()?;"), format!("d[0] = {name}(a[0]);")));
            body.extend(out(&[write(model, "scalar", t, "d[l]")]));
        }
        Routine::Inverse => {
            lanes_in(&[("a", m.clone(), mat_of("0"))], &mut body);
            body.push(format!("let mut inv: Vec<{m}> = vec![aether_core::{m}::ZERO; count];"));
            body.push(ints("info", 1));
            body.push(call(format!("{name}(&a, &mut inv, &mut info).ok()?;"), format!("info[0] = {name}(a[0], &mut inv[0]);")));
            body.extend(out(&[write(model, &mat, t, "inv[l]"), info("info[l]")]));
        }
        Routine::Cholesky => {
            lanes_in(&[("a", m.clone(), mat_of("0"))], &mut body);
            body.push(ints("info", 1));
            body.push(call(format!("{name}(&mut a, &mut info).ok()?;"), format!("info[0] = {name}(&mut a[0]);")));
            body.extend(out(&[write(model, &mat, t, "a[l]"), info("info[l]")]));
        }
        Routine::Eigh => {
            lanes_in(&[("a", m.clone(), mat_of("0"))], &mut body);
            body.push(format!("let mut ev: Vec<{v}> = vec![aether_core::{v}::ZERO; count];"));
            body.push(format!("let mut vs: Vec<{m}> = vec![aether_core::{m}::ZERO; count];"));
            body.push(call(format!("{name}(&a, &mut ev, &mut vs).ok()?;"), format!("{name}(a[0], &mut ev[0], &mut vs[0]);")));
            body.extend(out(&[write(model, &vec, t, "ev[l]"), write(model, &mat, t, "vs[l]")]));
        }
    }
    body
}

/// The flat thunk of one function's batched forms (in `check/flat.rs`):
/// items' input words in, each item's result words from the `_aos` form and
/// from the `_soa` form out (None where an item's words do not fit).
fn batch_function(model: &Model, f: &Function) -> Vec<String> {
    let t = elem(model, &f.elem);
    let sp = RustSp;
    let name = model.c_name(f);
    // A truth value is a word 0 or 1.
    let word = |kind: &Kind, v: &str| if matches!(kind, Kind::Bool) { format!("u64::from({v})") } else { wr(t, v) };
    let s = scalar(t);
    let mut b = vec!["let aether_n = items.len();".to_string()];
    let mut at = 0;
    let mut reads = Vec::new();
    for (j, p) in f.params.iter().enumerate() {
        let k = p.kind.words();
        b.push(format!("let mut p{j}: Vec<{}> = Vec::with_capacity(aether_n);", sp.kind_type(model, &p.kind, t)));
        b.push(format!("let mut s{j}: Vec<{s}> = vec![0.0; {k} * aether_n];"));
        let Kind::Shape(shape) = &p.kind else { unreachable!("no parameter is a truth value") };
        reads.push(format!("    p{j}.push({});", read(model, &shape.name, t, "w", &at.to_string())));
        reads.push(format!("    for c in 0..{k} {{"));
        reads.push(format!("        s{j}[c * aether_n + i] = {};", rd(t, &format!("w[{at} + c]"))));
        reads.push("    }".into());
        at += k;
    }
    b.push(if f.params.is_empty() { "for w in items {" } else { "for (i, w) in items.iter().enumerate() {" }.into());
    b.push(format!("    if w.len() != {at} {{"));
    b.push("        return None;".into());
    b.push("    }".into());
    b.extend(reads);
    b.push("}".into());
    let oc = f.ret.words();
    let ps = |p: char| (0..f.params.len()).map(|j| format!("&{p}{j}")).collect::<Vec<_>>().join(", ");
    b.push(format!("let mut r: Vec<{}> = vec![Default::default(); aether_n];", sp.kind_type(model, &f.ret, t)));
    b.push(format!("aether_core::{name}_aos({}{}&mut r).ok()?;", ps('p'), if f.params.is_empty() { "" } else { ", " }));
    b.push(format!("let mut so: Vec<{}> = vec![Default::default(); {oc} * aether_n];", crate::targets::rust::batch::soa_elem(&f.ret, t)));
    b.push(format!("aether_core::{name}_soa({}{}&mut so, aether_n).ok()?;", ps('s'), if f.params.is_empty() { "" } else { ", " }));
    let comps: Vec<String> = (0..oc).map(|c| word(&f.ret, &format!("r{}", component(model, &f.ret, c)))).collect();
    b.push(format!("let aos = r.iter().map(|&r| vec![{}]).collect();", comps.join(", ")));
    b.push(format!("let soa = (0..aether_n).map(|i| (0..{oc}).map(|c| {}).collect()).collect();", word(&f.ret, "so[c * aether_n + i]")));
    b.push("Some((aos, soa))".into());
    b
}

/// The source of `rust_core/check/flat.rs`.
pub fn source(model: &Model, lowered: &[Function], banner: &str) -> String {
    let mut out: Vec<String> = crate::targets::rust::rust_banner(banner).lines().map(String::from).collect();
    out.extend([
        String::new(),
        "// The flat calling convention of aether_reference::flat over the Rust core (see".into(),
        "// generator/src/targets/rust/flat.rs): a test includes this file as a module.".into(),
        String::new(),
        "use aether_core::*;".into(),
        String::new(),
        "/// A thunk: the result words of the input words, or None when they do not fit.".into(),
        "pub type Thunk = fn(&[u64]) -> Option<Vec<u64>>;".into(),
        String::new(),
    ]);
    let callables = model.callables();
    for c in &callables {
        let body = match c {
            Callable::Function(f) => function(model, f),
            Callable::Kernel(k) => kernel(model, k),
        };
        out.push(format!("fn {}(w: &[u64]) -> Option<Vec<u64>> {{", thunk_name(model, *c)));
        out.extend(body.into_iter().map(|l| format!("    {l}")));
        out.push("}".into());
        out.push(String::new());
    }
    out.push("/// Every callable of the core: (name, family, shape, element type, thunk).".into());
    out.push("pub const ENTRIES: &[(&str, &str, &str, &str, Thunk)] = &[".into());
    for c in &callables {
        out.push(format!(
            "    (\"{}\", \"{}\", \"{}\", \"{}\", {}),",
            c.c_name(model),
            c.family(),
            c.shape(),
            c.elem(),
            thunk_name(model, *c)
        ));
    }
    out.push("];".into());
    out.push(String::new());
    out.push("/// A batch thunk: each item's result words from the `_aos` form and from the `_soa` form.".into());
    out.push("pub type BatchThunk = fn(&[Vec<u64>]) -> Option<(Vec<Vec<u64>>, Vec<Vec<u64>>)>;".into());
    out.push(String::new());
    for f in lowered {
        let name = model.c_name(f);
        out.push(format!(
            "fn batch_{}(items: &[Vec<u64>]) -> Option<(Vec<Vec<u64>>, Vec<Vec<u64>>)> {{",
            name.trim_start_matches("aether_")
        ));
        out.extend(batch_function(model, f).into_iter().map(|l| format!("    {l}")));
        out.push("}".into());
        out.push(String::new());
    }
    out.push("/// Every function's batched forms: (name, input words per item, batch thunk).".into());
    out.push("pub const BATCHES: &[(&str, usize, BatchThunk)] = &[".into());
    for f in lowered {
        let name = model.c_name(f);
        out.push(format!("    (\"{name}\", {}, batch_{}),", f.input_words(), name.trim_start_matches("aether_")));
    }
    out.push("];".into());
    out.push(String::new());
    out.extend(crate::targets::rust::predicates::flat(model));
    let mut s = out.join("\n");
    s.push('\n');
    s
}
