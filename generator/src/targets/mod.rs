//! Language targets. Each renders the model into the files of its core
//! folder; `registry` is the one list of targets.

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use crate::corpus::FunctionCases;
use crate::error::{Error, SpecError};
use crate::model::Model;

// One folder per language target; `shared` holds what several targets
// print through and imports no target (tests/layout.rs checks both).
pub mod c;
pub mod cuda;
pub mod glsl;
pub mod hip;
pub mod opencl;
pub mod rust;
pub mod shared;
pub mod wgsl;

/// A generated file, with its path relative to the repository root.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub path: String,
    pub contents: String,
}

impl Output {
    pub fn new(path: impl Into<String>, contents: impl Into<String>) -> Self {
        Output { path: path.into(), contents: contents.into() }
    }
}

/// What a target's language has, which the shared layers key on instead
/// of target names: df64 is for a target without binary64, the integer
/// predicates carry an i64 in two limbs where there is no 64-bit integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// binary64 arithmetic (`double`, `f64`).
    pub f64: bool,
    /// 64-bit integers.
    pub i64: bool,
    /// Pointers a function can take (a C pointer; WGSL's `ptr` is limited to
    /// function and private storage and counts as none).
    pub pointers: bool,
    /// Compute kernels launched over a grid (CUDA, OpenCL, a WebGPU compute
    /// shader); the C core runs on the host.
    pub compute: bool,
}

/// Whether a target gives the reference's bits, or states its tolerances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exactness {
    /// Every function bit for bit (the C family on a conforming device).
    Bits,
    /// Within the spec's `[bands.<key>]` table, which the spec must state.
    Bands(&'static str),
}

/// A language core beside `c_core`. A target is the folder
/// `generator/src/targets/<name>/`: its `Target` impl, its spelling, its
/// options and checks, and its keywords (`keywords.txt`).
pub trait Target {
    fn name(&self) -> &'static str;
    /// The language's keywords and the names its core calls in a body
    /// (`targets/<name>/keywords.txt`): a spec's local names must avoid them.
    fn keywords(&self) -> Vec<&'static str> {
        crate::names::keywords(self.name())
    }
    /// Whether the target is bit-exact or banded (and by which table).
    fn exactness(&self) -> Exactness;
    /// Band tables the target also reads, for a device class it serves
    /// (OpenCL's `opencl_relaxed`: a device without correctly rounded f32
    /// division and sqrt, which its runner judges by that table); the spec
    /// must state each.
    fn device_bands(&self) -> &'static [&'static str] {
        &[]
    }
    fn capabilities(&self) -> Capabilities;
    /// The callables the target's core has (every one of the model, by
    /// default): a banded target's table must give each a metric.
    fn callables<'m>(&self, model: &'m Model) -> Vec<crate::model::Callable<'m>> {
        model.callables()
    }
    /// The target's section of the contract doc (`docs/numerics-contract.md`,
    /// in registry order after the fingerprint): what it promises beyond the
    /// C core's bits, such as its band table. None for a bit-exact target
    /// with nothing to add.
    fn contract_doc(&self, _model: &Model) -> Result<Option<String>, Error> {
        Ok(None)
    }
    /// The audit of the df64 source this target prints (a target that
    /// `prints_df64`): its loaded-low-word wrapping, for the contract doc.
    fn df64_audit(&self, _model: &Model) -> Option<crate::df64::Audit> {
        None
    }
    /// Whether the target prints the df64 layer (`[df64] targets` may name
    /// it); such a target lacks binary64.
    fn prints_df64(&self) -> bool {
        false
    }
    /// The folder the target owns (`c_core`, `cuda_core`): every file in it
    /// is generated, and `--check` names any other as an orphan.
    fn folder(&self) -> &'static str;
    /// Every file of the target; `banner` is the do-not-edit comment, and
    /// `corpus` the reference corpus (the self-test's witnesses come from it).
    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error>;
    /// Refuses a spec this target cannot print, naming the spec line and key,
    /// before anything is evaluated or rendered (`aether_generator::model`
    /// calls it).
    fn validate(&self, _model: &Model) -> Result<(), SpecError> {
        Ok(())
    }
}

/// Every target the generator writes.
pub fn registry() -> Vec<Box<dyn Target>> {
    vec![
        Box::new(c::C),
        Box::new(cuda::Cuda),
        Box::new(wgsl::WgslTarget),
        Box::new(opencl::OpenCl),
        Box::new(rust::Rust),
        Box::new(glsl::GlslTarget),
        Box::new(hip::Hip),
    ]
}

/// Checks the spec's per-target tables against the registry's facts: each
/// `[bands.<key>]` is a key some target reads, each banded target has its
/// table and the table gives each of the target's callables a metric its
/// tree allows (`bands::check`), and each `[df64] targets` entry is a target that prints df64 and
/// lacks binary64. Each error names the spec line and key.
pub fn check_facts(model: &Model) -> Result<(), SpecError> {
    let spec = &model.spec;
    let registry = registry();
    let err = |line: usize, key: String, message: String| SpecError { file: crate::SPEC_PATH.into(), line, key, message };
    let mut keys: Vec<&str> = Vec::new();
    for t in &registry {
        if let Exactness::Bands(k) = t.exactness() {
            keys.push(k);
        }
        keys.extend(t.device_bands());
    }
    for b in &spec.bands {
        if !keys.contains(&b.target.as_str()) {
            let message = format!("unknown target `{}` (bands are stated for: {})", b.target, keys.join(", "));
            return Err(err(b.line, format!("bands.{}", b.target), message));
        }
    }
    let missing = |k: &str, why: String| -> Result<(), SpecError> {
        if spec.bands.iter().any(|b| b.target == k) {
            return Ok(());
        }
        let line = spec.bands.first().map_or(1, |b| b.line);
        Err(err(line, format!("bands.{k}"), format!("{why}: the spec must state its band table `[bands.{k}]`")))
    };
    for t in &registry {
        for k in t.device_bands() {
            missing(k, format!("target `{}` judges a class of device by `{k}`", t.name()))?;
        }
        if let Exactness::Bands(k) = t.exactness() {
            missing(k, format!("target `{}` is not bit-exact", t.name()))?;
            // Every callable the target prints has a metric, each one that
            // its tree allows.
            crate::bands::check(model, k, &t.callables(model))?;
        }
    }
    if let Some(d) = &spec.df64 {
        let printers: Vec<&str> = registry.iter().filter(|t| t.prints_df64() && !t.capabilities().f64).map(|t| t.name()).collect();
        for (name, line) in d.targets.iter().zip(&d.target_lines) {
            if !printers.contains(&name.as_str()) {
                let message = format!("`{name}`: df64 is printed by the targets without binary64 that print it ({})", printers.join(", "));
                return Err(err(*line, "df64.targets".into(), message));
            }
        }
        // And the other way: a target that prints df64 is listed, so that the spec's list is
        // the whole truth (`targets = []` was accepted while WGSL and GLSL went on printing it).
        if let Some(unlisted) = printers.iter().find(|p| !d.targets.iter().any(|t| t == *p)) {
            let message = format!(
                "`{unlisted}` prints df64 (the f64 functions on a target without binary64) but is not listed; list every such target ({})",
                printers.join(", ")
            );
            return Err(err(d.targets_line, "df64.targets".into(), message));
        }
    }
    Ok(())
}

/// Renders a template in strict mode: an undefined name is an error.
pub fn render(name: &str, source: &str, ctx: &impl Serialize) -> Result<String, Error> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    let err = |e: minijinja::Error| Error::Template { template: name.to_string(), message: format!("{e:#}") };
    env.add_template(name, source).map_err(err)?;
    env.get_template(name).map_err(err)?.render(ctx).map_err(err)
}
