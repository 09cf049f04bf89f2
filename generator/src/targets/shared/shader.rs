//! What the structured shader languages share (WGSL today; GLSL ES next):
//! the callables a core without binary64 has, its functions and structs as
//! plain data for a template, the per-lane linear algebra's functions
//! printed through the target's `Statements`, and the plan of the 32-slot
//! butterfly (the rounds and the combine), which each language spells.

use serde::Serialize;

use crate::model::{Callable, Kernel, KernelKind, Model};
use crate::spec::ElemType;
use crate::targets::shared::stmt::{self, Statements};

/// A struct of a shape, for a template.
#[derive(Debug, Serialize)]
pub struct ShaderStruct {
    pub name: String,
    pub doc: String,
    pub fields: Vec<String>,
    /// Bytes: 4 per word (scalar members only, so the C core's layout).
    pub size: usize,
}

/// A function, for a template.
#[derive(Debug, Serialize)]
pub struct ShaderFunction {
    pub name: String,
    pub doc: Vec<String>,
    pub signature: String,
    pub body: Vec<String>,
}

/// The element type a core without binary64 prints: the spec's 32-bit type.
pub fn f32_type(model: &Model) -> Option<&ElemType> {
    model.spec.types.iter().find(|t| t.bits == 32)
}

/// The callables of a core in the 32-bit type: its functions and the
/// kernels a compute shader runs (the butterfly, the array sums, the
/// per-lane linear algebra, the lanes, plane and resolve steps).
pub fn callables(model: &Model) -> Vec<Callable<'_>> {
    let Some(t) = f32_type(model) else { return Vec::new() };
    model
        .callables()
        .into_iter()
        .filter(|c| match c {
            Callable::Function(f) => f.elem == t.name,
            Callable::Kernel(k) => {
                k.elem == t.name
                    && matches!(
                        k.kind,
                        KernelKind::Butterfly
                            | KernelKind::Array { .. }
                            | KernelKind::Linalg { .. }
                            | KernelKind::Lanes { .. }
                            | KernelKind::Plane { .. }
                            | KernelKind::Resolve
                    )
            }
        })
        .collect()
}

/// The per-lane linear algebra in one element type: the helpers of every
/// size a kernel uses, then the single form of every routine, from the
/// statement trees of `shared::linalg`, spelled by `sp`.
pub fn linalg_functions(model: &Model, lowered: &[crate::model::Function], t: &ElemType, sp: &dyn Statements) -> Vec<ShaderFunction> {
    let mut out = Vec::new();
    let mut sizes = Vec::new();
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        if let KernelKind::Linalg { n, .. } = k.kind {
            if !sizes.contains(&n) {
                sizes.push(n);
                for f in crate::targets::shared::linalg::helper_funcs(model, lowered, t, n, sp) {
                    out.push(ShaderFunction {
                        name: f.name.clone(),
                        doc: vec![format!(
                            "The per-lane linear algebra of {n}x{n} {} matrices on row-major arrays ([rules.linalg]): helper.",
                            t.name
                        )],
                        signature: f.head(sp, model, t),
                        body: stmt::block(sp, model, t, &f.body),
                    });
                }
            }
        }
    }
    for k in model.kernels.iter().filter(|k| k.elem == t.name) {
        if let KernelKind::Linalg { many: false, .. } = k.kind {
            let f = crate::targets::shared::linalg::single_func(model, k, sp);
            let ks = model.spec.kernel(&k.key).unwrap();
            out.push(ShaderFunction {
                name: f.name.clone(),
                doc: vec![ks.doc.clone()],
                signature: f.head(sp, model, t),
                body: stmt::block(sp, model, t, &f.body),
            });
        }
    }
    out
}

/// The 32-slot butterfly of an element type, as a language spells it: the
/// kernel, its name, the pair's type, the combine function, the lane count
/// and the rounds (each `v[i] = combine(v[i], v[i ^ r])`).
#[derive(Debug, Clone)]
pub struct Butterfly {
    pub kernel: Kernel,
    pub name: String,
    pub doc: String,
    pub pair: String,
    pub combine: String,
    pub lanes: usize,
    pub rounds: Vec<usize>,
}

/// The butterfly kernel of `t`, with the pair's type named by `type_name`.
pub fn butterfly(model: &Model, t: &ElemType, type_name: &dyn Fn(&str) -> String) -> Option<Butterfly> {
    let k = model.kernels.iter().find(|k| k.kind == KernelKind::Butterfly && k.elem == t.name)?.clone();
    let red = model.spec.reduction.as_ref()?;
    let combine = model.functions.iter().find(|f| f.family == red.combine && f.elem == t.name).map(|f| model.c_name(f))?;
    let name = model.kernel_c_name(&k);
    let doc = model.spec.kernel(&k.key).unwrap().doc.clone();
    Some(Butterfly { kernel: k, name, doc, pair: type_name(&red.pair), combine, lanes: red.lanes, rounds: red.rounds.clone() })
}
