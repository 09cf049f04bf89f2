//! The WGSL core: `wgsl_core/aether_core.wgsl` (every f32 function), and the
//! check module the runner dispatches (one compute entry point per callable
//! over flat words).
//!
//! INTERFACE STUB: the printer is being written; the types and the binding
//! convention below are fixed.
//!
//! The check module's bindings, shared by every entry point:
//!   @group(0) @binding(0) var<storage, read> aether_in: array<u32>;
//!   @group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;
//!   @group(0) @binding(2) var<uniform> aether_params: vec4<u32>;
//! params.x = the number of cases in the buffers, params.y = 0 (the opaque
//! zero of the guard), params.z = 0x3f800000 (the bits of 1.0, for the
//! opaque-one control), params.w = the first case of this dispatch. Case i
//! reads words [i*n_in, (i+1)*n_in) of aether_in and writes [i*n_out,
//! (i+1)*n_out) of aether_out. An entry with `cases_per_workgroup` ==
//! `workgroup_size` runs one case per invocation (case = params.w +
//! global_invocation_id.x); one with `cases_per_workgroup` == 1 runs one case
//! per workgroup (case = params.w + workgroup_id.x), its invocations
//! cooperating. A dispatch has at most 65535 workgroups in x.

use crate::model::{Function, Model};

/// How the compensated helpers keep their error terms from being folded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// The core's guard: the bits XORed with a zero the compiler cannot see.
    Bits,
    /// The df64 literature's guard: a multiplication by an opaque 1.0 (a
    /// negative control: insufficient on lavapipe).
    OpaqueOne,
    /// No guard (a negative control: the residual is folded on lavapipe).
    None,
}

/// One entry point of the check module.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckEntry {
    pub entry: String,
    /// The callable's C name (the corpus key).
    pub c_name: String,
    /// The reference keys.
    pub family: String,
    pub shape: String,
    pub elem: String,
    pub n_in: usize,
    pub n_out: usize,
    pub workgroup_size: u32,
    pub cases_per_workgroup: u32,
}

/// A WGSL module with one entry point per checked callable.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckModule {
    pub source: String,
    pub entries: Vec<CheckEntry>,
}

/// The check module of the given lowered functions (the model's own, or a
/// mutant's) with the given guard.
pub fn check_module(model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
    let _ = (model, lowered, guard);
    CheckModule { source: String::new(), entries: Vec::new() }
}
