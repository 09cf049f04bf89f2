//! What a GPU runner dispatches: the entry points of a check module (each
//! one callable's words in and out) and the module's source, and the guard
//! that keeps the compensated helpers' error terms from being folded. The
//! WGSL core, its df64 layer and the integer predicates' WGSL module build
//! them; the OpenCL check program's entries are of the same kind.

use crate::model::Function;

/// The work-group size of a function's check entry point.
pub const CHECK_WG: u32 = 64;

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
    /// Every input word is a plain float and the counts are fixed: random
    /// inputs suit the entry (not so for counts, indices or lane numbers).
    pub random: bool,
    /// At most this many random inputs, whatever the run asks for (the
    /// expensive entries: the linear algebra, the per-invocation kernels
    /// over arrays); None for no limit.
    pub max_random: Option<usize>,
}

impl CheckEntry {
    /// The entry of a function: one case per invocation in workgroups of
    /// `CHECK_WG`, random inputs when it has any.
    pub fn of_function(entry: String, c_name: String, f: &Function, n_in: usize, n_out: usize) -> CheckEntry {
        CheckEntry {
            entry,
            c_name,
            family: f.family.clone(),
            shape: f.shape.clone(),
            elem: f.elem.clone(),
            n_in,
            n_out,
            workgroup_size: CHECK_WG,
            cases_per_workgroup: CHECK_WG,
            random: n_in > 0,
            max_random: None,
        }
    }
}

/// A WGSL module with one entry point per checked callable.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckModule {
    pub source: String,
    pub entries: Vec<CheckEntry>,
}
