//! The Rust core, `rust_core/`: the crate `aether-core` (`no_std`, no
//! dependency), every function of the spec in f32 and f64 over `#[repr(C)]`
//! structs in the C core's memory order, the kernels over slices, the
//! per-lane linear algebra (single and many-lane), the ULP distance and the
//! correctly rounded square root; and `rust_core/check/flat.rs`, the flat
//! calling convention of `aether_reference::flat` over the crate, which the
//! workspace's tests drive against the reference.
//!
//! The trees are printed by the one walk of `print` and `stmt` with the
//! spelling `RustSp`; nothing here orders an operation. rustc never
//! contracts `a * b + c` into a fused multiply-add and never reassociates
//! (LLVM gets no fast-math flag from safe Rust), so the spec's barrier is the
//! identity and every operator is one IEEE 754 operation, rounded to
//! nearest.

use crate::corpus::FunctionCases;
use crate::dsl::BinOp;
use crate::error::Error;
use crate::model::{Builtin, Function, Kernel, KernelKind, Kind, Model, Ty};
use crate::spec::{ElemType, Routine, ShapeKind};
use crate::targets::shared::kernels;
use crate::targets::shared::print::{self, Spelling, OUT};
use crate::targets::shared::stmt::{self, Arr, Loop, ParamTy, Place, Statements, Var, VarTy};
use crate::targets::{Capabilities, Exactness, Output, Target};

pub mod batch;
pub mod flat;
pub mod interop;
pub mod predicates;
pub mod selftest;

#[derive(Debug)]
pub struct Rust;

/// The crate's name on crates.io and as a path.
pub const CRATE: &str = "aether-core";

const SQRT_RS: &str = include_str!("../../../../templates/rust/sqrt.rs");
const ULP_RS: &str = include_str!("../../../../templates/rust/ulp.rs");
const LIB_RS: &str = include_str!("../../../../templates/rust/lib.rs.j2");
const README: &str = include_str!("../../../../templates/rust/README.md.j2");
const LICENSE_MIT: &str = include_str!("../../../../LICENSE-MIT");
const LICENSE_APACHE: &str = include_str!("../../../../LICENSE-APACHE");
const CARGO_TOML: &str = include_str!("../../../../templates/rust/Cargo.toml.j2");

/// The spelling of Rust: operators for the rounded operations (rustc keeps
/// each one IEEE 754 operation), `if` expressions for choices, the core's
/// own helpers for sqrt, fabs, fmin and fmax, `is_finite` from `core`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RustSp;

/// The Rust scalar type of an element type.
pub fn scalar(elem: &ElemType) -> &'static str {
    if elem.bits == 32 {
        "f32"
    } else {
        "f64"
    }
}

/// The Rust type of a shape: `Vec3f`, `Mat4d`, or the scalar type.
pub fn type_name(model: &Model, shape: &str, elem: &ElemType) -> String {
    match model.spec.shape(shape).map(|s| &s.kind) {
        Some(ShapeKind::Scalar) | None => scalar(elem).into(),
        _ => {
            let mut c = shape.chars();
            let first = c.next().map(|f| f.to_ascii_uppercase().to_string()).unwrap_or_default();
            format!("{first}{}{}", c.as_str(), elem.letter)
        }
    }
}

/// An exact literal: the C family's exact decimal with Rust's type suffix
/// (rustc parses a decimal literal correctly rounded, so an exact one is the
/// value), or the bits for a value without one.
pub fn literal(v: f64, elem: &ElemType) -> String {
    let s = scalar(elem);
    if !v.is_finite() {
        return if elem.bits == 32 {
            format!("f32::from_bits(0x{:08x})", (v as f32).to_bits())
        } else {
            format!("f64::from_bits(0x{:016x})", v.to_bits())
        };
    }
    let bare = ElemType { literal_suffix: String::new(), ..elem.clone() };
    let dec = crate::targets::shared::c_family::literal(v, &bare);
    format!("{dec}_{s}")
}

impl Spelling for RustSp {
    fn lit(&self, v: f64, elem: &ElemType) -> String {
        literal(v, elem)
    }
    fn truth(&self, b: bool) -> String {
        b.to_string()
    }
    fn bin(&self, op: BinOp, a: &str, b: &str, _elem: &ElemType) -> String {
        format!("({a} {} {b})", op.symbol())
    }
    fn select(&self, c: &str, a: &str, b: &str) -> String {
        format!("(if {c} {{ {a} }} else {{ {b} }})")
    }
    fn sqrt(&self, x: &str, elem: &ElemType) -> String {
        format!("aether_sqrt_{}({x})", scalar(elem))
    }
    fn call(&self, b: Builtin, args: &[String], elem: &ElemType) -> String {
        let e = scalar(elem);
        match b {
            Builtin::Fabs => format!("aether_fabs_{e}({})", args[0]),
            Builtin::IsFinite => format!("{}.is_finite()", args[0]),
            Builtin::Fmin | Builtin::Fmax => format!("aether_{}_{e}({}, {})", b.name(), args[0], args[1]),
            // rustc neither contracts nor reassociates: the barrier is the value.
            Builtin::Barrier => args[0].clone(),
            // Only a mutant calls these (the crate then needs `std`).
            Builtin::Fma => format!("{}.mul_add({}, {})", args[0], args[1], args[2]),
            Builtin::Hypot => format!("{}.hypot({})", args[0], args[1]),
            Builtin::Sqrt => unreachable!("printed by sqrt()"),
        }
    }
    fn component(&self, var: &str, kind: &ShapeKind, k: usize) -> String {
        format!("{var}.{}", crate::targets::shared::c_family::component(kind, k))
    }
    fn kind_type(&self, model: &Model, kind: &Kind, elem: &ElemType) -> String {
        match kind {
            Kind::Bool => "bool".into(),
            Kind::Shape(s) => type_name(model, &s.name, elem),
        }
    }
    fn bind(&self, name: &str, ty: Ty, elem: &ElemType, value: &str) -> String {
        let ty = if ty == Ty::Bool { "bool" } else { scalar(elem) };
        format!("let {name}: {ty} = {value};")
    }
    fn return_truth(&self, v: &str) -> String {
        format!("return {v};")
    }
    fn declare_out(&self, ty: &str) -> String {
        format!("let mut {OUT}: {ty} = {ty}::ZERO;")
    }
    /// A struct expression (one line, or a field or element per line when
    /// long). Written component by component into a zeroed value instead,
    /// LLVM turned normalize's selects into a branch and left a loop of
    /// normalizes unvectorised (2.3 ns per item against 1.4 for the same
    /// operations built whole, on this machine's SSE2).
    fn construct(&self, ty: &str, kind: &ShapeKind, values: &[String]) -> Option<Vec<String>> {
        let (open, items, close) = match kind {
            ShapeKind::Vector(names) => {
                (format!("{ty} {{"), names.iter().zip(values).map(|(n, v)| format!("{n}: {v}")).collect::<Vec<_>>(), "}".to_string())
            }
            _ => (format!("{ty} {{ m: ["), values.to_vec(), "] }".to_string()),
        };
        let line = format!("return {open} {} {close};", items.join(", "));
        if line.len() <= 100 {
            return Some(vec![line]);
        }
        let mut out = vec![format!("return {open}")];
        out.extend(items.iter().map(|i| format!("    {i},")));
        out.push(format!("{close};"));
        Some(out)
    }
}

/// A literal of the value whose bits are `w` (an f32's in the low 32 bits).
pub fn literal_bits(w: u64, elem: &ElemType) -> String {
    let v = if elem.bits == 32 { f64::from(f32::from_bits(w as u32)) } else { f64::from_bits(w) };
    if v.is_nan() {
        return if elem.bits == 32 { format!("f32::from_bits(0x{:08x})", w as u32) } else { format!("f64::from_bits(0x{w:016x})") };
    }
    literal(v, elem)
}

/// Rust's statements: every variable initialised (`let mut`, arrays
/// `[0; n]`), whole numbers `i32` and sizes `usize` (an index is cast to
/// `usize` where it is used), counted loops as `while` (Rust has no
/// three-clause `for`), arrays passed as slices (`&mut [f32]`, `&[f32]`),
/// every body braced. A matrix's `m` is viewed through a local copy, written
/// back where the tree unviews it: one spelling then serves a matrix by
/// value, by `&` and by `&mut`.
impl Statements for RustSp {
    fn base_type(&self, model: &Model, ty: &VarTy, elem: &ElemType) -> String {
        match ty {
            VarTy::Elem => scalar(elem).into(),
            VarTy::Int => "i32".into(),
            VarTy::Shape(s) => type_name(model, s, elem),
            VarTy::Size => "usize".into(),
        }
    }
    fn decl(&self, model: &Model, elem: &ElemType, _konst: bool, ty: &VarTy, vars: &[Var]) -> String {
        let b = self.base_type(model, ty, elem);
        let zero = match ty {
            VarTy::Elem => literal(0.0, elem),
            VarTy::Int | VarTy::Size => "0".into(),
            VarTy::Shape(_) => format!("{b}::ZERO"),
        };
        let vs: Vec<String> = vars
            .iter()
            .map(|v| {
                let (t, init) = match &v.len {
                    Some(n) => (format!("[{b}; {n}]"), format!("[{zero}; {n}]")),
                    None => (b.clone(), v.init.clone().unwrap_or_else(|| zero.clone())),
                };
                format!("let mut {}: {t} = {init};", v.name)
            })
            .collect();
        vs.join(" ")
    }
    fn for_head(&self, _var: &str, _from: &str, _lp: &Loop) -> String {
        unreachable!("Rust prints its counted loops whole (counted)")
    }
    fn counted(&self, var: &str, from: &str, lp: &Loop, body: Vec<String>) -> Vec<String> {
        // The body is braced (braces() is true): its first and last lines
        // are the braces, or it is one `{ ... }` line.
        let inner: Vec<String> = if body.len() == 1 {
            let l = body[0].trim();
            vec![format!("    {}", l.strip_prefix("{ ").and_then(|x| x.strip_suffix(" }")).unwrap_or(l))]
        } else {
            body[1..body.len() - 1].to_vec()
        };
        let mut out = Vec::new();
        match lp {
            // The step runs before the test, so `continue` goes on to the next
            // value and `var` ends at the first value that fails the test.
            Loop::Up(cond) => {
                out.push(format!("{var} = {from};"));
                out.push(format!("{var} = {var}.wrapping_sub(1);"));
                out.push(format!("while {{ {var} = {var}.wrapping_add(1); {cond} }} {{"));
            }
            Loop::Down => {
                out.push(format!("{var} = {from};"));
                out.push(format!("while {var} > 0 {{"));
                out.push(format!("    {var} -= 1;"));
            }
        }
        out.extend(inner);
        out.push("}".into());
        out
    }
    fn uint(&self, n: usize) -> String {
        n.to_string()
    }
    fn braces(&self) -> bool {
        true
    }
    fn at(&self, a: &Arr, idx: &str) -> String {
        let i = if idx.chars().all(|c| c.is_ascii_digit()) { idx.to_string() } else { format!("({idx}) as usize") };
        match a.place {
            Place::Local | Place::Param => format!("{}[{i}]", a.name),
            Place::Field { .. } => format!("{}_m[{i}]", a.name),
        }
    }
    fn arg(&self, a: &Arr) -> String {
        match a.place {
            Place::Local => format!("&mut {}", a.name),
            Place::Param => a.name.clone(),
            Place::Field { .. } => format!("&mut {}_m", a.name),
        }
    }
    fn choose(&self, c: &str, a: &str, b: &str) -> String {
        format!("if {c} {{ {a} }} else {{ {b} }}")
    }
    fn incr(&self, v: &str) -> String {
        format!("{v} += 1;")
    }
    fn view(&self, of: &str, _ptr: bool) -> Vec<String> {
        vec![format!("let mut {of}_m = {of}.m;")]
    }
    fn unview(&self, of: &str) -> Vec<String> {
        vec![format!("(*{of}).m = {of}_m;")]
    }
    fn deref(&self, name: &str) -> String {
        format!("*{name}")
    }
    fn deref_base(&self, name: &str) -> String {
        format!("(*{name})")
    }
    fn alias(&self, model: &Model, elem: &ElemType, name: &str, ty: &VarTy, target: &str) -> String {
        format!("let {name}: &mut {} = &mut {target};", self.base_type(model, ty, elem))
    }
    fn fn_head(
        &self,
        model: &Model,
        elem: &ElemType,
        helper: bool,
        ret: Option<&VarTy>,
        name: &str,
        params: &[(String, ParamTy)],
    ) -> String {
        let ps: Vec<String> = params
            .iter()
            .map(|(p, ty)| match ty {
                // Helpers take slices (a matrix's `m` and a local array alike);
                // a public function takes the array of its length.
                ParamTy::Array { ty, len, konst } => {
                    let b = self.base_type(model, ty, elem);
                    match (helper, konst) {
                        (true, true) => format!("{p}: &[{b}]"),
                        (true, false) => format!("{p}: &mut [{b}]"),
                        (false, true) => format!("{p}: &[{b}; {len}]"),
                        (false, false) => format!("{p}: &mut [{b}; {len}]"),
                    }
                }
                ParamTy::Value(s) => format!("{p}: {}", type_name(model, s, elem)),
                ParamTy::Ptr { shape, konst: true } => format!("{p}: &{}", type_name(model, shape, elem)),
                ParamTy::Ptr { shape, konst: false } => format!("{p}: &mut {}", type_name(model, shape, elem)),
                ParamTy::Elem => format!("{p}: {}", scalar(elem)),
            })
            .collect();
        let r = ret.map_or(String::new(), |t| format!(" -> {}", self.base_type(model, t, elem)));
        let vis = if helper { "" } else { "pub " };
        format!("{vis}fn {name}({}){r}", ps.join(", "))
    }
}

/// A rustdoc comment of the given lines (a spec's `[` escaped, so rustdoc
/// reads no link), indented by `indent`.
fn doc(lines: &[String], indent: &str) -> Vec<String> {
    lines.iter().map(|l| if l.is_empty() { format!("{indent}///") } else { format!("{indent}/// {}", escape(l)) }).collect()
}

fn escape(s: &str) -> String {
    s.replace('[', "\\[").replace(']', "\\]").replace('<', "\\<").replace('>', "\\>")
}

/// A function's rustdoc: its family's doc and the spec body it was built
/// from, in a text block (rustdoc would run an indented block as Rust).
fn function_doc(model: &Model, f: &Function) -> Vec<String> {
    let fam = model.spec.family(&f.family).unwrap();
    let body = fam.body_for(&f.shape, &f.elem).unwrap();
    let mut d = doc(&[fam.doc.clone(), String::new(), "Spec (the operations and their order, exactly):".into()], "");
    d.push("/// ```text".into());
    d.extend(body.source.lines().map(|l| format!("/// {}", l.trim()).trim_end().to_string()));
    d.push("/// ```".into());
    d
}

/// Lines indented by four.
fn indent(lines: Vec<String>) -> Vec<String> {
    lines.into_iter().map(|l| if l.is_empty() { l } else { format!("    {l}") }).collect()
}

/// The struct of every vector and matrix shape in one element type, with a
/// `ZERO`, a `new`/`from_array` and the conversions from and to arrays in
/// memory order.
fn structs(model: &Model, t: &ElemType) -> Vec<String> {
    let s = scalar(t);
    let mut out = Vec::new();
    for shape in &model.spec.shapes {
        let name = type_name(model, &shape.name, t);
        let n = shape.len();
        let z = literal(0.0, t);
        let (fields, zero, new, to_array, from_array): (Vec<String>, String, Vec<String>, String, String) = match &shape.kind {
            ShapeKind::Scalar => continue,
            ShapeKind::Vector(names) => (
                names
                    .iter()
                    .enumerate()
                    .flat_map(|(k, c)| [format!("    /// Component {c} (word {k} in memory)."), format!("    pub {c}: {s},")])
                    .collect(),
                format!("{name} {{ {} }}", names.iter().map(|c| format!("{c}: {z}")).collect::<Vec<_>>().join(", ")),
                vec![
                    "    /// The value with these components.".into(),
                    "    #[inline]".into(),
                    format!(
                        "    pub const fn new({}) -> {name} {{",
                        names.iter().map(|c| format!("{c}: {s}")).collect::<Vec<_>>().join(", ")
                    ),
                    format!("        {name} {{ {} }}", names.join(", ")),
                    "    }".into(),
                ],
                format!("[{}]", names.iter().map(|c| format!("v.{c}")).collect::<Vec<_>>().join(", ")),
                format!("{name} {{ {} }}", names.iter().enumerate().map(|(k, c)| format!("{c}: a[{k}]")).collect::<Vec<_>>().join(", ")),
            ),
            ShapeKind::Matrix { .. } => (
                vec![
                    format!("    /// The elements in memory order ({}).", crate::targets::shared::docs::shape_doc(shape, s)),
                    format!("    pub m: [{s}; {n}],"),
                ],
                format!("{name} {{ m: [{z}; {n}] }}"),
                vec![
                    "    /// The matrix with these elements in memory order.".into(),
                    "    #[inline]".into(),
                    format!("    pub const fn from_array(m: [{s}; {n}]) -> {name} {{"),
                    format!("        {name} {{ m }}"),
                    "    }".into(),
                ],
                "v.m".into(),
                format!("{name} {{ m: a }}"),
            ),
        };
        out.push(format!("/// {}.", escape(&crate::targets::shared::docs::shape_doc(shape, s))));
        let example: Vec<String> = (1..=n).map(|k| format!("{k}.0")).collect();
        out.push("///".into());
        out.push("/// ```".into());
        out.push(format!("/// use aether_core::{name};"));
        out.push(format!("/// let v = {name}::from([{}]);", example.join(", ")));
        out.push(format!("/// assert_eq!(v.to_array(), [{}]);", example.join(", ")));
        out.push(format!("/// assert_eq!({name}::ZERO.to_array(), [0.0; {n}]);"));
        out.push("/// ```".into());
        out.push("///".into());
        out.push(format!(
            "/// `#[repr(C)]`, {} bytes, the C core's `aether_{}{}` field for field. `PartialEq` is IEEE equality (`-0 == +0`, NaN unequal).",
            n * (t.bits as usize / 8),
            shape.name,
            t.letter
        ));
        out.push("#[repr(C)]".into());
        out.push("#[derive(Clone, Copy, Debug, Default, PartialEq)]".into());
        out.push("#[cfg_attr(feature = \"bytemuck\", derive(bytemuck::Pod, bytemuck::Zeroable))]".into());
        out.push(format!("pub struct {name} {{"));
        out.extend(fields);
        out.push("}".into());
        out.push(String::new());
        out.push(format!("impl {name} {{"));
        out.push("    /// Every component +0.".into());
        out.push(format!("    pub const ZERO: {name} = {zero};"));
        out.extend(new);
        out.push("    /// The components in memory order.".into());
        out.push("    #[inline]".into());
        out.push(format!("    pub const fn to_array(self) -> [{s}; {n}] {{"));
        out.push("        let v = self;".into());
        out.push(format!("        {to_array}"));
        out.push("    }".into());
        out.push("}".into());
        out.push(String::new());
        out.push(format!("impl From<[{s}; {n}]> for {name} {{"));
        out.push("    #[inline]".into());
        out.push(format!("    fn from(a: [{s}; {n}]) -> {name} {{"));
        out.push(format!("        {from_array}"));
        out.push("    }".into());
        out.push("}".into());
        out.push(String::new());
        out.push(format!("impl From<{name}> for [{s}; {n}] {{"));
        out.push("    #[inline]".into());
        out.push(format!("    fn from(v: {name}) -> [{s}; {n}] {{"));
        out.push("        v.to_array()".into());
        out.push("    }".into());
        out.push("}".into());
        out.push(String::new());
    }
    out
}

/// The helpers the bodies call: fabs on the bits, and the spec's fmin and
/// fmax (comparisons and choices only, so they round nothing).
fn helpers(t: &ElemType) -> Vec<String> {
    let s = scalar(t);
    let (ubits, mask) = if t.bits == 32 { ("u32", "0x7fff_ffff") } else { ("u64", "0x7fff_ffff_ffff_ffff") };
    let _ = ubits;
    let sel = |c: &str, x: &str, y: &str| format!("if {c} {{ {x} }} else {{ {y} }}");
    let isnan = |x: &str| format!("{x}.is_nan()");
    let mut out = vec![
        format!("/// `fabs` of the spec for {s}: the value with its sign bit cleared (NaN payloads kept)."),
        "#[inline(always)]".into(),
        format!("fn aether_fabs_{s}(x: {s}) -> {s} {{"),
        format!("    {s}::from_bits(x.to_bits() & {mask})"),
        "}".into(),
        String::new(),
    ];
    for (name, cmp) in [("fmin", "<"), ("fmax", ">")] {
        out.push(format!("/// `{name}` of the spec for {s}: C's {name} (a NaN operand gives the other; otherwise the {} by `{cmp}`, `a` on a tie, so the sign of a zero result is the first operand's).", if cmp == "<" { "smaller" } else { "larger" }));
        out.push("#[inline(always)]".into());
        out.push(format!("fn aether_{name}_{s}(a: {s}, b: {s}) -> {s} {{"));
        out.push(format!("    {}", crate::targets::shared::c_family::minmax_rule(cmp, &isnan, &sel)));
        out.push("}".into());
        out.push(String::new());
    }
    out
}

/// One function of the model, whole: its lane-wise SSE form first where it
/// has one (x86_64), then the scalar body every other target runs.
fn function(model: &Model, f: &Function) -> Vec<String> {
    let t = model.spec.types.iter().find(|t| t.name == f.elem).unwrap();
    let sp = RustSp;
    let name = model.c_name(f);
    let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, sp.kind_type(model, &p.kind, t))).collect();
    let ret = sp.kind_type(model, &f.ret, t);
    let mut out = function_doc(model, f);
    out.push("#[inline]".into());
    out.push(format!("pub fn {name}({}) -> {ret} {{", params.join(", ")));
    if let Some(simd) = lanewise(model, f, t).or_else(|| lanes_fold(model, f, t)) {
        let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
        out.extend(indent(simd));
        out.push("    #[cfg(not(target_arch = \"x86_64\"))]".into());
        out.push("    {".into());
        out.push(format!("        {}({})", portable_name(&name), args.join(", ")));
        out.push("    }".into());
        out.push("}".into());
        out.push(String::new());
        // The scalar body on its own: every target but x86_64 runs it, and the
        // structure-of-arrays batches call it on every target (their loop over the
        // items vectorises it across items, which the lane-wise form would prevent).
        out.push(format!("/// [`{name}`] as its scalar body: the same operations in the same order, with the same bits."));
        out.push("#[inline(always)]".into());
        out.push(format!("pub(crate) fn {}({}) -> {ret} {{", portable_name(&name), params.join(", ")));
    }
    out.extend(indent(print::body(&sp, model, f, t)));
    out.push("}".into());
    out.push(String::new());
    out
}

/// The scalar twin of a function that has a lane-wise x86_64 form (see
/// [`function`]); a name no spec function can take (every one starts with
/// `aether_`).
pub fn portable_name(name: &str) -> String {
    format!("portable_{name}")
}

/// Whether [`function`] gives `f` a lane-wise form (and so a scalar twin).
pub fn has_lanes(model: &Model, f: &Function) -> bool {
    let t = model.spec.types.iter().find(|t| t.name == f.elem).unwrap();
    lanewise(model, f, t).or_else(|| lanes_fold(model, f, t)).is_some()
}

/// The four-f32 rows a parameter's memory is, where it is whole rows: a
/// 4-component vector (one row) or a 4x4 matrix (four, row-major). The
/// lane-wise forms load such a parameter a row at a time (one `loadu` each)
/// and take every broadcast of its components from those registers by a
/// shuffle, never from the scalar in memory: on SSE2 a broadcast from memory
/// is a scalar load and a shuffle per component, and with sixteen of them
/// (a mat4 product) the register allocator spilled and reloaded a row
/// through the stack in pieces, a store-forwarding stall per item (2.5x
/// glam's time at the default target).
fn rows_of(p: &crate::model::Param) -> Option<usize> {
    match &p.kind {
        Kind::Shape(s) => match &s.kind {
            ShapeKind::Matrix { rows: 4, cols: 4, .. } => Some(4),
            ShapeKind::Vector(names) if names.len() == 4 => Some(1),
            _ => None,
        },
        Kind::Bool => None,
    }
}

/// The four trees of one group of outputs in lockstep: an SSE expression
/// that computes output `k` of the group in lane `k` with the very
/// operations of its tree (each `_mm_*_ps` is the IEEE operation in every
/// lane, in the MXCSR's rounding, as the scalar `addss`/`mulss` the scalar
/// body compiles to), or None where the trees differ in an operation or use
/// anything but the four rounded operations, inputs and literals. Four
/// leaves are a row register (`rows` collects the `(parameter, row)` pairs
/// to load, see [`rows_of`]) where they are one row of a parameter, a column
/// of a 4x4 matrix parameter (`columns` collects the matrices to
/// transpose), a broadcast where they are one value (a shuffle of its row
/// where it has one), else a `_mm_set_ps`. Every one of these only moves
/// bits: the lanes hold the very values the scalar body reads.
fn lanes_expr(
    sp: &RustSp,
    f: &Function,
    t: &ElemType,
    es: [&crate::model::Expr; 4],
    rows: &mut Vec<(usize, usize)>,
    columns: &mut Vec<usize>,
    products: &mut Vec<Product>,
) -> Option<String> {
    use crate::model::Expr;
    let leaf = |e: &Expr| matches!(e, Expr::Lit(_) | Expr::Input { .. });
    let mut row = |param: usize, r: usize| {
        if !rows.contains(&(param, r)) {
            rows.push((param, r));
        }
        format!("{}_r{r}", f.params[param].name)
    };
    if es.iter().all(|e| leaf(e)) {
        let printed: Vec<String> = es.iter().map(|e| print::expr(sp, f, t, e)).collect();
        if printed.iter().all(|p| *p == printed[0]) {
            if let Expr::Input { param, comp } = es[0] {
                if rows_of(&f.params[*param]).is_some() {
                    let r = row(*param, comp / 4);
                    return Some(format!("_mm_shuffle_ps::<{:#04x}>({r}, {r})", 0x55 * (comp % 4)));
                }
            }
            return Some(format!("_mm_set1_ps({})", printed[0]));
        }
        let inputs: Vec<(usize, usize)> =
            es.iter().filter_map(|e| if let Expr::Input { param, comp } = e { Some((*param, *comp)) } else { None }).collect();
        if inputs.len() == 4 && inputs.iter().all(|i| i.0 == inputs[0].0) {
            let (param, c0) = inputs[0];
            let n = rows_of(&f.params[param]);
            if n.is_some() && c0 % 4 == 0 && (0..4).all(|k| inputs[k].1 == c0 + k) {
                return Some(row(param, c0 / 4));
            }
            if n == Some(4) && c0 < 4 && (0..4).all(|k| inputs[k].1 == c0 + 4 * k) {
                if !columns.contains(&param) {
                    columns.push(param);
                    for r in 0..4 {
                        row(param, r);
                    }
                }
                return Some(format!("{}_col{c0}", f.params[param].name));
            }
        }
        if inputs.len() == 4 && inputs.iter().all(|i| i.0 == inputs[0].0 && i.1 / 4 == inputs[0].1 / 4) {
            // Four components of one row in another order (a quaternion product's operands).
            let (param, c0) = inputs[0];
            if rows_of(&f.params[param]).is_some() {
                let r = row(param, c0 / 4);
                let imm: usize = (0..4).map(|k| (inputs[k].1 % 4) << (2 * k)).sum();
                return Some(format!("_mm_shuffle_ps::<{imm:#04x}>({r}, {r})"));
            }
        }
        return Some(format!("_mm_set_ps({}, {}, {}, {})", printed[3], printed[2], printed[1], printed[0]));
    }
    let Expr::Bin(op, ..) = es[0] else { return None };
    let name = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "div",
        _ => return None,
    };
    let additive = |o: &BinOp| matches!(o, BinOp::Add | BinOp::Sub);
    let mut lhs = Vec::new();
    let mut rhs = Vec::new();
    let mut subtracts = [false; 4];
    for (k, e) in es.into_iter().enumerate() {
        match e {
            Expr::Bin(o, a, b) if o == op || (additive(o) && additive(op)) => {
                lhs.push(&**a);
                rhs.push(&**b);
                subtracts[k] = *o == BinOp::Sub;
            }
            _ => return None,
        }
    }
    if additive(op) && subtracts.iter().any(|&s| s != subtracts[0]) {
        // Lanes that add beside lanes that subtract (a quaternion product): IEEE 754 defines
        // x - y as x + (-y), so each lane adds, the subtracting lanes' right operands with their
        // sign bit flipped (an exact negation; the rounding and the bits are the scalar body's,
        // a NaN's sign aside, which the comparison policy leaves free).
        let a = lanes_expr(sp, f, t, [lhs[0], lhs[1], lhs[2], lhs[3]], rows, columns, products)?;
        let b = lanes_expr(sp, f, t, [rhs[0], rhs[1], rhs[2], rhs[3]], rows, columns, products)?;
        let sign = |k: usize| if subtracts[k] { "i32::MIN" } else { "0" };
        return Some(format!(
            "_mm_add_ps({a}, _mm_xor_ps({b}, _mm_castsi128_ps(_mm_set_epi32({}, {}, {}, {}))))",
            sign(3),
            sign(2),
            sign(1),
            sign(0)
        ));
    }
    if *op == BinOp::Mul {
        if let Some(pr) = product_column(f, &lhs, &rhs) {
            for r in 0..4 {
                row(pr.matrix, r);
            }
            row(pr.vector, 0);
            let name = pr.name(f);
            if !products.iter().any(|q| q.matrix == pr.matrix && q.vector == pr.vector && q.matrix_first == pr.matrix_first) {
                products.push(pr);
            }
            return Some(format!("{name}_c{}", pr.column));
        }
    }
    let a = lanes_expr(sp, f, t, [lhs[0], lhs[1], lhs[2], lhs[3]], rows, columns, products)?;
    let b = lanes_expr(sp, f, t, [rhs[0], rhs[1], rhs[2], rhs[3]], rows, columns, products)?;
    Some(format!("_mm_{name}_ps({a}, {b})"))
}

/// Column `column` of the element-wise products of a 4x4 matrix's rows with
/// a 4-vector: lane `r` is `m[r][column] * v[column]`, the products a matrix
/// times a vector folds. The lanes form them row by row (four `mulps` of a
/// row with the vector, each lane the very product of the scalar body, in
/// its operand order) and transposes the products, instead of transposing
/// the matrix and multiplying its columns by broadcasts: the same roundings
/// with four shuffles fewer.
#[derive(Clone, Copy)]
struct Product {
    matrix: usize,
    vector: usize,
    column: usize,
    /// The matrix's element is the left operand (`m[r][k] * v[k]`).
    matrix_first: bool,
}

impl Product {
    fn name(&self, f: &Function) -> String {
        let (m, v) = (&f.params[self.matrix].name, &f.params[self.vector].name);
        if self.matrix_first {
            format!("{m}_by_{v}")
        } else {
            format!("{v}_by_{m}")
        }
    }
}

/// The [`Product`] four lanes' products are, if they are one.
fn product_column(f: &Function, lhs: &[&crate::model::Expr], rhs: &[&crate::model::Expr]) -> Option<Product> {
    use crate::model::Expr;
    let input = |e: &Expr| if let Expr::Input { param, comp } = e { Some((*param, *comp)) } else { None };
    let try_sides = |ms: &[&Expr], vs: &[&Expr], matrix_first: bool| -> Option<Product> {
        let (m, c) = input(ms[0])?;
        let (v, vc) = input(vs[0])?;
        let ok = rows_of(&f.params[m]) == Some(4)
            && rows_of(&f.params[v]) == Some(1)
            && c < 4
            && vc == c
            && (0..4).all(|k| input(ms[k]) == Some((m, c + 4 * k)) && input(vs[k]) == Some((v, c)));
        ok.then_some(Product { matrix: m, vector: v, column: c, matrix_first })
    };
    try_sides(lhs, rhs, true).or_else(|| try_sides(rhs, lhs, false))
}

/// The x86_64 form of a binary32 function whose one result is a tree of
/// additions and subtractions over the element-wise products of two
/// 4-component parameters (a 4-vector's or a quaternion's dot product): the
/// four products in one `mulps` (each lane the scalar body's product, in its
/// operand order), then the tree in lane 0 with `addss`/`subss`, each lane
/// brought to lane 0 by a shuffle, every operand in its place. None for any
/// other function.
fn lanes_fold(model: &Model, f: &Function, t: &ElemType) -> Option<Vec<String>> {
    use crate::model::Expr;
    let sp = RustSp;
    if t.bits != 32 || !f.temps.is_empty() || f.outputs.len() != 1 {
        return None;
    }
    if !matches!(&f.ret, Kind::Shape(s) if matches!(s.kind, ShapeKind::Scalar)) {
        return None;
    }
    fn lane0(f: &Function, e: &Expr, pair: &mut Option<(usize, usize)>, leaves: &mut usize) -> Option<String> {
        match e {
            Expr::Bin(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let name = if *op == BinOp::Add { "add" } else { "sub" };
                Some(format!("_mm_{name}_ss({}, {})", lane0(f, a, pair, leaves)?, lane0(f, b, pair, leaves)?))
            }
            Expr::Bin(BinOp::Mul, a, b) => {
                let (Expr::Input { param: pa, comp: ka }, Expr::Input { param: pb, comp: kb }) = (&**a, &**b) else { return None };
                let fits = rows_of(&f.params[*pa]) == Some(1) && rows_of(&f.params[*pb]) == Some(1) && ka == kb;
                if !fits || pair.is_some_and(|p| p != (*pa, *pb)) {
                    return None;
                }
                *pair = Some((*pa, *pb));
                *leaves += 1;
                Some(if *ka == 0 { "aether_prod".to_string() } else { format!("_mm_shuffle_ps::<{ka}>(aether_prod, aether_prod)") })
            }
            _ => None,
        }
    }
    let mut pair = None;
    let mut leaves = 0;
    let e = lane0(f, &f.outputs[0], &mut pair, &mut leaves)?;
    let (a, b) = pair?;
    if leaves < 2 {
        return None;
    }
    let load = |p: usize| {
        let p = &f.params[p];
        format!("_mm_loadu_ps((&{} as *const {}).cast::<f32>())", p.name, sp.kind_type(model, &p.kind, t))
    };
    Some(vec![
        "#[cfg(target_arch = \"x86_64\")]".to_string(),
        "{".into(),
        "    use core::arch::x86_64::*;".into(),
        "    // SAFETY: SSE is part of the x86_64 baseline; each load reads a #[repr(C)] 4-component parameter whole (four consecutive f32).".into(),
        "    unsafe {".into(),
        format!("        let aether_prod = _mm_mul_ps({}, {});", load(a), load(b)),
        format!("        _mm_cvtss_f32({e})"),
        "    }".into(),
        "}".into(),
    ])
}

/// The lane-wise form of a binary32 function whose result is groups of four
/// consecutive components (a vec4, each row of a row-major mat4) computed by
/// isomorphic trees without temporaries: mat4 products, mat4 by vec4, the
/// mat2 product, the component-wise vec4 functions and the mat4 transpose.
/// None for any other (a copy other than a transpose gains nothing in lanes).
fn lanewise(model: &Model, f: &Function, t: &ElemType) -> Option<Vec<String>> {
    let sp = RustSp;
    if t.bits != 32 || !f.temps.is_empty() || !f.outputs.len().is_multiple_of(4) || f.outputs.is_empty() {
        return None;
    }
    let Kind::Shape(shape) = &f.ret else { return None };
    if matches!(shape.kind, ShapeKind::Scalar) {
        return None;
    }
    let mut groups = Vec::new();
    let mut rows = Vec::new();
    let mut columns = Vec::new();
    let mut products = Vec::new();
    for g in f.outputs.chunks(4) {
        let e = lanes_expr(&sp, f, t, [&g[0], &g[1], &g[2], &g[3]], &mut rows, &mut columns, &mut products)?;
        // A group that only moves values gains nothing in lanes, except a 4x4 matrix's column
        // (a transpose: four loads and eight shuffles instead of sixteen scalar moves).
        let arithmetic = ["_mm_add", "_mm_sub", "_mm_mul", "_mm_div"].iter().any(|op| e.contains(op));
        let column = columns.iter().any(|&p| (0..4).any(|c| e == format!("{}_col{c}", f.params[p].name)));
        if !arithmetic && !column {
            return None;
        }
        groups.push(e);
    }
    let ty = sp.kind_type(model, &f.ret, t);
    let mut out = vec![
        "#[cfg(target_arch = \"x86_64\")]".to_string(),
        "{".into(),
        "    use core::arch::x86_64::*;".into(),
        format!("    let mut {OUT}: {ty} = {ty}::ZERO;"),
        format!("    let dst = (&mut {OUT} as *mut {ty}).cast::<f32>();"),
        format!(
            "    // SAFETY: SSE is part of the x86_64 baseline; every load reads four consecutive f32 of a #[repr(C)] parameter (a row of a matrix's array, or a 4-component struct whole); {ty} is #[repr(C)], {} f32 in memory order, and each store writes four of them.",
            f.outputs.len()
        ),
        "    unsafe {".into(),
    ];
    rows.sort();
    for &(param, r) in &rows {
        let p = &f.params[param];
        let src = if rows_of(p) == Some(4) {
            format!("{}.m[{}..{}].as_ptr()", p.name, 4 * r, 4 * r + 4)
        } else {
            format!("(&{} as *const {}).cast::<f32>()", p.name, sp.kind_type(model, &p.kind, t))
        };
        out.push(format!("        let {}_r{r} = _mm_loadu_ps({src});", p.name));
    }
    for &param in &columns {
        // The columns of a row-major 4x4 matrix: its rows, transposed by shuffles (moves only).
        let p = &f.params[param].name;
        out.extend(transpose4(&format!("{p}_r"), &format!("{p}_t"), &format!("{p}_col")));
    }
    for pr in &products {
        // Row r of the products in lane k: m[r][k] * v[k], the operands in the scalar body's order;
        // then transposed (moves only), so that lane r of column c is m[r][c] * v[c].
        let n = pr.name(f);
        let (m, v) = (&f.params[pr.matrix].name, &f.params[pr.vector].name);
        for r in 0..4 {
            let (x, y) = if pr.matrix_first { (format!("{m}_r{r}"), format!("{v}_r0")) } else { (format!("{v}_r0"), format!("{m}_r{r}")) };
            out.push(format!("        let {n}_p{r} = _mm_mul_ps({x}, {y});"));
        }
        out.extend(transpose4(&format!("{n}_p"), &format!("{n}_t"), &format!("{n}_c")));
    }
    for (g, e) in groups.iter().enumerate() {
        out.push(format!("        _mm_storeu_ps(dst.add({}), {e});", 4 * g));
    }
    out.push("    }".into());
    out.push(format!("    {OUT}"));
    out.push("}".into());
    Some(out)
}

/// The statements that transpose four registers `{src}0..3` (rows) into
/// `{dst}0..3` (columns) through `{tmp}0..3`: pairs of rows' halves side by
/// side (`movlhps`, `movhlps`), then every other lane of two of those
/// (`shufps`). Moves only, eight shuffles.
fn transpose4(src: &str, tmp: &str, dst: &str) -> Vec<String> {
    vec![
        format!("        let ({tmp}0, {tmp}1) = (_mm_movelh_ps({src}0, {src}1), _mm_movehl_ps({src}1, {src}0));"),
        format!("        let ({tmp}2, {tmp}3) = (_mm_movelh_ps({src}2, {src}3), _mm_movehl_ps({src}3, {src}2));"),
        format!("        let ({dst}0, {dst}1) = (_mm_shuffle_ps::<0x88>({tmp}0, {tmp}2), _mm_shuffle_ps::<0xdd>({tmp}0, {tmp}2));"),
        format!("        let ({dst}2, {dst}3) = (_mm_shuffle_ps::<0x88>({tmp}1, {tmp}3), _mm_shuffle_ps::<0xdd>({tmp}1, {tmp}3));"),
    ]
}

/// The operator trait a function gives (by its name without the type, and
/// its parameter and result types): `(trait, method)`.
fn operator(f: &Function) -> Option<(&'static str, &'static str)> {
    let shape = |k: &Kind| match k {
        Kind::Shape(s) => Some(s.name.clone()),
        Kind::Bool => None,
    };
    let first = shape(&f.params.first()?.kind)?;
    let ret = shape(&f.ret)?;
    match (f.op.as_str(), f.params.len()) {
        ("neg", 1) if ret == first => Some(("Neg", "neg")),
        ("add", 2) if ret == first && shape(&f.params[1].kind)? == first => Some(("Add", "add")),
        ("sub", 2) if ret == first && shape(&f.params[1].kind)? == first => Some(("Sub", "sub")),
        ("mul", 2) | ("scale", 2) | ("mul_vec", 2) => Some(("Mul", "mul")),
        ("div", 2) => Some(("Div", "div")),
        _ => None,
    }
}

/// The methods of every struct (each function whose first parameter is the
/// struct, under its name without the type: `aether_quatf_rotate` is
/// `q.rotate(v)`) and the operators the contract defines.
fn methods(model: &Model, lowered: &[Function], t: &ElemType) -> Vec<String> {
    let sp = RustSp;
    let mut out = Vec::new();
    for shape in &model.spec.shapes {
        if matches!(shape.kind, ShapeKind::Scalar) {
            continue;
        }
        let ty = type_name(model, &shape.name, t);
        let mut seen: Vec<String> = Vec::new();
        let mut ms = Vec::new();
        let mut ops = Vec::new();
        for f in lowered.iter().filter(|f| f.elem == t.name) {
            let Some(p0) = f.params.first() else { continue };
            if !matches!(&p0.kind, Kind::Shape(s) if s.name == shape.name) {
                continue;
            }
            let name = model.c_name(f);
            let ret = sp.kind_type(model, &f.ret, t);
            let rest: Vec<&crate::model::Param> = f.params[1..].iter().collect();
            if !seen.contains(&f.op) {
                seen.push(f.op.clone());
                let ps: Vec<String> = rest.iter().map(|p| format!(", {}: {}", p.name, sp.kind_type(model, &p.kind, t))).collect();
                let args: Vec<String> = rest.iter().map(|p| format!(", {}", p.name)).collect();
                ms.push(format!("    /// [`{name}`] with `self` as `{}`.", p0.name));
                ms.push("    #[inline]".into());
                ms.push(format!("    pub fn {}(self{}) -> {ret} {{", f.op, ps.concat()));
                ms.push(format!("        {name}(self{})", args.concat()));
                ms.push("    }".into());
            }
            if let Some((tr, m)) = operator(f) {
                let rhs = rest.first().map(|p| sp.kind_type(model, &p.kind, t));
                let head = match &rhs {
                    Some(r) if *r != ty => format!("impl core::ops::{tr}<{r}> for {ty} {{"),
                    _ => format!("impl core::ops::{tr} for {ty} {{"),
                };
                ops.push(format!("/// [`{name}`]."));
                ops.push(head);
                ops.push(format!("    type Output = {ret};"));
                ops.push("    #[inline]".into());
                match &rhs {
                    Some(r) => {
                        ops.push(format!("    fn {m}(self, rhs: {r}) -> {ret} {{"));
                        ops.push(format!("        {name}(self, rhs)"));
                    }
                    None => {
                        ops.push(format!("    fn {m}(self) -> {ret} {{"));
                        ops.push(format!("        {name}(self)"));
                    }
                }
                ops.push("    }".into());
                ops.push("}".into());
                ops.push(String::new());
            }
        }
        if !ms.is_empty() {
            out.push(format!("impl {ty} {{"));
            out.extend(ms);
            out.push("}".into());
            out.push(String::new());
        }
        out.extend(ops);
    }
    out
}

/// The error of a kernel over slices whose lengths do not fit: nothing is
/// written then.
const LENGTH_ERROR: &str = "LengthError";

/// A kernel over slices (the spec's `lanes`, `array`, `plane`, `resolve`
/// schedules and the butterfly): the same statement trees as every core,
/// behind a check of the slices' lengths.
fn kernel(model: &Model, k: &Kernel) -> Vec<String> {
    let sp = RustSp;
    let elem = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    let red = model.spec.reduction.as_ref().expect("kernels need [rules.reduction]");
    let ks = model.spec.kernel(&k.key).unwrap();
    let s = scalar(elem);
    let pair = type_name(model, &red.pair, elem);
    let lanes = red.lanes;
    let name = model.kernel_c_name(k);
    let step_name = |family: &str| {
        let f = model.functions.iter().find(|f| f.family == family && f.elem == k.elem).unwrap();
        model.c_name(f)
    };
    let mut d = vec![ks.doc.clone()];
    let mut body: Vec<String> = Vec::new();
    let head;
    let block = |stmts: &[stmt::Stmt]| stmt::block(&sp, model, elem, stmts);
    use kernels::{COUNT, FIRST, LANES};
    match &k.kind {
        KernelKind::Butterfly => {
            head = format!("pub fn {name}(lanes: &[{pair}; {lanes}]) -> {pair}");
            let combine = step_name(&red.combine);
            body.push(format!("let mut v: [{pair}; {lanes}] = *lanes;"));
            body.push(format!("let mut w: [{pair}; {lanes}] = [{pair}::ZERO; {lanes}];"));
            for r in &red.rounds {
                body.push(format!("// round: xor {r}"));
                body.push(format!("for i in 0..{lanes} {{"));
                body.push(format!("    w[i] = {combine}(v[i], v[i ^ {r}]);"));
                body.push("}".into());
                body.push("v = w;".into());
            }
            body.push("let _ = w;".into());
            body.push("v[0]".into());
        }
        KernelKind::Lanes { arrays, term } => {
            let arrs: Vec<String> = arrays.iter().map(|a| format!("{a}: &[{s}]")).collect();
            head = format!(
                "pub fn {name}({LANES}: &mut [{pair}; {lanes}], {FIRST}: usize, {}) -> Result<(), {LENGTH_ERROR}>",
                arrs.join(", ")
            );
            d.push(format!("Element j of the arrays goes to lane ({FIRST} + j) mod {lanes}; the arrays must have one length (else nothing is written and the error says which)."));
            if let crate::spec::Schedule::Lanes { term_source, .. } = &ks.schedule {
                d.push(format!("Spec term: `{term_source}`"));
            }
            let _ = term;
            body.push(format!("let {COUNT}: usize = {}.len();", arrays[0]));
            for a in &arrays[1..] {
                body.push(format!("if {a}.len() != {COUNT} {{"));
                body.push(format!("    return Err({LENGTH_ERROR}::new(\"{a}\", {a}.len(), {COUNT}));"));
                body.push("}".into());
            }
            // (first + j) mod lanes is (first mod lanes + j) mod lanes, with no overflow.
            body.push(format!("let {FIRST}: usize = {FIRST} % {lanes};"));
            match red.assignment {
                crate::spec::Assignment::Strided => body.extend(lanes_in_rounds(model, k, arrays, lanes)),
                crate::spec::Assignment::Single => body.extend(block(&kernels::lanes_body(model, k, &sp, &|a| Arr::param(a)))),
            }
            body.push("Ok(())".into());
        }
        KernelKind::Array { lanes: lk } => {
            let lk_kernel = model.kernels.iter().find(|x| &x.name == lk && x.elem == k.elem).unwrap();
            let KernelKind::Lanes { arrays, .. } = &lk_kernel.kind else { unreachable!("checked when the spec was read") };
            let arrs: Vec<String> = arrays.iter().map(|a| format!("{a}: &[{s}]")).collect();
            head = format!("pub fn {name}({}) -> Result<{s}, {LENGTH_ERROR}>", arrs.join(", "));
            let bfly =
                model.kernels.iter().find(|x| x.kind == KernelKind::Butterfly && x.elem == k.elem).map(|x| model.kernel_c_name(x)).unwrap();
            body.push(format!("let mut {LANES}: [{pair}; {lanes}] = [{pair}::ZERO; {lanes}];"));
            body.push(format!("{}(&mut {LANES}, 0, {})?;", model.kernel_c_name(lk_kernel), arrays.join(", ")));
            body.push(format!("Ok({}({bfly}(&{LANES})))", step_name(&red.value)));
        }
        KernelKind::Plane { width } => {
            let term_ty = type_name(model, &k.shape, elem);
            head = format!(
                "pub fn {name}(value: &mut [{s}], comp: &mut [{s}], element: usize, term: {term_ty}) -> Result<(), {LENGTH_ERROR}>"
            );
            d.push(format!("Element `element` is slots element*{width}.. of `value` and `comp` (one length, at least (element + 1) * {width}; else nothing is written)."));
            body.push("if comp.len() != value.len() {".into());
            body.push(format!("    return Err({LENGTH_ERROR}::new(\"comp\", comp.len(), value.len()));"));
            body.push("}".into());
            body.push(format!("if element >= value.len() / {width} {{"));
            body.push(format!(
                "    return Err({LENGTH_ERROR}::new(\"value\", value.len(), element.saturating_add(1).saturating_mul({width})));"
            ));
            body.push("}".into());
            body.extend(block(&kernels::plane_body(model, k, &sp, &|a| Arr::param(a))));
            body.push("Ok(())".into());
        }
        KernelKind::Resolve => {
            head = format!("pub fn {name}(out: &mut [{s}], value: &[{s}], comp: &[{s}]) -> Result<(), {LENGTH_ERROR}>");
            d.push("The three slices must have one length (else nothing is written).".into());
            body.push("let n: usize = out.len();".into());
            for a in ["value", "comp"] {
                body.push(format!("if {a}.len() != n {{"));
                body.push(format!("    return Err({LENGTH_ERROR}::new(\"{a}\", {a}.len(), n));"));
                body.push("}".into());
            }
            body.extend(block(&kernels::resolve_body(model, k, &sp, &|a| Arr::param(a))));
            body.push("Ok(())".into());
        }
        KernelKind::Linalg { .. } => unreachable!("printed by linalg()"),
    }
    let mut out = doc(&d, "");
    out.push(format!("{head} {{"));
    out.extend(indent(body));
    out.push("}".into());
    out.push(String::new());
    out
}

/// A strided `lanes` kernel's loop in three parts: the elements before
/// lane 0 comes round, then whole rounds of one element per lane (element
/// base + k to lane k, over fixed-length chunks the compiler vectorises
/// across lanes), then the rest. Every lane still takes its elements in
/// ascending order, each by the same step, and the lanes are independent:
/// the bits of `kernels::lanes_body`'s one loop.
fn lanes_in_rounds(model: &Model, k: &Kernel, arrays: &[String], lanes: usize) -> Vec<String> {
    use kernels::{COUNT, ELEMENT, FIRST, LANES};
    let sp = RustSp;
    let elem = model.spec.types.iter().find(|t| t.name == k.elem).unwrap();
    let one = |element: &str, lane: &str, chunk: bool| {
        let arr = |a: &str| if chunk && a != LANES { Arr::param(&format!("{a}_round")) } else { Arr::param(a) };
        stmt::block(&sp, model, elem, &kernels::lanes_step(model, k, &sp, &arr, element, lane))
    };
    let mut out = vec![
        format!("let mut {ELEMENT}: usize = 0;"),
        format!("// The elements before lane 0 comes round."),
        format!("while {ELEMENT} < {COUNT} && ({FIRST} + {ELEMENT}) % {lanes} != 0 {{"),
    ];
    out.extend(indent(one(ELEMENT, &format!("({FIRST} + {ELEMENT}) % {lanes}"), false)));
    out.push(format!("    {ELEMENT} += 1;"));
    out.push("}".into());
    out.push(format!("// Whole rounds: element {ELEMENT} + k to lane k."));
    out.push(format!("while {COUNT} - {ELEMENT} >= {lanes} {{"));
    for a in arrays {
        out.push(format!("    let {a}_round: &[_; {lanes}] = match {a}[{ELEMENT}..{ELEMENT} + {lanes}].try_into() {{"));
        out.push("        Ok(r) => r,".into());
        out.push("        Err(_) => break,".into());
        out.push("    };".into());
    }
    out.push(format!("    for aether_k in 0..{lanes} {{"));
    out.extend(indent(indent(one("aether_k", "aether_k", true))));
    out.push("    }".into());
    out.push(format!("    {ELEMENT} += {lanes};"));
    out.push("}".into());
    out.push("// The rest.".into());
    out.push(format!("while {ELEMENT} < {COUNT} {{"));
    out.extend(indent(one(ELEMENT, &format!("({FIRST} + {ELEMENT}) % {lanes}"), false)));
    out.push(format!("    {ELEMENT} += 1;"));
    out.push("}".into());
    out
}

/// The per-lane linear algebra of one element type: the helpers of every
/// size over slices, the single form of every routine (the statement trees
/// of `shared::linalg`), and the many-lane form over slices of lanes.
fn linalg(model: &Model, lowered: &[Function], t: &ElemType) -> Vec<String> {
    let sp = RustSp;
    let mut out = Vec::new();
    let mut sizes = Vec::new();
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        if let KernelKind::Linalg { n, .. } = k.kind {
            if !sizes.contains(&n) {
                sizes.push(n);
                for f in crate::targets::shared::linalg::helper_funcs(model, lowered, t, n, &sp) {
                    out.push(format!("/// The per-lane linear algebra of {n}x{n} {} matrices on row-major slices: helper.", t.name));
                    out.extend(f.text(&sp, model, t));
                }
            }
        }
    }
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        let KernelKind::Linalg { routine, n, many } = k.kind else { continue };
        let ks = model.spec.kernel(&k.key).unwrap();
        if !many {
            let f = crate::targets::shared::linalg::single_func(model, k, &sp);
            out.extend(doc(std::slice::from_ref(&ks.doc), ""));
            out.push("#[inline]".into());
            out.extend(f.text(&sp, model, t));
            continue;
        }
        out.extend(many_lane(model, k, routine, n, t, &ks.doc));
    }
    out
}

/// The many-lane form of a routine: the single form on each lane of slices
/// of one length (pivots `n` per lane), after a check of the lengths.
fn many_lane(model: &Model, k: &Kernel, routine: Routine, n: usize, t: &ElemType, spec_doc: &str) -> Vec<String> {
    let s = scalar(t);
    let (m, v) = (type_name(model, &format!("mat{n}"), t), type_name(model, &format!("vec{n}"), t));
    let name = model.kernel_c_name(k);
    let single = name.trim_end_matches("_lanes").to_string();
    // (parameter, type, per-lane length) of every slice; the first sets the count.
    let ipiv = |konst: bool| ("ipiv", if konst { "&[i32]".to_string() } else { "&mut [i32]".to_string() }, n);
    let (slices, call): (Vec<(&str, String, usize)>, String) = match routine {
        Routine::Lu => (
            vec![("a", format!("&mut [{m}]"), 1), ipiv(false), ("info", "&mut [i32]".into(), 1)],
            format!("info[l] = {single}(&mut a[l], (&mut ipiv[l * {n}..l * {n} + {n}]).try_into().unwrap());"),
        ),
        Routine::LuSolve => (
            vec![("lu", format!("&[{m}]"), 1), ipiv(true), ("b", format!("&[{v}]"), 1), ("x", format!("&mut [{v}]"), 1)],
            format!("x[l] = {single}(&lu[l], (&ipiv[l * {n}..l * {n} + {n}]).try_into().unwrap(), b[l]);"),
        ),
        Routine::SolveLower | Routine::SolveLowerUnit | Routine::SolveUpper | Routine::SolveUpperUnit | Routine::CholeskySolve => (
            vec![("a", format!("&[{m}]"), 1), ("b", format!("&[{v}]"), 1), ("x", format!("&mut [{v}]"), 1)],
            format!("x[l] = {single}(a[l], b[l]);"),
        ),
        Routine::DetLu => (vec![("a", format!("&[{m}]"), 1), ("d", format!("&mut [{s}]"), 1)], format!("d[l] = {single}(a[l]);")),
        Routine::Inverse => (
            vec![("a", format!("&[{m}]"), 1), ("inv", format!("&mut [{m}]"), 1), ("info", "&mut [i32]".into(), 1)],
            format!("info[l] = {single}(a[l], &mut inv[l]);"),
        ),
        Routine::Cholesky => {
            (vec![("a", format!("&mut [{m}]"), 1), ("info", "&mut [i32]".into(), 1)], format!("info[l] = {single}(&mut a[l]);"))
        }
        Routine::Eigh => (
            vec![("a", format!("&[{m}]"), 1), ("w", format!("&mut [{v}]"), 1), ("vecs", format!("&mut [{m}]"), 1)],
            format!("{single}(a[l], &mut w[l], &mut vecs[l]);"),
        ),
    };
    let mut out = doc(
        &[
            spec_doc.to_string(),
            String::new(),
            format!(
                "Many lanes: [`{single}`] on each lane l (the l-th element of every slice, pivots ipiv[l*{n}..l*{n}+{n}]); every lane gives the bits of the single form. The slices must hold the same number of lanes (else nothing is written)."
            ),
        ],
        "",
    );
    let ps: Vec<String> = slices.iter().map(|(p, ty, _)| format!("{p}: {ty}")).collect();
    out.push(format!("pub fn {name}({}) -> Result<(), {LENGTH_ERROR}> {{", ps.join(", ")));
    out.push(format!("    let count: usize = {}.len();", slices[0].0));
    for (p, _, per) in &slices[1..] {
        let want = if *per == 1 { "count".to_string() } else { format!("count * {per}") };
        out.push(format!("    if {p}.len() != {want} {{"));
        out.push(format!("        return Err({LENGTH_ERROR}::new(\"{p}\", {p}.len(), {want}));"));
        out.push("    }".into());
    }
    out.push("    for l in 0..count {".into());
    out.push(format!("        {call}"));
    out.push("    }".into());
    out.push("    Ok(())".into());
    out.push("}".into());
    out.push(String::new());
    out
}

/// The generated module: structs, helpers, functions, methods and
/// operators, kernels and linear algebra, in the spec's element types.
pub fn contract_source(model: &Model, lowered: &[Function], banner: &str) -> String {
    let mut out: Vec<String> = rust_banner(banner).lines().map(String::from).collect();
    out.push(String::new());
    out.push("// The functions of the contract (included by lib.rs, which has the crate's docs).".into());
    out.push(String::new());
    out.push("use crate::sqrt::{aether_sqrt_f32, aether_sqrt_f64};".into());
    out.push("use crate::LengthError;".into());
    out.push(String::new());
    for t in &model.spec.types {
        out.extend(structs(model, t));
    }
    for t in &model.spec.types {
        out.extend(helpers(t));
    }
    for f in lowered {
        out.extend(function(model, f));
    }
    for t in &model.spec.types {
        out.extend(methods(model, lowered, t));
    }
    for k in &model.kernels {
        if !matches!(k.kind, KernelKind::Linalg { .. }) {
            out.extend(kernel(model, k));
        }
    }
    for t in &model.spec.types {
        out.extend(linalg(model, lowered, t));
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

impl Target for Rust {
    fn name(&self) -> &'static str {
        "rust"
    }

    fn folder(&self) -> &'static str {
        "rust_core"
    }

    fn exactness(&self) -> Exactness {
        Exactness::Bits
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { f64: true, i64: true, pointers: true, compute: false }
    }

    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
        let witnesses = crate::selftest::witnesses(model, &|name| corpus.iter().find(|f| f.c_name == name).map(|f| f.cases.clone()));
        crate_files(model, &model.lowered(), banner, &witnesses)
    }
}

/// The do-not-edit banner as Rust line comments (rustfmt re-indents a block
/// comment's lines).
pub fn rust_banner(banner: &str) -> String {
    let text = banner.trim().trim_start_matches("/*").trim_end_matches("*/");
    text.lines().map(|l| format!("// {}", l.trim()).trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

/// Every file of the crate for the given lowered functions (the model's own,
/// or a mutant's), the self-test replaying `witnesses` (chosen from the
/// model's own corpus, so a mutant's crate fails them).
pub fn crate_files(
    model: &Model,
    lowered: &[Function],
    banner: &str,
    witnesses: &[crate::selftest::Witness],
) -> Result<Vec<Output>, Error> {
    let hash = |s: &str| s.lines().map(|l| format!("# {l}").trim_end().to_string()).collect::<Vec<_>>().join("\n");
    let ctx = minijinja::context! {
        banner_hash => hash(banner),
        banner_rs => rust_banner(banner),
        banner_md => banner.trim_end(),
        krate => CRATE,
        version => model.spec.version,
        contract_id => crate::selftest::contract_id(model),
        types => model.spec.types.iter().map(|t| scalar(t)).collect::<Vec<_>>(),
        functions => lowered.len(),
        kernels => model.kernels.len(),
    };
    let sqrt = format!("{}\n\n{}", rust_banner(banner), SQRT_RS);
    let ulp = format!("{}\n\n{}", rust_banner(banner), ULP_RS);
    Ok(vec![
        Output::new("rust_core/Cargo.toml", crate::targets::render("rust/Cargo.toml.j2", CARGO_TOML, &ctx)?),
        Output::new("rust_core/README.md", crate::targets::render("rust/README.md.j2", README, &ctx)?),
        Output::new("rust_core/src/lib.rs", crate::targets::render("rust/lib.rs.j2", LIB_RS, &ctx)?),
        Output::new("rust_core/src/contract.rs", contract_source(model, lowered, banner)),
        Output::new("rust_core/src/batch.rs", batch::source(model, lowered, &rust_banner(banner))),
        Output::new("rust_core/src/sqrt.rs", sqrt),
        Output::new("rust_core/src/ulp.rs", ulp),
        Output::new("rust_core/src/interop.rs", interop::source(model, &rust_banner(banner))),
        Output::new("rust_core/src/selftest.rs", selftest::source(model, &rust_banner(banner), witnesses)),
        Output::new("rust_core/src/predicate.rs", predicates::source(model, &rust_banner(banner))),
        Output::new("rust_core/check/flat.rs", flat::source(model, lowered, banner)),
        // The project's license texts, as they are (a license file carries no banner).
        Output::new("rust_core/LICENSE-MIT", LICENSE_MIT),
        Output::new("rust_core/LICENSE-APACHE", LICENSE_APACHE),
    ])
}
