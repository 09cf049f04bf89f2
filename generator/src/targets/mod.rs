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
pub mod opencl;
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

/// A language core beside `c_core`.
pub trait Target {
    fn name(&self) -> &'static str;
    /// The folder the target owns (`c_core`, `cuda_core`): every file in it
    /// is generated, and `--check` names any other as an orphan.
    fn folder(&self) -> &'static str;
    /// Every file of the target; `banner` is the do-not-edit comment, and
    /// `corpus` the reference corpus (the self-test's witnesses come from it).
    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error>;
    /// Refuses a spec this target cannot print, naming the spec line and key,
    /// before anything is evaluated or rendered (`Model::build` calls it).
    fn validate(&self, _model: &Model) -> Result<(), SpecError> {
        Ok(())
    }
}

/// Every target the generator writes.
pub fn registry() -> Vec<Box<dyn Target>> {
    vec![Box::new(c::C), Box::new(cuda::Cuda), Box::new(wgsl::WgslTarget), Box::new(opencl::OpenCl)]
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
