//! `docs/api.md`: the API reference, generated from the model and from the
//! cores the targets printed, so it cannot drift from either. The template in
//! `templates/docs/` holds the sentences; every group, name, signature, body
//! and metric comes from here:
//!
//! - the groups follow the model: the per-lane linear algebra (`[rules.linalg]`'s
//!   families and the linear-algebra kernels), the compensated sums (the
//!   reduction's families, every family with a barrier, the other kernels),
//!   the elementary functions (the families whose bodies, or a callee's, are
//!   stated per element type), and the rest by the shape of each instance;
//! - a C signature is the C target's own (`c_family::function`,
//!   `c_family::kernel`, `c_family::ulp_functions`), or, for what the model
//!   does not print (the self-test, the predicates), the declaration in the
//!   C core's printed file;
//! - the cores that have a function are those whose printed sources declare
//!   its name ([`declaration`]), and a Rust method or operator is read from
//!   the Rust core's printed doc lines ([`rust_forms`]);
//! - a metric is `bits` on a bit-exact target, the target's `[bands.*]`
//!   table through `bands::rows` (as the contract's band tables), and the
//!   df64 bound of `contract_doc::df64_bound` (as its df64 table).

use std::collections::{HashMap, HashSet};

use minijinja::context;
use serde::Serialize;

use crate::contract_doc;
use crate::error::Error;
use crate::model::{Builtin, Callable, Expr, Function, Model};
use crate::predicate::{Forms, Predicate};
use crate::spec::{Body, Family, Schedule, ShapeKind};
use crate::targets::shared::c_family::{self as c, Dialect};
use crate::targets::shared::predicates::{helper_name, predicate_name};
use crate::targets::{self, Exactness, Output, Target};
use crate::{bands, df64};

const TEMPLATE: &str = include_str!("../../templates/docs/api.md.j2");

/// The extensions of the cores' source files, where declarations are read.
const SOURCES: [&str; 8] = ["h", "c", "cuh", "cu", "cl", "wgsl", "glsl", "rs"];

/// The name a line of printed source declares or defines, with the
/// declaration as printed (without a trailing `{` or `;`): a line whose first
/// `(` follows an `aether_` name after a prefix of type and qualifier words
/// only (`AETHER_API float`, `fn`, `pub fn`, `const char *`). A call, an
/// assignment, a `return`, a comment or a preprocessor line declares nothing.
pub fn declaration(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    if ["//", "/*", "*", "#"].iter().any(|p| t.starts_with(p)) {
        return None;
    }
    let open = t.find('(')?;
    let head = &t[..open];
    let start = head.rfind(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')).map_or(0, |i| i + 1);
    let name = &head[start..];
    let prefix = head[..start].trim();
    let word = |w: &str| w != "return" && w.chars().all(|ch| ch.is_ascii_alphanumeric() || "_*&<>".contains(ch));
    if !name.starts_with("aether_") || prefix.is_empty() || !prefix.split_whitespace().all(word) {
        return None;
    }
    Some((name, t.trim_end_matches(['{', ';']).trim_end()))
}

/// A declaration in a core's printed source.
#[derive(Debug, Clone)]
struct Decl {
    file: String,
    text: String,
    /// The block comment right above it, joined into one line.
    doc: String,
}

/// One target's printed core: its source files and the names they declare.
struct Core {
    target: Box<dyn Target>,
    files: Vec<String>,
    /// The first declaration of each name, in output order.
    decls: HashMap<String, Decl>,
    /// The same in its check programs (`check/`), where a core may keep its
    /// self-test.
    check: HashMap<String, Decl>,
    /// The names in the order they are first declared.
    order: Vec<String>,
    /// The C names of the callables the target states (`Target::callables`):
    /// its band table and its checks cover them.
    stated: HashSet<String>,
}

impl Core {
    fn name(&self) -> &'static str {
        self.target.name()
    }

    fn has(&self, name: &str) -> bool {
        self.decls.contains_key(name)
    }

    /// Where the core declares `name`, for what the model does not print
    /// (a predicate, the self-test): under that name, or under the core's
    /// own prefix (`aether_cuda_selftest` for `aether_selftest`), in its
    /// files or else in its check programs; with the label the page gives it.
    fn find(&self, name: &str) -> Option<(String, &Decl)> {
        let own = name.strip_prefix("aether_").map(|rest| format!("aether_{}_{rest}", self.name()));
        for (decls, check) in [(&self.decls, false), (&self.check, true)] {
            let hit = decls.get(name).map(|d| (None, d)).or_else(|| own.as_ref().and_then(|n| decls.get(n).map(|d| (Some(n), d))));
            if let Some((renamed, d)) = hit {
                let mut notes: Vec<String> = renamed.map(|n| format!("`{n}`")).into_iter().collect();
                if check {
                    notes.push("check program".into());
                }
                let label = if notes.is_empty() { self.name().to_string() } else { format!("{} ({})", self.name(), notes.join(", ")) };
                return Some((label, d));
            }
        }
        None
    }
}

fn is_source(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| SOURCES.contains(&ext))
}

/// Every target's core, in registry order, read from `outputs`: the
/// declarations of its source files, and apart those of its check programs
/// (`check/`).
fn cores(model: &Model, outputs: &[Output]) -> Vec<Core> {
    targets::registry()
        .into_iter()
        .map(|target| {
            let prefix = format!("{}/", target.folder());
            let mut core = Core {
                files: Vec::new(),
                decls: HashMap::new(),
                check: HashMap::new(),
                order: Vec::new(),
                stated: target.callables(model).iter().map(|c| c.c_name(model)).collect(),
                target,
            };
            for o in outputs.iter().filter(|o| o.path.starts_with(&prefix) && is_source(&o.path)) {
                let check = o.path.contains("/check/");
                if !check {
                    core.files.push(o.path.clone());
                }
                // The block comment being read, and the one that ended on the line before.
                let (mut open, mut doc): (Option<Vec<&str>>, Option<String>) = (None, None);
                for line in o.contents.lines() {
                    let t = line.trim();
                    if let Some(lines) = open.as_mut() {
                        lines.push(t);
                    } else if t.starts_with("/*") {
                        open = Some(vec![t]);
                    }
                    if open.is_some() {
                        if t.contains("*/") {
                            let text = open.take().unwrap_or_default().join(" ");
                            doc =
                                Some(text.trim_start_matches("/*").trim_end_matches("*/").split_whitespace().collect::<Vec<_>>().join(" "));
                        }
                        continue;
                    }
                    if let Some((name, text)) = declaration(line) {
                        let decls = if check { &mut core.check } else { &mut core.decls };
                        if !decls.contains_key(name) {
                            let decl = Decl { file: o.path.clone(), text: text.to_string(), doc: doc.clone().unwrap_or_default() };
                            decls.insert(name.to_string(), decl);
                            if !check {
                                core.order.push(name.to_string());
                            }
                        }
                    }
                    doc = None;
                }
            }
            core
        })
        .collect()
}

/// A Rust method or operator of a function.
#[derive(Debug, Clone, PartialEq)]
enum RustForm {
    Method(String),
    Operator(String),
}

/// The Rust core's methods and operators, by C name, read from its printed
/// source: a method is documented "/// [`NAME`] with `self` as `p`." above
/// its `pub fn m(self, ...)`, an operator "/// [`NAME`]." above its
/// `impl core::ops::Trait`.
fn rust_forms(outputs: &[Output]) -> HashMap<String, Vec<RustForm>> {
    let mut out: HashMap<String, Vec<RustForm>> = HashMap::new();
    for o in outputs.iter().filter(|o| o.path.ends_with(".rs")) {
        let mut pending: Option<(String, bool)> = None;
        for line in o.contents.lines() {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("/// [`") {
                pending = rest.split_once("`]").map(|(name, tail)| (name.to_string(), tail.starts_with(" with `self`")));
                continue;
            }
            let Some((name, method)) = pending.take() else { continue };
            let ident = |s: &str| s.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')).next().unwrap_or_default().to_string();
            let form = match (method, t.strip_prefix("pub fn "), t.strip_prefix("impl core::ops::")) {
                (true, Some(m), _) => RustForm::Method(ident(m)),
                (false, _, Some(tr)) => RustForm::Operator(ident(tr)),
                // An attribute between the doc line and the item.
                _ if t.starts_with("#[") => {
                    pending = Some((name, method));
                    continue;
                }
                _ => continue,
            };
            out.entry(name).or_default().push(form);
        }
    }
    out
}

/// How a Rust form is called, with the function's parameter names.
fn rust_call(form: &RustForm, f: &Function) -> String {
    let p = |i: usize| f.params.get(i).map_or("rhs", |p| p.name.as_str());
    match form {
        RustForm::Method(m) => {
            let rest: Vec<&str> = f.params.iter().skip(1).map(|p| p.name.as_str()).collect();
            format!("`{}.{m}({})`", p(0), rest.join(", "))
        }
        RustForm::Operator(tr) => match tr.as_str() {
            "Neg" => format!("`-{}`", p(0)),
            "Add" => format!("`{} + {}`", p(0), p(1)),
            "Sub" => format!("`{} - {}`", p(0), p(1)),
            "Mul" => format!("`{} * {}`", p(0), p(1)),
            "Div" => format!("`{} / {}`", p(0), p(1)),
            other => format!("`core::ops::{other}`"),
        },
    }
}

/// Each callable's metric on each target, as the contract's tables state it.
struct Metrics {
    /// Per core (registry order): its own band table's rows by C name, or
    /// None for a bit-exact target.
    own: Vec<Option<HashMap<String, String>>>,
    /// Per core: the tables of the device classes it serves, with their rows.
    device: Vec<Vec<(&'static str, HashMap<String, String>)>>,
    /// The targets that print df64, and each df64 function's bound.
    df64_targets: Vec<String>,
    df64: HashMap<String, String>,
}

/// The rows of a band table (`bands::rows`, the contract's), by C name.
fn band_map(model: &Model, key: &str, callables: &[Callable]) -> HashMap<String, String> {
    bands::rows(model, key, callables, false).into_iter().map(|r| (r.name, r.words)).collect()
}

/// The callables a device-class band table states: OpenCL's relaxed table
/// covers its f32 callables (the list its own contract section uses).
fn device_callables<'m>(model: &'m Model, key: &str) -> Vec<Callable<'m>> {
    if key == targets::opencl::RELAXED {
        targets::opencl::relaxed_callables(model)
    } else {
        Vec::new()
    }
}

impl Metrics {
    fn new(model: &Model, cores: &[Core]) -> Metrics {
        let own = cores
            .iter()
            .map(|c| match c.target.exactness() {
                Exactness::Bits => None,
                Exactness::Bands(k) => Some(band_map(model, k, &c.target.callables(model))),
            })
            .collect();
        let device = cores
            .iter()
            .map(|c| {
                c.target
                    .device_bands()
                    .iter()
                    .filter(|k| model.spec.bands.iter().any(|b| b.target == **k))
                    .map(|k| (*k, band_map(model, k, &device_callables(model, k))))
                    .collect()
            })
            .collect();
        let (mut df64_targets, mut bounds) = (Vec::new(), HashMap::new());
        if let Some(d) = df64::of(model) {
            df64_targets = d.targets.clone();
            let lowered = model.lowered();
            bounds = d.functions(&lowered).into_iter().map(|f| (model.c_name(f), contract_doc::df64_bound(d, f))).collect();
        }
        Metrics { own, device, df64_targets, df64: bounds }
    }

    /// The df64 bound of `name` where `core` prints it in df64.
    fn df64_on(&self, core: &Core, name: &str) -> Option<&String> {
        self.df64.get(name).filter(|_| core.has(name) && self.df64_targets.iter().any(|t| t == core.name()))
    }

    /// The metric cell of a callable: each metric with the targets that
    /// give it, in registry order.
    fn cell(&self, cores: &[Core], name: &str) -> String {
        let mut items: Vec<(String, Vec<String>)> = Vec::new();
        let mut add = |label: String, metric: String| match items.iter_mut().find(|(m, _)| *m == metric) {
            Some((_, labels)) => labels.push(label),
            None => items.push((metric, vec![label])),
        };
        for (i, core) in cores.iter().enumerate() {
            let (present, stated) = (core.has(name), core.stated.contains(name));
            if let Some(bound) = self.df64_on(core, name) {
                add(core.name().to_string(), format!("df64 {bound}"));
            } else if present || stated {
                let label = if present { core.name().to_string() } else { format!("{} (check module)", core.name()) };
                match &self.own[i] {
                    None => add(label, "bits".into()),
                    Some(rows) => add(label, rows.get(name).cloned().unwrap_or_else(|| "not stated".into())),
                }
                for (key, rows) in &self.device[i] {
                    if let Some(m) = rows.get(name) {
                        add(key.to_string(), m.clone());
                    }
                }
            }
        }
        items.into_iter().map(|(m, labels)| format!("{}: {m}", labels.join(", "))).collect::<Vec<_>>().join("<br>")
    }
}

#[derive(Serialize)]
struct Code {
    label: String,
    lines: Vec<String>,
}

#[derive(Serialize)]
struct CoreDecl {
    core: String,
    file: String,
    text: String,
}

#[derive(Serialize)]
struct Row {
    name: String,
    signature: String,
    cores: String,
    rust: String,
    metric: String,
    /// Each core's own declaration (for the entries whose types differ by core).
    decls: Vec<CoreDecl>,
}

#[derive(Serialize)]
struct Entry {
    title: String,
    id: String,
    doc: String,
    code: Vec<Code>,
    rows: Vec<Row>,
}

#[derive(Serialize)]
struct Group {
    key: String,
    title: String,
    id: String,
    /// The shapes of a group by shape: each one's layout.
    shapes: Vec<String>,
    entries: Vec<Entry>,
    rows: usize,
}

/// Where a family or kernel is listed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// By the shape of each instance: the index of its stem (`vec`, `mat`).
    Shape(usize),
    Elementary,
    Compensated,
    Linalg,
    Predicates,
    Ulp,
    Selftest,
}

/// A shape's group: `scalar` for a scalar shape, else its name without the
/// trailing size (`vec3` is `vec`).
fn stem(model: &Model, shape: &str) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => "scalar".into(),
        _ => shape.trim_end_matches(|ch: char| ch.is_ascii_digit()).to_string(),
    }
}

fn title(place: &Place, stems: &[String]) -> (String, String) {
    let (key, title) = match place {
        Place::Shape(i) => {
            let s = stems.get(*i).map_or("", String::as_str);
            let title = match s {
                "scalar" => "Scalar functions".to_string(),
                "vec" => "Vectors".to_string(),
                "quat" => "Quaternions".to_string(),
                "mat" => "Matrices".to_string(),
                other => format!("Functions of {other}"),
            };
            (s.to_string(), title)
        }
        Place::Elementary => ("elementary".into(), "Elementary functions".into()),
        Place::Compensated => ("compensated".into(), "Compensated sums and array kernels".into()),
        Place::Linalg => ("linalg".into(), "Per-lane linear algebra".into()),
        Place::Predicates => ("predicates".into(), "Integer predicates".into()),
        Place::Ulp => ("ulp".into(), "ULP distance".into()),
        Place::Selftest => ("selftest".into(), "Self-test and fingerprint".into()),
    };
    (key, title)
}

/// A heading's anchor as GitHub derives it: lower case, letters, digits,
/// `-` and `_` kept, spaces as `-`; a repeated anchor gets `-1`, `-2`.
fn slug(title: &str, taken: &mut HashMap<String, usize>) -> String {
    let base: String = title
        .to_lowercase()
        .chars()
        .filter_map(|ch| match ch {
            ' ' => Some('-'),
            ch if ch.is_alphanumeric() || ch == '-' || ch == '_' => Some(ch),
            _ => None,
        })
        .collect();
    let n = taken.entry(base.clone()).or_insert(0);
    let id = if *n == 0 { base.clone() } else { format!("{base}-{n}") };
    *n += 1;
    id
}

/// The place of a family: the linear algebra's, the compensated sums' (the
/// reduction's families and every family with a barrier), the elementary
/// functions' (a body per element type, its own or a callee's), or None
/// (by the shape of each instance).
fn family_place(model: &Model, fam: &Family, instances: &[&Function]) -> Option<Place> {
    let spec = &model.spec;
    if spec.linalg.as_ref().is_some_and(|l| [&l.rotation, &l.update_pair, &l.diag].contains(&&fam.name)) {
        return Some(Place::Linalg);
    }
    let mut barrier = false;
    for f in instances {
        for e in f.exprs() {
            e.visit(&mut |x| barrier |= matches!(x, Expr::Call(Builtin::Barrier, _)));
        }
    }
    if barrier || spec.reduction.as_ref().is_some_and(|r| [&r.step, &r.combine, &r.value].contains(&&fam.name)) {
        return Some(Place::Compensated);
    }
    if fam.depends_on_type(spec) {
        return Some(Place::Elementary);
    }
    None
}

fn body_label(fam: &Family, b: &Body) -> String {
    if fam.bodies.len() < 2 {
        return String::new();
    }
    match (&b.shape, &b.elem) {
        (Some(s), _) => format!("for `{s}`"),
        (None, Some(e)) => format!("for `{e}`"),
        (None, None) => "for the other instances".into(),
    }
}

/// What builds the page's rows.
struct Ctx<'a> {
    model: &'a Model,
    cores: Vec<Core>,
    metrics: Metrics,
    rust: HashMap<String, Vec<RustForm>>,
}

impl Ctx<'_> {
    /// The cores that declare `name`, in registry order; `(df64)` where the
    /// core prints it in df64.
    fn cores_cell(&self, name: &str) -> String {
        let present: Vec<String> = self
            .cores
            .iter()
            .filter(|c| c.has(name))
            .map(|c| if self.metrics.df64_on(c, name).is_some() { format!("{} (df64)", c.name()) } else { c.name().to_string() })
            .collect();
        present.join(", ")
    }

    fn function_row(&self, f: &Function) -> Row {
        let name = self.model.c_name(f);
        let rust = self.rust.get(&name).map(|forms| forms.iter().map(|form| rust_call(form, f)).collect::<Vec<_>>().join(", "));
        Row {
            signature: c::function(self.model, f, &Dialect::C).signature,
            cores: self.cores_cell(&name),
            rust: rust.unwrap_or_default(),
            metric: self.metrics.cell(&self.cores, &name),
            decls: Vec::new(),
            name,
        }
    }

    fn kernel_row(&self, k: &crate::model::Kernel) -> Row {
        let name = self.model.kernel_c_name(k);
        Row {
            signature: c::kernel(self.model, k, &Dialect::C).signature,
            cores: self.cores_cell(&name),
            rust: String::new(),
            metric: self.metrics.cell(&self.cores, &name),
            decls: Vec::new(),
            name,
        }
    }

    /// A row of something the model does not print as a callable (a
    /// predicate, the self-test), with each core's declaration; `exact`
    /// (a function of integers or of words) or no metric.
    fn declared_row(&self, name: &str, signature: String, exact: bool) -> Row {
        let found: Vec<(&Core, String, &Decl)> = self.cores.iter().filter_map(|c| c.find(name).map(|(l, d)| (c, l, d))).collect();
        let cores = found.iter().map(|(_, label, _)| label.as_str()).collect::<Vec<_>>().join(", ");
        let metric = if exact && !cores.is_empty() { format!("{cores}: exact") } else { String::new() };
        let decls = found.iter().map(|(c, _, d)| CoreDecl { core: c.name().into(), file: d.file.clone(), text: d.text.clone() }).collect();
        Row { name: name.into(), signature, cores, rust: String::new(), metric, decls }
    }

    fn c_core(&self) -> Option<&Core> {
        self.cores.iter().find(|c| c.name() == targets::c::C.name())
    }

    /// The C core's declaration of a name, as printed.
    fn c_decl(&self, name: &str) -> Option<&Decl> {
        self.c_core().and_then(|c| c.decls.get(name))
    }

    /// The names the C core declares in `file` that no other entry lists.
    fn others_in(&self, file: &str, listed: &HashSet<String>) -> Vec<String> {
        let Some(c) = self.c_core() else { return Vec::new() };
        c.order.iter().filter(|n| !listed.contains(*n) && c.decls.get(*n).is_some_and(|d| d.file == file)).cloned().collect()
    }
}

/// Renders the page from the model and the targets' printed files
/// (`outputs`: every target's files; the others are ignored).
pub fn render(model: &Model, outputs: &[Output]) -> Result<String, Error> {
    let spec = &model.spec;
    let cores = cores(model, outputs);
    let metrics = Metrics::new(model, &cores);
    let cx = Ctx { model, metrics, rust: rust_forms(outputs), cores };
    let lowered = model.lowered();
    let stems: Vec<String> = spec.shapes.iter().map(|s| stem(model, &s.name)).fold(Vec::new(), |mut v, s| {
        if !v.contains(&s) {
            v.push(s);
        }
        v
    });
    let stem_index = |shape: &str| {
        let s = stem(model, shape);
        stems.iter().position(|x| *x == s).unwrap_or(stems.len())
    };
    let mut placed: Vec<(Place, Entry)> = Vec::new();
    let entry = |title: String, doc: String, code: Vec<Code>, rows: Vec<Row>| Entry { title, id: String::new(), doc, code, rows };

    // Every family, by its place, or split by the shapes of its instances.
    for fam in spec.families.iter().filter(|f| !f.internal) {
        let instances: Vec<&Function> = lowered.iter().filter(|f| f.family == fam.name).collect();
        let mut parts: Vec<(Place, Vec<&Function>)> = Vec::new();
        match family_place(model, fam, &instances) {
            Some(p) => parts.push((p, instances.clone())),
            None => {
                for f in &instances {
                    let p = Place::Shape(stem_index(&f.shape));
                    match parts.iter_mut().find(|(q, _)| *q == p) {
                        Some((_, fs)) => fs.push(f),
                        None => parts.push((p, vec![f])),
                    }
                }
            }
        }
        let split = parts.len() > 1;
        for (place, fs) in parts {
            let mut code = Vec::new();
            let mut seen = Vec::new();
            for f in &fs {
                if let Some(b) = fam.body_for(&f.shape, &f.elem) {
                    if !seen.contains(&b.line) {
                        seen.push(b.line);
                        code.push(Code { label: body_label(fam, b), lines: contract_doc::body_text(b) });
                    }
                }
            }
            let mut shapes: Vec<&str> = Vec::new();
            for f in &fs {
                if !shapes.contains(&f.shape.as_str()) {
                    shapes.push(&f.shape);
                }
            }
            let title = if split { format!("{} ({})", fam.name, shapes.join(", ")) } else { fam.name.clone() };
            let rows = fs.iter().map(|f| cx.function_row(f)).collect();
            placed.push((place, entry(title, fam.doc.clone(), code, rows)));
        }
    }

    // Every kernel: the linear algebra's, or the compensated sums'.
    for ks in &spec.kernels {
        let place = if matches!(ks.schedule, Schedule::Linalg(_)) { Place::Linalg } else { Place::Compensated };
        let mut code = Vec::new();
        if let Schedule::Lanes { arrays, term_source, .. } = &ks.schedule {
            let label = format!("term, with {} standing for element j", arrays.join(", "));
            code.push(Code { label, lines: contract_doc::lines(term_source) });
        }
        let rows = model.kernels.iter().filter(|k| k.key == ks.name).map(|k| cx.kernel_row(k)).collect();
        placed.push((place, entry(ks.name.clone(), ks.doc.clone(), code, rows)));
    }

    // The integer predicates: the helpers, each predicate's two forms, and
    // whatever else the C core's predicate file declares.
    let preds = &spec.predicates;
    let mut listed: HashSet<String> = model.callables().iter().map(|c| c.c_name(model)).collect();
    let decl_of = |name: &str| cx.c_decl(name).map(|d| d.text.clone()).unwrap_or_default();
    for f in &preds.functions {
        let name = helper_name(&f.name);
        listed.insert(name.clone());
        let code = vec![Code { label: format!("`{}`", contract_doc::helper_signature(f)), lines: contract_doc::lines(&f.body.source) }];
        placed.push((Place::Predicates, entry(f.name.clone(), f.doc.clone(), code, vec![cx.declared_row(&name, decl_of(&name), true)])));
    }
    let mut predicate_file = None;
    for p in &preds.predicates {
        let forms = predicate_forms(p);
        let mut rows = Vec::new();
        for form in crate::predicate::Form::BOTH {
            let name = predicate_name(&p.name, form);
            listed.insert(name.clone());
            predicate_file = predicate_file.or_else(|| cx.c_decl(&name).map(|d| d.file.clone()));
            rows.push(cx.declared_row(&name, decl_of(&name), true));
        }
        let domain = p.domain_source.clone().unwrap_or_else(|| "every input".into());
        let doc = format!("`{}`: {} Domain: `{domain}`.", contract_doc::predicate_signature(p), p.doc);
        placed.push((Place::Predicates, entry(p.name.clone(), doc, forms, rows)));
    }

    // The ULP distance of every element type.
    for u in c::ulp_functions(model) {
        listed.insert(u.name.clone());
        let row = cx.declared_row(&u.name, u.signature.clone(), true);
        placed.push((Place::Ulp, entry(u.name.clone(), u.doc.join(" "), vec![Code { label: "C".into(), lines: u.body }], vec![row])));
    }
    if let Some(file) = predicate_file {
        let others = cx.others_in(&file, &listed);
        if !others.is_empty() {
            let rows: Vec<Row> = others.iter().map(|n| cx.declared_row(n, decl_of(n), false)).collect();
            let docs: Vec<String> = others.iter().filter_map(|n| cx.c_decl(n).map(|d| format!("`{n}`: {}", d.doc))).collect();
            listed.extend(others);
            placed.push((Place::Predicates, entry(format!("the rest of {file}"), docs.join("\n\n"), Vec::new(), rows)));
        }
    }

    // The self-test: what the C core's header declares beside the functions.
    let header = model.callables().first().and_then(|c| cx.c_decl(&c.c_name(model))).map(|d| d.file.clone());
    if let Some(file) = header {
        for n in cx.others_in(&file, &listed) {
            let doc = cx.c_decl(&n).map(|d| d.doc.clone()).unwrap_or_default();
            placed.push((Place::Selftest, entry(n.clone(), doc, Vec::new(), vec![cx.declared_row(&n, decl_of(&n), false)])));
        }
    }

    // Groups in place order, entries in the order above within each (a stable sort).
    let scalars = spec.types.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(" or ");
    placed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut taken = HashMap::new();
    let mut groups: Vec<(Place, Group)> = Vec::new();
    for (place, e) in placed {
        if groups.last().is_none_or(|(p, _)| *p != place) {
            let (key, title) = title(&place, &stems);
            let id = slug(&title, &mut taken);
            let shapes = match place {
                Place::Shape(i) => spec
                    .shapes
                    .iter()
                    .filter(|s| !matches!(s.kind, ShapeKind::Scalar) && stems.get(i) == Some(&stem(model, &s.name)))
                    .map(|s| targets::shared::docs::shape_doc(s, &scalars))
                    .collect(),
                _ => Vec::new(),
            };
            groups.push((place.clone(), Group { key, title, id, shapes, entries: Vec::new(), rows: 0 }));
        }
        if let Some((_, g)) = groups.last_mut() {
            g.rows += e.rows.len();
            g.entries.push(Entry { id: slug(&e.title, &mut taken), ..e });
        }
    }
    let groups: Vec<Group> = groups.into_iter().map(|(_, g)| g).collect();

    // The head: the cores, the types and the naming.
    let core_rows: Vec<_> = cx
        .cores
        .iter()
        .map(|c| {
            let t = &c.target;
            let mut metric = match t.exactness() {
                Exactness::Bits => "bits".to_string(),
                Exactness::Bands(k) => format!("`[bands.{k}]`"),
            };
            for (k, _) in cx.metrics.device.iter().flatten().filter(|(k, _)| t.device_bands().contains(k)) {
                metric.push_str(&format!("; `[bands.{k}]` as `{k}`"));
            }
            let df64 = cx.metrics.df64_targets.iter().any(|d| d == t.name());
            let f64 = if t.capabilities().f64 {
                "yes".to_string()
            } else if df64 {
                "no: the f64 functions in df64".to_string()
            } else {
                "no".to_string()
            };
            let files: Vec<String> = c.files.iter().map(|f| format!("`{f}`")).collect();
            let has = model.callables().iter().filter(|x| c.has(&x.c_name(model))).count();
            context! { name => t.name(), folder => t.folder(), files => files.join(", "), metric, f64, has }
        })
        .collect();
    let types = contract_doc::type_rows(spec);
    let mut structs = Vec::new();
    for elem in &spec.types {
        for shape in spec.shapes.iter().filter(|s| !matches!(s.kind, ShapeKind::Scalar)) {
            structs.push(context! {
                c => c::type_name(model, &shape.name, elem),
                rust => targets::rust::type_name(model, &shape.name, elem),
                doc => targets::shared::docs::shape_doc(shape, &elem.c_type),
            });
        }
    }
    let example = |scalar: bool| {
        model
            .functions
            .iter()
            .find(|f| matches!(spec.shape(&f.shape).map(|s| &s.kind), Some(ShapeKind::Scalar)) == scalar)
            .map(|f| model.c_name(f))
            .unwrap_or_default()
    };
    let letters: Vec<String> = spec.types.iter().map(|t| format!("`{}` for {}", t.letter, t.name)).collect();
    let ctx = context! {
        banner => contract_doc::banner(spec),
        name => spec.name, version => spec.version, file => spec.file,
        n_functions => model.functions.len(), n_kernels => model.kernels.len(),
        n_callables => model.callables().len(),
        cores => core_rows, types, structs,
        vector_example => example(false), scalar_example => example(true),
        kernel_example => model.kernels.first().map(|k| model.kernel_c_name(k)).unwrap_or_default(),
        letters => letters.join(", "),
        df64 => !cx.metrics.df64_targets.is_empty(),
        df64_targets => cx.metrics.df64_targets.join(", "),
        opencl_no_fp64 => targets::opencl::NO_FP64,
        groups,
    };
    targets::render("docs/api.md.j2", TEMPLATE, &ctx)
}

/// A predicate's forms as the contract prints them.
fn predicate_forms(p: &Predicate) -> Vec<Code> {
    match &p.forms {
        Forms::Two { golden, integer } => vec![
            Code { label: "golden".into(), lines: contract_doc::lines(&golden.source) },
            Code { label: "integer".into(), lines: contract_doc::lines(&integer.source) },
        ],
        Forms::Derived(b) => {
            vec![Code { label: "both forms (each calls the callees' same form)".into(), lines: contract_doc::lines(&b.source) }]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_told_from_calls_and_comments() {
        let yes = [
            ("AETHER_API_BY_VALUE float aether_vec3f_dot(aether_vec3f a, aether_vec3f b);", "aether_vec3f_dot"),
            ("AETHER_API const char *aether_contract_id(void);", "aether_contract_id"),
            ("fn aether_f32_sin(a: f32) -> f32 {", "aether_f32_sin"),
            ("pub fn aether_mat2f_lu(a: &mut Mat2f, ipiv: &mut [i32; 2]) -> i32", "aether_mat2f_lu"),
            ("static __host__ __device__ inline int aether_angle_flag_golden(int64_t dp) {", "aether_angle_flag_golden"),
        ];
        for (line, name) in yes {
            assert_eq!(declaration(line).map(|d| d.0), Some(name), "{line}");
        }
        assert_eq!(declaration("AETHER_API int aether_selftest(void);").map(|d| d.1), Some("AETHER_API int aether_selftest(void)"));
        let no = [
            "    aether_f32_lanes_sum(lanes, 0, x, n);",
            "    r = aether_vec3f_dot(p_a, p_b);",
            "    return aether_f32_ulp_distance_bits(a, b);",
            "    let r = aether_vec3f_dot(a, b);",
            "// see aether_vec3f_dot(a, b)",
            "/* aether_vec3f_dot: Dot product */",
            "#  define aether_vec3f_dot(...) aether_vec3f_dot_byref_(__VA_ARGS__)",
            "static inline float (aether_vec3f_dot)(aether_vec3f a, aether_vec3f b)",
            "    aether_out[0] = aether_vec3f_dot(a, b);",
            "float dot(aether_vec3f a);",
        ];
        for line in no {
            assert_eq!(declaration(line), None, "{line}");
        }
    }

    #[test]
    fn slugs_follow_github_and_repeat_with_a_count() {
        let mut taken = HashMap::new();
        assert_eq!(slug("Per-lane linear algebra", &mut taken), "per-lane-linear-algebra");
        assert_eq!(slug("neg (vec2, vec3, vec4)", &mut taken), "neg-vec2-vec3-vec4");
        assert_eq!(slug("ULP distance", &mut taken), "ulp-distance");
        assert_eq!(slug("ULP distance", &mut taken), "ulp-distance-1");
    }
}
