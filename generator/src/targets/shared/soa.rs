//! The batches over structure-of-arrays data, one model for the CUDA and
//! OpenCL targets: which arrays a batch takes (one per parameter and
//! result, every component of item i of n at `[c * n + i]`), and the body
//! that runs item i (loads, the core's call, stores). Each target wraps the
//! body in its own kernel (CUDA's grid-stride loop and C launcher, OpenCL's
//! `__kernel` over `__global` arrays) and declares the arrays in its own
//! address spaces (`SoaArray::param`).
//!
//! A function's arrays are named after its parameters, so every other name
//! of a batch is `aether_...` (which no spec name is): the item [`INDEX`]
//! and [`COUNT`], the result array [`OUT`], the values `aether_v_<param>`.

use serde::Serialize;

use crate::model::{Function, Kernel, KernelKind, Kind, Model};
use crate::spec::{ElemType, Routine, ShapeKind};
use crate::targets::shared::c_family as c;

/// One array of a batch: `per_item` elements of `c_type` per item;
/// `diag` > 0 for an n x n matrix whose diagonal a benchmark makes dominant
/// (so every factorisation runs to its end).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SoaArray {
    pub c_type: String,
    pub name: String,
    pub input: bool,
    pub per_item: usize,
    pub diag: usize,
}

impl SoaArray {
    fn new(c_type: &str, name: &str, per_item: usize, input: bool, diag: usize) -> Self {
        SoaArray { c_type: c_type.to_string(), name: name.to_string(), input, per_item, diag }
    }

    /// The parameter, in address space `space` (`""`, or `"__global "`).
    pub fn param(&self, space: &str) -> String {
        format!("{space}{}{} *{}", if self.input { "const " } else { "" }, self.c_type, self.name)
    }
}

/// The item index of every batch (C, CUDA, OpenCL).
pub const INDEX: &str = "aether_i";
/// The item count of every batch.
pub const COUNT: &str = "aether_n";
/// A function batch's result array.
pub const OUT: &str = "aether_out";

/// The value of parameter `p` of one item.
pub fn value_of(p: &str) -> String {
    format!("aether_v_{p}")
}

/// What a batch computes per item.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub enum SoaWhat {
    /// The function, the arrays its parameters then [`OUT`].
    Function,
    /// The factorisation (`lu` or `cholesky` of mat{n}) then its solve:
    /// arrays a, b, x and info (the factorisation's result).
    Solve { lu: bool, n: usize },
}

/// One batch.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SoaBatch {
    /// `<callable>_batch`.
    pub name: String,
    /// The callable's C name without `aether_` (kernel names are built on it).
    pub short: String,
    /// The function's (or the solve's) C name, family, shape and element type.
    pub callable: String,
    pub family: String,
    pub shape: String,
    pub elem: String,
    pub bits: u32,
    pub doc: String,
    pub arrays: Vec<SoaArray>,
    /// The statements for item [`INDEX`] of [`COUNT`].
    pub body: Vec<String>,
    pub is_float: bool,
    /// The policy's +0/-0 grant (fmin, fmax, ...).
    pub either_zero: bool,
    pub what: SoaWhat,
    /// For a solve: the factorisation's family (the reference's name for it).
    pub factor_family: String,
}

pub const SOA_DOC: &str = "Structure of arrays: component c of item i of every array at [c * aether_n + i] (a matrix's component \
                           r * cols + c is element (r, c)).";

fn elem<'a>(model: &'a Model, name: &str) -> &'a ElemType {
    model.spec.types.iter().find(|t| t.name == name).unwrap()
}

/// Loads value `var` (of `kind`, `words` components) of item [`INDEX`] from `arr`.
pub fn soa_load(kind: &ShapeKind, var: &str, arr: &str, words: usize) -> Vec<String> {
    if matches!(kind, ShapeKind::Scalar) {
        return vec![format!("{var} = {arr}[{INDEX}];")];
    }
    (0..words).map(|c| format!("{var}.{} = {arr}[{c}u * {COUNT} + {INDEX}];", c::component(kind, c))).collect()
}

/// Stores value `var` as item [`INDEX`] of `arr`.
pub fn soa_store(kind: &ShapeKind, var: &str, arr: &str, words: usize) -> Vec<String> {
    if matches!(kind, ShapeKind::Scalar) {
        return vec![format!("{arr}[{INDEX}] = {var};")];
    }
    (0..words).map(|c| format!("{arr}[{c}u * {COUNT} + {INDEX}] = {var}.{};", c::component(kind, c))).collect()
}

/// The batches both targets have, in the CUDA core's order: every function,
/// then the LU and Cholesky solves in kernel order.
pub fn batches(model: &Model, lowered: &[Function]) -> Vec<SoaBatch> {
    let mut out: Vec<SoaBatch> = lowered.iter().map(|f| function_batch(model, f)).collect();
    out.extend(model.kernels.iter().filter_map(|k| solve_batch(model, k)));
    out
}

/// aether_out[i] = f(item i of each parameter's array).
pub fn function_batch(model: &Model, f: &Function) -> SoaBatch {
    let t = elem(model, &f.elem);
    let name = model.c_name(f);
    let mut arrays = Vec::new();
    let mut body = Vec::new();
    for p in &f.params {
        let Kind::Shape(s) = &p.kind else { unreachable!("no parameter is a truth value") };
        arrays.push(SoaArray::new(&t.c_type, &p.name, p.kind.words(), true, 0));
        body.push(format!("{} {};", c::type_name(model, &s.name, t), value_of(&p.name)));
        body.extend(soa_load(&s.kind, &value_of(&p.name), &p.name, p.kind.words()));
    }
    let call = format!("{name}({})", f.params.iter().map(|p| value_of(&p.name)).collect::<Vec<_>>().join(", "));
    match &f.ret {
        Kind::Bool => {
            arrays.push(SoaArray::new("int", OUT, 1, false, 0));
            body.push(format!("{OUT}[{INDEX}] = {call};"));
        }
        Kind::Shape(s) => {
            arrays.push(SoaArray::new(&t.c_type, OUT, f.ret.words(), false, 0));
            body.push(format!("const {} aether_result = {call};", c::type_name(model, &s.name, t)));
            body.extend(soa_store(&s.kind, "aether_result", OUT, f.ret.words()));
        }
    }
    SoaBatch {
        name: format!("{name}_batch"),
        short: name.trim_start_matches("aether_").to_string(),
        doc: format!("{OUT}[i] = {name}(...) for every item i < {COUNT}. {SOA_DOC}"),
        callable: name,
        family: f.family.clone(),
        shape: f.shape.clone(),
        elem: f.elem.clone(),
        bits: t.bits,
        arrays,
        body,
        is_float: !matches!(f.ret, Kind::Bool),
        either_zero: f.either_zero,
        what: SoaWhat::Function,
        factor_family: String::new(),
    }
}

/// The factorisation and solve of a single-problem LU or Cholesky solve
/// kernel; `None` for every other kernel.
pub fn solve_batch(model: &Model, k: &Kernel) -> Option<SoaBatch> {
    let (lu, n) = match k.kind {
        KernelKind::Linalg { routine: Routine::LuSolve, n, many: false } => (true, n),
        KernelKind::Linalg { routine: Routine::CholeskySolve, n, many: false } => (false, n),
        _ => return None,
    };
    let t = elem(model, &k.elem);
    let e = &t.c_type;
    let solve = model.kernel_c_name(k);
    let mat = c::type_name(model, &format!("mat{n}"), t);
    let vec = c::type_name(model, &format!("vec{n}"), t);
    let vec_kind = &model.spec.shape(&format!("vec{n}")).unwrap().kind;
    let mat_kind = &model.spec.shape(&format!("mat{n}")).unwrap().kind;
    let factor_routine = if lu { Routine::Lu } else { Routine::Cholesky };
    let factor_kernel = model
        .kernels
        .iter()
        .find(|x| {
            x.elem == k.elem && matches!(x.kind, KernelKind::Linalg { routine, n: m, many: false } if routine == factor_routine && m == n)
        })
        .expect("a solve comes with its factorisation");
    let factor = model.kernel_c_name(factor_kernel);
    let mut body = vec![format!("{mat} v_a;"), format!("{vec} v_b;"), format!("{vec} v_x;"), "int status;".into()];
    body.extend(soa_load(mat_kind, "v_a", "a", n * n));
    body.extend(soa_load(vec_kind, "v_b", "b", n));
    if lu {
        body.push(format!("int ipiv[{n}];"));
        body.push(format!("status = {factor}(&v_a, ipiv);"));
        body.push(format!("v_x = {solve}(&v_a, ipiv, v_b);"));
    } else {
        body.push(format!("status = {factor}(&v_a);"));
        body.push(format!("v_x = {solve}(v_a, v_b);"));
    }
    body.extend(soa_store(vec_kind, "v_x", "x", n));
    body.push(format!("info[{INDEX}] = status;"));
    let what = if lu { "LU with partial pivoting" } else { "Cholesky" };
    Some(SoaBatch {
        name: format!("{solve}_batch"),
        short: solve.trim_start_matches("aether_").to_string(),
        doc: format!(
            "Solves a x = b for every item i < {COUNT}: {factor} ({what}) of a, then {solve}; info[i] is {factor}'s result \
             (0, or the step that failed: x is then whatever the host sequence gives). {SOA_DOC}"
        ),
        callable: solve,
        family: k.name.clone(),
        shape: k.shape.clone(),
        elem: k.elem.clone(),
        bits: t.bits,
        arrays: vec![
            SoaArray::new(e, "a", n * n, true, n),
            SoaArray::new(e, "b", n, true, 0),
            SoaArray::new(e, "x", n, false, 0),
            SoaArray::new("int", "info", 1, false, 0),
        ],
        body,
        is_float: true,
        either_zero: false,
        what: SoaWhat::Solve { lu, n },
        factor_family: factor_kernel.name.clone(),
    })
}
