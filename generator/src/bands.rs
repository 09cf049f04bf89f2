//! What a target that is not bit-exact may return: each function's metric
//! and band on the WGSL target, derived from the model's trees and WGSL's
//! accuracy rules, and the one judgement every checker of such a target
//! applies to a result (the runner's report counts these).
//!
//! INTERFACE STUB: the derivation is being written; `judge` compares bits
//! under the policy only until then.

use crate::model::{Callable, Model};

/// How a result is measured against the reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Metric {
    /// The same bits (under the comparison policy).
    Bits,
    /// At most `max` units in the last place of the element type from the
    /// reference's result, counted on the ordered integer mapping.
    Ulp { max: f64 },
    /// |computed - exact| <= factor * eps * (sum of |terms|), eps = 2^-23
    /// for f32: where a ULP count is meaningless (cancellation).
    Forward { factor: f64 },
}

/// One callable's band on a target: per result word.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub metrics: Vec<Metric>,
}

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// Inputs, result and intermediates inside the domain the target
    /// promises (finite, no subnormal, no -0 whose sign matters).
    pub in_domain: bool,
    /// Every result word matches the reference under the policy.
    pub identical: bool,
    /// The worst ULP distance over the result words (0 when identical).
    pub ulp: f64,
    /// The worst forward-error factor over the result words, where the
    /// metric is `Forward` (0 otherwise).
    pub factor: f64,
    /// Every result word is within its band.
    pub within: bool,
}

/// The band of a callable on the WGSL target.
pub fn band(model: &Model, c: Callable) -> Band {
    let words = c.fixed_words().map(|(_, o)| o).unwrap_or(1);
    let _ = model;
    Band { metrics: vec![Metric::Bits; words] }
}

/// Judges one case: `inputs` and `got` are the target's words (an f32 in the
/// low 32 bits), `expected` the reference's.
pub fn judge(model: &Model, c: Callable, band: &Band, inputs: &[u64], expected: &[u64], got: &[u64]) -> Judgement {
    let _ = (model, band, inputs);
    let w = if c.elem() == "f32" { 32 } else { 64 };
    let identical = crate::policy::matches(expected, got, w, c.is_float(), c.either_zero());
    Judgement { in_domain: true, identical, ulp: 0.0, factor: 0.0, within: identical }
}
