//! `docs/numerics-contract.md`: the numerics contract in prose, generated
//! from the spec so it cannot drift from what the cores do. The template in
//! `templates/docs/` holds the sentences; every value, rule choice, function
//! list and exact-arithmetic example comes from the spec and its model.

use minijinja::context;
use serde::Serialize;

use crate::error::Error;
use crate::model::{Callable, KernelKind, Model};
use crate::spec::{Assignment, Multipliers, Nesting, Pivot, Routine, Seed, ShapeKind, Symmetrize, Update};
use crate::targets::{self, shared::c_family as c};
use crate::{kernel, mutants, policy};

const TEMPLATE: &str = include_str!("../../templates/docs/numerics-contract.md.j2");

/// The functions whose exact arithmetic the document shows, one per rule.
const KEY_CASES: [(&str, &str); 14] = [
    ("sum", "aether_vec3d_sum"),
    ("dot", "aether_vec3d_dot"),
    ("norm", "aether_vec3d_norm"),
    ("division by a scalar", "aether_vec3d_div"),
    ("neg", "aether_f64_neg"),
    ("max norm", "aether_vec3d_max_norm"),
    ("quaternion product", "aether_quatd_mul"),
    ("matrix times vector", "aether_mat2d_mul_vec"),
    ("determinant", "aether_mat2d_determinant"),
    ("two-sum residual", "aether_f64_two_sum_err"),
    ("Neumaier step", "aether_paird_neumaier_add"),
    ("pair combine", "aether_paird_combine"),
    ("pair value", "aether_paird_value"),
    ("Jacobi rotation", "aether_f64_jacobi_rotation"),
];

/// The instance whose linear-algebra probes the document shows with their
/// results (the corpus carries every probe for every size and type).
const WITNESS_SHAPE: &str = "mat2";
const WITNESS_ELEM: &str = "f64";

/// A row of a three-column table.
#[derive(Serialize)]
pub(crate) struct Row {
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) c: String,
}

#[derive(Serialize)]
struct Case {
    what: String,
    name: String,
    signature: String,
    body: Vec<String>,
}

#[derive(Serialize)]
struct Entry {
    names: Vec<String>,
    doc: String,
    body: Vec<String>,
}

/// A probe of a linear-algebra kernel with the model's result, and each rule
/// mutant that gives other bits on it (under the comparison policy).
#[derive(Serialize)]
struct Witness {
    name: String,
    label: String,
    input: String,
    result: String,
    others: Vec<String>,
}

/// A word as a number: signed zeros and infinities spelled out, NaN as NaN,
/// a small multiple of the least subnormal as the spec's probes write it
/// (`tiny`, `3*tiny`).
fn number(w: u64, bits: u32) -> String {
    let x = if bits == 32 { f64::from(f32::from_bits(w as u32)) } else { f64::from_bits(w) };
    let tiny = if bits == 32 { f64::from(f32::from_bits(1)) } else { f64::from_bits(1) };
    let k = (x / tiny).abs();
    if x != 0.0 && k < 1024.0 {
        let sign = if x < 0.0 { "-" } else { "" };
        if k == 1.0 {
            format!("{sign}tiny")
        } else {
            format!("{sign}{k}*tiny")
        }
    } else if x.is_nan() {
        "NaN".into()
    } else if x == 0.0 {
        if x.is_sign_negative() { "-0" } else { "+0" }.into()
    } else if x.is_infinite() {
        if x < 0.0 { "-inf" } else { "+inf" }.into()
    } else if x.abs() < 1e-6 || x.abs() >= 1e16 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A routine's flat words (`generator/src/linalg.rs`) as named parts:
/// `A = [[1, -0], [1, -0]]`, `ipiv = [1, 2]`, `info = 2`.
fn show(routine: Routine, n: usize, input: bool, words: &[u64], bits: u32) -> String {
    // The parts in order: (name, words, whole numbers, a matrix).
    let mat = |name| (name, n * n, false, true);
    let vec = |name| (name, n, false, false);
    let parts: Vec<(&str, usize, bool, bool)> = match (routine, input) {
        (Routine::Lu | Routine::DetLu | Routine::Inverse | Routine::Cholesky | Routine::Eigh, true) => vec![mat("A")],
        (Routine::LuSolve, true) => vec![mat("LU"), ("ipiv", n, true, false), vec("b")],
        (Routine::CholeskySolve, true) => vec![mat("L"), vec("b")],
        (_, true) => vec![mat("M"), vec("b")],
        (Routine::Lu, false) => vec![mat("LU"), ("ipiv", n, true, false), ("info", 1, true, false)],
        (Routine::DetLu, false) => vec![("d", 1, false, false)],
        (Routine::Inverse, false) => vec![mat("X"), ("info", 1, true, false)],
        (Routine::Cholesky, false) => vec![mat("L"), ("info", 1, true, false)],
        (Routine::Eigh, false) => vec![vec("w"), mat("V")],
        (_, false) => vec![vec("x")],
    };
    let mut at = 0;
    let mut out = Vec::new();
    for (name, count, whole, matrix) in parts {
        let ws = &words[at..at + count];
        at += count;
        let item = |w: &u64| if whole { w.to_string() } else { number(*w, bits) };
        let text = if matrix {
            let rows: Vec<String> = ws.chunks(n).map(|r| format!("[{}]", r.iter().map(item).collect::<Vec<_>>().join(", "))).collect();
            format!("[{}]", rows.join(", "))
        } else if count == 1 {
            item(&ws[0])
        } else {
            format!("[{}]", ws.iter().map(item).collect::<Vec<_>>().join(", "))
        };
        out.push(format!("{name} = {text}"));
    }
    out.join(", ")
}

/// The probes of every linear-algebra kernel's `WITNESS_SHAPE`
/// `WITNESS_ELEM` single form, evaluated by the model and by every mutant.
fn witnesses(model: &Model) -> Result<Vec<Witness>, Error> {
    let lowered = model.lowered();
    let mut builds = Vec::new();
    for m in mutants::ALL {
        let (mm, ml) = m.build(model)?;
        builds.push((m, mm, ml));
    }
    let mut out = Vec::new();
    for (i, c) in model.callables().into_iter().enumerate() {
        let Callable::Kernel(k) = c else { continue };
        let KernelKind::Linalg { routine, n, many: false } = k.kind else { continue };
        if k.shape != WITNESS_SHAPE || k.elem != WITNESS_ELEM {
            continue;
        }
        let bits = model.spec.types.iter().find(|t| t.name == k.elem).map_or(64, |t| t.bits);
        for p in model.spec.kernel(&k.key).unwrap().cases.iter().filter(|p| p.applies_to(&k.shape)) {
            let words: Vec<u64> = p.words.iter().map(|w| w.word(bits)).collect();
            let ours = kernel::evaluate_callable(model, &lowered, i, &words).map_err(Error::Inconsistent)?;
            let mut others = Vec::new();
            for (m, mm, ml) in &builds {
                let Ok(theirs) = kernel::evaluate_callable(mm, ml, i, &words) else { continue };
                if !policy::matches(&ours, &theirs, bits, c.is_float(), c.either_zero()) {
                    others.push(format!("`{}` ({}) gives {}", m.name(), m.description(), show(routine, n, false, &theirs, bits)));
                }
            }
            out.push(Witness {
                name: model.kernel_c_name(k),
                label: p.label.clone(),
                input: show(routine, n, true, &words, bits),
                result: show(routine, n, false, &ours, bits),
                others,
            });
        }
    }
    Ok(out)
}

/// Renders the document.
pub fn render(model: &Model) -> Result<String, Error> {
    let spec = &model.spec;
    let banner = banner(spec);
    let types = type_rows(spec);
    let shapes: Vec<Row> = spec
        .shapes
        .iter()
        .map(|s| {
            let (kind, layout) = match &s.kind {
                ShapeKind::Scalar => ("scalar".to_string(), "one number".to_string()),
                ShapeKind::Vector(names) => ("vector".to_string(), format!("({}) in memory order", names.join(", "))),
                ShapeKind::Matrix { rows, cols, layout } => (
                    format!("{rows}x{cols} matrix"),
                    match layout {
                        crate::spec::Layout::RowMajor => format!("row-major: (r, c) at r*{cols} + c"),
                        crate::spec::Layout::ColumnMajor => format!("column-major: (r, c) at c*{rows} + r"),
                    },
                ),
            };
            Row { a: s.name.clone(), b: kind, c: layout }
        })
        .collect();
    let combiners: Vec<Row> =
        spec.combiners.iter().map(|c| Row { a: c.name.clone(), b: c.source.clone(), c: format!("{}", c.identity) }).collect();
    let lowered = model.lowered();
    let mut cases = Vec::new();
    for (what, name) in KEY_CASES {
        if let Some(f) = lowered.iter().find(|f| model.c_name(f) == name) {
            let (signature, body) = c::signature_and_body(model, f);
            cases.push(Case { what: what.into(), name: name.into(), signature, body });
        }
    }
    let families: Vec<Entry> = spec
        .families
        .iter()
        .filter(|fam| !fam.internal)
        .map(|fam| {
            let names = model.functions.iter().filter(|f| f.family == fam.name).map(|f| model.c_name(f)).collect();
            Entry { names, doc: fam.doc.clone(), body: body_lines(fam) }
        })
        .collect();
    let shared: Vec<Entry> = spec
        .families
        .iter()
        .filter(|fam| fam.internal)
        .map(|fam| Entry { names: vec![fam.name.clone()], doc: fam.doc.clone(), body: body_lines(fam) })
        .collect();
    let kernels: Vec<Entry> = spec
        .kernels
        .iter()
        .map(|k| {
            let names = model.kernels.iter().filter(|x| x.key == k.name).map(|x| model.kernel_c_name(x)).collect();
            Entry { names, doc: k.doc.clone(), body: Vec::new() }
        })
        .collect();
    let reduction = spec.reduction.as_ref().map(|r| {
        context! {
            lanes => r.lanes,
            rounds => r.rounds.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "),
            strided => r.assignment == Assignment::Strided,
            step => r.step, combine => r.combine, value => r.value,
        }
    });
    let witnesses = if spec.linalg.is_some() { witnesses(model)? } else { Vec::new() };
    let linalg = spec.linalg.as_ref().map(|l| {
        context! {
            first_largest => l.pivot == Pivot::FirstLargest,
            dot => l.update == Update::Dot,
            reciprocal => l.multipliers == Multipliers::Reciprocal,
            half_sum => l.symmetrize == Symmetrize::HalfSum,
            sweeps => l.eigh_sweeps,
            witnesses, witness_shape => WITNESS_SHAPE, witness_elem => WITNESS_ELEM,
            rotation => l.rotation, update_pair => l.update_pair, diag => l.diag,
        }
    });
    // Each target's own section (its bands), in registry order.
    let mut target_sections = String::new();
    for t in targets::registry() {
        if let Some(section) = t.contract_doc(model)? {
            target_sections.push_str(&section);
        }
    }
    // The ULP distance of -inf to +inf, as the reference counts it.
    let ulp_span_f32 = format!("{:#010x}", aether_reference::ulp::f32_ulp_distance_bits(0xff80_0000, 0x7f80_0000));
    let ulp_span_f64 = format!("{:#018x}", aether_reference::ulp::f64_ulp_distance_bits(0xfff0_0000_0000_0000, 0x7ff0_0000_0000_0000));
    let preds = &spec.predicates;
    let helpers: Vec<_> = preds
        .functions
        .iter()
        .map(|f| {
            let comment = preds.predicates.first().and_then(|p| p.helper_comments.iter().find(|(n, _)| *n == f.name)).map(|(_, c)| c.clone());
            context! { name => f.name, doc => f.doc, signature => helper_signature(f), body => lines(&f.body.source), comment => comment.unwrap_or_default() }
        })
        .collect();
    let predicates: Vec<_> = preds
        .predicates
        .iter()
        .map(|p| {
            let forms: Vec<_> = match &p.forms {
                crate::predicate::Forms::Two { golden, integer } => {
                    vec![
                        context! { name => "golden", body => lines(&golden.source) },
                        context! { name => "integer", body => lines(&integer.source) },
                    ]
                }
                crate::predicate::Forms::Derived(b) => {
                    vec![context! { name => "both forms (each calls the callees' same form)", body => lines(&b.source) }]
                }
            };
            context! {
                name => p.name, doc => p.doc, signature => predicate_signature(p),
                domain => p.domain_source.clone().unwrap_or_else(|| "every input".into()),
                forms, comment => p.comment,
            }
        })
        .collect();
    let int_types: Vec<Row> = preds
        .int_types
        .iter()
        .map(|(n, t, c)| Row {
            a: n.clone(),
            b: c.clone(),
            c: format!("{} bits, {}", t.bits, if t.signed { "signed" } else { "unsigned" }),
        })
        .collect();
    let df64 = crate::df64::of(model).map(|d| {
        let lowered = model.lowered();
        let fs = d.functions(&lowered);
        let a = targets::registry().iter().find_map(|t| t.df64_audit(model)).unwrap_or_default();
        let ops: Vec<_> = d
            .ops
            .iter()
            .map(|o| {
                let params: Vec<String> = o.params.iter().map(|(n, t)| format!("{n}: {}", t.name())).collect();
                context! {
                    signature => format!("{}({}) -> {}", o.name, params.join(", "), o.ret.name()),
                    bound => o.bound, doc => o.doc, body => lines(&o.source),
                }
            })
            .collect();
        let functions: Vec<Row> = fs.iter().map(|f| Row { a: model.c_name(f), b: df64_bound(d, f), c: String::new() }).collect();
        context! {
            targets => d.targets.join(", "),
            exclude => d.exclude.iter().map(|e| format!("`{e}`")).collect::<Vec<_>>().join(", "),
            renorm => d.ops[d.renorm].name,
            min => format!("2^{}", d.min_magnitude.log2()), max => format!("2^{}", d.max_magnitude.log2()),
            audit => format!(
                "{} functions, {} cancelling calls, {} loaded operands wrapped, {} computed operands left alone",
                a.functions, a.cancelling, a.wrapped, a.computed
            ),
            ops, functions,
        }
    });
    let ctx = context! {
        banner, df64,
        helpers, predicates, int_types,
        ulp_span_f32, ulp_span_f64,
        target_sections,
        name => spec.name, version => spec.version, file => spec.file,
        types, shapes, combiners, cases, families, shared, kernels,
        right => spec.fold.nesting == Nesting::Right,
        unseeded => spec.fold.seed == Seed::None,
        either_zero => spec.policy.either_zero.join(", "),
        n_functions => model.functions.len(), n_kernels => model.kernels.len(),
        reduction, linalg,
        contract_id => crate::selftest::contract_id(model),
    };
    targets::render("docs/numerics-contract.md.j2", TEMPLATE, &ctx)
}

/// The do-not-edit banner of a generated markdown document.
pub(crate) fn banner(spec: &crate::spec::Spec) -> String {
    format!(
        "<!-- GENERATED by `cargo run -p generator` from {} ({} {}). DO NOT EDIT: change the spec or templates/ and regenerate. -->",
        spec.file, spec.name, spec.version
    )
}

/// The element types: name, C type, width.
pub(crate) fn type_rows(spec: &crate::spec::Spec) -> Vec<Row> {
    spec.types.iter().map(|t| Row { a: t.name.clone(), b: t.c_type.clone(), c: format!("{} bits", t.bits) }).collect()
}

/// A df64 function's relative bound in u² (`Df64Spec::constant_bound`), or
/// `conditioned` where its tree can cancel.
pub(crate) fn df64_bound(d: &crate::df64::Df64Spec, f: &crate::model::Function) -> String {
    d.constant_bound(f).map_or("conditioned".to_string(), |b| format!("{b}"))
}

/// An integer helper's signature as the spec states it: `name(x: i64) -> i64`.
pub(crate) fn helper_signature(f: &crate::predicate::IntFunction) -> String {
    let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect();
    format!("{}({}) -> {}", f.name, params.join(", "), f.ret)
}

/// A predicate's signature as the spec states it: `name(a: i64, b: i32)`.
pub(crate) fn predicate_signature(p: &crate::predicate::Predicate) -> String {
    let params: Vec<String> = p.params.iter().map(|q| format!("{}: {}", q.name, q.ty)).collect();
    format!("{}({})", p.name, params.join(", "))
}

/// A family's or shared composition's bodies, line by line, trimmed.
fn body_lines(fam: &crate::spec::Family) -> Vec<String> {
    fam.bodies.iter().flat_map(body_text).collect()
}

/// One body's lines as the document prints them: as written, each trimmed.
pub(crate) fn body_text(b: &crate::spec::Body) -> Vec<String> {
    b.source.lines().map(str::trim).map(String::from).collect()
}

pub(crate) fn lines(s: &str) -> Vec<String> {
    s.lines().map(String::from).collect()
}
